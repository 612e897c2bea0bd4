"""Real gateway bots in a thread of their own, against a served emulator (no tests here):
the emulator served with guild commands, each library's client built with a ``ready``
event, and ``cmdsync invoke`` run against it."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import discord
import pytest

from cmdsync.emulator import Emulator, Limits, create_app, new_emulator
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.gateway.clients import pointed_at
from cmdsync.emulator.seed import BOT_TOKEN, CHANNEL_ID
from cmdsync.emulator.server import BackgroundServer
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, GUILD, GUILD_COMMANDS, USER_ID, http_client

Invoke = Callable[..., tuple[int, str, str]]
WAIT = 30  # seconds a bot may take to log in on a busy machine (a bound, never a pause)


class BotThread:
    """Runs ``start()`` (a coroutine: the library's own login and connect) in a thread
    with its own event loop; on exit awaits ``stop()`` there, then ``start()``'s end."""

    def __init__(self, start: Callable[[], Awaitable[Any]],
                 stop: Callable[[], Awaitable[Any]],
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._start, self._stop = start, stop
        self.loop = loop or asyncio.new_event_loop()
        self.error: BaseException | None = None
        self._stopping = asyncio.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc
        finally:
            self.loop.close()

    async def _main(self) -> None:
        started = asyncio.ensure_future(self._start())
        stopping = asyncio.ensure_future(self._stopping.wait())
        await asyncio.wait({started, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not started.done():
            await self._stop()
        stopping.cancel()
        await started

    def call(self, coroutine: Awaitable[Any]) -> Any:
        """Run ``coroutine`` in the bot's loop; its result."""
        async def wrapped() -> Any:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(WAIT)

    def __enter__(self) -> BotThread:  # noqa: PYI034 - typing.Self is 3.11+
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self._stopping.set)
        self.thread.join(WAIT)


class Handlers:
    """A bot's handler runs: how many are running, and what they raised (the libraries
    only log it; an answer a library cannot read fails the handler after the emulator
    took the answer, so the printed answer alone does not show it)."""

    def __init__(self) -> None:
        self.running = 0
        self.errors: list[BaseException] = []
        self._changed = threading.Condition()

    def begin(self) -> None:
        with self._changed:
            self.running += 1

    def end(self, error: BaseException | None) -> None:
        with self._changed:
            self.running -= 1
            if error is not None:
                self.errors.append(error)
            self._changed.notify_all()

    def finished(self) -> list[BaseException]:
        """Once no handler runs (at most ``WAIT`` seconds): what they raised, cleared."""
        with self._changed:
            assert self._changed.wait_for(lambda: self.running == 0, WAIT)
            errors, self.errors = self.errors, []
            return errors


@contextmanager
def discord_py(client: discord.Client, api_url: str, token: str) -> Iterator[BotThread]:
    """``client`` logged in to the emulator at ``api_url`` (``.../api/v10``)."""
    with pointed_at(api_url.split("/api/")[0]), \
            BotThread(lambda: client.start(token), client.close) as running:
        yield running


def wait_ready(emulator: Emulator, app_id: str, ready: threading.Event,
               running: BotThread) -> None:
    """Until the gateway sent READY and the library says it is ready; at once with the
    library's error if the bot stopped."""
    deadline = time.monotonic() + WAIT
    while not ready.wait(0.05):
        if not running.thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError(f"the bot did not get ready: {running.error!r}")
    emulator.gateway.wait_ready(app_id, timeout=WAIT)


@contextmanager
def served_with(commands: list[dict[str, Any]], *, seed: dict[str, Any] | None = None,
                token: str = BOT_TOKEN) -> Iterator[tuple[Emulator, str]]:
    """``(emulator, base_url)``: served with ``commands`` as the seeded guild's commands,
    and a generous interaction deadline (a busy machine never fails a bot that answers)."""
    emulator = new_emulator(seed=seed, limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(emulator)) as base:
        with http_client(f"{base}/api/v10", headers={"Authorization": f"Bot {token}"}
                         ) as api:
            assert api.put(GUILD_COMMANDS, json=commands).status_code == 200
        yield emulator, base


@contextmanager
def discord_py_bot(commands: list[dict[str, Any]], client: discord.Client,
                   ready: threading.Event) -> Iterator[tuple[Emulator, str, BotThread]]:
    """``(emulator, base_url, running)``: :func:`served_with` ``commands``, and
    ``client`` logged in with the seed's bot token until ``ready`` is set."""
    with served_with(commands) as (emulator, base), \
            discord_py(client, f"{base}/api/v10", BOT_TOKEN) as running:
        wait_ready(emulator, APP, ready, running)
        yield emulator, base, running


def discord_py_client() -> tuple[discord.Client, threading.Event]:
    """A discord.py client with the default intents, and an event set when it is ready."""
    client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)
    ready = threading.Event()

    @client.event
    async def on_ready() -> None:
        ready.set()

    return client, ready


def disnake_client(disnake: Any, make: Callable[..., Any] | None = None, **options: Any
                   ) -> tuple[Any, asyncio.AbstractEventLoop, threading.Event]:
    """A disnake client (``make(**options)``, ``disnake.Client`` by default) with the
    default intents, the loop it must run in (disnake takes the current loop when built)
    and an event set when it is ready."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        client = (make or disnake.Client)(intents=disnake.Intents.default(),
                                          guild_ready_timeout=0.05, **options)
    finally:
        asyncio.set_event_loop(None)
    ready = threading.Event()

    @client.event
    async def on_ready() -> None:
        ready.set()

    return client, loop, ready


def invoker(base: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            *leading: str, token: str | None = None) -> Invoke:
    """``cmdsync invoke`` against the emulator at ``base`` in a clean environment (with
    ``DISCORD_BOT_TOKEN`` when ``token`` is given): ``(exit code, stdout, stderr)`` of
    ``invoke(*args)``, ``leading`` arguments first."""
    clean_environment(monkeypatch)
    if token is not None:
        monkeypatch.setenv("DISCORD_BOT_TOKEN", token)

    def invoke(*args: str) -> tuple[int, str, str]:
        return run(capsys, "invoke", "--api-url", f"{base}/api/v10", *leading, *args)

    return invoke


def ping_answered(reply: str) -> str:
    """What ``cmdsync invoke --guild GUILD /ping`` prints when the bot answers ``reply``."""
    return (f"Invoked /ping in guild {GUILD}, channel {CHANNEL_ID} as owner ({USER_ID})\n"
            "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
            "Reply:\n"
            f"  {reply}\n")


MESSAGE_ID = "222222222222222226"  # the default seed's message, by member
# The same bot answers, whatever its library: each kind of command run with
# `cmdsync invoke ARGS` and the text it prints after "Invoked ... SENT".
KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "user-command": (("--user-command", "Inspect", "--target", emulator_seed.MEMBER_ID), (
        f"Invoked 'Inspect' on {emulator_seed.MEMBER_ID} {{sent}}\n"
        "Response: CHANNEL_MESSAGE_WITH_SOURCE\nReply:\n  member has 1 role(s)\n")),
    "message-command": (("--message-command", "Quote", "--target", MESSAGE_ID), (
        f"Invoked 'Quote' on {MESSAGE_ID} {{sent}}\n"
        'Response: CHANNEL_MESSAGE_WITH_SOURCE\nReply:\n  "hello" by member\n')),
    "autocomplete": (("--autocomplete", "/fruit name:ap"), (
        "Autocomplete /fruit name:ap (focused) {sent}\n"
        "Response: APPLICATION_COMMAND_AUTOCOMPLETE_RESULT\n"
        '  Apple = "apple"\n  Apricot = "apricot"\n')),
    "modal": (("/form",), (
        "Invoked /form {sent}\nResponse: MODAL\n"
        '  modal "Feedback" (feedback), 1 component row(s)\n'
        '  text inputs: "Your feedback" (text); submit it with --submit {interaction} '
        "--field KEY=VALUE\n")),
    "deferral": (("--wait", "30", "--follow-ups", "1", "/slow"), (
        "Invoked /slow {sent}\nResponse: DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply (edited):\n  done thinking\nFollow-up:\n  and one more thing\n")),
    "ephemeral": (("/secret",), (
        "Invoked /secret {sent}\nResponse: CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply (ephemeral):\n  only you\n")),
}


def kind_answered(kind: str) -> tuple[tuple[str, ...], str]:
    """The ``cmdsync invoke`` arguments of a :data:`KINDS` entry and a pattern of the text
    it prints (the interaction's id, where it shows, any id), run as the default seed's
    owner in its guild's first channel."""
    args, text = KINDS[kind]
    sent = (f"in guild {emulator_seed.GUILD_ID}, channel {emulator_seed.CHANNEL_ID} as owner "
            f"({emulator_seed.USER_ID})")
    return args, re.escape(text.format(sent=sent, interaction="SNOWFLAKE")).replace(
        "SNOWFLAKE", r"\d+")
