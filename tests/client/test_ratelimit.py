"""The proactive global limit holds whatever the network delays: no 429, little waste.

Discord counts a request when it arrives; cmdsync can only see when it sent
it and when the answer came. Here the emulator delays a third of the
requests before counting them (``slow_rate``), as a network with jitter
would, and enforces exactly the limit the client keeps. The client must
meet no 429, and still run close to the limit.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import ClientConfig, DiscordClient
from cmdsync.client.ratelimit import RateLimiter
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.reference.faults import FaultConfig
from cmdsync.emulator.reference.rate_limits import RateLimitConfig

APP = emulator_seed.APPLICATION_ID
GUILD = emulator_seed.GUILD_ID
LIMIT, WINDOW, JITTER = 10, 0.25, 0.06


def test_jittery_arrivals_never_exceed_the_servers_window() -> None:
    emulator = new_emulator(
        ratelimit=RateLimitConfig(global_limit=LIMIT, global_window=WINDOW, route_limit=0),
        faults=FaultConfig(slow_rate=0.35, slow_latency=JITTER, seed=7))
    client = DiscordClient(
        Auth(Token("Bot", emulator_seed.BOT_TOKEN)),
        config=ClientConfig(base_url="http://emulator/api/v10", global_limit=LIMIT,
                            global_window=WINDOW, concurrency=8),
        transport=httpx.ASGITransport(app=create_app(emulator)))
    requests = 80

    async def scenario() -> float:
        async with client:
            start = time.monotonic()
            await asyncio.gather(*(endpoints.list_commands(client, APP, GUILD)
                                   for _ in range(requests)))
            return time.monotonic() - start

    elapsed = asyncio.run(scenario())
    counts = emulator.log.counts()
    assert (counts["rate_limited"], client.rate_limited) == (0, 0)
    assert counts["requests"] == requests
    # LIMIT per (WINDOW + the slowest round trip): never slower than that, with slack.
    assert elapsed < (requests / LIMIT) * (WINDOW + JITTER) + 1.0


def test_a_request_waits_for_the_answer_of_the_one_limit_sends_before() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 3))
        now[0] += seconds

    limiter = RateLimiter(global_limit=2, global_window=1.0, clock=lambda: now[0],
                          sleep=sleep)

    async def one(answer_after: float) -> None:
        await limiter.acquire("GET /a", "1")
        now[0] += answer_after  # the round trip
        limiter.update("GET /a", "1", {})

    async def scenario() -> None:
        await one(0.3)  # sent at 100.0, answered at 100.3
        await one(0.0)  # sent at 100.3, answered at 100.3
        await one(0.0)  # must wait for 100.3 + 1.0: the first one's answer, a window on

    asyncio.run(scenario())
    assert slept == [1.0]
    assert now[0] == 101.3
