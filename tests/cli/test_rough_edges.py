"""The rough edges a new user hit (issue 28): each test drives the real CLI the way the
trial did and holds the whole message it printed."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmdsync.apply.replay import already_applied
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import ClientConfig, DiscordClient
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.server import BackgroundServer
from cmdsync.errors import NetworkError
from cmdsync.runners.fetch import fetch_scopes
from cmdsync.runners.files import load_saved_plan
from cmdsync.runners.session import Connection, open_session
from tests.support.cli import GUILD, MANIFEST, clean_environment, run

APP = emulator_seed.APPLICATION_ID
OTHER_APP = "999999999999999999"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean environment in an empty working directory holding bot.yaml."""
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An emulator served on loopback; its base URL, its tokens in the environment."""
    monkeypatch.setenv("DISCORD_BOT_TOKEN", emulator_seed.BOT_TOKEN)
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", emulator_seed.USER_TOKEN)
    with BackgroundServer(create_app(new_emulator())) as base_url:
        yield f"{base_url}/api/v10"


def _backup_line(out: str) -> tuple[str, str]:
    """The backup's path and the command line apply printed to restore it."""
    found = re.search(r"Backed up .* to (\S+)\n\(restore it with `([^`]+)`; without a terminal, add "
                      r"--auto-approve\)", out)
    assert found, out
    return found.group(1), found.group(2)


# --- item 22: a backup of overwrites alone restores; its note and the hint agree -------

def test_the_backup_of_an_overwrites_only_apply_restores_them(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")[0] == 0
    (here / "bot.yaml").write_text(MANIFEST.replace("permission: false", "permission: true"),
                                   encoding="utf-8")
    code, out, _ = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert code == 0 and "0 created, 0 updated, 0 deleted, 1 permission set changed" in out
    backup, restore = _backup_line(out)
    assert restore == f"cmdsync apply --local {backup}"
    document = json.loads((here / backup).read_text(encoding="utf-8"))
    assert document["x-cmdsync-backup"].endswith(f"Restore it with `{restore}`")
    # the guild's overwrites name its command "Report": the backup declares it, not pruned
    assert document["guilds"][GUILD]["prune"] is False
    assert [c["name"] for c in document["guilds"][GUILD]["commands"]] == ["Report"]
    code, out, err = run(capsys, *restore.split()[1:], "--auto-approve")
    assert (code, err) == (0, "")
    assert "0 created, 0 updated, 0 deleted, 1 permission set changed" in out
    (here / "bot.yaml").write_text(MANIFEST, encoding="utf-8")  # deny, as restored
    assert run(capsys, "plan", "--local", "bot.yaml")[1].endswith(
        "No changes. Live commands match the manifest.\n")


def test_a_backup_taken_through_an_api_url_says_to_restore_it_there(
        here: Path, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "apply", "--api-url", served, "--application-id", APP,
                       "--auto-approve", "bot.yaml")
    assert code == 0
    backup, restore = _backup_line(out)
    assert restore == f"cmdsync apply --api-url {served} {backup}"
    note = json.loads((here / backup).read_text(encoding="utf-8"))["x-cmdsync-backup"]
    assert note.endswith(f"Restore it with `{restore}`")


# --- item 24: .cmdsync that is not a directory ------------------------------------------

def _in_the_way(here: Path) -> str:
    return (f"error: {here}/.cmdsync is a file, not a directory: cmdsync keeps its local "
            "state, create ledger and backups in the directory .cmdsync/ there; move or "
            "delete it, then run the command again\n")


@pytest.mark.parametrize("args", [["plan", "--local"], ["apply", "--local", "--auto-approve"],
                                  ["invoke", "--local"]])
def test_a_file_named_cmdsync_is_one_clear_error(here: Path, args: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (here / ".cmdsync").write_text("", encoding="utf-8")
    target = ["/ping"] if args[0] == "invoke" else ["bot.yaml"]
    assert run(capsys, *args, *target) == (1, "", _in_the_way(here))


def test_a_file_named_cmdsync_is_named_for_a_remote_plan_too(
        here: Path, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    (here / ".cmdsync").write_text("", encoding="utf-8")
    code, _, err = run(capsys, "plan", "--api-url", served, "--application-id", APP,
                       "bot.yaml")
    assert (code, err) == (1, _in_the_way(here))


# --- item 25: another application: a hint that works; --local says what it plans ----

def test_the_mismatch_hint_names_what_works_and_it_does(
        here: Path, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bot.yaml").write_text(f'application_id: "{OTHER_APP}"\n' + MANIFEST,
                                   encoding="utf-8")
    code, _, err = run(capsys, "plan", "--api-url", served, "bot.yaml")
    assert (code, err) == (1, (
        f"error: the credentials belong to application {APP}, not {OTHER_APP}: use "
        f"application {OTHER_APP}'s credentials, or, to manage application {APP}, set the "
        f"manifests' application_id to \"{APP}\"\n"))
    (here / "bot.yaml").write_text(f'application_id: "{APP}"\n' + MANIFEST, encoding="utf-8")
    assert run(capsys, "plan", "--api-url", served, "bot.yaml")[0] == 0
    # without an id in the manifests, the flag is the way
    (here / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    code, _, err = run(capsys, "plan", "--api-url", served, "--application-id", OTHER_APP,
                       "bot.yaml")
    assert err.endswith(f"to manage application {APP}, pass --application-id {APP}\n")
    assert run(capsys, "plan", "--api-url", served, "--application-id", APP,
               "bot.yaml")[0] == 0


def test_local_says_which_application_it_plans(here: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bot.yaml").write_text(f'application_id: "{OTHER_APP}"\n' + MANIFEST,
                                   encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 0
    assert (f"Warning: the manifests name application {OTHER_APP}, which the local emulator "
            f"does not know: --local plans its application {APP} instead\n") in out
    assert run(capsys, "plan", "--local", "--application-id", OTHER_APP, "bot.yaml") == (
        2, "", (f"error: --local has only the local emulator's application {APP}: drop "
                f"--application-id {OTHER_APP} (or serve an emulator seeded with it, `cmdsync "
                "emulator --seed FILE`, and pass its --api-url)\n"))


# --- item 26: a refused connection fails fast and names the host and port -----------

@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound but not listening: connections to it are refused, and no
    other process can take it meanwhile."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_refused_connection_is_tried_twice_and_names_the_host(
        here: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", emulator_seed.BOT_TOKEN)
    url = f"http://127.0.0.1:{closed_port}/api/v10"
    assert run(capsys, "plan", "--api-url", url, "--application-id", APP, "bot.yaml") == (
        1, "", (f"error: GET /applications/@me: cannot connect to 127.0.0.1:{closed_port}: "
                f"connection refused (2 attempts): nothing listens for {url}; check --api-url "
                "(or CMDSYNC_API_URL), and that `cmdsync emulator` (or your server) is "
                "running there\n"))


def test_the_client_sends_a_refused_request_twice_only(closed_port: int) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def attempt() -> DiscordClient:
        client = DiscordClient(Auth(Token("Bot", emulator_seed.BOT_TOKEN)), config=ClientConfig(
            base_url=f"http://127.0.0.1:{closed_port}/api/v10"), sleep=sleep)
        async with client:
            with pytest.raises(NetworkError, match="connection refused"):
                await client.request("GET", "/applications/@me", route="/applications/@me")
        return client

    client = asyncio.run(attempt())
    assert [(e.status, e.reached) for e in client.exchanges] == [(None, False), (None, False)]
    assert slept == [0.5]


# --- item 27: global flags after the subcommand ---------------------------------------

def test_global_flags_work_after_the_subcommand(here: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NO_COLOR", "")  # --no-color sets it: unset again afterwards
    assert run(capsys, "validate", "bot.yaml", "--quiet") == (0, "", "")
    assert run(capsys, "validate", "-q", "bot.yaml", "--no-color") == (0, "", "")
    # an option's value stays its value, and so does all after --
    assert run(capsys, "plan", "--local", "--out", "-q", "bot.yaml")[0] == 0
    assert (here / "-q").is_file()
    code, out, _ = run(capsys, "validate", "--", "-q")  # the saved plan, as a manifest
    assert code == 1 and out.startswith("-q:")


# --- item 29: what validate reads in a directory ---------------------------------------

NOT_MANIFESTS = {"docker-compose.yml": "services:\n  web:\n    image: bot\n",
                 "package.json": '{"name": "bot", "version": "1.0.0"}\n',
                 ".github/workflows/ci.yml": "on: push\njobs: {}\n"}


def test_validate_a_directory_reads_manifests_only(here: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for name, text in NOT_MANIFESTS.items():
        (here / name).parent.mkdir(parents=True, exist_ok=True)
        (here / name).write_text(text, encoding="utf-8")
    assert run(capsys, "plan", "--local", "--out", "plan.json", "bot.yaml")[0] == 0
    (here / "pulled.json").write_text(json.dumps({"commands": [
        {"name": "pong", "description": "Pong"}]}), encoding="utf-8")
    assert run(capsys, "validate", ".") == (0, "All 2 files valid (3 commands).\n", "")
    # named on the command line, a file is read whatever it holds
    assert run(capsys, "validate", "package.json")[0] == 1


def test_validate_an_empty_directory_warns(here: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (here / "empty").mkdir()
    assert run(capsys, "validate", "empty") == (
        0, "", ("warning: No manifest files found in empty (YAML or JSON files with "
                "top-level commands or guilds)\n"))


def test_validate_the_configuration_says_what_it_is(here: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (here / "cmdsync.toml").write_text('manifests = ["bot.yaml"]\n', encoding="utf-8")
    assert run(capsys, "validate", "cmdsync.toml") == (2, (
        "cmdsync.toml: CS001 cmdsync.toml is the project configuration, not a manifest: run "
        "the command without paths to read the manifests it lists (its `manifests`)\n\n"
        "Found 1 error in 1 of 1 file.\n"), "")
    assert run(capsys, "validate") == (0, "All 1 file valid (2 commands).\n", "")


# --- item 30: the words of plan, check, invoke and cmdsync.toml -----------------------

NUMBERED = """\
commands:
  - name: cmd2
    description: Two
    options:
      - {type: string, name: who, description: Who}
      - {type: boolean, name: loud, description: Loud}
      - {type: channel, name: where, description: Where, channel_types: [guild_text]}
  - {name: cmd10, description: Ten}
  - {name: cmd1, description: One}
"""


def test_plan_orders_names_naturally_and_writes_values_as_manifests_do(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bot.yaml").write_text(NUMBERED, encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 0
    assert re.findall(r'\+ chat_input "(\w+)"', out) == ["cmd1", "cmd2", "cmd10"]
    assert run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")[0] == 0
    (here / "bot.yaml").write_text(
        NUMBERED.replace("      - {type: boolean, name: loud, description: Loud}\n", "")
        .replace("[guild_text]", "[guild_voice]").replace("type: string", "type: integer"),
        encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 0
    changes = [line for line in out.splitlines() if line.startswith("      ")]
    assert changes == [
        '      ~ options[name=who].type: "string" -> "integer"',
        '      ~ options[name=where].channel_types: ["guild_text"] -> ["guild_voice"]',
        ('      - options[name=loud]: {"type": "boolean", "name": "loud", '
         '"description": "Loud"}')]
    assert out.endswith("Plan: 0 to create, 1 to update, 0 to delete, 0 permission sets to "
                        "change.\n")


def test_one_permission_set_is_singular(here: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--local", "bot.yaml")[1].endswith(
        "Plan: 2 to create, 0 to update, 0 to delete, 1 permission set to change.\n")


BOT = """\
import discord
from discord import app_commands

client = discord.Client(intents=discord.Intents.none())
tree = app_commands.CommandTree(client)


@tree.command(description="Roll")
async def roll(interaction: discord.Interaction, sides: app_commands.Range[int, 2, 20]) -> None:
    await interaction.response.send_message("4")
"""


def test_check_says_not_set_rather_than_none(here: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (here / "roller.py").write_text(BOT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(here))
    monkeypatch.delitem(sys.modules, "roller", raising=False)
    (here / "roll.yaml").write_text(
        "commands:\n  - name: roll\n    description: Roll\n    options:\n"
        "      - {type: integer, name: sides, description: Sides, required: true,"
        " max_value: 20}\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", "discord.py:roller:tree", "roll.yaml")
    assert code == 1
    assert ("CK09 global: chat_input 'roll': option 'sides': min_value is not set in the "
            "manifests, 2 in the handler\n") in out
    assert "None" not in out


CHOICES = """\
commands:
  - name: pick
    description: Pick
    options:
      - {type: integer, name: size, description: Size,
         choices: [{name: Small, value: 1}, {name: Large, value: 2}]}
"""


@pytest.mark.parametrize("value", ["3", "abc", "1.5"])
def test_invoke_refuses_a_choice_the_same_way_whatever_was_typed(
        here: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "pick.yaml").write_text(CHOICES, encoding="utf-8")
    assert run(capsys, "apply", "--local", "--auto-approve", "pick.yaml")[0] == 0
    assert run(capsys, "invoke", "--local", f"/pick size:{value}") == (
        1, "", "Refused: option size must be one of: Small, Large\n")


@pytest.mark.parametrize("text, message", [
    ("manifest = []\n", ("cmdsync.toml:1: unknown key 'manifest': did you mean 'manifests'? "
                         "(known: manifests, environments, default_environment, timeout)")),
    ('manifests = ["bot.yaml"]\n\n[environments.dev]\napp = "1"\n',
     ("cmdsync.toml:4: environments.dev: unknown key 'app': did you mean 'application_id'? "
      "(known: api_url, application_id, copy_global_to, guilds, manifests, timeout)")),
    ('manifests = ["bot.yaml"]\ndefault_environment = "prod"\n[environments.production]\n',
     ("cmdsync.toml:2: default_environment 'prod' is not one of the environments: did you "
      "mean 'production'? (defined: production)")),
    ('manifests = [\n  "bot.yaml",\n  "discord/",\n]\n',
     ("cmdsync.toml:3: manifests: 'discord/' matches no file or directory (paths are "
      "relative to {here}): fix it there, or give the manifests' paths")),
])
def test_a_bad_configuration_names_its_line_and_the_closest_key(
        here: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "cmdsync.toml").write_text(text, encoding="utf-8")
    assert run(capsys, "validate") == (
        2, "", f"error: {here}/{message.format(here=here)}\n")


def test_a_saved_plan_applied_already_is_told_from_a_stale_one(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--local", "--out", "plan.json", "bot.yaml")[0] == 0
    plan = load_saved_plan("plan.json", key=lambda _: None).plan

    def live_now() -> object:
        async def read() -> object:
            async with open_session(Connection(local=True), cwd=str(here)) as session:
                return await fetch_scopes(
                    session.client, APP, [*(s.scope for s in plan.scopes), "global"],
                    need_permissions=[s.scope for s in plan.scopes if s.permissions],
                    only_needed=True)
        return asyncio.run(read())

    assert already_applied(plan, live_now()) is False  # type: ignore[arg-type]
    assert run(capsys, "apply", "--local", "plan.json")[0] == 0
    assert already_applied(plan, live_now()) is True  # type: ignore[arg-type]
    (here / "bot.yaml").write_text(MANIFEST.replace("Check the bot", "Check that the bot"),
                                   encoding="utf-8")
    assert run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")[0] == 0
    assert already_applied(plan, live_now()) is False  # type: ignore[arg-type]
