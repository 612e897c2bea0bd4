"""Every field a user edits shows as an update with its exact change (pure), and a plan of
several scopes keeps every scope's warnings and rename hints."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.apply.strategy import patch_body
from cmdsync.plan import Action, FieldChange, diff
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


@pytest.mark.parametrize(("fields", "manifest", "sent"), [
    ({}, "{name: ping, description: ping command, nsfw: true}", {"nsfw": True}),
    ({"name_localizations": {"fr": "pong"}},
     "{name: ping, description: ping command, name_localizations: {fr: pang}}",
     {"name_localizations": {"fr": "pang"}}),
    ({"nsfw": True}, "{name: ping, description: ping command}", {"nsfw": False}),
    ({"default_member_permissions": "8"}, "{name: ping, description: ping command}",
     {"default_member_permissions": None}),
])
def test_a_patch_sends_what_the_body_sets_and_resets_only_what_it_leaves_out(
        fields: dict[str, Any], manifest: str, sent: dict[str, Any]) -> None:
    plan = diff(desired(f"commands: [{manifest}]\n", application_id=APP),
                live({"global": [cmd("1", "ping", **fields)]}))
    (change,) = plan.scopes[0].commands
    assert patch_body(change) == {"name": "ping", "description": "ping command",
                                  "integration_types": [0], **sent}


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
