"""Every field a user edits shows as an update with its exact change (pure), and a plan of
several scopes keeps every scope's warnings and rename hints."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.plan import (
    Action,
    Differ,
    FieldChange,
    LiveCommand,
    PermissionChange,
    ScopePlan,
    diff,
)
from tests.support.plan import APP, GUILD, OTHER, cmd, desired, live

AMOUNT = {"type": 4, "name": "amount", "description": "How many"}
TEXT = {"type": 3, "name": "text", "description": "What"}


def only_change(current: dict[str, Any], manifest: str, scope: str = "global"
                ) -> tuple[FieldChange, ...]:
    plan = diff(desired(manifest, application_id=APP), live({scope: [current]}))
    (change,) = plan.scopes[0].commands
    assert change.action is (Action.UPDATE if change.changes else Action.NO_OP)
    return change.changes


def option_manifest(option: str) -> str:
    return f"commands:\n  - name: give\n    description: give command\n    options: [{option}]\n"


@pytest.mark.parametrize(("live_option", "option", "expected"), [
    (AMOUNT, "{type: integer, name: amount, description: How many, min_value: 1}",
     FieldChange("options[name=amount].min_value", None, 1)),
    ({**AMOUNT, "min_value": 1}, ("{type: integer, name: amount, description: How many, "
     "min_value: 2}"), FieldChange("options[name=amount].min_value", 1, 2)),
    ({**AMOUNT, "max_value": 10}, "{type: integer, name: amount, description: How many}",
     FieldChange("options[name=amount].max_value", 10, None)),
    ({**AMOUNT, "max_value": 10}, ("{type: integer, name: amount, description: How many, "
     "max_value: 11}"), FieldChange("options[name=amount].max_value", 10, 11)),
    ({**TEXT, "min_length": 1}, ("{type: string, name: text, description: What, "
     "min_length: 3}"), FieldChange("options[name=text].min_length", 1, 3)),
    (TEXT, "{type: string, name: text, description: What, max_length: 50}",
     FieldChange("options[name=text].max_length", None, 50)),
    ({**TEXT, "max_length": 50}, ("{type: string, name: text, description: What, "
     "max_length: 49}"), FieldChange("options[name=text].max_length", 50, 49)),
    (TEXT, "{type: string, name: text, description: What, autocomplete: true}",
     FieldChange("options[name=text].autocomplete", False, True)),
    ({**TEXT, "autocomplete": True}, "{type: string, name: text, description: What}",
     FieldChange("options[name=text].autocomplete", True, False)),
    ({**TEXT, "name_localizations": {"fr": "texte"}},
     "{type: string, name: text, description: What, name_localizations: {fr: mot}}",
     FieldChange("options[name=text].name_localizations.fr", "texte", "mot")),
    ({**TEXT, "description_localizations": {"de": "Was"}},
     "{type: string, name: text, description: What}",
     FieldChange("options[name=text].description_localizations.de", "Was", None)),
])
def test_an_option_edit_is_an_update_of_that_field(live_option: dict[str, Any], option: str,
                                                   expected: FieldChange) -> None:
    current = cmd("1", "give", options=[live_option])
    assert only_change(current, option_manifest(option)) == (expected,)


@pytest.mark.parametrize(("fields", "manifest", "expected"), [
    ({}, "{name: ping, description: ping command, name_localizations: {fr: pong}}",
     (FieldChange("name_localizations.fr", None, "pong"),)),
    ({"name_localizations": {"fr": "pong", "de": "ping"}},
     "{name: ping, description: ping command, name_localizations: {fr: pang, de: ping}}",
     (FieldChange("name_localizations.fr", "pong", "pang"),)),
    ({"description_localizations": {"fr": "Vérifie"}},
     ("{name: ping, description: ping command, description_localizations: {fr: Vérifie, "
     "es-ES: Comprueba}}"),
     (FieldChange("description_localizations.es-ES", None, "Comprueba"),)),
    ({"description_localizations": {"fr": "Vérifie"}},
     "{name: ping, description: ping command}",
     (FieldChange("description_localizations.fr", "Vérifie", None),)),
    ({}, "{name: ping, description: ping command, nsfw: true}",
     (FieldChange("nsfw", False, True),)),
    ({"default_member_permissions": "8"}, ("{name: ping, description: ping command, "
     "default_member_permissions: '4'}"),
     (FieldChange("default_member_permissions", "8", "4"),)),
])
def test_a_command_edit_is_an_update_of_that_field(fields: dict[str, Any], manifest: str,
                                                   expected: tuple[FieldChange, ...]) -> None:
    current = cmd("1", "ping", **fields)
    assert only_change(current, f"commands: [{manifest}]\n") == expected


def test_equal_values_are_no_change() -> None:
    current = cmd("1", "give", options=[{**AMOUNT, "min_value": 1, "max_value": 10.0}])
    manifest = option_manifest("{type: integer, name: amount, description: How many, "
                               "min_value: 1.0, max_value: 10}")
    assert only_change(current, manifest) == ()


def test_every_scopes_warnings_and_rename_hints_are_kept() -> None:
    manifest = f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{id: "77", name: fresh, description: fresh command}}
              - {{name: boot, description: boot command}}
          "{OTHER}":
            commands:
              - {{id: "78", name: later, description: later command}}
              - {{name: mute, description: mute command}}
        """
    state = live({GUILD: [cmd("2", "kick", guild=GUILD)],
                  OTHER: [cmd("3", "silence", guild=OTHER)]})
    plan = diff(desired(manifest, application_id=APP), state)
    assert plan.warnings == (
        (f"guild {GUILD}: chat_input 'fresh' names id 77, which is not a live command of this "
        "scope: it will be created with a new id"),
        (f"guild {OTHER}: chat_input 'later' names id 78, which is not a live command of this "
        "scope: it will be created with a new id"),
    )
    two = desired(f"""\
        guilds:
          "{GUILD}":
            commands: [{{name: boot, description: boot command}}]
          "{OTHER}":
            commands: [{{name: mute, description: mute command}}]
        """, application_id=APP)
    assert diff(two, state).warnings == (
        (f"guild {GUILD}: chat_input 'kick' is deleted and 'boot' created; if this is a "
        "rename, add `id: \"2\"` to 'boot' in the manifest to keep the command's id and "
        "spend no create"),
        (f"guild {OTHER}: chat_input 'silence' is deleted and 'mute' created; if this is a "
        "rename, add `id: \"3\"` to 'mute' in the manifest to keep the command's id and "
        "spend no create"),
    )


def test_every_scopes_errors_are_kept() -> None:
    manifest = f"""\
        guilds:
          "{GUILD}":
            commands: [{{id: "2", type: user, name: Kick}}]
          "{OTHER}":
            commands: [{{id: "3", type: message, name: Mute}}]
        """
    state = live({GUILD: [cmd("2", "kick", guild=GUILD)],
                  OTHER: [cmd("3", "mute", guild=OTHER)]})
    assert diff(desired(manifest, application_id=APP), state).errors == (
        (f"guild {GUILD}: id 2 is a CHAT_INPUT command, but the manifest declares it as USER: "
        "Discord cannot change a command's type; remove the id to create a new command"),
        (f"guild {OTHER}: id 3 is a CHAT_INPUT command, but the manifest declares it as "
        "MESSAGE: Discord cannot change a command's type; remove the id to create a new "
        "command"),
    )


# -- forms worked out once are never mixed up -------------------------------------------------

def test_the_same_live_command_diffs_by_its_scope() -> None:
    """One live content in the global scope and a guild: ``contexts`` counts only for the
    global command (Discord ignores it on guild commands)."""
    text = f"""\
        commands: [{{name: ping, description: ping command}}]
        guilds:
          "{GUILD}":
            commands: [{{name: ping, description: ping command}}]
        """
    state = live({"global": [cmd("1", "ping", contexts=[0])],
                  GUILD: [cmd("2", "ping", guild=GUILD, contexts=[0])]})
    plan = diff(desired(text, application_id=APP), state)
    assert [(s.scope, c.action, c.changes) for s in plan.scopes for c in s.commands] == [
        ("global", Action.UPDATE, (FieldChange("contexts", [0], None),)),
        (GUILD, Action.NO_OP, ())]


def test_equal_live_commands_against_other_bodies_get_their_own_changes() -> None:
    text = f"""\
        guilds:
          "{GUILD}":
            commands: [{{name: ping, description: first}}]
          "{OTHER}":
            commands: [{{name: ping, description: second}}]
        """
    state = live({GUILD: [cmd("2", "ping", guild=GUILD)], OTHER: [cmd("3", "ping", guild=OTHER)]})
    plan = diff(desired(text, application_id=APP), state)
    assert [c.changes for s in plan.scopes for c in s.commands] == [
        (FieldChange("description", "ping command", "first"),),
        (FieldChange("description", "ping command", "second"),)]


def test_live_commands_with_other_options_against_one_body_get_their_own_changes() -> None:
    body = "{name: give, description: give command, options: [{type: integer, name: n, " \
           "description: N}]}"
    text = f"""\
        guilds:
          "{GUILD}":
            commands: [{body}]
          "{OTHER}":
            commands: [{body}]
        """
    n = {"type": 4, "name": "n", "description": "N"}
    state = live({GUILD: [cmd("2", "give", guild=GUILD, options=[n])],
                  OTHER: [cmd("3", "give", guild=OTHER, options=[{**n, "min_value": 1}])]})
    plan = diff(desired(text, application_id=APP), state)
    assert [c.changes for s in plan.scopes for c in s.commands] == [
        (), (FieldChange("options[name=n].min_value", 1, None),)]


def test_a_plan_of_more_distinct_forms_than_are_kept_is_whole() -> None:
    """300 guilds of their own command each: more than the 256 forms kept at once."""
    guilds = [str(int(GUILD) + i) for i in range(300)]
    text = "guilds:\n" + "".join(
        f'  "{g}":\n    commands: [{{name: c{i}, description: "now {i}"}}]\n'
        for i, g in enumerate(guilds))
    state = live({g: [cmd(str(1000 + i), f"c{i}", guild=g)] for i, g in enumerate(guilds)})
    plan = diff(desired(text, application_id=APP), state)
    assert [c.changes for s in plan.scopes for c in s.commands] == [
        (FieldChange("description", f"c{i} command", f"now {i}"),) for i in range(300)]


def test_a_read_that_arrived_again_replaces_the_first() -> None:
    text = "commands: [{name: ping, description: ping command}]\n"
    state = desired(text, application_id=APP)
    first, again = [cmd("1", "ping")], [cmd("1", "ping", description="edited", version="11")]
    differ = Differ(state)
    differ.add("global", first)
    plan = differ.plan(live({"global": again}))
    (change,) = plan.scopes[0].commands
    assert (change.version, change.changes) == (
        "11", (FieldChange("description", "edited", "ping command"),))
    assert plan.scopes[0].live == (LiveCommand("1", 1, "ping", "11"),)


def test_a_guild_of_overwrites_only_is_a_scope_plan_of_overwrites() -> None:
    text = f"""\
        commands: [{{name: ban, description: ban command}}]
        guilds:
          "{GUILD}":
            prune: false
            permissions:
              ban: [{{type: role, id: "{GUILD}1", permission: true}}]
        """
    state = live({"global": [cmd("1", "ban")], GUILD: [cmd("2", "kick", guild=GUILD)]})
    plan = diff(desired(text, application_id=APP), state)
    overwrite = {"id": f"{GUILD}1", "type": 1, "permission": True}
    assert plan.scopes[1] == ScopePlan(
        GUILD, (), (PermissionChange(Action.CREATE, GUILD, "ban", "1", "global", 1, "ban",
                                     (), (overwrite,)),),
        False, False, 0, {}, (LiveCommand("2", 1, "kick", "20"),))


def test_a_live_command_without_a_version_has_none() -> None:
    current = {k: v for k, v in cmd("1", "ping").items() if k != "version"}
    plan = diff(desired("commands: [{name: ping, description: ping command}]\n",
                        application_id=APP), live({"global": [current]}))
    assert plan.scopes[0].commands[0].version is None
    assert plan.scopes[0].live == (LiveCommand("1", 1, "ping", None),)


def test_live_commands_of_one_name_are_deleted_in_id_order() -> None:
    state = live({"global": [cmd("9", "dup"), cmd("10", "dup"), cmd("8", "dup")]})
    plan = diff(desired("commands: []\n", application_id=APP), state)
    assert [(c.action, c.id) for c in plan.scopes[0].commands] == [
        (Action.DELETE, "10"), (Action.DELETE, "8"), (Action.DELETE, "9")]
