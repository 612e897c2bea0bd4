"""A request left unanswered is told to ``ClientConfig.on_wait`` once per attempt, after
the notice delay (issue 33, item 8); an answered one is never told.

The transport waits on the listener itself (an event set by ``on_wait``) before it
answers or times out, so what is told depends on the requests alone, not on how busy
the machine is; backoff sleeps are skipped.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import ClientConfig, DiscordClient, Waiting
from cmdsync.errors import NetworkError

APP = "111111111111111111"
PATH = f"/applications/{APP}/commands"
OK = [{"id": "1", "name": "ping"}]


async def no_sleep(seconds: float) -> None:
    return None


async def told_while(answers: list[str], **config: Any) -> tuple[list[Waiting], Any]:
    """Read the global commands, each attempt answered as ``answers`` says: ``ok``
    at once, ``late`` (once told) or ``timeout`` (once told); what ``on_wait`` was
    told, and the result (or the error)."""
    told: list[Waiting] = []
    noticed = asyncio.Event()

    def on_wait(waiting: Waiting) -> None:
        told.append(waiting)
        noticed.set()

    async def handler(request: httpx.Request) -> httpx.Response:
        answer = answers.pop(0)
        if answer != "ok":
            await noticed.wait()
            noticed.clear()
        if answer == "timeout":
            raise httpx.ReadTimeout("timed out")
        return httpx.Response(200, json=OK)

    client = DiscordClient(Auth(Token("Bot", "test-token", "test")),
                           config=ClientConfig(base_url="https://discord.test/api/v10",
                                               on_wait=on_wait, **config),
                           transport=httpx.MockTransport(handler), sleep=no_sleep)
    async with client:
        try:
            result: Any = await endpoints.list_commands(client, APP, "global")
        except NetworkError as exc:
            result = exc
        await asyncio.sleep(0.05)  # a note still due would be told by now
    return told, result


def test_each_unanswered_attempt_is_told_once_with_its_host_request_and_number() -> None:
    told, result = asyncio.run(told_while(["timeout", "late"], notice_after=0.01))
    assert told == [Waiting("discord.test", "GET", PATH, 1, 0.01),
                    Waiting("discord.test", "GET", PATH, 2, 0.01)]
    assert result == OK


def test_a_request_answered_in_time_is_never_told() -> None:
    told, result = asyncio.run(told_while(["ok"], notice_after=0.01))
    assert (told, result) == ([], OK)


def test_the_note_comes_by_half_the_timeout_when_that_is_sooner() -> None:
    told, result = asyncio.run(told_while(["timeout", "timeout"], timeout=0.04))
    assert [(w.attempt, w.seconds) for w in told] == [(1, 0.02), (2, 0.02)]
    assert str(result).endswith("no answer from discord.test within 0.04 s (2 attempts): "
                                "allow it more time with --timeout SECONDS (or "
                                "CMDSYNC_TIMEOUT, or timeout = SECONDS in cmdsync.toml)")


def test_a_listener_that_fails_does_not_fail_the_request() -> None:
    async def main() -> Any:
        told = asyncio.Event()

        async def handler(request: httpx.Request) -> httpx.Response:
            await told.wait()
            return httpx.Response(200, json=OK)

        def on_wait(waiting: Waiting) -> None:
            told.set()
            raise BrokenPipeError("standard error is gone")

        async with DiscordClient(Auth(Token("Bot", "test-token", "test")), config=ClientConfig(
                base_url="https://discord.test/api/v10", on_wait=on_wait, notice_after=0.001),
                transport=httpx.MockTransport(handler)) as client:
            return await endpoints.list_commands(client, APP, "global")

    assert asyncio.run(main()) == OK
