"""Which write requests apply makes: bulk, per-command, auto, order, PATCH bodies (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.apply.strategy import (
    MAX_BULK_ITEMS,
    ScopeSteps,
    Step,
    StepKind,
    Strategy,
    choose,
    patch_body,
    schedule,
)
from cmdsync.plan import (
    Action,
    CommandChange,
    FieldChange,
    PermissionChange,
    Plan,
    ScopePlan,
    diff,
)
from tests.support.plan import APP, GUILD, OTHER, cmd, desired, live


def requests(steps: tuple[Step, ...]) -> list[tuple[str, str]]:
    """``(method, what)`` per step, for exact comparisons."""
    out = []
    for step in steps:
        if step.kind == "bulk":
            out.append(("PUT", "[" + ", ".join(b["name"] + (f"#{b['id']}" if "id" in b else "")
                                               for b in step.body) + "]"))
        elif step.kind == "permissions":
            assert step.permission is not None
            out.append(("PUT", f"permissions of {step.permission.key}"))
        else:
            out.append((step.method, step.commands[0].name))
    return out


def plan_of(text: str, scopes: dict[str, list[dict[str, Any]]], **kwargs: Any) -> Plan:
    return diff(desired(text, application_id=APP), live(scopes, kwargs.pop("perms", None)),
                **kwargs)


LIVE = [cmd("1", "ping"), cmd("2", "ban"), cmd("3", "old"), cmd("4", "Profile", type=2)]
CHANGED = """\
    commands:
      - {name: ping, description: ping command}
      - {id: "2", name: punish, description: ban command}
      - {name: new, description: A new command}
      - {type: user, name: Profile}
    """


def test_bulk_is_one_put_with_ids_for_every_existing_command() -> None:
    scope = plan_of(CHANGED, {"global": LIVE}).scopes[0]
    chosen = choose(scope, Strategy.BULK)
    assert not isinstance(chosen, str)
    assert (chosen.strategy, chosen.creates) == (Strategy.BULK, 1)
    # old (3) is left out: deleted; the rename keeps id 2; new has no id: created
    assert requests(chosen.steps) == [("PUT", "[new, ping#1, punish#2, Profile#4]")]


def test_per_command_sends_exactly_what_changed() -> None:
    scope = plan_of(CHANGED, {"global": LIVE}).scopes[0]
    chosen = choose(scope, Strategy.PER_COMMAND)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("PATCH", "punish"), ("POST", "new"), ("DELETE", "old")]
    # integration_types: the live value, as the app's default is unknown (see plan.py)
    assert chosen.steps[0].body == {"name": "punish", "description": "ban command",
                                    "integration_types": [0]}


def test_auto_takes_fewer_requests_and_per_command_on_a_tie() -> None:
    several = choose(plan_of(CHANGED, {"global": LIVE}).scopes[0], Strategy.AUTO)
    assert not isinstance(several, str) and several.strategy is Strategy.BULK
    one = plan_of("commands: [{name: ping, description: Pong}]\n",
                  {"global": [cmd("1", "ping")]}).scopes[0]
    single = choose(one, Strategy.AUTO)
    assert not isinstance(single, str) and single.strategy is Strategy.PER_COMMAND
    assert requests(single.steps) == [("PATCH", "ping")]


def test_an_empty_plan_makes_no_request() -> None:
    plan = plan_of("commands: [{name: ping, description: ping command}]\n",
                   {"global": [cmd("1", "ping")]})
    for strategy in Strategy:
        assert schedule(plan, strategy) == ([], [])


def test_bulk_keeps_the_unmanaged_entry_point() -> None:
    entry = cmd("9", "launch", type=4, handler=2)
    scope = plan_of("commands: [{name: ping, description: New}]\n",
                    {"global": [cmd("1", "ping"), entry]}).scopes[0]
    chosen = choose(scope, Strategy.BULK)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("PUT", "[ping#1, launch#9]")]
    assert chosen.steps[0].body[1]["handler"] == 2


def test_unchanged_commands_kept_by_no_prune_stay_in_the_bulk_body() -> None:
    scope = plan_of("commands: [{name: ping, description: New}]\n",
                    {"global": [cmd("1", "ping"), cmd("3", "old")]}, prune=False).scopes[0]
    chosen = choose(scope, Strategy.BULK)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("PUT", "[old#3, ping#1]")]


def test_deletes_go_first_when_creating_first_would_exceed_a_cap() -> None:
    users = [cmd(str(i), f"User {i:02}", type=2) for i in range(10, 25)]  # 15: the cap
    manifest = "commands:\n" + "".join(f"  - {{type: user, name: User {i:02}}}\n"
                                       for i in range(10, 24)) + \
        "  - {type: user, name: Brand new}\n"
    chosen = choose(plan_of(manifest, {"global": users}).scopes[0], Strategy.PER_COMMAND)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("DELETE", "User 24"), ("POST", "Brand new")]
    roomy = choose(plan_of(manifest, {"global": users[:-1] + [cmd("99", "Zed")]}).scopes[0],
                   Strategy.PER_COMMAND)
    assert not isinstance(roomy, str)  # the CHAT_INPUT delete does not free a USER slot
    assert requests(roomy.steps) == [("POST", "Brand new"), ("DELETE", "Zed")]


def test_a_delete_that_frees_a_name_for_a_rename_goes_first() -> None:
    manifest = 'commands: [{id: "1", name: ban, description: ping command}]\n'
    chosen = choose(plan_of(manifest, {"global": [cmd("1", "ping"), cmd("2", "ban")]}
                            ).scopes[0], Strategy.PER_COMMAND)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("DELETE", "ban"), ("PATCH", "ban")]


def test_rename_chains_are_ordered_and_cycles_need_bulk() -> None:
    chain = ('commands: [{id: "1", name: b, description: x}, '
             '{id: "2", name: c, description: x}]\n')
    chosen = choose(plan_of(chain, {"global": [cmd("1", "a"), cmd("2", "b")]}).scopes[0],
                    Strategy.PER_COMMAND)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("PATCH", "c"), ("PATCH", "b")]
    swap = ('commands: [{id: "1", name: b, description: x}, '
            '{id: "2", name: a, description: x}]\n')
    plan = plan_of(swap, {"global": [cmd("1", "a"), cmd("2", "b")]})
    assert schedule(plan, Strategy.PER_COMMAND) == ([], [
        ("global: renames 'b' -> 'a' -> 'b' take each other's names: per-command would need a "
        "temporary name; use --strategy bulk or auto")])
    auto = choose(plan.scopes[0], Strategy.AUTO)
    assert not isinstance(auto, str) and auto.strategy is Strategy.BULK


def test_bulk_over_130_items_needs_per_command() -> None:
    manifest = ("commands:\n" + "".join(f"  - {{name: c{i}, description: x}}\n"
                                        for i in range(100))
                + "".join(f"  - {{type: user, name: U{i}}}\n  - {{type: message, name: M{i}}}\n"
                          for i in range(15)))
    plan = plan_of(manifest, {"global": []})
    assert len(plan.scopes[0].commands) == 130
    assert not isinstance(choose(plan.scopes[0], Strategy.BULK), str)
    entry = cmd("9", "launch", type=4)
    over = plan_of(manifest, {"global": [entry]})
    assert schedule(over, Strategy.BULK)[1] == [
        (f"global: a bulk overwrite would carry 131 commands; Discord takes at most "
        f"{MAX_BULK_ITEMS}: use --strategy per-command or auto")]
    auto = choose(over.scopes[0], Strategy.AUTO)
    assert not isinstance(auto, str) and auto.strategy is Strategy.PER_COMMAND


def test_patch_sends_fields_reset_to_their_defaults() -> None:
    current = cmd("1", "ban", default_member_permissions="4", nsfw=True, contexts=[0],
                  name_localizations={"fr": "bannir"},
                  options=[{"type": 6, "name": "user", "description": "Who"}])
    plan = plan_of('commands: [{name: ban, description: ban command}]\n',
                   {"global": [current]})
    (change,) = plan.scopes[0].commands
    assert change.action is Action.UPDATE
    assert patch_body(change) == {
        "name": "ban", "description": "ban command", "name_localizations": None,
        "default_member_permissions": None, "nsfw": False, "contexts": None, "options": [],
        "integration_types": [0]}


def test_patch_keeps_what_the_body_sets() -> None:
    change = CommandChange(Action.UPDATE, "global", 1, "x", "1", "10",
                           (FieldChange("description", "a", "b"),),
                           {"id": "1", "type": 1, "name": "x", "description": "b"})
    assert patch_body(change) == {"name": "x", "description": "b"}


def test_permission_puts_follow_the_commands_of_their_guild() -> None:
    manifest = f"""\
        guilds:
          "{GUILD}":
            commands: [{{name: deploy, description: Deploy}}]
            permissions:
              deploy: [{{type: role, id: everyone, permission: false}}]
        """
    scheduled, problems = schedule(plan_of(manifest, {GUILD: [], "global": []}), Strategy.AUTO)
    assert problems == []
    (guild,) = scheduled
    assert requests(guild.steps) == [("POST", "deploy"), ("PUT", "permissions of deploy")]
    assert guild.steps[1].body == [{"id": GUILD, "type": 1, "permission": False}]
    assert guild.steps[1].permission is not None and guild.steps[1].permission.target_id is None


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
    plan = plan_of(f"commands: [{manifest}]\n", {"global": [cmd("1", "ping", **fields)]})
    (change,) = plan.scopes[0].commands
    assert patch_body(change) == {"name": "ping", "description": "ping command",
                                  "integration_types": [0], **sent}


def test_a_type_at_its_cap_after_apply_creates_before_it_deletes() -> None:
    """14 USER commands live, one deleted and one created: 15, the cap, at every moment
    whatever the order, so the create goes first as usual; one more live and the delete
    must go first."""
    users = [cmd(str(i), f"User {i:02}", type=2) for i in range(10, 24)]
    manifest = "commands:\n" + "".join(f"  - {{type: user, name: User {i:02}}}\n"
                                       for i in range(10, 23)) + \
        "  - {type: user, name: Brand new}\n"
    chosen = choose(plan_of(manifest, {"global": users}).scopes[0], Strategy.PER_COMMAND)
    assert not isinstance(chosen, str)
    assert requests(chosen.steps) == [("POST", "Brand new"), ("DELETE", "User 23")]


def test_a_scope_without_command_changes_sends_its_overwrites_only() -> None:
    scope = ScopePlan(GUILD, (CommandChange(Action.NO_OP, GUILD, 1, "ban", "2", "20"),),
                      (PermissionChange(Action.UPDATE, GUILD, "ban", "2", GUILD, 1, "ban", (),
                                        ({"id": "5", "type": 1, "permission": True},)),))
    chosen = choose(scope, Strategy.AUTO)
    assert chosen == ScopeSteps(GUILD, None, (Step(
        StepKind.PERMISSIONS, GUILD, [{"id": "5", "type": 1, "permission": True}],
        permission=scope.permissions[0]),), 0)


def test_a_scope_neither_way_can_write_says_both_reasons() -> None:
    """Over 130 commands for a bulk overwrite and a rename cycle for per-command."""
    live_commands = [cmd("1", "a"), cmd("2", "b"), *(cmd(str(i), f"c{i}")
                                                     for i in range(10, 108)),
                     *(cmd(str(i), f"U{i}", type=2) for i in range(200, 215)),
                     *(cmd(str(i), f"M{i}", type=3) for i in range(300, 315)),
                     cmd("9", "launch", type=4)]
    manifest = ('commands:\n  - {id: "1", name: b, description: a command}\n'
                '  - {id: "2", name: a, description: b command}\n'
                + "".join(f"  - {{name: c{i}, description: c{i} command}}\n"
                          for i in range(10, 108))
                + "".join(f"  - {{type: user, name: U{i}}}\n" for i in range(200, 215))
                + "".join(f"  - {{type: message, name: M{i}}}\n" for i in range(300, 315)))
    plan = plan_of(manifest, {"global": live_commands})
    assert schedule(plan, Strategy.AUTO) == ([], [
        ("global: a bulk overwrite would carry 131 commands; Discord takes at most 130: use "
        "--strategy per-command or auto; global: renames 'b' -> 'a' -> 'b' take each other's "
        "names: per-command would need a temporary name; use --strategy bulk or auto")])


def test_a_scope_that_cannot_be_written_does_not_hide_the_next() -> None:
    swap = f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{id: "1", name: b, description: x}}
              - {{id: "2", name: a, description: x}}
          "{OTHER}":
            commands: [{{name: ping, description: ping command}}]
        """
    plan = plan_of(swap, {GUILD: [cmd("1", "a", guild=GUILD), cmd("2", "b", guild=GUILD)],
                          OTHER: []})
    scheduled, problems = schedule(plan, Strategy.PER_COMMAND)
    assert [s.scope for s in scheduled] == [OTHER]
    assert problems == [(f"guild {GUILD}: renames 'b' -> 'a' -> 'b' take each other's names: "
                        "per-command would need a temporary name; use --strategy bulk or auto")]
