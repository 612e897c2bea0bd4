"""Saved plans: nothing the credential at hand did not sign ever acts (issue 28, items 3-5).

Each test drives the real CLI against a served emulator. A saved plan
without a ``plan_hmac`` of the credential at hand (anyone can compute its
``plan_digest`` again after an edit) is planned again from its manifests and
applied only when that gives the same plan, every scope, action and
overwrite held; no code it names is imported.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.plan.planfile import plan_digest
from tests.support.cli import run_secretly
from tests.support.emulator import as_ci_would

APP = "111111111111111111"
GUILD = "222222222222222222"
OTHER = "444444444444444444"
BOT_TOKEN, USER_TOKEN = "trust-bot-s3cret", "trust-user-s3cret"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "name": "Trust Bot", "bot_token": BOT_TOKEN,
                      "client_secret": "trust-client-s3cret"}],
    "guilds": [{"id": GUILD}, {"id": OTHER}],
    "users": [{"id": "333333333333333333", "application_id": APP, "bearer_token": USER_TOKEN,
               "scopes": ["applications.commands.permissions.update"],
               "guilds": [GUILD, OTHER]}],
}
MANIFEST = f"""\
application_id: "{APP}"
commands:
  - {{name: alpha, description: A}}
  - {{name: beta, description: B}}
  - {{name: gamma, description: C}}
guilds:
  "{GUILD}":
    commands:
      - {{name: local, description: Guild only}}
      - {{type: message, name: Report}}
    permissions:
      local: [{{type: role, id: everyone, permission: false}}]
"""


@pytest.fixture
def admin(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> httpx.Client:
    """A fresh emulator state, the environment CI would set, the manifest written."""
    client = as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_BEARER_TOKEN": USER_TOKEN})
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return client


def cmdsync(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_secretly(capsys, (BOT_TOKEN, USER_TOKEN), *args)


def live(admin: httpx.Client) -> list[tuple[str, str, int]]:
    state = admin.get("/state").json()
    return sorted((c["guild_id"] or "global", c["name"], c["type"]) for c in state["commands"])


def writes(admin: httpx.Client) -> int:
    return int(admin.get("/log").json()["counts"]["writes"])


def saved_plan(capsys: pytest.CaptureFixture[str], path: str = "plan.json") -> dict[str, Any]:
    code, out, err = cmdsync(capsys, "plan", "bot.yaml", "--out", path)
    assert code == 0, out + err
    document: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return document


def forge(document: dict[str, Any], path: str = "plan.json") -> None:
    """``document`` written as an attacker would: no plan_hmac (nor serials, which would
    refuse a plan made before the last apply), plan_digest made again."""
    document.pop("plan_hmac", None)
    document.pop("serials", None)
    document["plan_digest"] = plan_digest(document)
    Path(path).write_text(json.dumps(document), encoding="utf-8")


def applied(capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")
    assert code == 0, out + err
    admin.delete("/log")


def test_an_unsigned_plan_of_deletes_deletes_nothing(capsys: pytest.CaptureFixture[str],
                                                      admin: httpx.Client) -> None:
    """A scope whose changes are all deletes, in a guild the manifests do not name (so no
    body of theirs is compared): refused, nothing deleted, no delete reported."""
    applied(capsys, admin)
    Path("other.yaml").write_text(
        f'application_id: "{APP}"\nguilds:\n  "{OTHER}":\n    commands:\n'
        '      - {name: theirs, description: T}\n'
        '      - {name: kept, description: K}\n', encoding="utf-8")
    assert cmdsync(capsys, "apply", "--auto-approve", "other.yaml")[0] == 0
    admin.delete("/log")
    before = live(admin)
    theirs = [c for c in admin.get("/state").json()["commands"] if c["guild_id"] == OTHER]
    document = saved_plan(capsys)
    document["scopes"].append({
        "scope": OTHER, "manages_commands": True, "prune": True, "creates": 0,
        "totals": {}, "caps": {}, "permissions": [],
        "live": [{"id": c["id"], "type": 1, "name": c["name"], "version": c["version"]}
                 for c in theirs],
        "commands": [{"action": "delete", "type": 1, "name": c["name"], "id": c["id"],
                      "version": c["version"], "renamed_from": None, "note": None,
                      "changes": [], "body": None} for c in theirs]})
    document["summary"].update(delete=2, has_changes=True)
    forge(document)
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 1, out + err
    assert "nothing was changed" in err
    assert f"  - guild {OTHER}: the plan names this scope, but the manifests do not" in err
    assert "deleted" not in out
    assert live(admin) == before and writes(admin) == 0


def test_an_unsigned_plan_cannot_add_a_scope_the_manifests_never_name(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """A scope marked ``manages_commands: false`` (so body checks skip it) that creates a
    command in another guild: refused, nothing created."""
    applied(capsys, admin)
    before = live(admin)
    document = saved_plan(capsys)
    body = {"name": "backdoor", "description": "Never declared", "type": 1}
    document["scopes"].append({
        "scope": OTHER, "manages_commands": False, "prune": False, "creates": 1,
        "totals": {}, "caps": {}, "permissions": [], "live": [],
        "commands": [{"action": "create", "type": 1, "name": "backdoor", "id": None,
                      "version": None, "renamed_from": None, "note": None, "changes": [],
                      "body": body}]})
    document["summary"].update(create=1, has_changes=True)
    forge(document)
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 1, out + err
    assert f"  - guild {OTHER}: the plan names this scope, but the manifests do not" in err
    assert live(admin) == before and writes(admin) == 0


def test_an_unsigned_plan_cannot_change_overwrites_the_manifests_keep(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    applied(capsys, admin)
    permissions = admin.get("/state").json()["permissions"]
    document = saved_plan(capsys)
    guild = next(s for s in document["scopes"] if s["scope"] == GUILD)
    local = next(c for c in guild["commands"] if c["name"] == "local")
    guild["permissions"].append({
        "action": "update", "key": "local", "target_id": local["id"],
        "command": {"scope": GUILD, "type": 1, "name": "local"},
        "before": [{"type": 1, "id": GUILD, "permission": False}],
        "after": [{"type": 1, "id": GUILD, "permission": True}], "reason": None})
    document["summary"].update(permission_sets=1, has_changes=True)
    forge(document)
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 1, out + err
    assert f"  - guild {GUILD}: overwrites of 'local': the plan puts other overwrites than " \
        "the manifests give" in err
    assert admin.get("/state").json()["permissions"] == permissions and writes(admin) == 0


def test_an_unsigned_plan_that_is_the_manifests_own_is_applied(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Unsigned is not forged: a plan made with another credential, the same as planning
    its manifests again, is applied (the plan made afresh), and the report counts it."""
    applied(capsys, admin)
    Path("bot.yaml").write_text(MANIFEST.replace("description: B}", "description: B2}"),
                                encoding="utf-8")
    document = saved_plan(capsys)
    forge(document)
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 0, out + err
    assert "0 created, 1 updated, 0 deleted" in out
    assert writes(admin) == 1


def test_no_code_is_imported_for_an_unsigned_plan(capsys: pytest.CaptureFixture[str],
                                                 admin: httpx.Client) -> None:
    """Its manifests naming ``discord.py:MODULE:ATTR``: the module is never imported."""
    applied(capsys, admin)
    Path("planted.py").write_text(
        "from pathlib import Path\nPath('imported').write_text('ran')\n", encoding="utf-8")
    document = saved_plan(capsys)
    document["manifests"] = ["discord.py:planted:tree", "discord.py:os:abort"]
    document["manifest_sha256"] = [None, None]
    forge(document)
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 1, out + err
    assert "is not signed with the credential at hand (its plan_hmac), so no code it names " \
        "is imported; nothing was changed" in err
    assert "  - discord.py:planted:tree: bot code, which apply would import and run" in err
    assert not Path("imported").exists() and "planted" not in sys.modules
    assert writes(admin) == 0


def test_a_reference_to_a_function_that_is_no_factory_is_never_called(
        tmp_path: Path) -> None:
    """``discord.py:os:abort`` names a builtin that takes no argument: it is refused, not
    called (the process would abort); so is a function imported from elsewhere."""
    pytest.importorskip("discord")
    (tmp_path / "borrowed.py").write_text("from os import getpid as make\n", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1"}
    for reference, attribute, kind in (("discord.py:os:abort", "abort",
                                        "builtin_function_or_method"),
                                       ("discord.py:borrowed:make", "make",
                                        "builtin_function_or_method")):
        done = subprocess.run([sys.executable, "-m", "cmdsync", "validate", reference],
                              capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=60, check=False)
        assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
        assert f"{reference}: CS001 {reference}: {attribute!r} is {kind}, not a discord.py " \
            "CommandTree, a Client or Bot with one in .tree, nor a function of module" \
            in done.stdout


def beta(admin: httpx.Client) -> str:
    return str(next(c["body"]["description"] for c in admin.get("/state").json()["commands"]
                    if c["name"] == "beta"))


def test_a_signed_plan_is_not_replayed_and_a_forced_replay_backs_up_what_is_live(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """An old signed plan applied again with --no-refresh reverted live commands and backed
    up the plan's prior state (issue 28, item 5): refused now, unless --force, which
    backs up what is live."""
    applied(capsys, admin)
    Path("bot.yaml").write_text(MANIFEST.replace("description: B}", "description: B2}"),
                                encoding="utf-8")
    saved_plan(capsys, "old.json")
    code, out, err = cmdsync(capsys, "apply", "--no-refresh", "old.json")
    assert code == 0, out + err
    assert beta(admin) == "B2"
    admin.delete("/log")

    code, out, err = cmdsync(capsys, "apply", "--no-refresh", "old.json")
    assert code == 1 and writes(admin) == 0, out + err
    assert "error: the saved plan old.json was already applied to the scopes it changes " \
        "(.cmdsync/applied.json); nothing was changed" in err
    assert "  - global: this plan was already applied there (" in err
    code, out, err = cmdsync(capsys, "apply", "old.json")  # reading live state: no "stale"
    assert code == 1 and "this plan was already applied there" in err and "stale" not in err

    Path("bot.yaml").write_text(MANIFEST.replace("description: B}", "description: B3}"),
                                encoding="utf-8")
    assert cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")[0] == 0
    admin.delete("/log")
    code, out, err = cmdsync(capsys, "apply", "--no-refresh", "old.json")
    assert code == 1 and writes(admin) == 0, out + err
    assert "error: the saved plan old.json was made before the last apply to the scopes it " \
        "changes (.cmdsync/applied.json)" in err
    assert "  - global: applied again since the plan was made (last at " in err
    assert "pass --force to apply it anyway" in err
    assert beta(admin) == "B3"

    Path("bot.yaml").write_text(MANIFEST.replace("description: B}", "description: B2}"),
                                encoding="utf-8")  # the plan's own manifests again
    code, out, err = cmdsync(capsys, "apply", "--no-refresh", "--force", "old.json")
    assert code == 0, out + err
    assert beta(admin) == "B2"
    backup = re.search(r"Backed up the live state .* to (\S+)\n", out)
    assert backup is not None, out
    assert '"description": "B3"' in Path(backup.group(1)).read_text(encoding="utf-8")


CONFIG = f"""\
manifests = ["bot.yaml"]

[environments.dev]
application_id = "{APP}"

[environments.prod]
application_id = "555555555555555555"
"""


def test_an_explicit_env_never_acts_on_another_application(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--env dev`` with another application's DISCORD_APPLICATION_ID in the shell wrote
    to that application; ``apply --env prod dev-plan.json`` applied to dev without a word
    (issue 28, item 7). Plan and apply name the application they act on."""
    Path("bot.yaml").write_text(MANIFEST.replace(f'application_id: "{APP}"\n', ""),
                                encoding="utf-8")
    Path("cmdsync.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "999999999999999999")
    for verb in (("plan",), ("apply", "--auto-approve")):
        code, out, err = cmdsync(capsys, *verb, "--env", "dev")
        assert (code, out) == (2, ""), err
        assert err == (
            f"error: --env dev sets application_id '{APP}' ({Path.cwd() / 'cmdsync.toml'}), "
            "but DISCORD_APPLICATION_ID is '999999999999999999' in the environment: unset "
            "DISCORD_APPLICATION_ID, or drop --env to use it\n")
    assert writes(admin) == 0

    monkeypatch.delenv("DISCORD_APPLICATION_ID")
    code, out, err = cmdsync(capsys, "plan", "--env", "dev", "--out", "dev-plan.json")
    assert code == 0, err
    assert out.startswith(
        f"cmdsync will perform the following actions on application Trust Bot ({APP}):\n")
    code, out, err = cmdsync(capsys, "apply", "--env", "prod", "dev-plan.json")
    assert (code, out) == (2, "")
    assert err == (  # the plan records its environment (issue 33, item 4)
        "error: --env prod, but the saved plan dev-plan.json was made for environment dev: "
        "apply it without --env (it applies to dev), or plan again with `cmdsync plan --env "
        "prod --out FILE`\n")
    assert writes(admin) == 0
    code, out, err = cmdsync(capsys, "apply", "--env", "dev", "dev-plan.json")
    assert code == 0, err
    assert out.startswith(f"Applying the saved plan to application {APP}.\n")
