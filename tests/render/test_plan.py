"""Plan rendering: whole text, colours, JSON against its schema, saved plans."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from cmdsync.errors import CmdsyncError
from cmdsync.plan import Plan, diff
from cmdsync.plan.planfile import from_document, to_document
from cmdsync.render.plan import to_github, to_json, to_rich, to_text
from cmdsync.runners.files import load_plan, save_plan
from cmdsync.validate.schema import load_schema
from tests.support import paths
from tests.support.plan import APP, GUILD, MANIFEST, OTHER, cmd, desired, live

ROOT = paths.ROOT


def basic_plan() -> Plan:
    ping = cmd("10", "ping")
    ban = cmd("11", "ban", options=[{"type": 6, "name": "user", "description": "Who"}])
    return diff(desired(MANIFEST), live({"global": [cmd("12", "old"), ban, ping]}))


GUILD_MANIFEST = f"""\
    guilds:
      "{GUILD}":
        commands:
          - {{id: "30", name: boot, description: kick command}}
          - name: ban
            description: ban command
            options: [{{type: boolean, name: loud, description: Loud}}]
          - {{type: message, name: Report}}
        permissions:
          boot: [{{type: role, id: "5", permission: true}}]
          ban:
            - {{type: role, id: everyone, permission: false}}
            - {{type: channel, id: all_channels, permission: false}}
          Report: [{{type: user, id: "7", permission: false}}]
          '*': []
          ping: [{{type: role, id: "5", permission: true}}]
      "{OTHER}":
        commands: []
    """


def guild_plan() -> Plan:
    perms = {GUILD: [
        {"id": "30", "permissions": [{"id": "5", "type": 1, "permission": True}]},
        {"id": "31", "permissions": [{"id": "7", "type": 2, "permission": True}]},
        {"id": APP, "permissions": [{"id": "5", "type": 1, "permission": True}]}]}
    return diff(desired(GUILD_MANIFEST), live({
        GUILD: [cmd("30", "kick", guild=GUILD), cmd("31", "Report", type=3, guild=GUILD)],
        OTHER: [], "global": [cmd("40", "ping")]}, perms))


def test_text_create_update_delete() -> None:
    assert to_text(basic_plan()) == (
        f"cmdsync will perform the following actions on application {APP}:\n"
        "\n"
        "global:\n"
        '  ~ chat_input "ban" (id 11)\n'
        '      ~ description: "ban command" -> "Ban a member"\n'
        "      ~ options[name=user].required: false -> true\n"
        '  + chat_input "new"\n'
        '  - chat_input "old" (id 12)\n'
        "  after apply: 3/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE, 0/1 PRIMARY_ENTRY_POINT\n"
        "\n"
        "Warning: global: chat_input 'old' is deleted and 'new' created; if this is a rename, "
        "add `id: \"12\"` to 'new' in the manifest to keep the command's id and spend no "
        "create\n"
        "\n"
        "Plan: 1 to create, 1 to update, 1 to delete, 0 permission sets to change.\n"
    )


def test_text_guilds_permissions_rename_and_warning() -> None:
    assert to_text(guild_plan()) == (
        f"cmdsync will perform the following actions on application {APP}:\n"
        "\n"
        f"guild {GUILD}:\n"
        '  + chat_input "ban"\n'
        '  ~ chat_input "boot" (id 30, renamed from "kick")\n'
        '      ~ name: "kick" -> "boot"\n'
        f'  - permissions of "*" (application-wide, id {APP})\n'
        "      - role 5: allow\n"
        '  ~ permissions of "Report" (id 31)\n'
        "      ~ user 7: allow -> deny\n"
        '  + permissions of "ban" (command created by this plan)\n'
        "      + role @everyone: deny\n"
        "      + channel all channels: deny\n"
        '  ~ permissions of "boot" (id 30); renamed: Discord drops its overwrites\n'
        "        role 5: allow\n"
        '  + permissions of "ping" (global command, id 40)\n'
        "      + role 5: allow\n"
        "  1 create counts toward Discord's limit of 200 per guild per day; after apply: "
        "2/100 CHAT_INPUT, 0/15 USER, 1/15 MESSAGE\n"
        "\n"
        f"Warning: guild {GUILD}: renaming chat_input 'kick' to 'boot' (id 30) keeps its id, "
        "but Discord drops a renamed command's permission overwrites; cmdsync puts the "
        f"manifest's back in guild {GUILD}\n"
        "\n"
        "Plan: 1 to create, 1 to update, 0 to delete, 5 permission sets to change.\n"
    )


def test_text_field_added_and_removed() -> None:
    state = desired("""\
        commands:
          - name: ping
            description: ping command
            name_localizations: {fr: "pingé"}
            options: [{type: boolean, name: loud, description: Loud}]
        """)
    current = cmd("10", "ping", options=[{"type": 3, "name": "who", "description": "Who"}],
                  default_member_permissions="8")
    assert to_text(diff(state, live({"global": [current]}))) == (
        f"cmdsync will perform the following actions on application {APP}:\n"
        "\n"
        "global:\n"
        '  ~ chat_input "ping" (id 10)\n'
        '      + name_localizations.fr: "pingé"\n'
        '      - default_member_permissions: ["administrator"]\n'
        '      + options[name=loud]: {"type": "boolean", "name": "loud", "description": "Loud"}\n'
        '      - options[name=who]: {"type": "string", "name": "who", "description": "Who"}\n'
        "  after apply: 1/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE, 0/1 PRIMARY_ENTRY_POINT\n"
        "\n"
        "Plan: 0 to create, 1 to update, 0 to delete, 0 permission sets to change.\n"
    )


def test_text_no_changes() -> None:
    plan = diff(desired("commands: [{name: ping, description: ping command}]\n"),
                live({"global": [cmd("10", "ping")]}))
    assert to_text(plan) == "No changes. Live commands match the manifest.\n"


def test_text_errors() -> None:
    plan = diff(desired(f'guilds:\n  "{GUILD}":\n    permissions:\n      x: []\n'),
                live({GUILD: [], "global": []}))
    assert to_text(plan) == (
        f"Error: guild {GUILD}: permissions key 'x' names no command of this guild and no "
        "global command\n"
        "\n"
        "No changes. Live commands match the manifest.\n"
    )


def test_rich_colours_glyphs() -> None:
    from rich.console import Console

    stream = io.StringIO()
    Console(file=stream, force_terminal=True, color_system="standard", width=200,
            soft_wrap=True).print(to_rich(basic_plan()), end="")
    coloured = stream.getvalue()
    assert "\x1b[32m+\x1b[0m" in coloured  # green create
    assert "\x1b[33m~\x1b[0m" in coloured  # yellow update
    assert "\x1b[31m-\x1b[0m" in coloured  # red delete
    stripped = re.sub("\x1b\\[[0-9;]*m", "", stream.getvalue())
    assert stripped == to_text(basic_plan())


@pytest.mark.parametrize("make", [basic_plan, guild_plan])
def test_json_matches_schema_and_round_trips(make: object) -> None:
    assert callable(make)
    plan = make()
    document = json.loads(to_json(plan, api_url="https://discord.com/api/v10"))
    validator = Draft202012Validator(load_schema("plan.schema.json"))
    assert [e.message for e in validator.iter_errors(document)] == []
    assert from_document(document) == plan


def test_json_document_exact() -> None:
    plan = diff(desired("commands: [{name: ping, description: Ping}]\n"),
                live({"global": [cmd("10", "ping")]}))
    assert to_document(plan) == {
        "format_version": 1, "application_id": APP, "api_url": None,
        "manifest_digest": plan.manifest_digest, "manifests": ["m.yaml"],
        "manifest_sha256": [],  # worked out when the plan is saved
        "summary": {"create": 0, "update": 1, "delete": 0, "permission_sets": 0,
                    "has_changes": True},
        "scopes": [{
            "scope": "global", "manages_commands": True, "prune": True, "creates": 0,
            "totals": {"CHAT_INPUT": 1, "USER": 0, "MESSAGE": 0, "PRIMARY_ENTRY_POINT": 0},
            "caps": {"CHAT_INPUT": 100, "USER": 15, "MESSAGE": 15, "PRIMARY_ENTRY_POINT": 1},
            "commands": [{
                "action": "update", "type": 1, "name": "ping", "id": "10", "version": "100",
                "renamed_from": None, "note": None,
                "changes": [{"path": "description", "before": "ping command",
                             "after": "Ping"}],
                "body": {"name": "ping", "description": "Ping", "id": "10",
                         "integration_types": [0]}}],
            "permissions": [],
            "live": [{"id": "10", "type": 1, "name": "ping", "version": "100"}]}],
        "warnings": [], "errors": [],
    }
    assert plan.manifest_digest.startswith("sha256:") and len(plan.manifest_digest) == 71


def test_saved_plan_file(tmp_path: Path) -> None:
    plan = guild_plan()
    path = tmp_path / "plan.json"
    save_plan(plan, str(path), api_url="https://discord.com/api/v10")
    assert load_plan(str(path))[0] == plan
    text = path.read_text(encoding="utf-8")
    assert "token" not in text.lower()


def test_saved_plan_rejects_other_documents(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text('{"format_version": 1}', encoding="utf-8")
    with pytest.raises(CmdsyncError) as caught:
        load_plan(str(path))
    assert str(caught.value) == (
        f"{path} is not a cmdsync plan: /: 'application_id' is a required property")


def test_plan_schema_documents_every_property() -> None:
    from tests.support.schemas import walk

    schema = json.loads((ROOT / "schemas" / "plan.schema.json").read_text(encoding="utf-8"))
    undocumented = [f"{where}/{name}" for where, node in walk(schema)
                    for name, sub in (node.get("properties") or {}).items()
                    if not str(sub.get("description", "")).strip()]
    assert undocumented == []
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


BEARER = (f"apply will need a user's Bearer token to change the permission overwrites above "
          f"(guild {GUILD}), and these credentials have none: run `cmdsync login`, or set "
          "DISCORD_BEARER_TOKEN (scope applications.commands.permissions.update; a bot token "
          "cannot edit overwrites)")


def test_overwrite_changes_planned_without_a_bearer_token_say_what_apply_needs() -> None:
    """Issue 33 item 11: in the text below the warnings, in JSON among them (its digest
    over them), and in GitHub's annotations; the saved plan does not keep the flag."""
    plan = replace(guild_plan(), user_token=False)
    assert plan.needs_user_token == (GUILD,)
    text = to_text(plan)
    assert text.endswith(
        f"manifest's back in guild {GUILD}\n"
        f"Warning: {BEARER}\n"
        "\n"
        "Plan: 1 to create, 1 to update, 0 to delete, 5 permission sets to change.\n")
    assert text.replace(f"Warning: {BEARER}\n", "") == to_text(guild_plan())
    document = json.loads(to_json(plan))
    assert document["warnings"] == [*guild_plan().warnings, BEARER]
    assert from_document(document).warnings == (*guild_plan().warnings, BEARER)
    assert f"::warning title=cmdsync plan::{BEARER}\n" in to_github(plan, {})
    assert to_document(plan) == to_document(guild_plan())


@pytest.mark.parametrize("user_token", [True, None])
def test_with_a_bearer_token_or_not_knowing_the_plan_says_nothing_of_it(
        user_token: bool | None) -> None:
    plan = replace(guild_plan(), user_token=user_token)
    assert plan.needs_user_token == ()
    assert to_text(plan) == to_text(guild_plan())
    assert to_json(plan) == to_json(guild_plan())


def test_without_overwrite_changes_no_bearer_token_is_needed() -> None:
    plan = replace(basic_plan(), user_token=False)
    assert plan.needs_user_token == ()
    assert to_text(plan) == to_text(basic_plan())


def test_a_key_bound_to_a_global_command_this_plan_creates() -> None:
    """Item 7: the change names the global command to be created, and the guild's own of
    that name that it does not go to."""
    state = desired(f"""\
        commands: [{{name: ban, description: ban command}}]
        guilds:
          "{GUILD}":
            permissions:
              ban: [{{type: role, id: "5", permission: true}}]
        """)
    plan = diff(state, live({"global": [], GUILD: [cmd("11", "ban", guild=GUILD)]}))
    guild_lines = to_text(plan).split(f"guild {GUILD}:\n")[1].split("\n\n")[0]
    assert guild_lines == (
        '  + permissions of "ban" (global command created by this plan); not the guild\'s '
        'own chat_input "ban" (id 11), which the manifest does not declare\n'
        "      + role 5: allow")
