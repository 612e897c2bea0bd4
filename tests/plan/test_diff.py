"""The pure diff: exact Plan values for create, update, delete, no-op, renames, scopes."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from cmdsync.plan import (
    Action,
    CommandChange,
    Differ,
    FieldChange,
    LiveCommand,
    Plan,
    ScopePlan,
    diff,
)
from cmdsync.state import LiveState, live_scope
from tests.support.plan import APP, GUILD, MANIFEST, OTHER, cmd, desired, live


def refs(*commands: dict[str, Any]) -> tuple[LiveCommand, ...]:
    found = [LiveCommand(c["id"], c["type"], c["name"], c["version"]) for c in commands]
    return tuple(sorted(found, key=lambda r: (r.type, r.name, r.id)))


TOTALS = {"CHAT_INPUT": 0, "USER": 0, "MESSAGE": 0, "PRIMARY_ENTRY_POINT": 0}


def test_create_update_delete_no_op() -> None:
    ping = cmd("10", "ping")
    ban = cmd("11", "ban", options=[{"type": 6, "name": "user", "description": "Who"}])
    old = cmd("12", "old")
    state = desired(MANIFEST)
    plan = diff(state, live({"global": [old, ban, ping]}))
    new_body = {"name": "new", "description": "A new command"}
    assert plan == Plan(APP, (ScopePlan(
        "global",
        (CommandChange(Action.UPDATE, "global", 1, "ban", "11", "110", (
            FieldChange("description", "ban command", "Ban a member"),
            FieldChange("options[name=user].required", False, True)),
            {"name": "ban", "description": "Ban a member", "options": [
                {"type": 6, "name": "user", "description": "Who", "required": True}],
             "id": "11", "integration_types": [0]}),
         CommandChange(Action.CREATE, "global", 1, "new", body=new_body),
         CommandChange(Action.DELETE, "global", 1, "old", "12", "120"),
         CommandChange(Action.NO_OP, "global", 1, "ping", "10", "100", (),
                       {"name": "ping", "description": "ping command", "id": "10",
                        "integration_types": [0]})),
        (), True, True, 1, {**TOTALS, "CHAT_INPUT": 3}, refs(ping, ban, old)),),
        (("global: chat_input 'old' is deleted and 'new' created; if this is a rename, add "
         "`id: \"12\"` to 'new' in the manifest to keep the command's id and spend no create"),),
        (), state.digest, state.files)
    assert (plan.count(Action.CREATE), plan.count(Action.UPDATE),
            plan.count(Action.DELETE), plan.permission_changes) == (1, 1, 1, 0)
    assert plan.has_changes


def test_apply_result_is_no_change() -> None:
    ping = cmd("10", "ping")
    ban = cmd("11", "ban", description="Ban a member",
              options=[{"type": 6, "name": "user", "description": "Who", "required": True}])
    new = cmd("13", "new", description="A new command")
    plan = diff(desired(MANIFEST), live({"global": [ping, ban, new]}))
    assert [c.action for c in plan.scopes[0].commands] == [Action.NO_OP] * 3
    assert not plan.has_changes


def test_order_of_live_commands_does_not_matter() -> None:
    commands = [cmd(str(10 + i), name) for i, name in enumerate(["c", "a", "b", "old", "z"])]
    state = desired(MANIFEST)
    first = diff(state, live({"global": commands}))
    for seed in range(5):
        shuffled = commands[:]
        random.Random(seed).shuffle(shuffled)
        assert diff(state, live({"global": shuffled})) == first
    assert [(c.action.value, c.name) for c in first.scopes[0].commands] == [
        ("-", "a"), ("-", "b"), ("+", "ban"), ("-", "c"), ("+", "new"), ("-", "old"),
        ("+", "ping"), ("-", "z")]


NESTED = """\
    commands:
      - name: mod
        description: Moderation
        options:
          - type: sub_command
            name: ban
            description: Ban
            options:
              - {type: user, name: member, description: Who, required: true}
              - {type: string, name: reason, description: Why}
          - type: sub_command
            name: kick
            description: Kick
            name_localizations: {fr: expulser, de: kicken}
          - type: sub_command
            name: warn
            description: Warn
            options:
              - type: integer
                name: days
                description: Days
                choices:
                  - {name: One, value: 1}
                  - {name: Seven, value: 7}
    """


def test_nested_option_paths() -> None:
    current = cmd("20", "mod", description="Moderation", options=[
        {"type": 1, "name": "kick", "description": "Kick",
         "name_localizations": {"fr": "expulser", "es-ES": "echar"}},
        {"type": 1, "name": "ban", "description": "Ban", "options": [
            {"type": 6, "name": "user", "description": "Who"},
            {"type": 3, "name": "reason", "description": "Why"}]},
        {"type": 1, "name": "warn", "description": "Warn", "options": [
            {"type": 4, "name": "days", "description": "Days", "choices": [
                {"name": "One", "value": 1}, {"name": "Seven", "value": 6},
                {"name": "Thirty", "value": 30}]}]},
        {"type": 1, "name": "mute", "description": "Mute"}])
    plan = diff(desired(NESTED), live({"global": [current]}))
    (change,) = plan.scopes[0].commands
    assert change.action is Action.UPDATE
    assert change.changes == (
        FieldChange("options[name=ban].options[name=member].name", "user", "member"),
        FieldChange("options[name=ban].options[name=member].required", False, True),
        FieldChange("options[name=kick].name_localizations.de", None, "kicken"),
        FieldChange("options[name=kick].name_localizations.es-ES", "echar", None),
        FieldChange("options[name=warn].options[name=days].choices[name=Seven].value", 6, 7),
        FieldChange("options[name=warn].options[name=days].choices[name=Thirty]",
                    {"name": "Thirty", "name_localizations": None, "value": 30}, None),
        FieldChange("options[name=mute]",
                    {"type": 1, "name": "mute", "name_localizations": None,
                     "description": "Mute", "description_localizations": None}, None),
        FieldChange("options[*].name", ["kick", "ban", "warn", "mute"],
                    ["ban", "kick", "warn"]),
    )


def test_added_option() -> None:
    current = cmd("21", "ping")
    state = desired("""\
        commands:
          - name: ping
            description: ping command
            options: [{type: boolean, name: loud, description: Loud}]
        """)
    (change,) = diff(state, live({"global": [current]})).scopes[0].commands
    assert change.changes == (FieldChange("options[name=loud]", None, {
        "type": 5, "name": "loud", "name_localizations": None, "description": "Loud",
        "description_localizations": None}),)


def test_rename_by_id_keeps_id_and_warns() -> None:
    kick = cmd("30", "kick", guild=GUILD)
    state = desired(f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{id: "30", name: boot, description: kick command}}
            permissions:
              boot: [{{type: role, id: "5", permission: true}}]
        """)
    perms = {GUILD: [{"id": "30", "permissions": [{"id": "5", "type": 1,
                                                   "permission": True}]}]}
    plan = diff(state, live({GUILD: [kick]}, perms))
    (change,) = plan.scopes[0].commands
    assert change == CommandChange(
        Action.UPDATE, GUILD, 1, "boot", "30", "300", (FieldChange("name", "kick", "boot"),),
        {"id": "30", "name": "boot", "description": "kick command"}, renamed_from="kick")
    (perm,) = plan.scopes[0].permissions
    assert (perm.action, perm.key, perm.target_id, perm.reason) == (
        Action.UPDATE, "boot", "30", "renamed: Discord drops its overwrites")
    assert perm.before == perm.after == ({"id": "5", "type": 1, "permission": True},)
    assert plan.warnings == (
        (f"guild {GUILD}: renaming chat_input 'kick' to 'boot' (id 30) keeps its id, but "
        "Discord drops a renamed command's permission overwrites; cmdsync puts the "
        f"manifest's back in guild {GUILD}"),)
    assert plan.scopes[0].creates == 0


def test_global_rename_warns_about_guilds_not_in_manifest() -> None:
    state = desired("""\
        commands:
          - {id: "40", name: boot, description: kick command}
        """)
    perms = {OTHER: [{"id": "40", "permissions": [{"id": "5", "type": 1,
                                                   "permission": False}]}]}
    plan = diff(state, live({"global": [cmd("40", "kick")], OTHER: []}, perms))
    assert plan.warnings == (
        ("global: renaming chat_input 'kick' to 'boot' (id 40) keeps its id, but Discord "
        "drops a renamed command's permission overwrites; lost in guild "
        f"{OTHER} (not in the manifest)"),)
    assert [s.scope for s in plan.scopes] == ["global"]


def test_unknown_id_is_created_with_warning() -> None:
    state = desired("""\
        commands:
          - {id: "41", name: ping, description: P}
        """)
    plan = diff(state, live({"global": []}))
    (change,) = plan.scopes[0].commands
    assert change == CommandChange(Action.CREATE, "global", 1, "ping",
                                   body={"name": "ping", "description": "P"})
    assert plan.warnings == (("global: chat_input 'ping' names id 41, which is not a live "
                             "command of this scope: it will be created with a new id"),)


def test_type_change_through_id_is_an_error() -> None:
    state = desired("""\
        commands:
          - {id: "42", type: message, name: Report}
        """)
    plan = diff(state, live({"global": [cmd("42", "Report", type=2)]}))
    assert plan.errors == (
        ("global: id 42 is a USER command, but the manifest declares it as MESSAGE: Discord "
        "cannot change a command's type; remove the id to create a new command"),)


def test_scopes_not_in_manifest_are_never_touched() -> None:
    state = desired(f"""\
        guilds:
          "{GUILD}":
            commands: []
        """)
    plan = diff(state, live({"global": [cmd("50", "ping")],
                             GUILD: [cmd("51", "g", guild=GUILD)],
                             OTHER: [cmd("52", "o", guild=OTHER)]}))
    assert [s.scope for s in plan.scopes] == [GUILD]
    assert [(c.action, c.name) for c in plan.scopes[0].commands] == [(Action.DELETE, "g")]


def test_entry_point_not_managed_is_kept() -> None:
    launch = cmd("60", "launch", type=4, handler=2)
    plan = diff(desired("commands: []\n"), live({"global": [launch, cmd("61", "ping")]}))
    deleted, kept = plan.scopes[0].commands
    assert kept == CommandChange(
        Action.NO_OP, "global", 4, "launch", "60", "600",
        body={"default_member_permissions": None, "type": 4, "name": "launch",
              "name_localizations": None, "description": "launch command",
              "description_localizations": None, "nsfw": False, "dm_permission": True,
              "contexts": None, "integration_types": [0], "handler": 2, "id": "60"},
        note="entry point not in the manifest: kept")
    assert (deleted.action, deleted.name) == (Action.DELETE, "ping")
    assert plan.scopes[0].totals["PRIMARY_ENTRY_POINT"] == 1


def test_prune_false_in_manifest_keeps_unnamed() -> None:
    plan = diff(desired("prune: false\ncommands: []\n"), live({"global": [cmd("70", "a")]}))
    (kept,) = plan.scopes[0].commands
    assert (kept.action, kept.note) == (Action.NO_OP, "not in the manifest: kept (prune is off)")
    assert plan.scopes[0].totals["CHAT_INPUT"] == 1
    assert not plan.has_changes


def test_no_prune_flag_keeps_unnamed() -> None:
    plan = diff(desired("commands: []\n"), live({"global": [cmd("70", "a")]}), prune=False)
    assert [c.action for c in plan.scopes[0].commands] == [Action.NO_OP]


def test_guild_prune_overrides_top_level() -> None:
    state = desired(f"""\
        prune: false
        commands: []
        guilds:
          "{GUILD}": {{commands: [], prune: true}}
          "{OTHER}": {{commands: []}}
        """)
    plan = diff(state, live({"global": [cmd("1", "a")], GUILD: [cmd("2", "b", guild=GUILD)],
                             OTHER: [cmd("3", "c", guild=OTHER)]}))
    assert [(s.scope, s.prune, [c.action for c in s.commands]) for s in plan.scopes] == [
        ("global", False, [Action.NO_OP]), (GUILD, True, [Action.DELETE]),
        (OTHER, False, [Action.NO_OP])]


def test_integration_types_default() -> None:
    current = cmd("80", "ping", integration_types=[0, 1])
    state = desired("commands: [{name: ping, description: ping command}]\n")
    unknown = diff(state, live({"global": [current]}))
    assert not unknown.has_changes
    # apply sends what the plan compared against, so it cannot reset it unseen
    assert unknown.scopes[0].commands[0].body == {
        "name": "ping", "description": "ping command", "id": "80", "integration_types": [0, 1]}
    plan = diff(state, live({"global": [current]}), default_integration_types=[0])
    assert plan.scopes[0].commands[0].changes == (
        FieldChange("integration_types", [0, 1], [0]),)


def test_guild_only_fields_do_not_diff_on_guild_commands() -> None:
    state = desired(f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{name: ping, description: ping command, dm_permission: false,
                 contexts: [guild]}}
        """)
    plan = diff(state, live({GUILD: [cmd("81", "ping", guild=GUILD)]}))
    assert not plan.has_changes


def test_creates_and_caps() -> None:
    names = "\n".join(f"      - {{name: c{i}, description: d}}" for i in range(101))
    state = desired(f"guilds:\n  \"{GUILD}\":\n    commands:\n{names}\n")
    plan = diff(state, live({GUILD: []}))
    assert plan.scopes[0].creates == 101
    assert plan.scopes[0].totals["CHAT_INPUT"] == 101
    assert plan.errors == ((f"guild {GUILD}: 101 CHAT_INPUT commands after apply; Discord "
                           "allows 100"),)


def test_creates_count_toward_daily_limit() -> None:
    users = "\n".join(f"      - {{type: user, name: u{i}}}" for i in range(15))
    chats = "\n".join(f"      - {{name: c{i}, description: d}}" for i in range(100))
    state = desired(f"guilds:\n  \"{GUILD}\":\n    commands:\n{users}\n{chats}\n")
    plan = diff(state, live({GUILD: []}))
    assert plan.scopes[0].creates == 115
    assert plan.errors == ()
    assert plan.scopes[0].totals == {**TOTALS, "CHAT_INPUT": 100, "USER": 15}


def test_a_plan_built_scope_by_scope_as_reads_arrive_is_the_diff() -> None:
    """``Differ.add`` as each scope's read arrives (any order, some never added, one
    added before its overwrites were read again) gives exactly ``diff``'s plan:
    changes, warnings and errors in the same order."""
    state = desired(f"""\
        commands:
          - {{id: "40", name: boot, description: kick command}}
          - {{id: "42", type: message, name: Report}}
        guilds:
          "{GUILD}":
            commands:
              - {{id: "30", name: ban, description: ban command}}
              - {{id: "77", name: new, description: N}}
            permissions:
              ban: [{{type: role, id: "5", permission: true}}]
          "{OTHER}":
            commands:
              - {{name: ping, description: changed}}
        """)
    scopes = {"global": [cmd("40", "kick"), cmd("42", "Report", type=2), cmd("43", "old")],
              GUILD: [cmd("30", "boot", guild=GUILD), cmd("31", "gone", guild=GUILD)],
              OTHER: [cmd("52", "ping", guild=OTHER)]}
    perms = {GUILD: [{"id": "30", "permissions": [{"id": "6", "type": 1, "permission": True}]}]}
    state_live = live(scopes, perms)
    expected = diff(state, state_live)
    assert expected.warnings and expected.errors  # the case exercises both
    for order in ([OTHER, "global", GUILD], [GUILD], []):
        differ = Differ(state, application=state_live.application)
        for scope in order:
            differ.add(scope, state_live.scope(scope).commands)
        assert differ.plan(state_live) == expected
    stale = Differ(state)
    stale.add(GUILD, tuple(scopes[GUILD][:1]))  # an earlier read of that scope: redone
    assert stale.plan(state_live) == expected


def test_global_rename_names_only_guilds_where_it_has_overwrites() -> None:
    """The manifest sets overwrites in the guild for another command only: the
    renamed one has none there, nor live, so there is nothing to warn of (a new
    user's report; issue 33)."""
    state = desired(f"""\
        commands:
          - {{id: "40", name: pong, description: kick command}}
          - {{name: other, description: other command}}
        guilds:
          "{GUILD}":
            permissions:
              other: [{{type: role, id: "5", permission: true}}]
        """)
    plan = diff(state, live({"global": [cmd("40", "ping"), cmd("41", "other")], GUILD: []}))
    assert plan.warnings == ()
    assert [(c.action, c.renamed_from) for c in plan.scopes[0].commands] == [
        (Action.NO_OP, None), (Action.UPDATE, "ping")]


def test_global_rename_says_what_becomes_of_each_guilds_overwrites() -> None:
    state = desired(f"""\
        commands:
          - {{id: "40", name: pong, description: kick command}}
        guilds:
          "{GUILD}":
            permissions:
              pong: [{{type: role, id: "5", permission: true}}]
          "{OTHER}":
            permissions: {{"*": []}}
        """)
    perms = {OTHER: [{"id": "40", "permissions": [{"id": "5", "type": 1,
                                                   "permission": False}]}]}
    plan = diff(state, live({"global": [cmd("40", "ping")], GUILD: [], OTHER: []}, perms))
    assert plan.warnings == (
        ("global: renaming chat_input 'ping' to 'pong' (id 40) keeps its id, but Discord "
         f"drops a renamed command's permission overwrites; cmdsync sets the manifest's in "
         f"guild {GUILD}; lost in guild {OTHER} (the manifest sets none for it)"),)


def test_a_guild_rename_without_overwrites_warns_of_nothing() -> None:
    """Issue 33 item 14: the renamed guild command has no overwrites, live or in the
    manifest (another command of the guild has some): nothing is lost."""
    state = desired(f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{id: "30", name: boot, description: kick command}}
              - {{name: ban, description: ban command}}
            permissions:
              ban: [{{type: role, id: "5", permission: true}}]
        """)
    perms = {GUILD: [{"id": "31", "permissions": [{"id": "5", "type": 1,
                                                   "permission": True}]}]}
    current = live({GUILD: [cmd("30", "kick", guild=GUILD), cmd("31", "ban", guild=GUILD)]},
                   perms)
    # another guild whose overwrites were not read holds none of a guild command's
    current = replace(current, scopes={**current.scopes, OTHER: live_scope(OTHER, [])})
    plan = diff(state, current)
    assert plan.warnings == ()
    assert [(c.action, c.name, c.renamed_from) for c in plan.scopes[0].commands] == [
        (Action.NO_OP, "ban", None), (Action.UPDATE, "boot", "kick")]


def test_a_rename_whose_overwrites_were_not_read_says_so() -> None:
    """Client credentials cannot read overwrites: whether the command has some in the
    guild is not known, and the warning says that rather than nothing."""
    state = desired(f"""\
        commands:
          - {{id: "40", name: pong, description: kick command}}
        guilds:
          "{GUILD}": {{commands: []}}
        """)
    unread = LiveState(APP, {"global": live_scope("global", [cmd("40", "ping")]),
                             GUILD: live_scope(GUILD, [])})
    assert diff(state, unread).warnings == (
        ("global: renaming chat_input 'ping' to 'pong' (id 40) keeps its id, but Discord "
         f"drops a renamed command's permission overwrites; guild {GUILD}: not known (its "
         "overwrites were not read: a bot token or a user's Bearer token reads them)"),)
