"""The emulator's own speed, against its floor: latency of its command routes, throughput,
and the gateway's round trip.

    python benchmarks/emulator_load.py                  # 1,000 guilds, 10 s of mixed traffic
    python benchmarks/emulator_load.py --guilds 100 --seconds 3 --json out.json

A small load generator (httpx). Two servers run as processes of their own,
both pinned to one CPU where the system allows it (``os.sched_setaffinity``;
this process to the others): ``cmdsync emulator --port 0 --global-limit 0``,
as a bot's test suite or a developer runs it, with a seed of ``--guilds``
guilds for each workload below; and its floor (:mod:`floor`), a bare
starlette app under uvicorn, served with the emulator's uvicorn settings, that
parses each bulk overwrite's JSON body and answers it, and answers a list
with what the guild's last overwrite answered. Then, over HTTP on loopback:

1. **bulk overwrite, side by side**: for each workload, one ``PUT
   .../guilds/{id}/commands`` of 50 commands into each of its guilds, one
   request at a time (nothing live: 50 creates each), to the emulator and to
   the floor in turn (the emulator first in one guild, the floor first in the
   next), so that both meet the same machine. The workloads
   (:data:`WORKLOADS`, from :mod:`generate`, localized names, descriptions
   and choices throughout), in the order they run: ``own``, the benchmarks'
   per-guild workload (5 of 50 commands each guild's own: its name in the
   description, localized descriptions naming it on the command and its
   options), against which the goal is set; ``same``, every guild the same
   50 commands, the repeated case (what a cache makes of it); and
   ``distinct``, every command body salted with the guild's number (nothing
   to share: the worst case; last, as it leaves the emulator holding 50
   times more commands, more for its garbage collector to walk);
2. **list, side by side**: ``GET .../guilds/{id}/commands?with_localizations=true``
   of each guild, to both in turn (what ``cmdsync plan`` reads), after the
   workload's bulk overwrites. 3. and 4. run after the ``own`` workload's,
   on the state it left;
3. **mixed traffic** (the emulator alone): ``--concurrency`` clients for
   ``--seconds``: each request a GET (9 in 10) or a bulk overwrite with one
   command's description changed (1 in 10), as plans and applies of many
   bots would send, of the ``own`` guilds in turn (a shuffled order, so that
   none meets the emulator's per-route limit of 10 requests a second);
   requests per second sustained (429s, if any, are counted apart and not as
   served), and their latencies;
4. **gateway round trip** (:mod:`gateway_trip`): a bot on a plain websocket
   (IDENTIFY, heartbeats) answers ``--round-trips`` invocations, run through
   the admin API one at a time, with a callback; from the invocation's
   request to the admin API's answer (the callback recorded), and its parts.

Latencies are from sending the request to reading the whole answer (client
side, so they include HTTP on loopback), in milliseconds: p50, p90, p99. The
emulator's cost is its median over the floor's (``ratio``; ``p90_ratio`` the
same of the p90s). Nothing is random but the mixed traffic's choices, from a
fixed seed. Goals (issue 34): bulk overwrite and list each at most 2x the
floor (the ``own`` workload), mixed traffic at least 500 requests/s, the
round trip reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import floor
import gateway_trip
import generate
import httpx

APP = generate.APPLICATION_ID
BOT_TOKEN = "bench-bot-token"
PER_GUILD, SPECIFIC = 50, 5  # commands per guild, of which the guild's own (workload "own")
# name: (what it is, every body distinct, commands each guild's own), in the order they
# run: the goal's first (then the mixed traffic and the round trip, on the state it left),
# the distinct bodies last, as they leave the emulator holding 50 times more commands
WORKLOADS: dict[str, tuple[str, bool, int]] = {
    "own": (f"{SPECIFIC} of each guild's {PER_GUILD} its own", False, SPECIFIC),
    "same": ("the same in every guild", False, 0),
    "distinct": ("every body distinct", True, 0)}
GOAL_WORKLOAD = "own"
TARGETS = {"bulk_overwrite_ratio": 2.0, "list_ratio": 2.0, "mixed_per_s": 500.0}
SIDES = ("emulator", "floor")
ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guilds", type=int, default=1000, help="of each workload")
    parser.add_argument("--seconds", type=float, default=10.0, help="of mixed traffic")
    parser.add_argument("--concurrency", type=int, default=8, help="clients of mixed traffic")
    parser.add_argument("--round-trips", type=int, default=500,
                        help="invocations of a gateway bot")
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    args = parser.parse_args(argv)
    results = measure(guilds=args.guilds, seconds=args.seconds, concurrency=args.concurrency,
                      round_trips=args.round_trips)
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def measure(*, guilds: int, seconds: float, concurrency: int, round_trips: int
            ) -> dict[str, Any]:
    """Serve the emulator and its floor in child processes and measure them; see the
    module docstring."""
    ids = generate.guild_ids(guilds * len(WORKLOADS))
    sets = {name: ids[n * guilds:(n + 1) * guilds] for n, name in enumerate(WORKLOADS)}
    fixtures = gateway_trip.seed_fixtures()
    with tempfile.TemporaryDirectory(prefix="cmdsync-load-") as workdir:
        seed_file = os.path.join(workdir, "seed.json")
        with open(seed_file, "w", encoding="utf-8") as handle:
            json.dump({"applications": [{"id": APP, "bot_token": BOT_TOKEN,
                                         "client_secret": "bench"}],
                       "guilds": [{"id": g} for g in ids] + fixtures["guilds"],
                       "users": fixtures["users"]}, handle)
        servers: list[subprocess.Popen[str]] = []
        logs = {side: os.path.join(workdir, f"{side}.log") for side in SIDES}
        try:
            emulator_url, pinned = _serve(
                [str(Path(sys.executable).parent / "cmdsync"), "emulator", "--port", "0",
                 "--global-limit", "0", "--seed", seed_file], "Discord API v10 at ",
                servers, logs["emulator"])
            floor_url, _ = _serve([sys.executable, str(Path(floor.__file__))], floor.BANNER,
                                  servers, logs["floor"])
            found = asyncio.run(_load({"emulator": emulator_url, "floor": floor_url}, sets,
                                      seconds, concurrency, round_trips))
        except Exception as exc:  # what the servers said is the clue, not this traceback
            told = {side: Path(log).read_text(encoding="utf-8", errors="replace")[-3000:]
                    for side, log in logs.items() if os.path.exists(log)}
            raise RuntimeError(f"{exc!r}; the servers' output: {told}") from exc
        finally:
            for server in servers:
                server.terminate()
                server.wait(timeout=10)
    found.update(guilds=guilds, commands_per_guild=PER_GUILD, specific_per_guild=SPECIFIC,
                 workloads={name: title for name, (title, _, _) in WORKLOADS.items()},
                 goal_workload=GOAL_WORKLOAD, concurrency=concurrency,
                 pinned_to_one_cpu=pinned, targets=TARGETS)
    goal = found["latency"][GOAL_WORKLOAD]
    found["met"] = (goal["bulk_overwrite"]["ratio"] <= TARGETS["bulk_overwrite_ratio"]
                    and goal["list"]["ratio"] <= TARGETS["list_ratio"]
                    and found["mixed"]["requests_per_s"] >= TARGETS["mixed_per_s"]
                    and found["mixed"]["failed"] == found["mixed"]["rate_limited"] == 0)
    return found


def _serve(command: list[str], marker: str, servers: list[subprocess.Popen[str]],
           log: str) -> tuple[str, bool]:
    """Start ``command`` (added to ``servers``; its standard error to the file ``log``),
    pinned to the last CPU (this process to the others) when there are two or more; its
    base URL, read from the line of its output that holds ``marker``, and whether it was
    pinned."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pinned = len(cpus) >= 2
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CMDSYNC_"))}
    with open(log, "w", encoding="utf-8") as errors:
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True,
                                  env={**env, "NO_COLOR": "1"})
    servers.append(server)
    if pinned:
        os.sched_setaffinity(server.pid, {cpus[-1]})
    assert server.stdout is not None
    deadline = time.monotonic() + 30
    for line in server.stdout:
        if marker in line:
            base_url = line.split(marker, 1)[1].split()[0]
            break
        if time.monotonic() > deadline:
            break
    else:
        raise RuntimeError(f"{' '.join(command)} did not say where it listens")
    # The rest of the banner (a line per guild) is read too, or it fills the pipe and
    # blocks the server in the middle of printing it.
    threading.Thread(target=server.stdout.read, daemon=True).start()
    if pinned:
        os.sched_setaffinity(0, set(cpus[:-1]))
    return base_url, pinned


def _bodies(guild: str, variant: int = 0, *, distinct: bool = False,
            specific: int = SPECIFIC) -> bytes:
    """The guild's 50 commands as a request body; ``variant`` changes one description."""
    from cmdsync.state.normalize import request_body

    commands = generate.guild_commands(guild, PER_GUILD, distinct=distinct, specific=specific)
    if variant:
        commands[variant % PER_GUILD]["description"] = f"Changed for the {variant}th time"
    return json.dumps([request_body(c, keep_id=False) for c in commands]).encode()


def _path(guild: str) -> str:
    return f"/applications/{APP}/guilds/{guild}/commands"


async def _load(urls: dict[str, str], sets: dict[str, list[str]], seconds: float,
                concurrency: int, round_trips: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bot {BOT_TOKEN}", "Content-Type": "application/json"}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    clients = {side: httpx.AsyncClient(base_url=url, headers=headers, limits=limits,
                                       timeout=30) for side, url in urls.items()}
    found: dict[str, Any] = {"latency": {}}
    try:
        for name, (_, distinct, specific) in WORKLOADS.items():
            bodies = {g: _bodies(g, distinct=distinct, specific=specific) for g in sets[name]}
            found["latency"][name] = await _side_by_side(clients, bodies)
            if name != GOAL_WORKLOAD:
                continue
            found["mixed"] = await _mixed(clients["emulator"], sets[name], seconds,
                                          concurrency)
            trips = await gateway_trip.round_trips(urls["emulator"], application_id=APP,
                                                   bot_token=BOT_TOKEN, count=round_trips)
            found["gateway"] = {"count": round_trips, **{
                part: _percentiles(samples) for part, samples in trips.items()}}
    finally:
        for client in clients.values():
            await client.aclose()
    return found


async def _side_by_side(clients: dict[str, httpx.AsyncClient], bodies: dict[str, bytes]
                        ) -> dict[str, Any]:
    """Each guild's bulk overwrite, then each guild's list, to the emulator and the floor
    in turn (which goes first alternates); their percentiles and ratios."""
    found: dict[str, Any] = {}
    for route in ("bulk_overwrite", "list"):
        samples: dict[str, list[float]] = {side: [] for side in SIDES}
        sizes: dict[str, list[int]] = {side: [] for side in SIDES}
        for turn, (guild, body) in enumerate(bodies.items()):
            for side in SIDES if turn % 2 == 0 else SIDES[::-1]:
                started = time.perf_counter()
                if route == "bulk_overwrite":  # nothing live: 50 creates each
                    answer = await clients[side].put(_path(guild), content=body)
                else:
                    answer = await clients[side].get(_path(guild),
                                                     params={"with_localizations": "true"})
                samples[side].append(time.perf_counter() - started)
                answer.raise_for_status()
                sizes[side].append(len(answer.content))
        figures = {side: _percentiles(samples[side]) for side in SIDES}
        found[route] = {
            **figures, "ratio": figures["emulator"]["p50_ms"] / figures["floor"]["p50_ms"],
            "p90_ratio": figures["emulator"]["p90_ms"] / figures["floor"]["p90_ms"],
            "answer_bytes": {side: statistics.median(sizes[side]) for side in SIDES}}
    found["request_bytes"] = statistics.median(len(body) for body in bodies.values())
    return found


async def _mixed(client: httpx.AsyncClient, ids: list[str], seconds: float,
                 concurrency: int) -> dict[str, Any]:
    """Mixed traffic against the emulator, whose ``ids`` hold their bulk overwrite."""
    choices = random.Random(24)
    order = list(ids)
    choices.shuffle(order)
    # each overwrite changes one command: a guild's changed list, then its own again
    bodies = {g: _bodies(g) for g in ids}
    changed = {g: _bodies(g, variant=n + 1) for n, g in enumerate(ids)}
    turns = dict.fromkeys(ids, 0)
    mixed: list[float] = []
    failed = limited = sent = 0
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal failed, limited, sent
        while time.perf_counter() < stop:
            guild = order[sent % len(order)]
            sent += 1
            started = time.perf_counter()
            if choices.random() < 0.1:
                turns[guild] += 1
                body = changed[guild] if turns[guild] % 2 else bodies[guild]
                answer = await client.put(_path(guild), content=body)
            else:
                answer = await client.get(_path(guild), params={"with_localizations": "true"})
            if answer.status_code == 429:
                limited += 1
                continue
            mixed.append(time.perf_counter() - started)
            failed += answer.status_code >= 300

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - began
    return {**_percentiles(mixed), "requests": len(mixed), "seconds": elapsed,
            "requests_per_s": len(mixed) / elapsed, "failed": failed, "rate_limited": limited}


def _percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"count": len(samples), "p50_ms": statistics.median(samples) * 1000,
            "p90_ms": cuts[89] * 1000, "p99_ms": cuts[98] * 1000}


if __name__ == "__main__":
    sys.exit(main())
