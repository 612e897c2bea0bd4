"""The permission-overwrite part of the diff: exact PermissionChange values."""

from __future__ import annotations

from typing import Any

from cmdsync.plan import Action, PermissionChange, diff
from tests.support.plan import APP, GUILD, cmd, desired, live

ROLE = {"id": "5", "type": 1, "permission": True}
EVERYONE_OFF = {"id": GUILD, "type": 1, "permission": False}
ALL_CHANNELS_OFF = {"id": "222222222222222221", "type": 3, "permission": False}


def manifest(permissions: str, commands: str = "") -> str:
    return (f'guilds:\n  "{GUILD}":\n' + (f"    commands:\n{commands}" if commands else "")
            + f"    permissions:\n{permissions}")


BAN = "      - {name: ban, description: ban command}\n"
REPORT = "      - {type: message, name: Report}\n"


def perms(table: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {GUILD: [{"id": k, "application_id": APP, "guild_id": GUILD, "permissions": v}
                    for k, v in table.items()]}


def test_create_update_and_no_op() -> None:
    state = desired(manifest(
        "      ban:\n"
        "        - {type: role, id: everyone, permission: false}\n"
        "        - {type: channel, id: all_channels, permission: false}\n"
        "      Report: [{type: role, id: '5', permission: true}]\n",
        BAN + REPORT))
    current = {GUILD: [cmd("11", "ban", guild=GUILD), cmd("12", "Report", type=3,
                                                          guild=GUILD)]}
    plan = diff(state, live(current, perms({"11": [EVERYONE_OFF]})))
    assert plan.scopes[0].permissions == (
        PermissionChange(Action.CREATE, GUILD, "Report", "12", GUILD, 3, "Report", (),
                         (ROLE,)),
        PermissionChange(Action.UPDATE, GUILD, "ban", "11", GUILD, 1, "ban", (EVERYONE_OFF,),
                         (EVERYONE_OFF, ALL_CHANNELS_OFF)),
    )
    assert plan.permission_changes == 2
    same_again = perms({"11": [ALL_CHANNELS_OFF, EVERYONE_OFF], "12": [ROLE]})
    assert not diff(state, live(current, same_again)).has_changes


def test_application_wide_type_prefix_and_global_targets() -> None:
    state = desired(manifest(
        "      '*': [{type: role, id: '5', permission: true}]\n"
        "      message:Report: [{type: role, id: '5', permission: true}]\n"
        "      ping: [{type: role, id: '5', permission: true}]\n"))
    current = {"global": [cmd("40", "ping"), cmd("41", "Report", type=2),
                          cmd("42", "Report", type=3)], GUILD: []}
    plan = diff(state, live(current))
    assert plan.scopes[0].manages_commands is False
    assert plan.scopes[0].commands == ()
    assert plan.scopes[0].permissions == (
        PermissionChange(Action.CREATE, GUILD, "*", APP, None, None, None, (), (ROLE,)),
        PermissionChange(Action.CREATE, GUILD, "message:Report", "42", "global", 3, "Report",
                         (), (ROLE,)),
        PermissionChange(Action.CREATE, GUILD, "ping", "40", "global", 1, "ping", (),
                         (ROLE,)),
    )


def test_guild_command_wins_over_global_of_same_name() -> None:
    state = desired(manifest("      ban: [{type: role, id: '5', permission: true}]\n", BAN))
    current = {"global": [cmd("40", "ban")], GUILD: [cmd("11", "ban", guild=GUILD)]}
    (change,) = diff(state, live(current)).scopes[0].permissions
    assert (change.target_id, change.command_scope) == ("11", GUILD)


def test_command_created_by_the_plan_has_no_target_id_yet() -> None:
    state = desired(manifest("      ban: [{type: role, id: '5', permission: true}]\n", BAN))
    plan = diff(state, live({GUILD: []}))
    assert plan.scopes[0].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", None, GUILD, 1, "ban", (), (ROLE,)),)


def test_unresolved_key_is_an_error() -> None:
    state = desired(manifest("      nope: [{type: role, id: '5', permission: true}]\n", BAN))
    plan = diff(state, live({GUILD: [], "global": []}))
    assert plan.errors == ((f"guild {GUILD}: permissions key 'nope' names no command of this "
                           "guild and no global command"),)
    assert plan.scopes[0].permissions == ()


def test_prune_clears_unnamed_sets_but_not_of_deleted_commands() -> None:
    state = desired(manifest("      ban: []\n", BAN))
    current = {GUILD: [cmd("11", "ban", guild=GUILD), cmd("13", "gone", guild=GUILD)],
               "global": [cmd("40", "ping")]}
    table = perms({"11": [ROLE], "13": [ROLE], "40": [ROLE], APP: [ROLE], "77": [ROLE]})
    plan = diff(state, live(current, table))
    assert plan.scopes[0].permissions == (
        PermissionChange(Action.DELETE, GUILD, "ban", "11", GUILD, 1, "ban", (ROLE,), ()),
        PermissionChange(Action.DELETE, GUILD, "*", APP, None, None, None, (ROLE,), ()),
        PermissionChange(Action.DELETE, GUILD, "ping", "40", "global", 1, "ping", (ROLE,),
                         ()),
    )
    assert [(c.action, c.name) for c in plan.scopes[0].commands] == [
        (Action.NO_OP, "ban"), (Action.DELETE, "gone")]
    kept = diff(state, live(current, table), prune=False).scopes[0].permissions
    assert [c.key for c in kept] == ["ban"]


def test_guild_without_permissions_leaves_overwrites_alone() -> None:
    state = desired(f'guilds:\n  "{GUILD}":\n    commands:\n{BAN}')
    current = {GUILD: [cmd("11", "ban", guild=GUILD)]}
    assert not diff(state, live(current, perms({"11": [ROLE]}))).has_changes


def test_colon_in_a_context_menu_name() -> None:
    state = desired(manifest("      'user:Translate': [{type: role, id: '5', permission: true}]\n"
                             "      'message:Translate: French': []\n",
                             "      - {type: message, name: 'user:Translate'}\n"
                             "      - {type: message, name: 'Translate: French'}\n"))
    plan = diff(state, live({GUILD: []}))
    assert [(p.key, p.command_type, p.command_name) for p in plan.scopes[0].permissions] == [
        ("user:Translate", 3, "user:Translate")]
    assert plan.errors == ()


UNDECLARED = ("not the guild's own chat_input \"ban\" (id 11), which the manifest does not "
              "declare")
GLOBAL_BAN = "commands:\n  - {name: ban, description: ban command}\n"


def test_a_declared_global_command_wins_over_an_undeclared_guild_one() -> None:
    """Issue 33 item 7: the guild's own ``ban`` is live, but the manifest manages no
    command of the guild; the key goes to the global ``ban`` it declares, and says so."""
    state = desired(GLOBAL_BAN + manifest("      ban: [{type: role, id: '5', permission: true}]\n"))
    current = {"global": [cmd("40", "ban")], GUILD: [cmd("11", "ban", guild=GUILD)]}
    plan = diff(state, live(current, perms({"11": [ROLE]})))
    assert plan.scopes[1].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", "40", "global", 1, "ban", (), (ROLE,),
                         UNDECLARED),
        PermissionChange(Action.DELETE, GUILD, "ban", "11", GUILD, 1, "ban", (ROLE,), ()),
    )
    kept = diff(state, live(current, perms({"11": [ROLE]})), prune=False)
    assert kept.scopes[1].permissions == plan.scopes[1].permissions[:1]


def test_a_global_command_the_plan_creates_wins_over_an_undeclared_guild_one() -> None:
    """Item 7: the global ``ban`` has no id yet: apply learns it."""
    state = desired(GLOBAL_BAN + manifest("      ban: [{type: role, id: '5', permission: true}]\n"))
    plan = diff(state, live({"global": [], GUILD: [cmd("11", "ban", guild=GUILD)]}))
    assert plan.scopes[1].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", None, "global", 1, "ban", (), (ROLE,),
                         UNDECLARED),)


def test_a_command_kept_by_prune_false_takes_no_key_a_declared_one_answers_to() -> None:
    """Item 7: the guild's commands are managed, its own ``ban`` kept undeclared."""
    text = GLOBAL_BAN + (f'guilds:\n  "{GUILD}":\n    prune: false\n    commands:\n'
                         "      - {name: kick, description: kick command}\n"
                         "    permissions:\n      ban: [{type: role, id: '5', permission: true}]\n")
    current = {"global": [cmd("40", "ban")],
               GUILD: [cmd("11", "ban", guild=GUILD), cmd("12", "kick", guild=GUILD)]}
    plan = diff(desired(text), live(current, perms({"11": [ROLE]})))
    assert [(c.action, c.name, c.note) for c in plan.scopes[1].commands] == [
        (Action.NO_OP, "ban", "not in the manifest: kept (prune is off)"),
        (Action.NO_OP, "kick", None)]
    assert plan.scopes[1].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", "40", "global", 1, "ban", (), (ROLE,),
                         UNDECLARED),)


def test_a_declared_guild_command_still_wins_and_says_nothing() -> None:
    state = desired(GLOBAL_BAN + manifest("      ban: [{type: role, id: '5', permission: true}]\n",
                                          BAN))
    current = {"global": [cmd("40", "ban")], GUILD: [cmd("11", "ban", guild=GUILD)]}
    assert diff(state, live(current)).scopes[1].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", "11", GUILD, 1, "ban", (), (ROLE,)),)


def test_a_key_no_declared_command_answers_to_falls_back_to_the_live_ones() -> None:
    """A desired state CS402 did not check: the guild's live command, as before."""
    state = desired(manifest("      ban: [{type: role, id: '5', permission: true}]\n"))
    current = {"global": [cmd("40", "ban")], GUILD: [cmd("11", "ban", guild=GUILD)]}
    assert diff(state, live(current)).scopes[0].permissions == (
        PermissionChange(Action.CREATE, GUILD, "ban", "11", GUILD, 1, "ban", (), (ROLE,)),)


def test_a_declared_rename_is_re_put_and_says_which_command_it_is_not() -> None:
    """Both reasons, the forced re-put first."""
    state = desired('commands:\n  - {id: "40", name: ban, description: ban command}\n'
                    + manifest("      ban: [{type: role, id: '5', permission: true}]\n"))
    current = {"global": [cmd("40", "kick")], GUILD: [cmd("11", "ban", guild=GUILD)]}
    (change,) = diff(state, live(current, perms({"40": [ROLE]}))).scopes[1].permissions
    assert (change.action, change.target_id, change.reason) == (
        Action.UPDATE, "40", "renamed: Discord drops its overwrites; " + UNDECLARED)
