"""Rate limits in-process on a fake clock: headers, per-route buckets, the
global limit per token, 429 answers (issue 3 "Rate limits and faults")."""

from __future__ import annotations

import pytest

from cmdsync.emulator import RateLimitConfig
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD_COMMANDS,
    START,
    FakeClock,
    asgi_client,
    chat,
    emulator,
)

pytestmark = pytest.mark.anyio
LIMITED = "You are being rate limited."


async def test_every_counted_response_carries_the_bucket_headers() -> None:
    clock = FakeClock()
    async with asgi_client(emulator(clock=clock, ratelimit=RateLimitConfig(
            route_limit=5, route_window=2.0))) as api:
        first = await api.get(GLOBAL, headers=BOT)
        clock.advance(0.5)
        second = await api.get(f"{GLOBAL}/1", headers=BOT)  # an error still counts
        third = await api.get(GLOBAL, headers=BOT)
    assert second.status_code == 404
    assert {k: v for k, v in first.headers.items() if k.startswith("x-ratelimit")} == {
        "x-ratelimit-limit": "5", "x-ratelimit-remaining": "4",
        "x-ratelimit-reset": f"{START + 2:.3f}", "x-ratelimit-reset-after": "2.000",
        "x-ratelimit-bucket": first.headers["x-ratelimit-bucket"]}
    assert (third.headers["x-ratelimit-remaining"], third.headers["x-ratelimit-reset-after"]) == (
        "3", "1.500")
    assert second.headers["x-ratelimit-bucket"] != first.headers["x-ratelimit-bucket"]
    assert second.headers["x-ratelimit-remaining"] == "4"


async def test_a_route_bucket_answers_429_until_it_resets() -> None:
    clock = FakeClock()
    async with asgi_client(emulator(clock=clock, ratelimit=RateLimitConfig(
            global_limit=0, route_limit=2, route_window=0.5))) as api:
        for _ in range(2):
            assert (await api.get(GLOBAL, headers=BOT)).status_code == 200
        shared = await api.put(GLOBAL, headers=BOT, json=[chat()])  # list and bulk share
        other_route = await api.post(GLOBAL, headers=BOT, json=chat("other"))
        other_scope = await api.get(GUILD_COMMANDS, headers=BOT)
        clock.advance(0.2)
        still = await api.get(GLOBAL, headers=BOT)
        clock.advance(0.3)
        again = await api.get(GLOBAL, headers=BOT)
    assert (shared.status_code, shared.json()) == (
        429, {"message": LIMITED, "retry_after": 0.5, "global": False})
    assert shared.headers["retry-after"] == "1"
    assert shared.headers["x-ratelimit-scope"] == "user"
    assert "x-ratelimit-global" not in shared.headers
    assert shared.headers["x-ratelimit-remaining"] == "0"
    assert (other_route.status_code, other_scope.status_code) == (201, 200)
    assert (still.status_code, still.json()["retry_after"]) == (429, 0.3)
    assert again.status_code == 200
    assert [c["name"] for c in again.json()] == ["other"]  # the refused PUT did nothing


async def test_the_global_limit_counts_every_route_of_one_token() -> None:
    clock = FakeClock()
    async with asgi_client(emulator(clock=clock, ratelimit=RateLimitConfig(
            global_limit=3, route_limit=0))) as api:
        paths = [GLOBAL, GUILD_COMMANDS, f"{GLOBAL}/1"]
        statuses = [(await api.get(path, headers=BOT)).status_code for path in paths]
        refused = await api.get(f"/applications/{APP}/guilds/222222222222222222/commands/"
                                "permissions", headers=BOT)
        other_token = await api.get(f"/applications/{APP}/guilds/222222222222222222/commands/"
                                    "permissions",
                                    headers={"Authorization": "Bearer emulator-user-token"})
        clock.advance(1)
        after = await api.get(GLOBAL, headers=BOT)
    assert statuses == [200, 200, 404]
    assert (refused.status_code, refused.json()) == (
        429, {"message": LIMITED, "retry_after": 1.0, "global": True})
    assert (refused.headers["x-ratelimit-global"], refused.headers["x-ratelimit-scope"],
            refused.headers["retry-after"]) == ("true", "global", "1")
    assert (other_token.status_code, after.status_code) == (200, 200)


async def test_the_default_global_limit_is_50_per_second() -> None:
    instance = emulator(ratelimit=RateLimitConfig())
    async with asgi_client(instance) as api:
        guilds = [f"/applications/{APP}/guilds/{300000000000000000 + i}/commands"
                  for i in range(51)]
        statuses = [(await api.get(path, headers=BOT)).status_code for path in guilds]
    assert statuses == [404] * 50 + [429]
    assert instance.log.counts()["rate_limited"] == 1


async def test_zero_disables_the_limits() -> None:
    async with asgi_client(emulator(ratelimit=RateLimitConfig(global_limit=0,
                                                              route_limit=0))) as api:
        responses = [await api.get(GLOBAL, headers=BOT) for _ in range(120)]
    assert {r.status_code for r in responses} == {200}
    assert not [k for k in responses[-1].headers if k.startswith("x-ratelimit")]


def test_bad_limits_are_refused() -> None:
    for bad in ({"global_limit": -1}, {"route_window": 0}, {"route_limit": 1.5}):
        with pytest.raises(ValueError):
            RateLimitConfig(**bad)  # type: ignore[arg-type]
