"""The guardrails a saved plan and a refresh rest on, each reason stated whole (pure).

What apply refuses before its first write (:func:`unsafe_reasons`, the daily
create budget, overwrites without a Bearer token), what plan warns of (the
budget running low), and the three checks of a saved plan: live state changed
since it was made (:func:`stale_reasons`), its manifests give other bodies now
(:func:`manifest_reasons`), and, for a plan nothing vouches for, whether
planning again gives the same plan (:func:`plan_differences`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

import pytest

from cmdsync.apply.guardrails import (
    budget_reasons,
    manifest_reasons,
    plan_differences,
    raise_if_unsafe,
    stale_reasons,
    unsafe_reasons,
    with_budget_warnings,
)
from cmdsync.apply.ledger import Ledger
from cmdsync.apply.strategy import ScopeSteps, Step, StepKind, Strategy, schedule
from cmdsync.errors import UnsafePlanError
from cmdsync.plan import Action, CommandChange, Plan, ScopePlan, diff
from cmdsync.state import LiveState, live_scope
from tests.support.plan import APP, GUILD, OTHER, cmd, desired, live

API = "https://discord.com/api/v10"
# 2026-11-28 21:30:00 UTC: 2 h 30 min before the budget resets
NOW = datetime(2026, 11, 28, 21, 30, tzinfo=timezone.utc).timestamp()
DAY = "2026-11-28"

GUILD_MANIFEST = f"""\
    guilds:
      "{GUILD}":
        commands:
          - {{name: ban, description: ban command}}
          - {{name: kick, description: kick command}}
        permissions:
          ban: [{{type: role, id: "{GUILD}1", permission: true}}]
    """
LIVE_GUILD = [cmd("2", "ban", guild=GUILD), cmd("3", "kick", guild=GUILD)]
BAN_OVERWRITES = [{"id": "2", "application_id": APP, "guild_id": GUILD,
                   "permissions": [{"id": f"{GUILD}2", "type": 1, "permission": False}]}]


def guild_plan(**scopes: Any) -> Plan:
    """The plan of :data:`GUILD_MANIFEST` against the live guild (ban's overwrites set)."""
    return diff(desired(GUILD_MANIFEST, application_id=APP),
                live({GUILD: LIVE_GUILD}, {GUILD: BAN_OVERWRITES}))


def ledger(used: int, scope: str = GUILD) -> Ledger:
    return Ledger({API: {APP: {scope: {DAY: used}}}})


def creating(count: int, scope: str = GUILD) -> ScopeSteps:
    steps = tuple(Step(StepKind.CREATE, scope, {"name": f"c{i}"}) for i in range(count))
    return ScopeSteps(scope, Strategy.PER_COMMAND, steps, count)


def budget_plan(creates: int, scope: str = GUILD) -> Plan:
    return Plan(APP, (ScopePlan(scope, creates=creates),))


# -- stale_reasons: what changed live since the plan was made ----------------------------

def test_a_plan_against_the_live_state_it_was_made_from_is_not_stale() -> None:
    plan = guild_plan()
    assert stale_reasons(plan, live({GUILD: LIVE_GUILD}, {GUILD: BAN_OVERWRITES})) == []


def test_deleted_changed_renamed_and_created_commands_make_a_plan_stale() -> None:
    plan = guild_plan()
    now = live({GUILD: [cmd("2", "ban", guild=GUILD, version="99"),
                        cmd("4", "mute", guild=GUILD)]}, {GUILD: BAN_OVERWRITES})
    where = f"guild {GUILD}"
    assert stale_reasons(plan, now) == [
        f"{where}: chat_input 'ban' (id 2) changed (version 20 -> 99)",
        f"{where}: chat_input 'kick' (id 3) was deleted",
        f"{where}: chat_input 'mute' (id 4) was created"]
    renamed = live({GUILD: [cmd("2", "banish", guild=GUILD), LIVE_GUILD[1]]},
                   {GUILD: BAN_OVERWRITES})
    assert stale_reasons(plan, renamed) == [
        f"{where}: chat_input 'ban' (id 2) changed (version 20 -> 20)"]


def test_overwrites_changed_on_discord_since_the_plan_make_it_stale() -> None:
    plan = guild_plan()
    (change,) = plan.scopes[0].permissions
    assert (change.key, change.target_id) == ("ban", "2")
    changed = [{**BAN_OVERWRITES[0], "permissions": [
        {"id": f"{GUILD}3", "type": 1, "permission": False}]}]
    assert stale_reasons(plan, live({GUILD: LIVE_GUILD}, {GUILD: changed})) == [
        f"guild {GUILD}: the permission overwrites of 'ban' (id 2) changed"]
    assert stale_reasons(plan, live({GUILD: LIVE_GUILD}, {GUILD: []})) == [
        f"guild {GUILD}: the permission overwrites of 'ban' (id 2) changed"]


def test_overwrites_of_a_command_the_plan_creates_are_never_stale() -> None:
    plan = diff(desired(GUILD_MANIFEST, application_id=APP), live({GUILD: LIVE_GUILD[1:]}))
    (change,) = plan.scopes[0].permissions
    assert change.target_id is None
    assert stale_reasons(plan, live({GUILD: LIVE_GUILD[1:]},
                                    {GUILD: BAN_OVERWRITES})) == []


def test_a_live_command_of_a_type_cmdsync_does_not_know_is_named_by_its_number() -> None:
    plan = guild_plan()
    now = live({GUILD: [*LIVE_GUILD, cmd("5", "odd", type=9, guild=GUILD)]},
               {GUILD: BAN_OVERWRITES})
    assert stale_reasons(plan, now) == [f"guild {GUILD}: type 9 'odd' (id 5) was created"]


# -- manifest_reasons: a saved plan against its manifests now -----------------------------

def test_the_manifests_a_plan_was_made_from_give_no_reason() -> None:
    plan = guild_plan()
    assert manifest_reasons(plan, desired(GUILD_MANIFEST, application_id=APP)) == []


def test_a_changed_digest_alone_is_a_reason() -> None:
    plan = replace(guild_plan(), manifest_digest="sha256:" + "0" * 64)
    assert manifest_reasons(plan, desired(GUILD_MANIFEST, application_id=APP)) == [
        "the manifests changed since the plan was made (its manifest_digest differs)"]


def test_bodies_commands_and_overwrites_the_manifests_no_longer_give_are_each_named() -> None:
    plan = guild_plan()
    now = desired(f"""\
        guilds:
          "{GUILD}":
            commands:
              - {{name: ban, description: Ban someone}}
              - {{name: warn, description: warn command}}
            permissions:
              ban: [{{type: role, id: "{GUILD}9", permission: true}}]
        """, application_id=APP)
    where = f"guild {GUILD}"
    assert manifest_reasons(plan, now) == [
        f"{where}: overwrites of 'ban': the plan puts other overwrites than the manifests give",
        f"{where}: chat_input 'ban': the plan sends another body than the manifests give",
        (f"{where}: chat_input 'kick': the plan would no-op it, but the manifests do not "
        "declare it"),
        f"{where}: chat_input 'warn': declared in the manifests, missing from the plan"]


def test_overwrites_in_a_guild_whose_manifests_set_none_are_a_reason() -> None:
    plan = guild_plan()
    without_overwrites = GUILD_MANIFEST.split("        permissions:")[0]
    now = desired(without_overwrites, application_id=APP)
    assert manifest_reasons(plan, now) == [
        (f"guild {GUILD}: overwrites of 'ban': the plan changes them, but the manifests set "
        "no overwrites in this guild")]


def test_a_scope_the_manifests_no_longer_name_is_a_reason_per_command() -> None:
    plan = guild_plan()
    now = desired("commands: [{name: ping, description: ping command}]\n",
                  application_id=APP)
    where = f"guild {GUILD}"
    assert manifest_reasons(plan, now) == [
        (f"{where}: overwrites of 'ban': the plan changes them, but the manifests set no "
        "overwrites in this guild"),
        (f"{where}: chat_input 'ban': the plan would no-op it, but the manifests do not "
        "declare it"),
        (f"{where}: chat_input 'kick': the plan would no-op it, but the manifests do not "
        "declare it")]


def test_integration_types_the_plan_filled_in_are_not_a_difference() -> None:
    text = "commands: [{name: ping, description: ping command}]\n"
    plan = diff(desired(text, application_id=APP), live({"global": [cmd("1", "ping")]}))
    (change,) = plan.scopes[0].commands
    assert change.body is not None and change.body["integration_types"] == [0]
    assert manifest_reasons(plan, desired(text, application_id=APP)) == []
    declared = "commands: [{name: ping, description: ping command, integration_types: " \
               "[guild_install, user_install]}]\n"
    assert manifest_reasons(plan, desired(declared, application_id=APP)) == [
        "global: chat_input 'ping': the plan sends another body than the manifests give"]


# -- plan_differences: a saved plan nothing vouches for, against the plan made again ------

def test_the_same_plan_twice_has_no_difference() -> None:
    assert plan_differences(guild_plan(), guild_plan()) == []


def test_a_scope_in_one_plan_only_is_named_either_way() -> None:
    other = diff(desired(GUILD_MANIFEST.replace(GUILD, OTHER), application_id=APP),
                 live({OTHER: []}))
    saved, fresh = guild_plan(), other
    assert plan_differences(saved, fresh) == [
        f"guild {GUILD}: the plan names this scope, but the manifests do not",
        f"guild {OTHER}: the manifests name this scope, but the plan does not"]


def test_a_command_change_in_one_plan_only_is_named_either_way() -> None:
    saved = guild_plan()
    scope = saved.scopes[0]
    extra = CommandChange(Action.CREATE, GUILD, 1, "warn",
                          body={"name": "warn", "description": "warn command"})
    with_extra = replace(saved, scopes=(replace(scope, commands=scope.commands + (extra,)),))
    where = f"guild {GUILD}"
    assert plan_differences(with_extra, saved) == [
        (f"{where}: chat_input 'warn': the plan would create it, but the manifests do not "
        "give that change")]
    assert plan_differences(saved, with_extra) == [
        f"{where}: chat_input 'warn': the manifests give a create, missing from the plan"]


def test_another_action_or_body_flags_and_overwrites_are_named() -> None:
    saved = guild_plan()
    scope = saved.scopes[0]
    ban, kick = scope.commands
    deleted = replace(kick, action=Action.DELETE, body=None)
    edited = replace(ban, body={**dict(ban.body or {}), "description": "Ban them"})
    (overwrites,) = scope.permissions
    forged = replace(saved, scopes=(replace(
        scope, commands=(edited, deleted), prune=False,
        permissions=(replace(overwrites, after=()),)),))
    where = f"guild {GUILD}"
    assert plan_differences(forged, saved) == [
        f"{where}: the plan has prune False, the manifests give True",
        f"{where}: chat_input 'ban': the plan's no-op differs from the manifests'",
        f"{where}: chat_input 'kick': the plan would delete it, the manifests give no-op",
        f"{where}: overwrites of 'ban' (id 2): the plan's update differs from the manifests'"]
    unmanaged = replace(saved, scopes=(replace(scope, manages_commands=False),))
    assert plan_differences(unmanaged, saved) == [
        f"{where}: the plan has manages_commands False, the manifests give True"]


# -- the daily create budget, and the caps per type ----------------------------------------

@pytest.mark.parametrize(("used", "creates"), [(0, 200), (150, 50), (200, 0), (199, 1)])
def test_exactly_two_hundred_creates_a_day_are_allowed(used: int, creates: int) -> None:
    assert budget_reasons(APP, [creating(creates)], ledger=ledger(used), api_url=API,
                          now=NOW) == []


def test_the_two_hundred_and_first_create_is_refused_saying_when_the_budget_resets() -> None:
    reasons = budget_reasons(APP, [creating(51), creating(3, "global")], ledger=ledger(150),
                             api_url=API, now=NOW)
    assert reasons == [
        (f"guild {GUILD}: the plan creates 51 commands and 150 were created today (UTC, "
        ".cmdsync/ledger.json); Discord allows 200 per day: apply fewer new commands, or wait "
        "until midnight UTC (in 2 h 30 min)")]


def test_the_budget_counts_only_this_application_api_and_day() -> None:
    elsewhere = Ledger({API: {"999": {GUILD: {DAY: 200}}},
                        "http://127.0.0.1:8787/api/v10": {APP: {GUILD: {DAY: 200}}}})
    yesterday = Ledger({API: {APP: {GUILD: {"2026-11-27": 200}}}})
    for book in (elsewhere, yesterday):
        assert budget_reasons(APP, [creating(200)], ledger=book, api_url=API, now=NOW) == []


def test_a_budget_warning_comes_below_fifty_creates_left_once_some_were_used() -> None:
    def warnings(used: int, creates: int) -> tuple[str, ...]:
        return with_budget_warnings(budget_plan(creates), ledger=ledger(used), api_url=API,
                                    now=NOW).warnings

    assert warnings(0, 199) == ()  # none used today: nothing to warn of
    assert warnings(100, 50) == ()  # 50 left
    assert warnings(100, 51) == (
        (f"guild {GUILD}: 100 of Discord's 200 daily command creates were used today (UTC, "
        ".cmdsync/ledger.json); this plan creates 51, leaving 49"),)
    assert warnings(190, 20) == (
        (f"guild {GUILD}: 190 of Discord's 200 daily command creates were used today (UTC, "
        ".cmdsync/ledger.json); this plan creates 20, more than are left: apply will refuse "
        "it until midnight UTC"),)
    plan = budget_plan(51)
    kept = replace(plan, warnings=("an earlier warning",))
    assert with_budget_warnings(kept, ledger=ledger(100), api_url=API, now=NOW).warnings[0] \
        == "an earlier warning"
    assert with_budget_warnings(plan, ledger=ledger(0), api_url=API, now=NOW) is plan


@pytest.mark.parametrize(("kind", "cap"), [(1, 100), (2, 15), (3, 15)])
def test_each_type_may_hold_its_cap_and_not_one_more(kind: int, cap: int) -> None:
    label = {1: "CHAT_INPUT", 2: "USER", 3: "MESSAGE"}[kind]
    def manifest(count: int) -> str:
        lines = "".join(f"  - {{type: {kind}, name: c{i}"
                        + (", description: d}\n" if kind == 1 else "}\n")
                        for i in range(count))
        return "commands:\n" + lines

    at_cap = diff(desired(manifest(cap), application_id=APP), live({"global": []}))
    assert at_cap.errors == () and at_cap.scopes[0].totals[label] == cap
    over = diff(desired(manifest(cap + 1), application_id=APP), live({"global": []}))
    assert over.errors == (
        f"global: {cap + 1} {label} commands after apply; Discord allows {cap}",)


# -- unsafe_reasons and raise_if_unsafe -----------------------------------------------------

def test_overwrites_without_a_bearer_token_are_refused_naming_the_guild() -> None:
    plan = guild_plan()
    scheduled, problems = schedule(plan, Strategy.AUTO)
    assert problems == []
    args: dict[str, Any] = {"ledger": Ledger(), "api_url": API, "now": NOW}
    assert unsafe_reasons(plan, scheduled, [], has_user_token=True, **args) == []
    assert unsafe_reasons(replace(plan, errors=("a plan error",)), scheduled,
                          ["a schedule problem"], has_user_token=False, **args) == [
        "a plan error", "a schedule problem",
        (f"the plan changes permission overwrites in guild {GUILD}: that needs a user's "
        "Bearer token with scope applications.commands.permissions.update; set "
        "DISCORD_BEARER_TOKEN or pass --bearer-token-file, or run `cmdsync login` (a bot "
        "token gets 403 code 20001)")]


def test_unsafe_reasons_include_the_budget() -> None:
    plan = budget_plan(1)
    assert unsafe_reasons(plan, [creating(1)], [], ledger=ledger(200), api_url=API, now=NOW,
                          has_user_token=False) == [
        (f"guild {GUILD}: the plan creates 1 commands and 200 were created today (UTC, "
        ".cmdsync/ledger.json); Discord allows 200 per day: apply fewer new commands, or wait "
        "until midnight UTC (in 2 h 30 min)")]


def test_raise_if_unsafe_counts_the_problems_and_raises_only_for_some() -> None:
    raise_if_unsafe([])
    with pytest.raises(UnsafePlanError) as one:
        raise_if_unsafe(["first"])
    assert str(one.value) == "refusing to apply (1 problem); nothing was changed:\n  - first"
    with pytest.raises(UnsafePlanError) as two:
        raise_if_unsafe(["first", "second"])
    assert str(two.value) == ("refusing to apply (2 problems); nothing was changed:\n"
                              "  - first\n  - second")


def test_stale_reasons_read_the_scope_of_each_plan_scope() -> None:
    """Two scopes: each is held against its own live commands."""
    text = f"""\
        commands: [{{name: ping, description: ping command}}]
        guilds:
          "{GUILD}":
            commands: [{{name: ban, description: ban command}}]
        """
    before = live({"global": [cmd("1", "ping")], GUILD: [cmd("2", "ban", guild=GUILD)]})
    plan = diff(desired(text, application_id=APP), before)
    after = LiveState(APP, {"global": live_scope("global", [cmd("1", "ping", version="11")]),
                            GUILD: live_scope(GUILD, [cmd("2", "ban", guild=GUILD)])})
    assert stale_reasons(plan, after) == [
        "global: chat_input 'ping' (id 1) changed (version 10 -> 11)"]


# -- the cases that pin each check's edges -------------------------------------------------

def test_overwrites_in_several_guilds_name_each_guild() -> None:
    text = GUILD_MANIFEST.rstrip(" ") + GUILD_MANIFEST.replace(GUILD, OTHER).replace(
        "    guilds:\n", "")
    plan = diff(desired(text, application_id=APP),
                live({GUILD: LIVE_GUILD, OTHER: [cmd("2", "ban", guild=OTHER),
                                                  cmd("3", "kick", guild=OTHER)]}))
    scheduled, _ = schedule(plan, Strategy.AUTO)
    (reason,) = unsafe_reasons(plan, scheduled, [], ledger=Ledger(), api_url=API, now=NOW,
                               has_user_token=False)
    assert reason.startswith(f"the plan changes permission overwrites in guild {GUILD}, "
                             f"{OTHER}: that needs a user's Bearer token")


@pytest.mark.parametrize(("hour", "minute", "second", "wait"), [
    (23, 0, 59, "0 h 59 min"), (4, 0, 0, "20 h 0 min"), (0, 0, 0, "24 h 0 min")])
def test_the_time_until_the_budget_resets_is_whole_hours_and_minutes(
        hour: int, minute: int, second: int, wait: str) -> None:
    at = datetime(2026, 11, 28, hour, minute, second, tzinfo=timezone.utc).timestamp()
    (reason,) = budget_reasons(APP, [creating(1)], ledger=ledger(200), api_url=API, now=at)
    assert reason.endswith(f"wait until midnight UTC (in {wait})")


def test_no_creates_left_after_the_plan_still_warns_leaving_none() -> None:
    plan = with_budget_warnings(budget_plan(50), ledger=ledger(150), api_url=API, now=NOW)
    assert plan.warnings == (
        (f"guild {GUILD}: 150 of Discord's 200 daily command creates were used today (UTC, "
        ".cmdsync/ledger.json); this plan creates 50, leaving 0"),)


def test_a_live_command_without_a_type_is_a_chat_input_command() -> None:
    plan = guild_plan()
    untyped = {k: v for k, v in cmd("5", "odd", guild=GUILD).items() if k != "type"}
    now = live({GUILD: [*LIVE_GUILD, untyped]}, {GUILD: BAN_OVERWRITES})
    assert stale_reasons(plan, now) == [f"guild {GUILD}: chat_input 'odd' (id 5) was created"]


def test_every_scope_is_held_against_the_manifests() -> None:
    """A guild whose commands the manifests leave alone (overwrites only), then one whose
    body changed: the second is still checked; a delete comes before a changed body."""
    text = f"""\
        guilds:
          "{GUILD}":
            permissions:
              ban: [{{type: role, id: "{GUILD}1", permission: true}}]
          "{OTHER}":
            commands:
              - {{name: kick, description: kick command}}
        """
    state = live({GUILD: LIVE_GUILD, OTHER: [cmd("1", "ban", guild=OTHER),
                                             cmd("3", "kick", guild=OTHER)]},
                 {GUILD: BAN_OVERWRITES})
    plan = diff(desired(text, application_id=APP), state)
    assert [s.manages_commands for s in plan.scopes] == [False, True]
    assert [c.action for c in plan.scopes[1].commands] == [Action.DELETE, Action.NO_OP]
    assert manifest_reasons(plan, desired(text, application_id=APP)) == []
    edited = desired(text.replace("kick command}", "Kick someone}"), application_id=APP)
    assert manifest_reasons(plan, edited) == [
        (f"guild {OTHER}: chat_input 'kick': the plan sends another body than the manifests "
        "give")]


def test_a_cleared_overwrite_set_is_what_the_manifests_give() -> None:
    """Live overwrites of a command the manifests give none for are cleared: an empty set."""
    kick = [{"id": "3", "application_id": APP, "guild_id": GUILD,
             "permissions": [{"id": f"{GUILD}4", "type": 1, "permission": True}]}]
    state = live({GUILD: LIVE_GUILD}, {GUILD: BAN_OVERWRITES + kick})
    plan = diff(desired(GUILD_MANIFEST, application_id=APP), state)
    assert sorted((p.key, p.after) for p in plan.scopes[0].permissions) == [
        ("ban", ({"id": f"{GUILD}1", "type": 1, "permission": True},)), ("kick", ())]
    assert manifest_reasons(plan, desired(GUILD_MANIFEST, application_id=APP)) == []


def test_ids_and_integration_types_the_manifests_declare_are_held_as_declared() -> None:
    text = """\
        commands:
          - {id: "1", name: ping, description: ping command, integration_types: [guild_install]}
        """
    plan = diff(desired(text, application_id=APP), live({"global": [cmd("1", "ping")]}))
    assert plan.scopes[0].commands[0].action is Action.NO_OP
    assert manifest_reasons(plan, desired(text, application_id=APP)) == []


def test_true_sent_where_the_manifests_give_one_is_another_body() -> None:
    """JSON's equality, not Python's: a forged ``nsfw: 1`` is not the manifests' true."""
    text = "commands: [{name: ping, description: ping command, nsfw: true}]\n"
    plan = diff(desired(text, application_id=APP), live({"global": [cmd("1", "ping")]}))
    (change,) = plan.scopes[0].commands
    forged = replace(plan, scopes=(replace(plan.scopes[0], commands=(
        replace(change, body={**dict(change.body or {}), "nsfw": 1}),)),))
    assert manifest_reasons(forged, desired(text, application_id=APP)) == [
        "global: chat_input 'ping': the plan sends another body than the manifests give"]


def test_a_scope_only_the_saved_plan_names_does_not_hide_the_next_ones() -> None:
    other = diff(desired(GUILD_MANIFEST.replace(GUILD, OTHER), application_id=APP),
                 live({OTHER: []}))
    saved = replace(other, scopes=(*guild_plan().scopes, *other.scopes))
    (theirs,) = other.scopes
    fresh = replace(other, scopes=(replace(theirs, prune=False),))
    assert plan_differences(saved, fresh) == [
        f"guild {GUILD}: the plan names this scope, but the manifests do not",
        f"guild {OTHER}: the plan has prune True, the manifests give False"]
    assert plan_differences(fresh, saved) == [
        f"guild {GUILD}: the manifests name this scope, but the plan does not",
        f"guild {OTHER}: the plan has prune False, the manifests give True"]


def test_each_overwrite_set_is_compared_on_its_own() -> None:
    kick = [{"id": "3", "application_id": APP, "guild_id": GUILD,
             "permissions": [{"id": f"{GUILD}4", "type": 1, "permission": True}]}]
    plan = diff(desired(GUILD_MANIFEST, application_id=APP),
                live({GUILD: LIVE_GUILD}, {GUILD: BAN_OVERWRITES + kick}))
    scope = plan.scopes[0]
    ban, kicked = sorted(scope.permissions, key=lambda p: p.key)
    forged = replace(plan, scopes=(replace(scope, permissions=(
        replace(ban, after=({"id": f"{GUILD}5", "type": 1, "permission": True},)), kicked
    )),))
    assert plan_differences(forged, plan) == [
        (f"guild {GUILD}: overwrites of 'ban' (id 2): the plan's update differs from the "
        "manifests'")]


def test_an_overwrite_change_added_with_a_key_the_plan_has_is_found() -> None:
    """A forged plan adds a set under an existing key, aimed at another command."""
    plan = guild_plan()
    scope = plan.scopes[0]
    (ban,) = scope.permissions
    aimed = replace(ban, target_id="3", command_name="kick")
    forged = replace(plan, scopes=(replace(scope, permissions=(ban, aimed)),))
    assert plan_differences(forged, plan) == [
        (f"guild {GUILD}: overwrites of 'ban' (id 3): the plan would update it, but the "
        "manifests do not give that change")]
    twice = replace(plan, scopes=(replace(scope, permissions=(aimed, ban, ban)),))
    assert plan_differences(twice, plan) == [
        f"guild {GUILD}: overwrites of 'ban' (id 2): the plan changes it more than once",
        (f"guild {GUILD}: overwrites of 'ban' (id 3): the plan would update it, but the "
        "manifests do not give that change")]


def test_a_command_change_the_plan_holds_twice_is_found() -> None:
    """The first of two changes of one command would hide behind the second."""
    plan = guild_plan()
    scope = plan.scopes[0]
    ban, kick = scope.commands
    deleted = replace(ban, action=Action.DELETE, body=None)
    forged = replace(plan, scopes=(replace(scope, commands=(deleted, ban, kick)),))
    assert plan_differences(forged, plan) == [
        f"guild {GUILD}: chat_input 'ban': the plan changes it more than once"]
