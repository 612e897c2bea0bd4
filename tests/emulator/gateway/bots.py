"""Real gateway bots in a thread of their own, against a served emulator (no tests here)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import discord

from cmdsync.emulator import Emulator
from cmdsync.emulator.gateway.clients import pointed_at

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
