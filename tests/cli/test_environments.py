"""Environments of a team's project (issue 33): one manifest, a development guild in one
environment and global commands in another (``copy_global_to``, discord.py's
``tree.copy_global_to(guild=...)``), an environment's own ``manifests``, saved plans
that record their environment, and every command reading the configuration alike.

Each test drives the real CLI against a served emulator, as CI would.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.cli import run_secretly
from tests.support.emulator import as_ci_would

APP = "111111111111111111"
DEV = "222222222222222222"
PROD_GUILD = "444444444444444444"
BOT_TOKEN, USER_TOKEN = "env-bot-s3cret", "env-user-s3cret"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "name": "Team Bot", "bot_token": BOT_TOKEN,
                      "client_secret": "env-client-s3cret",
                      "integration_types": ["guild_install", "user_install"]}],
    "guilds": [{"id": DEV}, {"id": PROD_GUILD}],
    "users": [{"id": "333333333333333333", "application_id": APP, "bearer_token": USER_TOKEN,
               "scopes": ["applications.commands.permissions.update"],
               "guilds": [DEV, PROD_GUILD]}],
}
MANIFEST = """\
commands:
  - name: ping
    description: Check the bot is alive
    contexts: [guild, bot_dm]
    integration_types: [guild_install, user_install]
  - name: ban
    description: Ban a member
    contexts: [guild]
guilds:
  "${DEV_GUILD_ID}":
    commands:
      - {name: debug, description: Developer tools}
    permissions:
      ban: [{type: role, id: everyone, permission: false}]
"""
CONFIG = f"""\
manifests = ["discord/"]
default_environment = "production"

[environments.dev]
application_id = "{APP}"
guilds = {{ DEV_GUILD_ID = "{DEV}" }}
copy_global_to = "${{DEV_GUILD_ID}}"

[environments.production]
application_id = "{APP}"
guilds = {{ DEV_GUILD_ID = "{PROD_GUILD}" }}
"""
NO_COPY = CONFIG.replace('copy_global_to = "${DEV_GUILD_ID}"\n', "")
HEADING = f"global commands -> guild {DEV} (copy_global_to, environment dev)\n\n"


@pytest.fixture
def admin(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> httpx.Client:
    """A fresh emulator with one global command already live, the environment CI sets,
    the project written."""
    client = as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_BEARER_TOKEN": USER_TOKEN})
    (tmp_path / "discord").mkdir()
    (tmp_path / "discord" / "commands.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(CONFIG, encoding="utf-8")
    legacy = httpx.put(f"{server}/api/v10/applications/{APP}/commands",
                       headers={"Authorization": f"Bot {BOT_TOKEN}"},
                       json=[{"name": "legacy", "description": "Live before the team came"}])
    assert legacy.status_code == 200
    client.delete("/log")
    return client


def cmdsync(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_secretly(capsys, (BOT_TOKEN, USER_TOKEN), *args)


def commands(admin: httpx.Client) -> dict[tuple[str, str], dict[str, Any]]:
    state = admin.get("/state").json()
    return {(c["guild_id"] or "global", c["name"]): c for c in state["commands"]}


def requested(admin: httpx.Client) -> list[str]:
    return [f"{r['method']} {r['path']}" for r in admin.get("/log").json()["requests"]]


def writes(admin: httpx.Client) -> int:
    return int(admin.get("/log").json()["counts"]["writes"])


DEV_PLAN = (
    HEADING
    + "cmdsync will perform the following actions on application Team Bot "
    f"({APP}):\n\n"
    f"guild {DEV}:\n"
    '  + chat_input "ban"\n'
    '  + chat_input "debug"\n'
    '  + chat_input "ping"\n'
    '  + permissions of "ban" (command created by this plan)\n'
    "      + role @everyone: deny\n"
    "  3 creates count toward Discord's limit of 200 per guild per day; after apply: "
    "3/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE\n"
    "\n"
    "Plan: 3 to create, 0 to update, 0 to delete, 1 permission set to change.\n")


def test_copy_global_to_sends_the_global_commands_to_the_dev_guild(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 1: the global commands are the dev guild's (without the fields Discord
    applies to global commands only, and without a word about them); overwrites bind
    to the copies; the global scope is neither read nor written."""
    code, out, err = cmdsync(capsys, "plan", "--env", "dev")
    assert (code, out, err) == (0, DEV_PLAN, "")
    code, out, err = cmdsync(capsys, "apply", "--env", "dev", "--auto-approve")
    assert code == 0, out + err
    assert out.startswith(DEV_PLAN.removesuffix("\n"))
    assert "Apply complete: 3 created" in out
    live = commands(admin)
    assert set(live) == {("global", "legacy"), (DEV, "ping"), (DEV, "ban"), (DEV, "debug")}
    for name in ("ping", "ban"):
        copied = live[(DEV, name)]
        assert "contexts" not in copied and "integration_types" not in copied, copied
    overwrites = admin.get("/state").json()["permissions"]
    assert [(p["guild_id"], p["id"]) for p in overwrites] == [
        (DEV, live[(DEV, "ban")]["id"])]
    global_route = f"/api/v10/applications/{APP}/commands"
    assert not [r for r in requested(admin) if r.split(" ", 1)[1].split("?")[0]
                == global_route], "the global scope was read or written"

    # production (the default): the same manifest, global; its DEV_GUILD_ID is another
    # guild, and the dev guild is none of its business
    code, out, err = cmdsync(capsys, "plan")
    assert code == 0, err
    assert "global commands ->" not in out and f"guild {DEV}" not in out
    assert out.startswith(
        "cmdsync will perform the following actions on application Team Bot "
        f'({APP}):\n\nglobal:\n  + chat_input "ban"\n  - chat_input "legacy" (id '
        f'{live[("global", "legacy")]["id"]})\n  + chat_input "ping"\n')
    assert f'guild {PROD_GUILD}:\n  + chat_input "debug"\n' in out


def test_a_name_both_global_and_in_the_dev_guild_names_both_places(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 1: copying would make two commands of one name in one guild: an error at
    both declarations (file and line), before any request."""
    Path("discord/more.yaml").write_text(
        'guilds:\n  "${DEV_GUILD_ID}":\n    commands:\n'
        "      - {name: ping, description: The dev guild's own ping}\n", encoding="utf-8")
    admin.delete("/log")
    code, out, err = cmdsync(capsys, "plan", "--env", "dev")
    assert (code, out) == (1, "")
    assert err == (
        "discord/more.yaml:4:16: CS303 CHAT_INPUT command 'ping' is declared globally "
        f"(discord/commands.yaml:2) and in guild {DEV} (discord/more.yaml:4); environment "
        f"dev copies the global commands to guild {DEV} (copy_global_to, cmdsync.toml:7), "
        "where names are unique per type: rename or remove one of them\n"
        "    see discord/commands.yaml:2:11\n\n"
        "Found 1 error in 1 of 2 files.\n")
    global_route = f"/api/v10/applications/{APP}/commands"
    read = requested(admin)  # reads start while the manifests are validated
    assert read and not [r for r in read if global_route in r]  # the global scope: never
    assert cmdsync(capsys, "apply", "--env", "dev", "--auto-approve")[0] == 1
    assert writes(admin) == 0
    # global in production, the same names do not meet
    assert cmdsync(capsys, "plan", "--env", "production")[0] == 0


def test_copy_global_to_in_pyproject_and_its_mistakes(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 1 under [tool.cmdsync]; a copy_global_to whose variable is unset, or that is
    no guild id, names the file, the line and the key (exit 2)."""
    Path("cmdsync.toml").unlink()
    pyproject = "[project]\nname = \"bot\"\n\n[tool.cmdsync]\n" + CONFIG.replace(
        "[environments.", "[tool.cmdsync.environments.")
    Path("pyproject.toml").write_text(pyproject, encoding="utf-8")
    code, out, err = cmdsync(capsys, "plan", "--env", "dev")
    assert (code, out, err) == (0, DEV_PLAN, "")
    Path("pyproject.toml").write_text(pyproject.replace("${DEV_GUILD_ID}", "${NO_SUCH_GUILD}"),
                                      encoding="utf-8")
    code, out, err = cmdsync(capsys, "plan", "--env", "dev")
    assert (code, out) == (2, "")
    assert err == (
        "error: pyproject.toml:11 [tool.cmdsync]: environments.dev.copy_global_to "
        "'${NO_SUCH_GUILD}': NO_SUCH_GUILD is not set: set it in the environment, or under "
        'environments.dev.guilds (NO_SUCH_GUILD = "GUILD_ID")\n')
    Path("pyproject.toml").write_text(pyproject.replace("${DEV_GUILD_ID}", "dev"),
                                      encoding="utf-8")
    code, _, err = cmdsync(capsys, "apply", "--env", "dev", "--auto-approve")
    assert code == 2
    assert err == ("error: pyproject.toml:11 [tool.cmdsync]: environments.dev.copy_global_to "
                   "'dev' is not a guild id (a snowflake: a quoted string of digits)\n")
    assert writes(admin) == 0


def test_an_entry_point_is_not_copied_and_says_so(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 1: PRIMARY_ENTRY_POINT commands are global only: the copy leaves them out,
    with a warning at the line (not in silence); the global one is left as it is."""
    activity = {**SEED, "applications": [{**SEED["applications"][0], "flags": ["embedded"]}]}
    admin.post("/reset", json=activity).raise_for_status()
    Path("discord/launch.yaml").write_text(
        "commands:\n  - {type: primary_entry_point, name: launch, handler: "
        "discord_launch_activity}\n", encoding="utf-8")
    code, out, err = cmdsync(capsys, "plan", "--env", "dev")
    assert (code, out) == (0, DEV_PLAN), err
    assert err == (
        "discord/launch.yaml:2:12: CS304 warning: entry point 'launch' is not copied to "
        f"guild {DEV} (environment dev, copy_global_to, cmdsync.toml:7): PRIMARY_ENTRY_POINT "
        "commands are global only, and the global commands are left alone in this "
        "environment\n\nFound 1 warning in 1 of 2 files.\n")
    assert cmdsync(capsys, "apply", "--env", "dev", "--auto-approve")[0] == 0
    assert sorted(commands(admin)) == [(DEV, "ban"), (DEV, "debug"), (DEV, "ping"),
                                       ("global", "Launch")]


def test_an_environments_manifests_replace_the_top_level_list(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 2: ``manifests`` in an environment is the list it reads."""
    Path("staging").mkdir()
    Path("staging/commands.yaml").write_text(
        "commands:\n  - {name: canary, description: Only in staging}\n", encoding="utf-8")
    Path("cmdsync.toml").write_text(CONFIG + f"""
[environments.staging]
application_id = "{APP}"
manifests = ["staging/"]
""", encoding="utf-8")
    code, out, err = cmdsync(capsys, "plan", "--env", "staging")
    assert code == 0, err
    assert 'global:\n  + chat_input "canary"\n  - chat_input "legacy"' in out
    assert "ping" not in out and "debug" not in out
    Path("cmdsync.toml").write_text(CONFIG + '\n[environments.staging]\nmanifests = ["nope/"]\n',
                                    encoding="utf-8")
    code, _, err = cmdsync(capsys, "plan", "--env", "staging")
    assert code == 2
    assert err.endswith("cmdsync.toml:14: environments.staging.manifests: 'nope/' matches no "
                        f"file or directory (paths are relative to {Path.cwd()}): fix it "
                        "there, or give the manifests' paths\n")


def test_validate_reads_every_environments_manifests_once(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 3: with no paths, every manifest any environment names, each file once, each
    with its environment's variables; a problem only one environment meets says which."""
    Path("dev").mkdir()
    Path("dev/tools.yaml").write_text(
        'guilds:\n  "${DEV_GUILD_ID}":\n    commands:\n      - {name: Trace, description: T}\n',
        encoding="utf-8")
    Path("cmdsync.toml").write_text(CONFIG.replace(
        "copy_global_to", 'manifests = ["discord/", "dev/"]\ncopy_global_to'), encoding="utf-8")
    code, out, err = cmdsync(capsys, "validate")
    assert (code, err) == (1, "")
    assert out == ("dev/tools.yaml:4:16: CS101 command name 'Trace' has upper-case letters: "
                   "write 'trace' (environment dev)\n\n"
                   "Found 1 error in 1 of 2 files.\n")
    Path("dev/tools.yaml").write_text(
        'guilds:\n  "${DEV_GUILD_ID}":\n    commands:\n      - {name: ban, description: B}\n',
        encoding="utf-8")
    code, out, _ = cmdsync(capsys, "validate")
    assert code == 1
    assert out.startswith("dev/tools.yaml:4:16: CS303 CHAT_INPUT command 'ban' is declared "
                          "globally (discord/commands.yaml:6) and in guild "
                          f"{DEV} (dev/tools.yaml:4)")
    assert cmdsync(capsys, "validate", "--env", "production") == (
        0, "All 1 file valid (3 commands).\n", "")


def test_a_saved_plan_applies_to_the_environment_it_records(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 4: ``apply plan.json`` applies to the plan's environment without --env (its
    ${VAR}s from that environment's guilds: production's DEV_GUILD_ID is another
    guild), and an --env naming another environment is refused naming both."""
    code, out, err = cmdsync(capsys, "plan", "--env", "dev", "--out", "plan.json")
    assert code == 0, err
    assert out == DEV_PLAN + ("\nSaved the plan to plan.json: apply it with "
                              "`cmdsync apply plan.json`.\n")
    document = json.loads(Path("plan.json").read_text(encoding="utf-8"))
    assert document["environment"] == {"name": "dev", "copy_global_to": DEV}
    code, out, err = cmdsync(capsys, "apply", "--env", "production", "plan.json")
    assert (code, out) == (2, "")
    assert err == ("error: --env production, but the saved plan plan.json was made for "
                   "environment dev: apply it without --env (it applies to dev), or plan "
                   "again with `cmdsync plan --env production --out FILE`\n")
    assert writes(admin) == 0
    with monkeypatch.context() as shell:  # the environment it records is held as --env is
        shell.setenv("DISCORD_APPLICATION_ID", "999999999999999999")
        code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert (code, out) == (2, "")
    assert err == (f"error: the saved plan's environment dev sets application_id '{APP}' "
                   f"({Path.cwd() / 'cmdsync.toml'}), but DISCORD_APPLICATION_ID is "
                   "'999999999999999999' in the environment: unset DISCORD_APPLICATION_ID\n")
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 0, out + err
    assert out.startswith(HEADING + f"Applying the saved plan to application {APP}.\n")
    assert set(commands(admin)) == {("global", "legacy"), (DEV, "ping"), (DEV, "ban"),
                                    (DEV, "debug")}
    assert cmdsync(capsys, "plan", "--env", "dev")[1] == (
        HEADING + "No changes. Live commands match the manifest.\n")


def test_a_saved_plan_refuses_an_environment_that_copies_elsewhere_now(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 4: the copy the plan was made with must be the environment's still."""
    assert cmdsync(capsys, "plan", "--env", "dev", "--out", "plan.json")[0] == 0
    Path("cmdsync.toml").write_text(NO_COPY, encoding="utf-8")
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert (code, out) == (2, "")
    assert err == (f"error: the saved plan plan.json copies the global commands to guild {DEV}, "
                   "but environment dev does not copy them (no copy_global_to): plan again "
                   "with `cmdsync plan --env dev --out FILE`\n")
    assert writes(admin) == 0


def test_the_saved_plan_hint_is_a_command_that_works_as_printed(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client, server: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 4: the hint after --out names what apply needs and the plan does not record
    (here --api-url; a plan never chooses where a token goes), quoted for a shell."""
    monkeypatch.delenv("CMDSYNC_API_URL")
    Path("cmdsync.toml").write_text(NO_COPY, encoding="utf-8")  # the hint alone
    code, out, err = cmdsync(capsys, "plan", "--api-url", f"{server}/api/v10", "--out",
                             "my plan.json")
    assert code == 0, err
    hint = out.rsplit("apply it with `", 1)[1].removesuffix("`.\n")
    assert hint == f"cmdsync apply --api-url {server}/api/v10 'my plan.json'"
    words = shlex.split(hint)
    code, out, err = cmdsync(capsys, *words[1:])
    assert code == 0, out + err
    assert "Apply complete: 3 created, 0 updated, 1 deleted" in out


def test_a_saved_plan_reads_its_manifests_with_its_environments_variables(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 4 without a copy: planned in production, applied without --env where the
    default environment is dev, whose DEV_GUILD_ID is another guild: the manifests are
    read again with production's (they hold a ${VAR}), so the plan holds."""
    Path("cmdsync.toml").write_text(NO_COPY.replace('default_environment = "production"',
                                                    'default_environment = "dev"'),
                                    encoding="utf-8")
    code, _, err = cmdsync(capsys, "plan", "--env", "production", "--out", "plan.json")
    assert code == 0, err
    code, out, err = cmdsync(capsys, "apply", "plan.json")
    assert code == 0, out + err
    assert (PROD_GUILD, "debug") in commands(admin) and (DEV, "debug") not in commands(admin)
