"""The HTTP client on httpx.MockTransport: rate limits, retries, timeouts, errors, secrets.

Time is fake: the client sleeps through :class:`FakeTime`, which only
advances a clock, so waits are asserted exactly and tests never sleep.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from cmdsync import __version__
from cmdsync.apply.form_errors import form_error_diagnostics
from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, ClientCredentials, Token
from cmdsync.client.http import USER_AGENT, ClientConfig, DiscordClient
from cmdsync.client.ratelimit import RateLimiter
from cmdsync.errors import ApiError, NetworkError
from cmdsync.manifest.entries import collect
from cmdsync.manifest.loader import load_text

APP = "111111111111111111"
GUILD = "222222222222222222"
SECRET = "sekrit-bot-token-0123456789"
BEARER = "sekrit-user-bearer-987"
CLIENT_SECRET = "sekrit-client-secret-555"
LIST = f"/api/v10/applications/{APP}/commands"


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


Handler = Callable[[httpx.Request], httpx.Response]


def client(handler: Handler, time: FakeTime, *, auth: Auth | None = None,
           **config: Any) -> DiscordClient:
    return DiscordClient(auth or Auth(Token("Bot", SECRET, "test")),
                         config=ClientConfig(base_url="https://discord.test/api/v10", **config),
                         transport=httpx.MockTransport(handler), clock=time.clock,
                         sleep=time.sleep)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def sequence(*responses: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, Exception):
            raise item
        return item

    return handler, seen


def limited(retry_after: float, *, is_global: bool = False, code: int | None = None,
            headers: dict[str, str] | None = None) -> httpx.Response:
    body: dict[str, Any] = {"message": "You are being rate limited.",
                            "retry_after": retry_after, "global": is_global}
    if code is not None:
        body["code"] = code
    return httpx.Response(429, json=body, headers=headers or {})


OK = httpx.Response(200, json=[{"id": "1", "name": "ping"}])


async def list_global(c: DiscordClient) -> Any:
    async with c:
        return await endpoints.list_commands(c, APP, "global")


def test_request_shape() -> None:
    time = FakeTime()
    handler, seen = sequence(OK)
    assert run(list_global(client(handler, time))) == [{"id": "1", "name": "ping"}]
    (request,) = seen
    assert str(request.url) == ("https://discord.test/api/v10/applications/"
                                f"{APP}/commands?with_localizations=true")
    assert request.headers["authorization"] == f"Bot {SECRET}"
    assert request.headers["user-agent"] == USER_AGENT
    assert USER_AGENT == f"DiscordBot (https://github.com/cmdsync/cmdsync, {__version__}) cmdsync"
    assert request.extensions["timeout"] == {"connect": 15.0, "read": 15.0, "write": 15.0,
                                             "pool": 15.0}
    assert time.slept == []


def test_429_bucket_retries_after_retry_after() -> None:
    time = FakeTime()
    handler, seen = sequence(limited(2.5, headers={"X-RateLimit-Bucket": "b1",
                                                   "X-RateLimit-Limit": "5",
                                                   "X-RateLimit-Remaining": "0",
                                                   "X-RateLimit-Reset-After": "2.5"}), OK)
    c = client(handler, time)
    assert run(list_global(c)) == [{"id": "1", "name": "ping"}]
    assert (len(seen), time.slept, c.rate_limited) == (2, [2.5], 1)


def test_429_retry_after_header_when_body_has_none() -> None:
    time = FakeTime()
    handler, _ = sequence(httpx.Response(429, json={"message": "slow"},
                                         headers={"Retry-After": "3"}), OK)
    run(list_global(client(handler, time)))
    assert time.slept == [3.0]


def test_429_global_pauses_every_route() -> None:
    time = FakeTime()

    async def scenario() -> None:
        limiter = RateLimiter(global_limit=0, clock=time.clock, sleep=time.sleep)
        limiter.limited("GET /a", APP, 1.25, is_global=True)
        await limiter.acquire("PUT /other", GUILD)

    run(scenario())
    assert time.slept == [1.25]


def test_429_global_through_the_client() -> None:
    time = FakeTime()
    handler, seen = sequence(limited(0.75, is_global=True,
                                     headers={"X-RateLimit-Global": "true",
                                              "X-RateLimit-Scope": "global"}), OK)
    c = client(handler, time)
    run(list_global(c))
    assert (len(seen), time.slept) == (2, [0.75])


def test_bucket_exhausted_waits_for_reset_per_major_parameter() -> None:
    time = FakeTime()
    headers = {"X-RateLimit-Bucket": "guildcmds", "X-RateLimit-Limit": "1",
               "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "3.5",
               "X-RateLimit-Reset": "1700000000.5"}
    handler, seen = sequence(httpx.Response(200, json=[], headers=headers))

    async def scenario() -> None:
        async with client(handler, time) as c:
            await endpoints.list_commands(c, APP, GUILD)
            await endpoints.list_commands(c, APP, "333333333333333333")  # other guild: no wait
            assert time.slept == []
            await endpoints.list_commands(c, APP, GUILD)  # same bucket and guild: waits

    run(scenario())
    assert time.slept == [3.5]
    assert len(seen) == 3


def test_proactive_global_limit_never_exceeds_window() -> None:
    time = FakeTime()
    stamps: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        stamps.append(time.now)
        return httpx.Response(200, json=[])

    async def scenario() -> None:
        async with client(handler, time, global_limit=10, global_window=1.0,
                          concurrency=4) as c:
            await asyncio.gather(*(endpoints.list_commands(c, APP, str(10**17 + i))
                                   for i in range(35)))

    run(scenario())
    assert len(stamps) == 35
    assert max(sum(1 for s in stamps if t <= s < t + 1.0) for t in stamps) == 10
    assert round(time.now - 1000.0, 3) == 3.0  # 35 requests at 10 per second


def test_concurrency_is_bounded() -> None:
    inflight = peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal inflight, peak
        inflight += 1
        peak = max(peak, inflight)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        inflight -= 1
        return httpx.Response(200, json=[])

    async def scenario() -> None:
        c = DiscordClient(Auth(Token("Bot", SECRET)), transport=httpx.MockTransport(handler),
                          config=ClientConfig(concurrency=3, global_limit=0))
        async with c:
            await asyncio.gather(*(endpoints.list_commands(c, APP, str(10**17 + i))
                                   for i in range(12)))

    run(scenario())
    assert peak == 3


def test_5xx_retries_with_exponential_backoff() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.Response(502), httpx.Response(500, json={"code": 0}), OK)
    assert run(list_global(client(handler, time))) == [{"id": "1", "name": "ping"}]
    assert (len(seen), time.slept) == (3, [0.5, 1.0])


def test_5xx_gives_up_after_max_retries() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.Response(503, json={"message": "503: Service Unavailable",
                                                       "code": 0}))
    with pytest.raises(ApiError) as caught:
        run(list_global(client(handler, time, max_retries=3)))
    assert str(caught.value) == (f"GET /applications/{APP}/commands: HTTP 503: "
                                 "503: Service Unavailable (code 0)")
    assert (len(seen), time.slept) == (4, [0.5, 1.0, 2.0])


def test_backoff_is_capped() -> None:
    time = FakeTime()
    handler, _ = sequence(httpx.Response(500), httpx.Response(500), httpx.Response(500), OK)
    run(list_global(client(handler, time, backoff_base=1.0, backoff_max=3.0)))
    assert time.slept == [1.0, 2.0, 3.0]


def test_network_error_is_retried() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.ConnectError("connection refused"),
                             httpx.RemoteProtocolError("peer closed connection"), OK)
    assert run(list_global(client(handler, time))) == [{"id": "1", "name": "ping"}]
    assert (len(seen), time.slept) == (3, [0.5, 1.0])


def test_truncated_body_is_retried() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.Response(200, content=b'{"partial":'), OK)
    run(list_global(client(handler, time)))
    assert len(seen) == 2


def test_timeout_is_retried_once_then_names_the_host_the_timeout_and_the_setting() -> None:
    """A server that never answers is not waited for max_retries times (83 s by default)."""
    time = FakeTime()
    handler, seen = sequence(httpx.ReadTimeout("timed out"))
    with pytest.raises(NetworkError) as caught:
        run(list_global(client(handler, time, timeout=2.5)))
    assert str(caught.value) == (
        f"GET /applications/{APP}/commands: no answer from discord.test within 2.5 s "
        "(2 attempts): allow it more time with --timeout SECONDS (or CMDSYNC_TIMEOUT, or "
        "timeout = SECONDS in cmdsync.toml)")
    assert (len(seen), time.slept) == (2, [0.5])


def test_timeouts_after_other_failures_count_their_attempts() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.Response(502), httpx.ReadTimeout("timed out"),
                             httpx.ConnectTimeout("timed out"))
    with pytest.raises(NetworkError) as caught:
        run(list_global(client(handler, time, max_timeout_retries=1)))
    assert "no answer from discord.test within 15 s (3 attempts)" in str(caught.value)
    assert (len(seen), time.slept) == (3, [0.5, 1.0])


def test_post_is_retried_after_no_answer_since_a_create_upserts() -> None:
    """POST .../commands overwrites the command of that name and type (Discord's documentation), so a
    create that reached Discord and lost its answer is not made twice by its retry."""
    time = FakeTime()
    created = httpx.Response(200, json={"id": "1", "name": "x"})
    handler, seen = sequence(httpx.ReadTimeout("timed out"),
                             httpx.RemoteProtocolError("peer closed connection"),
                             httpx.ConnectError("connection refused"), created)

    async def create() -> list[tuple[int | None, bool, bool]]:
        async with client(handler, time) as c:
            await endpoints.create_command(c, APP, "global", {"name": "x", "description": "y"})
            return [(e.status, e.reached, e.ambiguous) for e in c.exchanges]

    assert run(create()) == [(None, True, True), (None, True, True), (None, False, False),
                             (200, True, False)]
    assert len(seen) == 4


def test_daily_limit_as_429_fails_at_once() -> None:
    time = FakeTime()
    handler, seen = sequence(limited(3600.0, code=30034))
    with pytest.raises(ApiError) as caught:
        run(list_global(client(handler, time)))
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (
        429, 30034, 3600.0)
    assert (len(seen), time.slept) == (1, [])


def test_429_gives_up_after_max_rate_limit_retries() -> None:
    time = FakeTime()
    handler, seen = sequence(limited(0.5))
    with pytest.raises(ApiError) as caught:
        run(list_global(client(handler, time, max_rate_limit_retries=2)))
    assert str(caught.value) == (f"GET /applications/{APP}/commands: HTTP 429: You are being "
                                 "rate limited.")
    assert len(seen) == 3


INVALID = {"code": 50035, "message": "Invalid Form Body", "errors": {
    "1": {"options": {"0": {"name": {"_errors": [
        {"code": "APPLICATION_COMMAND_INVALID_NAME",
         "message": "Command name is invalid"}]}}}},
    "_errors": [{"code": "X", "message": "whole request"}]}}


def test_api_error_shows_what_discord_reported() -> None:
    time = FakeTime()
    handler, _ = sequence(httpx.Response(400, json=INVALID))

    async def put() -> None:
        async with client(handler, time) as c:
            await endpoints.bulk_overwrite(c, APP, GUILD, [])

    with pytest.raises(ApiError) as caught:
        run(put())
    assert str(caught.value) == (
        f"PUT /applications/{APP}/guilds/{GUILD}/commands: HTTP 400: Invalid Form Body "
        "(code 50035)\n"
        "  1.options.0.name: APPLICATION_COMMAND_INVALID_NAME: Command name is invalid\n"
        "  (request): X: whole request")


def test_50035_paths_map_to_manifest_lines() -> None:
    doc = load_text("commands:\n"
                    "  - {name: ping, description: P}\n"
                    "  - name: ban\n"
                    "    description: B\n"
                    "    options:\n"
                    "      - {type: user, name: Bad, description: W}\n",
                    file="bot.yaml", kind="yaml", env={})
    entries = collect([doc]).commands
    error = ApiError(method="PUT", path="/x", status=400, code=50035,
                     message="Invalid Form Body", errors=INVALID["errors"])
    found = form_error_diagnostics(error, [*entries, None])
    assert [(d.location.file, d.location.line, d.location.column, d.location.pointer,
             d.message) for d in found] == [
        ("bot.yaml", 6, 28, "/commands/1/options/0/name",
         ("Discord rejected the request: APPLICATION_COMMAND_INVALID_NAME: Command name is "
         "invalid")),
        ("bot.yaml", 0, 0, "", "Discord rejected the request: X: whole request")]
    single = form_error_diagnostics(ApiError(
        method="POST", path="/x", status=400, code=50035, message="Invalid Form Body",
        errors={"description": {"_errors": [{"code": "BASE_TYPE_REQUIRED",
                                             "message": "required"}]}}),
        [entries[0]], single=True)
    assert [(d.location.line, d.location.pointer) for d in single] == [
        (2, "/commands/0/description")]


def test_client_credentials_exchange_once() -> None:
    time = FakeTime()
    exchanges: list[httpx.Request] = []
    auths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            exchanges.append(request)
            return httpx.Response(200, json={"access_token": "exchanged-abc",
                                             "token_type": "Bearer", "expires_in": 604800,
                                             "scope": "applications.commands.update"})
        auths.append(request.headers["authorization"])
        return httpx.Response(200, json=[])

    async def scenario() -> None:
        auth = Auth(ClientCredentials(APP, CLIENT_SECRET))
        async with client(handler, time, auth=auth) as c:
            await asyncio.gather(*(endpoints.list_commands(c, APP, str(10**17 + i))
                                   for i in range(5)))

    run(scenario())
    (exchange,) = exchanges
    assert exchange.url.path == "/api/v10/oauth2/token"
    assert exchange.content == b"grant_type=client_credentials&scope=applications.commands.update"
    assert exchange.headers["authorization"].startswith("Basic ")
    assert auths == ["Bearer exchanged-abc"] * 5


def test_permission_edits_use_the_bearer_token() -> None:
    time = FakeTime()
    handler, seen = sequence(httpx.Response(200, json={"id": "5", "permissions": []}))

    async def put() -> None:
        async with client(handler, time, auth=Auth(Token("Bot", SECRET),
                                                   Token("Bearer", BEARER))) as c:
            await endpoints.put_permissions(c, APP, GUILD, "5", [
                {"id": GUILD, "type": 1, "permission": False}])

    run(put())
    assert seen[0].headers["authorization"] == f"Bearer {BEARER}"
    assert json.loads(seen[0].content) == {"permissions": [{"id": GUILD, "type": 1,
                                                            "permission": False}]}


def test_tokens_never_appear_in_errors_reprs_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    time = FakeTime()
    failures: list[BaseException] = []
    cases: list[tuple[Handler, Auth]] = [
        (sequence(httpx.Response(401, json={"message": "401: Unauthorized", "code": 0}))[0],
         Auth(Token("Bot", SECRET))),
        (sequence(httpx.ConnectError("boom"))[0], Auth(Token("Bot", SECRET))),
        (sequence(limited(0.1))[0], Auth(Token("Bot", SECRET))),
        (sequence(httpx.Response(401, json={"error": "invalid_client"}))[0],
         Auth(ClientCredentials(APP, CLIENT_SECRET))),
    ]
    for handler, auth in cases:
        c = client(handler, time, auth=auth, max_rate_limit_retries=1, max_retries=1)
        with pytest.raises(Exception) as caught:
            run(list_global(c))
        failures.append(caught.value)
        assert SECRET not in repr(c) and CLIENT_SECRET not in repr(c)

    async def missing_bearer() -> None:
        async with client(sequence(OK)[0], time) as c:
            await endpoints.put_permissions(c, APP, GUILD, "5", [])

    with pytest.raises(Exception) as caught:
        run(missing_bearer())
    failures.append(caught.value)
    auths = [Auth(Token("Bot", SECRET), Token("Bearer", BEARER)),
             Auth(ClientCredentials(APP, CLIENT_SECRET))]
    texts = [str(f) for f in failures] + [repr(f) for f in failures] + [
        repr(a) for a in auths] + [str(a.commands) for a in auths] + [caplog.text]
    for secret in (SECRET, BEARER, CLIENT_SECRET):
        assert not any(secret in text for text in texts), secret
    assert str(failures[0]) == (f"GET /applications/{APP}/commands: HTTP 401: 401: "
                                "Unauthorized (code 0): Discord did not accept the Bot token: "
                                "check that it is this application's current token")
    assert str(failures[3]) == (
        "POST /oauth2/token: HTTP 401: invalid_client: the client-credentials exchange failed; "
        "check DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET")


@pytest.mark.parametrize("auth, expected", [
    (Auth(Token("Bot", SECRET), Token("Bearer", BEARER)), f"Bot {SECRET}"),
    (Auth(ClientCredentials(APP, CLIENT_SECRET), Token("Bearer", BEARER)), f"Bearer {BEARER}"),
])
def test_permission_reads_use_bot_else_user_token(auth: Auth, expected: str) -> None:
    time = FakeTime()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "cc", "token_type": "Bearer"})
        seen.append(request.headers["authorization"])
        return httpx.Response(200, json=[])

    async def read() -> None:
        async with client(handler, time, auth=auth) as c:
            await endpoints.list_guild_permissions(c, APP, GUILD)
            await endpoints.list_commands(c, APP, GUILD)

    run(read())
    assert seen[0] == expected
    assert seen[1] == (f"Bot {SECRET}" if expected.startswith("Bot") else "Bearer cc")


def test_a_lower_global_limit_is_learnt_not_stormed() -> None:
    """The server allows 2 requests a second (a running bot's requests share Discord's
    per-bot global limit; an emulator may be set lower). Every read succeeds: the
    limiter halves its pace at each new global 429, then meets no more."""
    time = FakeTime()
    served: list[float] = []
    refused: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        window = [t for t in served if t > time.now - 1.0]
        if len(window) >= 2:
            refused.append(time.now)
            return httpx.Response(
                429, json={"message": "You are being rate limited.", "global": True,
                           "retry_after": round(min(window) + 1.0 - time.now, 3)},
                headers={"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global"})
        served.append(time.now)
        return httpx.Response(200, json=[])

    async def scenario() -> int:
        async with client(handler, time) as c:  # 50 a second, 8 in flight: the defaults
            await asyncio.gather(*(endpoints.list_commands(c, APP, str(10**17 + i))
                                   for i in range(40)))
            return c.limiter.global_limit

    limit = run(scenario())
    assert len(served) == 40
    assert limit <= 2  # what the server let through before its first 429
    assert len(refused) <= 8  # the requests in flight then; none once the limit is known


def test_a_routes_429_leaves_the_global_limit() -> None:
    limiter = RateLimiter(global_limit=50, clock=lambda: 100.0)
    limiter.limited("GET /x", APP, 1.0, is_global=False)  # its bucket only
    assert limiter.global_limit == 50
    limiter.limited("GET /x", APP, 1.0, is_global=True)  # nothing went through: 1
    assert limiter.global_limit == 1


def test_an_unknown_guild_says_where_guilds_come_from() -> None:
    time = FakeTime()
    handler, _ = sequence(httpx.Response(404, json={"message": "Unknown Guild", "code": 10004}))
    with pytest.raises(ApiError) as caught:
        run(endpoints_list(client(handler, time), GUILD))
    assert str(caught.value) == (
        f"GET /applications/{APP}/guilds/{GUILD}/commands: HTTP 404: Unknown Guild (code "
        f"10004): no guild {GUILD} is known there: check the id in the manifest (Copy "
        "Server ID, with Developer Mode on); a cmdsync emulator knows the guilds of its "
        "seed (--seed FILE, or POST /_emulator/seed) and, with --local, the manifest's")


async def endpoints_list(c: DiscordClient, guild: str) -> Any:
    async with c:
        return await endpoints.list_commands(c, APP, guild)
