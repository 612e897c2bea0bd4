"""Plans against the emulator: create, update, delete, rename, permissions, many guilds.

Each test plans, applies the plan's own request bodies through the API (what
``cmdsync apply`` sends: a bulk overwrite per scope, then permission PUTs),
and plans again: apply-then-plan must show no changes.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from dataclasses import replace
from typing import Any

import pytest

from cmdsync.client import endpoints
from cmdsync.client.http import DiscordClient
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.manifest.entries import collect
from cmdsync.manifest.loader import load_file, load_text
from cmdsync.plan import Action, FieldChange, Plan, diff
from cmdsync.runners.fetch import fetch_live
from cmdsync.state import DesiredState, desired_state
from tests.support.emulator import apply, make_client
from tests.support.plan import CLEAN_PARAMS, load_commands, sent_form
from tests.support.virtual_time import VirtualTime, handlers_inline

APP = emulator_seed.APPLICATION_ID
GUILD = emulator_seed.GUILD_ID


def desired(text: str) -> DesiredState:
    doc = load_text(textwrap.dedent(text), file="m.yaml", kind="yaml", env={})
    return desired_state(collect([doc]), application_id=APP)


async def plan_of(client: DiscordClient, state: DesiredState, **kwargs: Any) -> Plan:
    return diff(state, await fetch_live(client, APP, state), **kwargs)


MANIFEST = f"""\
    commands:
      - name: ban
        description: Ban a member
        default_member_permissions: [ban_members]
        options:
          - {{type: user, name: user, description: Who, required: true}}
          - {{type: string, name: reason, description: Why, required: false,
             name_localizations: {{fr: raison}}}}
      - {{type: user, name: Profile}}
      - {{name: ping, description: Ping, nsfw: false, contexts: [guild, bot_dm]}}
    guilds:
      "{GUILD}":
        commands:
          - {{type: message, name: Report}}
          - name: mod
            description: Moderation
            options:
              - type: sub_command
                name: kick
                description: Kick
                options: [{{type: user, name: user, description: Who, required: true}}]
        permissions:
          ban: [{{type: role, id: everyone, permission: false}}]
          mod:
            - {{type: role, id: "444444444444444444", permission: true}}
            - {{type: channel, id: all_channels, permission: false}}
    """


def test_create_apply_then_no_changes() -> None:
    async def scenario() -> tuple[Plan, Plan]:
        async with make_client(new_emulator()) as client:
            first = await plan_of(client, desired(MANIFEST))
            await apply(client, first)
            return first, await plan_of(client, desired(MANIFEST))

    first, second = asyncio.run(scenario())
    assert [(s.scope, [(c.action, c.name) for c in s.commands], len(s.permissions))
            for s in first.scopes] == [
        ("global", [(Action.CREATE, "ban"), (Action.CREATE, "ping"),
                    (Action.CREATE, "Profile")], 0),
        (GUILD, [(Action.CREATE, "mod"), (Action.CREATE, "Report")], 2)]
    assert first.scopes[1].creates == 2
    assert not second.has_changes, second


CHANGED = MANIFEST.replace("description: Ban a member", "description: Ban someone") \
    .replace("{type: user, name: user, description: Who, required: true}\n          - ",
             "{type: user, name: user, description: Who}\n          - ", 1) \
    .replace("      - {type: user, name: Profile}\n", "") \
    .replace("id: all_channels, permission: false", "id: all_channels, permission: true")


def test_update_delete_and_permissions() -> None:
    async def scenario() -> tuple[Plan, Plan]:
        async with make_client(new_emulator()) as client:
            await apply(client, await plan_of(client, desired(MANIFEST)))
            changed = await plan_of(client, desired(CHANGED))
            await apply(client, changed)
            return changed, await plan_of(client, desired(CHANGED))

    changed, after = asyncio.run(scenario())
    global_scope, guild_scope = changed.scopes
    ban = global_scope.commands[0]
    assert (ban.action, ban.changes) == (Action.UPDATE, (
        FieldChange("description", "Ban a member", "Ban someone"),
        FieldChange("options[name=user].required", True, False)))
    assert [(c.action, c.name) for c in global_scope.commands[1:]] == [
        (Action.NO_OP, "ping"), (Action.DELETE, "Profile")]
    (perm,) = guild_scope.permissions
    assert (perm.action, perm.key, perm.after[1]) == (
        Action.UPDATE, "mod", {"id": str(int(GUILD) - 1), "type": 3, "permission": True})
    assert not after.has_changes, after


def test_rename_keeps_id_and_puts_overwrites_back() -> None:
    async def scenario() -> tuple[Plan, Plan, Plan]:
        async with make_client(new_emulator()) as client:
            await apply(client, await plan_of(client, desired(MANIFEST)))
            live = await endpoints.list_commands(client, APP, GUILD)
            mod_id = next(c["id"] for c in live if c["name"] == "mod")
            renamed = (MANIFEST.replace("- name: mod\n", f'- id: "{mod_id}"\n'
                                        "            name: moderate\n")
                       .replace("          mod:\n", "          moderate:\n"))
            rename = await plan_of(client, desired(renamed))
            without_reput = replace(rename, scopes=tuple(
                replace(s, permissions=()) for s in rename.scopes))
            await apply(client, without_reput)
            dropped = await plan_of(client, desired(renamed))
            await apply(client, dropped)
            return rename, dropped, await plan_of(client, desired(renamed))

    rename, dropped, after = asyncio.run(scenario())
    change = next(c for c in rename.scopes[1].commands if c.name == "moderate")
    assert (change.action, change.renamed_from, change.changes) == (
        Action.UPDATE, "mod", (FieldChange("name", "mod", "moderate"),))
    (perm,) = rename.scopes[1].permissions
    assert (perm.key, perm.reason) == ("moderate", "renamed: Discord drops its overwrites")
    assert rename.scopes[1].creates == 0
    assert len(rename.warnings) == 1
    # The emulator, like Discord, dropped the overwrites on rename: the re-put was needed.
    assert [(p.action, p.key) for p in dropped.scopes[1].permissions] == [
        (Action.CREATE, "moderate")]
    assert not after.has_changes


def test_overwrites_are_read_where_the_plan_needs_them_only() -> None:
    """Without permissions or renames no overwrite is read; a global rename reads every
    guild's, to say where Discord drops them."""
    other = "555555555555555555"
    seed = emulator_seed.default_seed()
    seed["guilds"].append({"id": other, "name": "Other"})
    emulator = new_emulator(seed=seed)
    guilds = f'guilds:\n  "{GUILD}": {{commands: [{{name: g, description: G}}]}}\n' \
             f'  "{other}": {{commands: [{{name: o, description: O}}]}}\n'

    def reads() -> list[str]:
        return sorted(e.path for e in emulator.log.entries() if "permissions" in e.path)

    async def scenario() -> tuple[list[str], list[str], Plan]:
        async with make_client(emulator) as client:
            state = desired("commands: [{name: ping, description: Ping}]\n" + guilds)
            await apply(client, await plan_of(client, state))
            ping = next(c["id"] for c in await endpoints.list_commands(client, APP, "global"))
            await endpoints.put_permissions(
                client, APP, GUILD, ping, [{"id": GUILD, "type": 1, "permission": True}])
            emulator.log.clear()
            await plan_of(client, state)
            plain = reads()
            emulator.log.clear()
            rename = await plan_of(client, desired(
                f'commands: [{{id: "{ping}", name: pong, description: Ping}}]\n' + guilds))
            return plain, reads(), rename

    plain, renaming, rename = asyncio.run(scenario())
    assert plain == []
    assert renaming == [f"/api/v10/applications/{APP}/guilds/{g}/commands/permissions"
                        for g in sorted([GUILD, other])]
    assert any(f"lost in guild {GUILD}" in w for w in rename.warnings)


def test_entry_point_is_kept_and_bulk_overwrite_succeeds() -> None:
    seed = emulator_seed.default_seed()
    seed["applications"][0]["flags"] = ["embedded"]
    seed["applications"][0]["entry_point"] = True
    state = desired("commands: [{name: ping, description: Ping}]\n")

    async def scenario() -> tuple[Plan, Plan]:
        async with make_client(new_emulator(seed=seed)) as client:
            first = await plan_of(client, state)
            await apply(client, first)
            return first, await plan_of(client, state)

    first, after = asyncio.run(scenario())
    assert [(c.action, c.type, c.note) for c in first.scopes[0].commands] == [
        (Action.CREATE, 1, None), (Action.NO_OP, 4, "entry point not in the manifest: kept")]
    assert not after.has_changes


def test_scopes_not_in_manifest_are_not_requested() -> None:
    other = "555555555555555555"
    seed = emulator_seed.default_seed()
    seed["guilds"].append({"id": other, "name": "Other"})
    emulator = new_emulator(seed=seed)

    async def scenario() -> Plan:
        async with make_client(emulator) as client:
            await endpoints.bulk_overwrite(client, APP, other, [{"name": "x",
                                                                 "description": "X"}])
            emulator.log.clear()
            return await plan_of(client, desired("commands: []\n"))

    plan = asyncio.run(scenario())
    assert [s.scope for s in plan.scopes] == ["global"]
    assert [(e.method, e.path) for e in emulator.log.entries()] == [
        ("GET", f"/api/v10/applications/{APP}/commands")]


GUILDS = [str(500000000000000000 + i) for i in range(150)]


def many_guilds(rate: RateLimitConfig, clock: VirtualTime) -> Emulator:
    seed = emulator_seed.default_seed()
    seed["guilds"] += [{"id": g, "name": g} for g in GUILDS]
    return new_emulator(seed=seed, ratelimit=rate, clock=clock)


MANY = "guilds:\n" + "".join(
    f'  "{g}":\n    commands: [{{name: hello, description: Hi}}]\n'
    f'    permissions: {{hello: [{{type: role, id: everyone, permission: true}}]}}\n'
    for g in GUILDS)


@pytest.mark.parametrize("proactive", [True, False])
def test_many_guilds_plan_quickly_without_429(proactive: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """150 guilds, 301 reads, against a global limit of 50 per 0.1 s (Discord's, 10x faster).

    In virtual time (the client, its sleeps and the emulator share one clock
    that moves only while every task waits), so the outcome depends on the
    requests alone: with its proactive limit the client meets no 429 and
    takes about 301 / 45 windows; without it, the emulator answers 429s and
    retries still finish.
    """
    rate = RateLimitConfig(global_limit=50, global_window=0.1, route_limit=10,
                           route_window=0.1)
    clock = VirtualTime(start=1_750_000_000.0)
    handlers_inline(monkeypatch)
    emulator = many_guilds(rate, clock)
    config = {"global_limit": 45 if proactive else 0, "global_window": 0.1,
              "concurrency": 16, "backoff_base": 0.01}

    async def scenario() -> tuple[Plan, float]:
        async with make_client(emulator, clock=clock, **config) as client:
            start = clock()
            plan = await plan_of(client, desired(MANY))
            return plan, clock() - start

    plan, elapsed = clock.run(scenario())
    assert len(plan.scopes) == 150
    assert plan.count(Action.CREATE) == 150 and plan.permission_changes == 150
    counts = emulator.log.counts()
    if proactive:
        assert counts["rate_limited"] == 0
        assert counts["requests"] == 301  # 150 x (commands + permissions) + global
        # 45 answers a window: the 301st goes out in the 7th window, 0.6 s after the first
        assert elapsed == pytest.approx(301 // 45 * 0.1, abs=1e-3)
    else:  # without the proactive window the emulator answers 429s; retries still finish
        assert counts["rate_limited"] > 0


@pytest.mark.parametrize("path", CLEAN_PARAMS)
def test_corpus_commands_sent_then_planned_are_no_change(path: Any, tmp_path: Any) -> None:
    """What a bot sent (the corpus response minus response-only keys and defaults),
    stored by the emulator, planned from a manifest of the same bodies: no changes."""
    bodies = [sent_form(c) for c in load_commands(path)]
    seed = emulator_seed.default_seed()
    seed["applications"][0]["integration_types"] = ["guild_install", "user_install"]
    manifest = tmp_path / "commands.json"
    manifest.write_text(json.dumps(bodies), encoding="utf-8")
    doc = load_file(str(manifest))
    state = desired_state(collect([doc]), application_id=APP)

    async def scenario() -> Plan:
        async with make_client(new_emulator(seed=seed)) as client:
            await endpoints.bulk_overwrite(client, APP, "global", bodies)
            return await plan_of(client, state)

    plan = asyncio.run(scenario())
    assert len(plan.scopes[0].commands) == len(bodies)
    assert not plan.has_changes, [c for c in plan.scopes[0].commands if c.changes]


def test_unknown_integration_default_is_kept_by_apply() -> None:
    """The manifest omits integration_types and the app's default is not known: the plan
    compares against the live value, and apply sends it, so nothing changes unseen."""
    seed = emulator_seed.default_seed()
    seed["applications"][0]["integration_types"] = ["guild_install", "user_install"]
    state = desired("commands: [{name: ping, description: New}]\n")

    async def scenario() -> tuple[Plan, list[dict[str, Any]], Plan]:
        async with make_client(new_emulator(seed=seed)) as client:
            await endpoints.bulk_overwrite(client, APP, "global", [
                {"name": "ping", "description": "Old", "integration_types": [1]}])
            first = await plan_of(client, state)
            await apply(client, first)
            return first, await endpoints.list_commands(client, APP, "global"), \
                await plan_of(client, state)

    first, live_after, second = asyncio.run(scenario())
    assert first.scopes[0].commands[0].changes == (FieldChange("description", "Old", "New"),)
    assert live_after[0]["integration_types"] == [1]
    assert not second.has_changes
