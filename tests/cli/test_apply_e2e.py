"""End to end: the cmdsync CLI against the emulator as a real server on loopback.

What the issue's "Done when" asks: every clean corpus file and the examples
apply, then plan shows no changes and a second apply makes zero write
requests (the emulator's request log); a rename keeps its id and gets its
overwrites back; a stale saved plan is refused; a failure injected mid-apply
leaves an accurate report and a re-run converges; restoring the backup
brings back the previous state exactly. Tokens come from the environment,
as in CI, and never show in any output or file cmdsync writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.cli import main
from tests.support import paths
from tests.support.emulator import as_ci_would
from tests.support.plan import CLEAN_PARAMS, load_commands, sent_form

ROOT = paths.ROOT
CORPUS = paths.CORPUS / "command-files"
APP = "111111111111111111"
GUILD = "222222222222222222"
STAFF = "444444444444444444"  # large-bot.yaml's default staff guild
BOT_TOKEN, USER_TOKEN = "e2e-bot-s3cret", "e2e-user-s3cret"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "flags": ["embedded"], "entry_point": False,
                      "integration_types": ["guild_install", "user_install"],
                      "bot_token": BOT_TOKEN, "client_secret": "e2e-client-s3cret"}],
    "guilds": [{"id": GUILD}, {"id": STAFF}],
    "users": [{"id": "333333333333333333", "application_id": APP, "bearer_token": USER_TOKEN,
               "scopes": ["applications.commands.permissions.update"],
               "guilds": [GUILD, STAFF]}],
}


def clean_command_files() -> list[Any]:
    """The corpus files Discord would accept as they are (test_corpus's verdicts)."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=paths.NO_CORPUS))]
    from tests.support.corpus import COMMAND_FILES

    return [pytest.param(CORPUS / name, id=name.split("__")[1])
            for name, verdict in sorted(COMMAND_FILES.items()) if verdict.valid]


@pytest.fixture
def admin(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> httpx.Client:
    """A fresh emulator state, the environment CI would set, and the admin API."""
    return as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_APPLICATION_ID": APP, "DISCORD_BOT_TOKEN": BOT_TOKEN,
        "DISCORD_BEARER_TOKEN": USER_TOKEN})


def cmdsync(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    assert not any(secret in out + err for secret in (BOT_TOKEN, USER_TOKEN))
    return int(exited.value.code or 0), out, err


def writes(admin: httpx.Client) -> int:
    return int(admin.get("/log").json()["counts"]["writes"])


def converges(capsys: pytest.CaptureFixture[str], admin: httpx.Client, *paths: str) -> None:
    """apply, then plan shows no changes, then a second apply writes nothing."""
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", *paths)
    assert code == 0, out + err
    assert cmdsync(capsys, "plan", "--detailed-exitcode", *paths)[:2] == (
        0, "No changes. Live commands match the manifest.\n")
    admin.delete("/log")
    assert cmdsync(capsys, "apply", "--auto-approve", *paths)[:2] == (0, (
        "No changes. Live commands match the manifest.\n"
        "Nothing to apply: no write requests were made.\n"))
    assert writes(admin) == 0
    for path in Path(".cmdsync").rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert BOT_TOKEN not in text and USER_TOKEN not in text


@pytest.mark.parametrize("path", clean_command_files())
def test_clean_corpus_command_file(path: Path, capsys: pytest.CaptureFixture[str],
                                   admin: httpx.Client) -> None:
    converges(capsys, admin, str(path))


@pytest.mark.parametrize("path", CLEAN_PARAMS)
def test_clean_corpus_live_response(path: Path, capsys: pytest.CaptureFixture[str],
                                    admin: httpx.Client, tmp_path: Path) -> None:
    manifest = tmp_path / "commands.json"
    manifest.write_text(json.dumps([sent_form(c) for c in load_commands(path)]),
                        encoding="utf-8")
    converges(capsys, admin, str(manifest))


def test_examples(capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    converges(capsys, admin, str(ROOT / "examples"))
    converges(capsys, admin, str(ROOT / "examples" / "quickstart.yaml"))


MANIFEST = f"""\
commands:
  - {{name: ping, description: Ping}}
  - {{type: user, name: Profile}}
guilds:
  "{GUILD}":
    commands:
      - {{name: mod, description: Moderation}}
    permissions:
      mod: [{{type: role, id: everyone, permission: false}}]
"""


def live(admin: httpx.Client) -> list[tuple[str, str, str, int]]:
    """(scope, id, name, type) of every command, and the overwrites, from the admin API."""
    state = admin.get("/state").json()
    return sorted((c["guild_id"] or "global", c["id"], c["name"], c["type"])
                  for c in state["commands"])


def overwrites(admin: httpx.Client) -> list[Any]:
    return sorted(json.dumps(p, sort_keys=True) for p in admin.get("/state").json()
                  ["permissions"])


def test_rename_stale_plan_failure_and_restore(capsys: pytest.CaptureFixture[str],
                                               admin: httpx.Client) -> None:
    Path("bot.yaml").write_text(MANIFEST, encoding="utf-8")
    assert cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")[0] == 0
    before, before_overwrites = live(admin), overwrites(admin)
    mod = next(i for _, i, name, _ in before if name == "mod")

    # a rename keeps its id and its overwrites are restored
    Path("bot.yaml").write_text(MANIFEST.replace(
        "- {name: mod,", f'- {{id: "{mod}", name: moderate,').replace(
        "      mod: [", "      moderate: [").replace("  - {type: user, name: Profile}\n", ""),
        encoding="utf-8")
    assert cmdsync(capsys, "plan", "--out", "rename.json", "bot.yaml")[0] == 0
    assert cmdsync(capsys, "plan", "--out", "stale.json", "bot.yaml")[0] == 0
    code, out, err = cmdsync(capsys, "apply", "rename.json")
    assert (code, err) == (0, "")
    assert f'  ~ chat_input "moderate" (id {mod}, renamed from "mod"): updated\n' in out
    assert f'  ~ permissions of "moderate" (id {mod}): permissions set\n' in out
    assert [c for c in live(admin) if c[1] == mod] == [(GUILD, mod, "moderate", 1)]
    assert overwrites(admin) == before_overwrites
    backup = out.split("Backed up the live state of the changed scopes to ")[1].split("\n")[0]

    # a replayed saved plan (the same plan, applied already) is refused before any write;
    # applied from elsewhere (no apply history here), live state says it was applied
    admin.delete("/log")
    code, out, err = cmdsync(capsys, "apply", "stale.json")
    assert (code, out, writes(admin)) == (1, "", 0)
    assert f"  - guild {GUILD}: this plan was already applied there (" in err
    Path(".cmdsync/applied.json").unlink()
    code, out, err = cmdsync(capsys, "apply", "stale.json")
    assert (code, out, writes(admin)) == (1, "", 0)
    assert "error: the saved plan stale.json was applied already: live state holds" in err

    # a failure injected mid-apply: 4 creates a day per scope (admin config "limits");
    # global has used 2 today and makes 1 more, the guild has used 1 and wants 4 more
    extra = "".join(f"\n      - {{name: {n}, description: {n}}}" for n in "bcde")
    renamed = Path("bot.yaml").read_text(encoding="utf-8")
    Path("more.yaml").write_text(renamed.replace(
        "description: Ping}", "description: Ping}\n  - {name: a, description: A}").replace(
        "name: moderate, description: Moderation}",
        "name: moderate, description: Moderation}" + extra), encoding="utf-8")
    admin.put("/config", json={"limits": {"daily_creates": 4}}).raise_for_status()
    code, out, _ = cmdsync(capsys, "apply", "--auto-approve", "--strategy", "per-command",
                           "more.yaml")
    assert code == 1
    report = re.sub(r" \(id \d+\)", "", out.split("(restore it with")[1])
    assert report.split("\n", 2)[2] == (
        "global: applied (per command)\n"
        '  + chat_input "a": created\n'
        "\n"
        f"guild {GUILD}: failed (per command)\n"
        '  + chat_input "b": created\n'
        '  + chat_input "c": created\n'
        '  + chat_input "d": created\n'
        '  + chat_input "e": FAILED\n'
        f"  Error: POST /applications/{APP}/guilds/{GUILD}/commands: HTTP 400: Max number "
        "of daily application command creates has been reached (4) (code 30034)\n"
        "\n"
        "Apply failed: 4 created, 0 updated, 0 deleted, 0 permission sets changed; 1 change "
        "not applied; 5 write requests in " + report.rsplit(" in ", 1)[1])
    admin.put("/config", json={"limits": {"daily_creates": 200}}).raise_for_status()
    converges(capsys, admin, "more.yaml")

    # restoring the first backup brings back the state before the rename exactly
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", backup)
    assert code == 0, out + err
    restored = live(admin)
    profile = next(i for _, i, name, _ in before if name == "Profile")
    assert cmdsync(capsys, "plan", "--detailed-exitcode", backup)[:2] == (0, (
        f"Warning: global: user 'Profile' names id {profile}, which is not a live command of "
        "this scope: it will be created with a new id\n"  # deleted, so created again
        "\n"
        "No changes. Live commands match the manifest.\n"))
    assert [c for c in restored if c[2] != "Profile"] == [c for c in before
                                                          if c[2] != "Profile"]
    assert [c[2:] for c in restored if c[2] == "Profile"] == [("Profile", 2)]  # new id
    assert overwrites(admin) == before_overwrites
