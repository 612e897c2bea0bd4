"""Benchmarks against the emulator on loopback: plan at scale, and write efficiency.

The emulator runs in a thread of this process (:class:`BackgroundServer`);
cmdsync runs as a child process, as a user runs it, so the two share
nothing but the socket. Live state is seeded straight into the emulator's
store (no requests, no rate limits); every count comes from the emulator's
request log (``/_emulator/log``: reads, writes, creates, 429s).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import generate
import httpx
import procs

from cmdsync.emulator.app import create_app
from cmdsync.emulator.bodies import stored_body
from cmdsync.emulator.database import StoredCommand
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.server import BackgroundServer
from cmdsync.emulator.throttle import RateLimitConfig
from cmdsync.state.normalize import request_body

APP = generate.APPLICATION_ID
BOT_TOKEN, USER_TOKEN = "bench-bot-token", "bench-user-token"
DISCORD_LIMIT = 50  # requests per second per bot (FACTS.md "Rate limits")
# plan_paths is what `cmdsync plan` runs; here the client's proactive limit is off.
UNLIMITED_PLAN = """\
import sys
from cmdsync.client.http import ClientConfig
from cmdsync.runners.session import Connection
from cmdsync.runners.plan import plan_paths
from cmdsync.render import plan as render
run = plan_paths([sys.argv[1]], connection=Connection(
    api_url=sys.argv[2], config=ClientConfig(global_limit=0)))
if run.plan is None or run.plan.has_changes:
    sys.exit("expected a plan without changes")
sys.stdout.write(render.to_text(run.plan))
"""


def seed(guilds: list[str]) -> dict[str, Any]:
    return {"applications": [{"id": APP, "bot_token": BOT_TOKEN, "client_secret": "bench"}],
            "guilds": [{"id": g} for g in guilds],
            "users": [{"id": "333333333333333333", "application_id": APP,
                       "bearer_token": USER_TOKEN, "guilds": guilds,
                       "scopes": ["applications.commands.permissions.update"]}]}


def environment(base_url: str) -> dict[str, str]:
    """The child's environment: this one without Discord or cmdsync settings, plus ours."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "CMDSYNC_")) and k not in ("FORCE_COLOR",)}
    env.update(NO_COLOR="1", CMDSYNC_API_URL=f"{base_url}/api/v10",
               DISCORD_BOT_TOKEN=BOT_TOKEN, DISCORD_BEARER_TOKEN=USER_TOKEN)
    return env


def store_commands(emulator: Emulator, scopes: Mapping[str, list[dict[str, Any]]]
                   ) -> dict[str, dict[str, str]]:
    """Put manifest commands straight into the store; returns their ids by scope and name."""
    store, app = emulator.store, emulator.store.application(APP)
    assert app is not None
    ids: dict[str, dict[str, str]] = {}
    now = time.time()
    for guild, commands in scopes.items():
        bodies = [stored_body(request_body(c, keep_id=False), guild=True,
                              integration_types=app.integration_types) for c in commands]
        with store.transaction() as db:
            for body in bodies:
                command = StoredCommand(store.next_snowflake(db, now), APP, guild, body["type"],
                                        body["name"], body, store.next_snowflake(db, now))
                store.save_command(db, command)
                ids.setdefault(guild, {})[body["name"]] = command.id
    return ids


def _phase(emulator: Emulator) -> tuple[int, int, float]:
    """Requests served (not 429), 429s, and seconds from the first request to the last."""
    counts = emulator.log.counts()
    times = [e.time for e in emulator.log.entries()]
    span = max(times) - min(times) if times else 0.0
    return counts["requests"] - counts["rate_limited"], counts["rate_limited"], span


def plan_at_scale(cmdsync: str, workdir: str, *, guilds: int, per_guild: int,
                  runs: int) -> dict[str, Any]:
    """``cmdsync plan`` over ``guilds`` x ``per_guild`` unchanged commands, at 50 req/s.

    Then once more with every limit off (the emulator's, and the client's
    proactive one) for requests per second and peak memory.
    """
    directory = os.path.join(workdir, "plan-at-scale")
    generate.write_manifests(directory, guilds=guilds, per_guild=per_guild)
    ids = generate.guild_ids(guilds)
    emulator = new_emulator(seed=seed(ids),
                            ratelimit=RateLimitConfig(global_limit=DISCORD_LIMIT))
    commands = [generate.command(i) for i in range(per_guild)]
    store_commands(emulator, {g: commands for g in ids})
    limited = []
    with BackgroundServer(create_app(emulator)) as base_url:
        env = environment(base_url)
        command = [cmdsync, "plan", directory, "--detailed-exitcode"]
        for _ in range(runs):
            emulator.limiter.reset()
            emulator.log.clear()
            sample = procs.run(command, env=env, cwd=workdir)  # exit 0: no changes
            served, refused, span = _phase(emulator)
            limited.append({"seconds": sample.seconds, "requests": served,
                            "rate_limited": refused, "request_phase_s": span,
                            "peak_mib": sample.peak_mib})
        emulator.limiter.configure(RateLimitConfig(global_limit=0, route_limit=0))
        emulator.log.clear()
        free = procs.run([sys.executable, "-c", UNLIMITED_PLAN, directory,
                          f"{base_url}/api/v10"], env=env, cwd=workdir)
        served, refused, span = _phase(emulator)
    emulator.store.close()
    return {"guilds": guilds, "commands_per_guild": per_guild, "limit_per_s": DISCORD_LIMIT,
            "runs": limited,
            "unlimited": {"seconds": free.seconds, "requests": served, "rate_limited": refused,
                          "request_phase_s": span, "peak_mib": free.peak_mib}}


Manifest = dict[str, Any]
Change = Callable[[Manifest, dict[str, dict[str, str]]], None]


def _no_change(manifest: Manifest, ids: dict[str, dict[str, str]]) -> None:
    del manifest, ids


def _one_update(manifest: Manifest, ids: dict[str, dict[str, str]]) -> None:
    first = next(iter(manifest["guilds"].values()))
    first["commands"][7]["description"] = "A new description for this one command"


def _rename_with_id(manifest: Manifest, ids: dict[str, dict[str, str]]) -> None:
    guild, scope = next(iter(manifest["guilds"].items()))
    command = scope["commands"][3]
    command["id"] = ids[guild][command["name"]]
    command["name"] = "renamed"


SCENARIOS: list[tuple[str, str, Change, dict[str, int]]] = [
    ("no_changes", "no changes", _no_change, {"writes": 0, "creates": 0}),
    ("one_update", "1 of 100 commands changed", _one_update, {"writes": 1, "creates": 0}),
    ("rename_with_id", "a rename carrying id", _rename_with_id, {"creates": 0}),
]


def write_efficiency(cmdsync: str, workdir: str, *, guilds: int = 3,
                     per_guild: int = 100) -> dict[str, Any]:
    """Writes and creates of ``cmdsync apply`` and of a blind bulk overwrite, per scenario."""
    ids = generate.guild_ids(guilds)
    emulator = new_emulator(seed=seed(ids))
    results: dict[str, Any] = {}
    with BackgroundServer(create_app(emulator)) as base_url:
        env = environment(base_url)
        for key, title, change, target in SCENARIOS:
            manifest: Manifest = {"application_id": APP, "guilds": {
                g: {"commands": [generate.command(i) for i in range(per_guild)]} for g in ids}}
            live = _fresh(emulator, ids, per_guild)
            change(manifest, live)
            path = os.path.join(workdir, f"{key}.yaml")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(generate.dump_yaml(manifest))
            procs.run([cmdsync, "apply", "--auto-approve", path], env=env, cwd=workdir)
            ours = emulator.log.counts()
            _fresh(emulator, ids, per_guild)
            _blind_sync(base_url, manifest)
            blind = emulator.log.counts()
            results[key] = {"title": title, "scopes": guilds, "commands_per_scope": per_guild,
                            "target": target, "cmdsync": _counts(ours),
                            "blind_bulk_overwrite": _counts(blind)}
    emulator.store.close()
    return results


def _fresh(emulator: Emulator, guilds: list[str], per_guild: int) -> dict[str, dict[str, str]]:
    emulator.reset(seed(guilds))
    commands = [generate.command(i) for i in range(per_guild)]
    ids = store_commands(emulator, {g: commands for g in guilds})
    emulator.log.clear()
    return ids


def _blind_sync(base_url: str, manifest: Manifest) -> None:
    """What most bots run at every start: one PUT per scope, the whole list, no ids."""
    headers = {"Authorization": f"Bot {BOT_TOKEN}"}
    with httpx.Client(base_url=f"{base_url}/api/v10", headers=headers, timeout=30) as client:
        for guild, scope in manifest["guilds"].items():
            bodies = [request_body(c, keep_id=False) for c in scope["commands"]]
            client.put(f"/applications/{APP}/guilds/{guild}/commands",
                       json=bodies).raise_for_status()


def _counts(counts: Mapping[str, int]) -> dict[str, int]:
    return {k: counts[k] for k in ("requests", "reads", "writes", "creates", "rate_limited")}
