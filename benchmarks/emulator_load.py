"""The emulator's own speed: latency of its command routes and sustained throughput.

    python benchmarks/emulator_load.py                  # 300 guilds, 10 s of mixed traffic
    python benchmarks/emulator_load.py --guilds 100 --seconds 3 --json out.json

A small load generator (httpx): ``cmdsync emulator --port 0 --global-limit 0``
runs as its own process, as a bot's test suite or a developer runs it, pinned
to one CPU where the system allows it (``os.sched_setaffinity``; this process
to another), with a seed of ``--guilds`` guilds. Then, over HTTP on loopback:

1. **bulk overwrite**: one ``PUT .../guilds/{id}/commands`` of 50 commands
   into each guild, one request at a time (nothing live: 50 creates each).
   The bodies are the benchmarks' per-guild workload
   (:func:`generate.guild_commands` with 5 of 50 commands the guild's own),
   so every request differs from the one before;
2. **GET**: ``GET .../guilds/{id}/commands?with_localizations=true`` of each
   guild, one at a time (what ``cmdsync plan`` reads);
3. **mixed traffic**: ``--concurrency`` clients for ``--seconds``: each
   request a GET (9 in 10) or a bulk overwrite with one command's
   description changed (1 in 10), as plans and applies of many bots would
   send, of the guilds in turn (a shuffled order, so that none meets the
   emulator's per-route limit of 10 requests a second); requests per second
   sustained (429s, if any, are counted apart and not as served), and their
   latencies.

Latencies are from sending the request to reading the whole answer (client
side, so they include HTTP on loopback), in milliseconds: p50, p90, p99.
Nothing is random but the mixed traffic's choices, from a fixed seed.
Targets (issue 24): bulk overwrite <= 5 ms median, GET <= 2 ms median, mixed
traffic >= 250 requests/s.
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
import time
from pathlib import Path
from typing import Any

import generate
import httpx

APP = generate.APPLICATION_ID
BOT_TOKEN = "bench-bot-token"
PER_GUILD, SPECIFIC = 50, 5  # commands per guild, of which the guild's own
TARGETS = {"put_p50_ms": 5.0, "get_p50_ms": 2.0, "mixed_per_s": 250.0}
ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guilds", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0, help="of mixed traffic")
    parser.add_argument("--concurrency", type=int, default=8, help="clients of mixed traffic")
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    args = parser.parse_args(argv)
    results = measure(guilds=args.guilds, seconds=args.seconds, concurrency=args.concurrency)
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def measure(*, guilds: int, seconds: float, concurrency: int) -> dict[str, Any]:
    """Serve an emulator in a child process and measure it; see the module docstring."""
    ids = generate.guild_ids(guilds)
    with tempfile.TemporaryDirectory(prefix="cmdsync-load-") as workdir:
        seed_file = os.path.join(workdir, "seed.json")
        with open(seed_file, "w", encoding="utf-8") as handle:
            json.dump({"applications": [{"id": APP, "bot_token": BOT_TOKEN,
                                         "client_secret": "bench"}],
                       "guilds": [{"id": g} for g in ids]}, handle)
        server, base_url, pinned = _serve(seed_file)
        try:
            found = asyncio.run(_load(base_url, ids, seconds, concurrency))
        finally:
            server.terminate()
            server.wait(timeout=10)
    found.update(guilds=guilds, commands_per_guild=PER_GUILD, specific_per_guild=SPECIFIC,
                 concurrency=concurrency, pinned_to_one_cpu=pinned, targets=TARGETS)
    found["met"] = (found["put"]["p50_ms"] <= TARGETS["put_p50_ms"]
                    and found["get"]["p50_ms"] <= TARGETS["get_p50_ms"]
                    and found["mixed"]["requests_per_s"] >= TARGETS["mixed_per_s"]
                    and found["mixed"]["failed"] == found["mixed"]["rate_limited"] == 0)
    return found


def _serve(seed_file: str) -> tuple[subprocess.Popen[str], str, bool]:
    """``cmdsync emulator`` on a free port, pinned to the last CPU (this process to the
    others) when there are two or more; its base URL, read from its banner."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pinned = len(cpus) >= 2
    command = [str(Path(sys.executable).parent / "cmdsync"), "emulator", "--port", "0",
               "--global-limit", "0", "--seed", seed_file]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CMDSYNC_"))}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env={**env, "NO_COLOR": "1"})
    if pinned:
        os.sched_setaffinity(server.pid, {cpus[-1]})
    assert server.stdout is not None
    marker = "Discord API v10 at "
    deadline = time.monotonic() + 30
    for line in server.stdout:
        if marker in line:
            base_url = line.split(marker, 1)[1].split()[0]
            break
        if time.monotonic() > deadline:
            break
    else:
        server.kill()
        raise RuntimeError("the emulator did not say where it listens")
    if pinned:
        os.sched_setaffinity(0, set(cpus[:-1]))
    return server, base_url, pinned


def _bodies(guild: str, variant: int = 0) -> bytes:
    """The guild's 50 commands as a request body; ``variant`` changes one description."""
    from cmdsync.state.normalize import request_body

    commands = generate.guild_commands(guild, PER_GUILD, specific=SPECIFIC)
    if variant:
        commands[variant % PER_GUILD]["description"] = f"Changed for the {variant}th time"
    return json.dumps([request_body(c, keep_id=False) for c in commands]).encode()


async def _load(base_url: str, ids: list[str], seconds: float, concurrency: int
                ) -> dict[str, Any]:
    headers = {"Authorization": f"Bot {BOT_TOKEN}", "Content-Type": "application/json"}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, headers=headers, limits=limits,
                                 timeout=30) as client:
        def path(guild: str) -> str:
            return f"/applications/{APP}/guilds/{guild}/commands"

        bodies = {g: _bodies(g) for g in ids}
        put = []
        for guild in ids:  # nothing live: 50 creates each
            started = time.perf_counter()
            answer = await client.put(path(guild), content=bodies[guild])
            put.append(time.perf_counter() - started)
            answer.raise_for_status()
        get = []
        for guild in ids:
            started = time.perf_counter()
            answer = await client.get(path(guild), params={"with_localizations": "true"})
            get.append(time.perf_counter() - started)
            answer.raise_for_status()
        choices = random.Random(24)
        order = list(ids)
        choices.shuffle(order)
        # each overwrite changes one command: a guild's changed list, then its own again
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
                    answer = await client.put(path(guild), content=body)
                else:
                    answer = await client.get(path(guild), params={"with_localizations": "true"})
                if answer.status_code == 429:
                    limited += 1
                    continue
                mixed.append(time.perf_counter() - started)
                failed += answer.status_code >= 300

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - began
    return {"put": _percentiles(put), "get": _percentiles(get),
            "mixed": {**_percentiles(mixed), "requests": len(mixed), "seconds": elapsed,
                      "requests_per_s": len(mixed) / elapsed, "failed": failed,
                      "rate_limited": limited}}


def _percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"count": len(samples), "p50_ms": statistics.median(samples) * 1000,
            "p90_ms": cuts[89] * 1000, "p99_ms": cuts[98] * 1000}


if __name__ == "__main__":
    sys.exit(main())
