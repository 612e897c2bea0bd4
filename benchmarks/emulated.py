"""Benchmarks against the emulator on loopback: plan at scale (shared and
distinct command bodies), apply from empty, one change per guild against a
blind bulk overwrite, and write efficiency.

The emulator runs in a thread of this process (:class:`BackgroundServer`);
cmdsync runs as a child process, as a user runs it, so the two share
nothing but the socket. Live state is seeded straight into the emulator's
store (no requests, no rate limits); every count comes from the emulator's
request log (``/_emulator/log``: reads, writes, creates, 429s).

Each timed run is split into three phases on one clock, the epoch clock
(``time.time()``) that stamps the log's entries: from spawning the child to
the first request logged ("before requests": start, load, validate, build
the desired state), from the first request to the last ("requests"), and
from the last to the child's exit ("after requests"). An entry is stamped
when the emulator has its answer ready, so the first phase includes the
first request's round trip.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import generate
import httpx
import procs

from cmdsync.emulator.app import create_app
from cmdsync.emulator.application_commands.bodies import stored_body
from cmdsync.emulator.domain.objects import StoredCommand
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.emulator.server import BackgroundServer
from cmdsync.state.normalize import request_body

APP = generate.APPLICATION_ID
BOT_TOKEN, USER_TOKEN = "bench-bot-token", "bench-user-token"
DISCORD_LIMIT = 50  # requests per second per bot (Discord's "Rate Limits" documentation)
Manifest = dict[str, Any]  # a manifest as loaded: application_id, guilds, commands
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
# What most bots run at every start, as a child process like cmdsync: one PUT
# per guild with the whole list (bodies as the API takes them, already built,
# as a bot has them in code), one guild after another. A 429 is waited out
# and the PUT sent again: the body's ``retry_after`` (seconds, fractional),
# else the ``Retry-After`` header (Discord's "Rate Limits" documentation).
BLIND_SYNC = """\
import json, os, sys, time
import httpx
with open(sys.argv[1], encoding="utf-8") as handle:
    scopes = json.load(handle)
headers = {"Authorization": "Bot " + os.environ["DISCORD_BOT_TOKEN"]}
with httpx.Client(base_url=os.environ["CMDSYNC_API_URL"], headers=headers,
                  timeout=30) as client:
    for guild, bodies in scopes["guilds"].items():
        path = f"/applications/{scopes['application_id']}/guilds/{guild}/commands"
        while (response := client.put(path, json=bodies)).status_code == 429:
            try:
                wait = float(response.json()["retry_after"])
            except (ValueError, KeyError, TypeError):
                wait = float(response.headers.get("Retry-After", "1"))
            time.sleep(wait)
        response.raise_for_status()
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


def measured(emulator: Emulator, sample: procs.Sample) -> dict[str, Any]:
    """One timed run as the emulator's log saw it.

    ``seconds`` (wall, spawn to exit) and ``peak_mib`` (the child's peak
    RSS) from the sample; ``requests``, ``reads`` and ``writes`` served
    (429s left out), ``routes`` (served requests by route template),
    ``written_guilds`` (how many guilds had a write), ``rate_limited``
    (429s), ``creates`` (commands created); ``phases`` in seconds (see the
    module docstring), which add up to the wall time give or take the two
    clocks' reading apart; ``longest_gap_s``, the longest wait between two
    requests logged one after the other, and ``longest_gap_between``, their
    routes (time the child spends on its own between its reads and its
    writes shows there, inside the request phase).
    """
    counts, entries = emulator.log.counts(), emulator.log.entries()
    if len(entries) != counts["requests"]:
        raise RuntimeError(f"the emulator's log kept {len(entries)} of {counts['requests']} "
                           "requests: the phases would be wrong")
    served = [e for e in entries if e.status != 429]
    times = [e.time for e in entries]
    first, last = (min(times), max(times)) if times else (sample.exited, sample.exited)
    ordered = sorted(entries, key=lambda e: e.time)
    gap = max(itertools.pairwise(ordered), key=lambda pair: pair[1].time - pair[0].time,
              default=None)
    writes = [e for e in served if e.kind == "write"]
    return {"seconds": sample.seconds, "peak_mib": sample.peak_mib,
            "requests": len(served), "reads": sum(e.kind == "read" for e in served),
            "writes": len(writes), "routes": dict(Counter(e.route for e in served)),
            "written_guilds": len({_guild(e.path) for e in writes}),
            "creates": sum(e.creates for e in entries),
            "rate_limited": len(entries) - len(served), "request_phase_s": last - first,
            "longest_gap_s": gap[1].time - gap[0].time if gap else 0.0,
            "longest_gap_between": [gap[0].route, gap[1].route] if gap else [],
            "phases": {"before_requests_s": first - sample.spawned,
                       "requests_s": last - first,
                       "after_requests_s": sample.exited - last}}


def _guild(path: str) -> str:
    """The guild id in an API path, ``""`` for a path without one."""
    parts = path.split("/")
    return parts[parts.index("guilds") + 1] if "guilds" in parts[:-1] else ""


def _phase(emulator: Emulator) -> tuple[int, int, float]:
    """Requests served (not 429), 429s, and seconds from the first request to the last."""
    counts = emulator.log.counts()
    times = [e.time for e in emulator.log.entries()]
    span = max(times) - min(times) if times else 0.0
    return counts["requests"] - counts["rate_limited"], counts["rate_limited"], span


def plan_at_scale(cmdsync: str, workdir: str, *, guilds: int, per_guild: int,
                  runs: int, distinct: bool = False, specific: int = 0,
                  unlimited: bool = True) -> dict[str, Any]:
    """``cmdsync plan`` over ``guilds`` x ``per_guild`` unchanged commands, at 50 req/s.

    ``distinct``: no two guilds share a command body (every body differs);
    ``specific``: that many of each guild's commands are its own
    (:func:`generate.guild_command`), the others shared. With ``unlimited``,
    once more with every limit off (the emulator's, and the client's
    proactive one) for requests per second and peak memory.
    """
    directory = os.path.join(workdir, f"plan-{guilds}x{per_guild}{'-distinct' * distinct}"
                             f"{f'-specific{specific}' if specific else ''}")
    generate.write_manifests(directory, guilds=guilds, per_guild=per_guild, distinct=distinct,
                             specific=specific)
    ids = generate.guild_ids(guilds)
    emulator = new_emulator(seed=seed(ids),
                            ratelimit=RateLimitConfig(global_limit=DISCORD_LIMIT))
    store_commands(emulator, {g: generate.guild_commands(g, per_guild, distinct=distinct,
                                                         specific=specific) for g in ids})
    result: dict[str, Any] = {"guilds": guilds, "commands_per_guild": per_guild,
                              "distinct_bodies": distinct, "specific_per_guild": specific,
                              "limit_per_s": DISCORD_LIMIT, "runs": []}
    with BackgroundServer(create_app(emulator)) as base_url:
        env = environment(base_url)
        command = [cmdsync, "plan", directory, "--detailed-exitcode"]
        for _ in range(runs):
            emulator.limiter.reset()
            emulator.log.clear()
            sample = procs.run(command, env=env, cwd=workdir)  # exit 0: no changes
            result["runs"].append(measured(emulator, sample))
        if unlimited:
            emulator.limiter.configure(RateLimitConfig(global_limit=0, route_limit=0))
            emulator.log.clear()
            free = procs.run([sys.executable, "-c", UNLIMITED_PLAN, directory,
                              f"{base_url}/api/v10"], env=env, cwd=workdir)
            served, refused, span = _phase(emulator)
            result["unlimited"] = {"seconds": free.seconds, "requests": served,
                                   "rate_limited": refused, "request_phase_s": span,
                                   "peak_mib": free.peak_mib}
    emulator.store.close()
    return result


def apply_from_empty(cmdsync: str, workdir: str, *, guilds: int, per_guild: int,
                     runs: int, distinct: bool = False, specific: int = 0) -> dict[str, Any]:
    """``cmdsync apply --auto-approve`` of ``guilds`` x ``per_guild`` commands, nothing live.

    At 50 req/s; the live state is emptied before each run. After each run
    the emulator's store is checked: ``complete_guilds`` counts the guilds
    holding exactly their commands, each body as the manifest gives it.
    ``distinct`` and ``specific``: as for :func:`plan_at_scale`.
    """
    directory = os.path.join(workdir, f"apply-{guilds}x{per_guild}{'-distinct' * distinct}"
                             f"{f'-specific{specific}' if specific else ''}")
    generate.write_manifests(directory, guilds=guilds, per_guild=per_guild, distinct=distinct,
                             specific=specific)
    ids = generate.guild_ids(guilds)
    emulator = new_emulator(seed=seed(ids),
                            ratelimit=RateLimitConfig(global_limit=DISCORD_LIMIT))
    wanted = {g: generate.guild_commands(g, per_guild, distinct=distinct, specific=specific)
              for g in ids}
    done = []
    with BackgroundServer(create_app(emulator)) as base_url:
        env = environment(base_url)
        for _ in range(runs):
            emulator.reset(seed(ids))  # no commands; limits and log start over
            sample = procs.run([cmdsync, "apply", "--auto-approve", directory], env=env,
                               cwd=workdir)
            done.append({**measured(emulator, sample),
                         "complete_guilds": complete_guilds(emulator, wanted)})
    emulator.store.close()
    return {"guilds": guilds, "commands_per_guild": per_guild, "distinct_bodies": distinct,
            "specific_per_guild": specific, "limit_per_s": DISCORD_LIMIT, "runs": done}


def complete_guilds(emulator: Emulator, wanted: Mapping[str, list[dict[str, Any]]]) -> int:
    """How many guilds of ``wanted`` the store holds exactly those commands for, no more."""
    app = emulator.store.application(APP)
    assert app is not None
    complete = 0
    with emulator.store.transaction() as db:
        for guild, commands in wanted.items():
            live = {c.name: c.body for c in emulator.store.commands(db, APP, guild)}
            want = {c["name"]: stored_body(request_body(c, keep_id=False), guild=True,
                                           integration_types=app.integration_types)
                    for c in commands}
            complete += live == want
    return complete


def apply_one_change(cmdsync: str, workdir: str, *, guilds: int, per_guild: int,
                     runs: int) -> dict[str, Any]:
    """One command's description changed in each of ``guilds``: cmdsync against a blind sync.

    Three sides, child processes, turn about after one untimed warm-up each,
    the live state reset to the unchanged commands before every run, the
    emulator at 50 req/s for all: ``cmdsync apply --no-refresh PLANFILE``
    (a saved plan applied without reading again, as a deploy job applies
    the plan it just made; the ``cmdsync plan --out`` before it is not
    timed, and the emulator's limits start over after it), ``cmdsync apply
    --auto-approve`` (plan and apply in one run) and :data:`BLIND_SYNC` (one
    bulk overwrite per guild).
    """
    ids = generate.guild_ids(guilds)
    changed = min(7, per_guild - 1)
    manifest: Manifest = {"application_id": APP, "guilds": {}}
    for guild in ids:
        commands = generate.guild_commands(guild, per_guild)
        commands[changed]["description"] = "A new description for this one command"
        manifest["guilds"][guild] = {"commands": commands}
    path = os.path.join(workdir, f"one-change-{guilds}x{per_guild}.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(generate.dump_yaml(manifest))
    bodies = os.path.join(workdir, f"one-change-{guilds}x{per_guild}.json")
    with open(bodies, "w", encoding="utf-8") as handle:
        json.dump({"application_id": APP, "guilds": {
            g: [request_body(c, keep_id=False) for c in scope["commands"]]
            for g, scope in manifest["guilds"].items()}}, handle)
    emulator = new_emulator(seed=seed(ids),
                            ratelimit=RateLimitConfig(global_limit=DISCORD_LIMIT))
    saved = os.path.join(workdir, f"one-change-{guilds}x{per_guild}.plan.json")
    timed: dict[str, list[dict[str, Any]]] = {"saved": [], "cmdsync": [], "blind": []}
    with BackgroundServer(create_app(emulator)) as base_url:
        env = environment(base_url)
        sides = {"saved": [cmdsync, "apply", "--no-refresh", saved],
                 "cmdsync": [cmdsync, "apply", "--auto-approve", path],
                 "blind": [sys.executable, "-c", BLIND_SYNC, bodies]}
        for turn in range(runs + 1):  # the first turn warms up
            for name, command in sides.items():
                _fresh(emulator, ids, per_guild)
                if name == "saved":  # raises CommandFailed unless it exits 0
                    procs.run([cmdsync, "plan", "--out", saved, path], env=env, cwd=workdir)
                    emulator.limiter.reset()
                    emulator.log.clear()
                sample = procs.run(command, env=env, cwd=workdir)
                if turn:
                    timed[name].append(measured(emulator, sample))
    emulator.store.close()
    return {"guilds": guilds, "commands_per_guild": per_guild, "changed_per_guild": 1,
            "limit_per_s": DISCORD_LIMIT, "saved_plan_runs": timed["saved"],
            "cmdsync_runs": timed["cmdsync"], "blind_runs": timed["blind"]}


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
