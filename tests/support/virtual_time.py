"""Virtual time for tests of rate limits: seconds pass only while every task waits.

:func:`run` runs a coroutine on a fresh event loop whose clock is
:attr:`VirtualTime.now`: when no callback is ready, the loop jumps to its
next timer instead of sleeping. With the emulator in-process (ASGI) and
both sides reading the same clock, a request takes no time and a 429's
``retry_after`` passes at once, so what a test sees depends on the
requests alone, never on how busy the machine is. The emulator's handlers
must then run on the loop, not in worker threads: :func:`handlers_inline`.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class VirtualTime:
    """A clock (call it for seconds since ``start``'s epoch) that a loop made by :meth:`run` moves.

    The loop itself counts seconds from 0 (``elapsed``), so timers keep
    their precision whatever ``start`` is.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.start = start
        self.elapsed = 0.0

    def __call__(self) -> float:
        return self.start + self.elapsed

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """Run ``main`` to completion in virtual time; raise if it would wait for ever."""
        loop = asyncio.new_event_loop()
        loop.time = lambda: self.elapsed  # type: ignore[method-assign]
        loop._clock_resolution = 1e-6  # type: ignore[attr-defined]
        selector = loop._selector  # type: ignore[attr-defined]
        real_select = selector.select

        def select(timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            if timeout is None:
                raise RuntimeError("every task waits on I/O that never comes: deadlock")
            self.elapsed += max(timeout, 0.0)
            return list(real_select(0))

        selector.select = select
        try:
            return loop.run_until_complete(main)
        finally:
            loop.close()


def handlers_inline(monkeypatch: Any) -> None:
    """Run the emulator's request handlers on the event loop (no worker threads).

    A handler in a thread finishes in real time, which virtual time cannot
    wait for; inline, every step of a request is on the loop.
    """
    from cmdsync.emulator import app

    async def inline(handler: Callable[..., T], *args: Any) -> T:
        return handler(*args)

    monkeypatch.setattr(app, "run_in_threadpool", inline)
