"""``cmdsync pull``: live -> manifest; planning the result shows no changes."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cmdsync.client import endpoints
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.instance import new_emulator
from cmdsync.manifest.loader import load_text
from cmdsync.runners.plan import plan_paths
from cmdsync.runners.pull import pull_application
from cmdsync.runners.session import Connection
from cmdsync.state import LiveState, live_scope
from cmdsync.state.as_manifest import to_command, to_manifest, to_yaml
from tests.support.cli import run
from tests.support.emulator import make_client
from tests.support.plan import CLEAN_PARAMS, load_commands

GUILD = "222222222222222222"


def serve(commands: dict[str, list[dict[str, Any]]],
          permissions: dict[str, list[dict[str, Any]]] | None = None) -> httpx.MockTransport:
    """A Discord that answers list calls from fixed data, and nothing else.

    ``GET /applications/@me`` (plan reads it) is an application that allows
    everything: user install and an Activity.
    """
    app = next((c["application_id"] for scope in commands.values() for c in scope),
               "111111111111111111")

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "GET"
        assert request.headers["authorization"] == "Bot t"
        if request.url.path.endswith("/applications/@me"):
            return httpx.Response(200, json={"id": app, "flags": 1 << 17,
                                             "integration_types_config": {"0": {}, "1": {}}})
        parts = request.url.path.split("/")
        if parts[-1] == "permissions":
            return httpx.Response(200, json=(permissions or {}).get(parts[-3], []))
        scope = parts[-2] if "guilds" in parts else "global"
        assert request.url.params["with_localizations"] == "true"
        return httpx.Response(200, json=commands.get(scope, []))

    return httpx.MockTransport(handler)


def pull_then_plan(tmp_path: Path, transport: httpx.MockTransport, app: str,
                   guilds: list[str]) -> tuple[str, Any]:
    env = {"DISCORD_BOT_TOKEN": "t", "DISCORD_APPLICATION_ID": app}
    connection = Connection(api_url="https://discord.test/api/v10", transport=transport)
    text, warnings = pull_application(connection, guilds=guilds, application_id=None, env=env)
    assert warnings == []
    path = tmp_path / "pulled.yaml"
    path.write_text(text, encoding="utf-8")
    result = plan_paths([str(path)], connection=connection, env=env)
    errors = [d.message for d in result.validation.diagnostics if d.severity.value == "error"]
    assert errors == []
    return text, result.plan


@pytest.mark.parametrize("path", CLEAN_PARAMS)
def test_pull_then_plan_is_no_change_for_corpus(tmp_path: Path, path: Path) -> None:
    commands = load_commands(path)
    app = commands[0]["application_id"]
    text, plan = pull_then_plan(tmp_path, serve({"global": commands}), app, [])
    assert plan is not None and not plan.has_changes, plan
    pulled = yaml.safe_load(text)
    assert [c["id"] for c in pulled["commands"]] == [c["id"] for c in commands]
    for command in pulled["commands"]:
        assert "version" not in command and "application_id" not in command
        assert command.get("nsfw") is not False and command.get("dm_permission") is not True


def test_pull_writes_friendly_names_and_no_defaults() -> None:
    live = {
        "id": "10", "application_id": "1", "version": "11", "type": 1, "name": "ban",
        "name_localizations": {"fr": "bannir"}, "description": "Ban",
        "description_localizations": None, "default_member_permissions": "6",
        "dm_permission": False, "contexts": [0, 2], "integration_types": [0, 1],
        "nsfw": False, "options": [
            {"type": 6, "name": "user", "description": "Who", "required": True,
             "name_localizations": None, "description_localizations": None},
            {"type": 7, "name": "where", "description": "Where", "channel_types": [0, 15]},
            {"type": 4, "name": "days", "description": "Days", "min_value": 0,
             "choices": [{"name": "One", "name_localizations": None, "value": 1}]}]}
    assert to_command(live, scope="global") == {
        "id": "10", "name": "ban", "name_localizations": {"fr": "bannir"},
        "description": "Ban", "default_member_permissions": ["kick_members", "ban_members"],
        "contexts": ["guild", "private_channel"],
        "integration_types": ["guild_install", "user_install"], "dm_permission": False,
        "options": [
            {"type": "user", "name": "user", "description": "Who", "required": True},
            {"type": "channel", "name": "where", "description": "Where",
             "channel_types": ["guild_text", "guild_forum"]},
            {"type": "integer", "name": "days", "description": "Days",
             "choices": [{"name": "One", "value": 1}], "min_value": 0}]}
    assert to_command(live, scope="global", default_integration_types=[1, 0]).get(
        "integration_types") is None
    menu = {"id": "12", "type": 3, "name": "Report", "description": "", "guild_id": GUILD,
            "default_member_permissions": "0", "nsfw": True, "options": []}
    assert to_command(menu, scope=GUILD) == {
        "id": "12", "type": "message", "name": "Report", "default_member_permissions": "0",
        "nsfw": True}


def test_pull_yaml_with_permissions() -> None:
    app = "111111111111111111"
    live = LiveState(app, {
        "global": live_scope("global", [{"id": "40", "type": 1, "name": "ping",
                                         "description": "P", "integration_types": [0]}]),
        GUILD: live_scope(GUILD, [
            {"id": "50", "type": 2, "name": "ping", "description": "", "guild_id": GUILD},
            {"id": "51", "type": 3, "name": "ping", "description": "", "guild_id": GUILD}],
            [{"id": app, "permissions": [{"id": GUILD, "type": 1, "permission": False}]},
             {"id": "40", "permissions": [{"id": "222222222222222221", "type": 3,
                                           "permission": True}]},
             {"id": "51", "permissions": [{"id": "7", "type": 2, "permission": True}]},
             {"id": "99", "permissions": [{"id": "7", "type": 2, "permission": True}]}])})
    manifest, warnings = to_manifest(live, guilds=[GUILD])
    assert warnings == [(f"guild {GUILD}: overwrites for 99, which is no command of this guild "
                        "or global command, are not written")]
    assert to_yaml(manifest) == (
        "# Written by cmdsync pull from the live commands of application 111111111111111111.\n"
        "# `cmdsync plan` on this file shows no changes.\n"
        "application_id: '111111111111111111'\n"
        "commands:\n"
        "- id: '40'\n"
        "  name: ping\n"
        "  description: P\n"
        "  integration_types: [guild_install]\n"
        "guilds:\n"
        "  '222222222222222222':\n"
        "    commands:\n"
        "    - {id: '50', type: user, name: ping}\n"
        "    - {id: '51', type: message, name: ping}\n"
        "    permissions:\n"
        "      '*':\n"
        "      - {type: role, id: everyone, permission: false}\n"
        "      chat_input:ping:\n"
        "      - {type: channel, id: all_channels, permission: true}\n"
        "      message:ping:\n"
        "      - {type: user, id: '7', permission: true}\n"
    )


def test_pull_guilds_and_permissions_then_plan(tmp_path: Path) -> None:
    app = "111111111111111111"
    commands = {"global": [{"id": "400000000000000040", "application_id": app, "version": "400000000000000041", "type": 1,
                            "name": "ping", "description": "P", "dm_permission": True,
                            "contexts": None, "integration_types": [0], "nsfw": False,
                            "default_member_permissions": None}],
                GUILD: [{"id": "500000000000000050", "application_id": app, "version": "500000000000000051", "type": 3,
                         "name": "Report", "description": "", "guild_id": GUILD,
                         "nsfw": False, "default_member_permissions": "8"}]}
    permissions = {GUILD: [{"id": "500000000000000050", "application_id": app, "guild_id": GUILD,
                            "permissions": [{"id": GUILD, "type": 1, "permission": False}]}]}
    _, plan = pull_then_plan(tmp_path, serve(commands, permissions), app, [GUILD])
    assert plan is not None and not plan.has_changes


def test_pull_and_plan_cli_against_local_emulator(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    app, guild = emulator_seed.APPLICATION_ID, emulator_seed.GUILD_ID

    async def seed_live() -> None:
        os.makedirs(".cmdsync", exist_ok=True)
        emulator = new_emulator(state=".cmdsync/local.sqlite")
        try:
            async with make_client(emulator) as client:
                await endpoints.bulk_overwrite(client, app, "global", [
                    {"name": "ping", "description": "Ping", "contexts": [0, 1],
                     "name_localizations": {"fr": "ping-fr"}}])
                saved = await endpoints.bulk_overwrite(client, app, guild, [
                    {"name": "mod", "description": "Mod", "default_member_permissions": "4",
                     "options": [{"type": 1, "name": "ban", "description": "Ban",
                                  "options": [{"type": 6, "name": "user",
                                               "description": "Who", "required": True}]}]},
                    {"type": 2, "name": "Profile"}])
                await endpoints.put_permissions(client, app, guild, saved[0]["id"], [
                    {"id": guild, "type": 1, "permission": False}])
        finally:
            emulator.store.close()

    asyncio.run(seed_live())
    code, out, err = run(capsys, "pull", "--local", "--guild", guild, "-o", "pulled.yaml")
    assert (code, out) == (0, "")
    assert err == ("warning: the modeline points at cmdsync.schema.json, which does not exist "
                   "yet: write it with `cmdsync schema --output cmdsync.schema.json` for your "
                   "editor\nWrote pulled.yaml.\n")
    assert Path("pulled.yaml").read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=cmdsync.schema.json\n# Written by cmdsync pull")
    pulled = yaml.safe_load(Path("pulled.yaml").read_text(encoding="utf-8"))
    assert pulled["guilds"][guild]["permissions"] == {
        "mod": [{"type": "role", "id": "everyone", "permission": False}]}
    assert pulled["guilds"][guild]["commands"][0]["default_member_permissions"] == [
        "ban_members"]
    assert run(capsys, "plan", "--local", "--detailed-exitcode", "pulled.yaml") == (
        0, "No changes. Live commands match the manifest.\n", "")
    code, out, _ = run(capsys, "pull", "--local")
    assert code == 0 and "\n# Written by cmdsync pull" in out and "guilds" not in out
    code, _, err = run(capsys, "pull", "--local", "-o", "pulled.yaml")
    assert code == 2 and "--force" in err  # never over a file without --force
    code, out, _ = run(capsys, "pull", "--local", "--format", "json")
    assert code == 0 and json.loads(out)["commands"][0]["name"] == "ping"


def test_pull_keeps_the_application_variable_and_leaves_the_applications_defaults(
        tmp_path: Path) -> None:
    """A person commits ${DISCORD_APPLICATION_ID}, not the id, and no integration_types
    equal to the application's."""
    app = "111111111111111111"
    commands = {"global": [{"id": "400000000000000040", "application_id": app,
                            "version": "400000000000000041", "type": 1, "name": "ping",
                            "description": "P", "dm_permission": True, "contexts": None,
                            "integration_types": [0, 1], "nsfw": False,
                            "default_member_permissions": None}]}
    text, _ = pull_application(Connection(api_url="http://discord.test/api/v10",
                                          transport=serve(commands, {})),
                               guilds=[], application_id=None, cwd=str(tmp_path),
                               env={"DISCORD_APPLICATION_ID": app, "DISCORD_BOT_TOKEN": "t"})
    manifest = yaml.safe_load(text)
    assert manifest["application_id"] == "${DISCORD_APPLICATION_ID}"
    assert manifest["commands"] == [{"id": "400000000000000040", "name": "ping",
                                     "description": "P"}]


def test_pull_rejects_a_bad_guild_id(capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch,
                                     tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "pull", "--local", "--guild", "abc") == (
        2, "", "error: --guild 'abc' is not a guild id (a snowflake)\n")


# What YAML treats specially, NEL and the other line breaks among it, or any character.
AWKWARD = st.sampled_from(["\x85", "\u2028", "\u2029", "\r", "\n", "\t", "'", '"', ": ", "#",
                           "- ", "yes", " "])


# Any character text can hold: not half of a surrogate pair (Cs), which no UTF-8 text
# (a manifest file, Discord's JSON) can carry; hypothesis draws them only sometimes.
@given(st.lists(AWKWARD | st.characters(blacklist_categories=("Cs",)), max_size=8)
       .map("".join))
@settings(max_examples=300)
def test_pulled_yaml_loads_back_every_string(text: str) -> None:
    """Any description or choice value, NEL and other YAML line breaks included."""
    manifest = {"commands": [{"name": "x", "description": text, "options": [
        {"type": "string", "name": "o", "description": "d",
         "choices": [{"name": "n", "value": text}]}]}]}
    doc = load_text(to_yaml(manifest), file="pulled.yaml", kind="yaml", env={})
    assert doc.data == manifest


README_SETUP = """\
commands:
  - name: ban
    description: Ban a member
    default_member_permissions: [ban_members]
    integration_types: [guild_install]
    options:
      - {type: user, name: user, description: Who, required: true}
guilds:
  "222222222222222222":
    commands:
      - {name: deploy, description: Deploy the bot}
    permissions:
      deploy: [{type: role, id: everyone, permission: false}]
"""


def test_the_docs_pull_example_prints_what_it_shows(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    import re

    from tests.support.paths import ROOT

    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("DISCORD_")]:
        monkeypatch.delenv(name)
    (tmp_path / "bot.yaml").write_text(README_SETUP, encoding="utf-8")
    assert run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")[0] == 0
    code, out, _ = run(capsys, "pull", "--local", "--guild", "222222222222222222")
    readme = (ROOT / "docs" / "commands" / "pull.md").read_text(encoding="utf-8")
    block = readme.split("$ cmdsync pull --local --guild 222222222222222222\n", 1)[1]
    shown = block.split("```", 1)[0]

    def ids(text: str) -> str:  # snowflakes differ from run to run
        return re.sub(r"id: '1\d{18}'", "id: 'ID'", text)

    assert code == 0 and ids(out) == ids(shown)


def test_guilds_with_the_same_commands_under_other_ids_are_written_each_as_they_are() -> None:
    """to_manifest works out each distinct guild command once: the ids, and the one
    command that differs, must still come out as to_command gives them."""
    app, other = "111111111111111111", "333333333333333333"
    body = {"type": 1, "name": "ban", "description": "Ban", "default_member_permissions": "4",
            "options": [{"type": 6, "name": "user", "description": "Who", "required": True}]}
    scopes = {
        GUILD: [{**body, "id": "60", "version": "600", "guild_id": GUILD}],
        other: [{**body, "id": "61", "version": "601", "guild_id": other},
                {**body, "id": "62", "name": "kick", "guild_id": other}]}
    live = LiveState(app, {g: live_scope(g, c) for g, c in scopes.items()})
    manifest, _ = to_manifest(live, guilds=[GUILD, other])
    assert {g: e["commands"] for g, e in manifest["guilds"].items()} == {
        g: [to_command(c, scope=g) for c in commands] for g, commands in scopes.items()}
    assert [c["id"] for c in manifest["guilds"][other]["commands"]] == ["61", "62"]
