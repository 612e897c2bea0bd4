"""Client-side rate limiting from Discord's headers (Discord's "Rate Limits" documentation).

Three waits, in this order, before each request:

1. a global pause after a 429 with ``global: true`` (or
   ``X-RateLimit-Global`` / ``X-RateLimit-Scope: global``);
2. at most ``global_limit`` requests per ``global_window`` seconds, counted
   so that Discord never sees more, whatever the network's delays: Discord
   counts a request when it arrives, at some moment between our send and
   its answer. So a request may go only once the request ``global_limit``
   sends before it was *answered* at least ``global_window`` ago: then it
   arrives a full window after that one did, and no window of Discord's, of
   any alignment, holds more than ``global_limit``. A plan over hundreds of
   guilds runs at ``global_limit`` per (``global_window`` + one round
   trip), and never meets a 429;
3. the route's bucket: routes map to the bucket named by
   ``X-RateLimit-Bucket``; each (bucket, major parameter) keeps ``Remaining``
   and ``Reset-After`` and waits for the reset when nothing remains.

All times are in seconds (float), read from an injectable ``clock``
(monotonic) and slept with an injectable ``sleep``, so tests run instantly.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Bucket:
    limit: int = 1
    remaining: int = 1
    reset_at: float = 0.0  # clock time (seconds) when the window resets
    window: str = ""  # X-RateLimit-Reset of the window the counts belong to
    inflight: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class _Sent:
    """One request counted by the global limit: answered when (clock time), if yet."""

    sent: float
    answered: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def answer(self, now: float) -> None:
        if self.answered is None:
            self.answered = now
            self.done.set()


class RateLimiter:
    """Waits before requests so that Discord never has to answer 429.

    ``global_limit`` requests per ``global_window`` seconds (0 disables the
    proactive limit; 429s are still honoured). A request is answered when
    :meth:`update` is called from the task that acquired it, or when that
    task acquires again or ends; one left unanswered for
    ``answer_timeout`` seconds (longer than any request's timeout) counts
    as answered then.
    """

    def __init__(self, *, global_limit: int = 50, global_window: float = 1.0,
                 clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep,
                 answer_timeout: float = 120.0) -> None:
        self.global_limit = global_limit
        self.global_window = global_window
        self.clock = clock
        self.sleep = sleep
        self.answer_timeout = answer_timeout
        self._sent: collections.deque[_Sent] = collections.deque()
        self._open: dict[asyncio.Task[object], _Sent] = {}
        self._global_lock = asyncio.Lock()
        self._global_until = 0.0
        self._routes: dict[str, str] = {}
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self.waited = 0.0  # total seconds slept, for reports and tests

    async def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.waited += seconds
            await self.sleep(seconds)

    async def acquire(self, route: str, major: str) -> None:
        """Wait until a request on ``route`` (``"GET /applications/{}/commands"``) may go."""
        self._answer_current()  # this task's previous request (a retry's) has ended
        async with self._global_lock:
            await self._wait(self._global_until - self.clock())
            if self.global_limit:
                await self._global_slot()
        bucket = self._bucket(route, major)
        if bucket is None:
            return
        async with bucket.lock:
            now = self.clock()
            if now >= bucket.reset_at:
                bucket.remaining = max(bucket.remaining, bucket.limit)
            elif bucket.remaining <= 0:
                await self._wait(bucket.reset_at - now)
                bucket.remaining = bucket.limit
            bucket.remaining -= 1
            bucket.inflight += 1

    async def _global_slot(self) -> None:
        """Wait until the request ``global_limit`` sends back was answered a window ago."""
        while True:
            now = self.clock()
            sent = self._sent
            while sent and sent[0].answered is not None \
                    and sent[0].answered <= now - self.global_window:
                sent.popleft()
            if len(sent) < self.global_limit:
                self._track(_Sent(now))
                return
            oldest = sent[0]
            if oldest.answered is None:
                try:
                    await asyncio.wait_for(oldest.done.wait(), self.answer_timeout)
                except asyncio.TimeoutError:
                    oldest.answer(self.clock())
                continue
            await self._wait(oldest.answered + self.global_window - now)

    def _track(self, request: _Sent) -> None:
        self._sent.append(request)
        task = _current_task()
        if task is None:
            request.answer(request.sent)  # no task to answer it later: counted at send
            return
        if task not in self._open:
            task.add_done_callback(self._task_done)
        self._open[task] = request

    def _answer_current(self) -> None:
        task = _current_task()
        if task is not None and task in self._open:
            self._open[task].answer(self.clock())

    def _task_done(self, task: asyncio.Task[object]) -> None:
        request = self._open.pop(task, None)
        if request is not None:
            request.answer(self.clock())

    def _bucket(self, route: str, major: str) -> _Bucket | None:
        name = self._routes.get(route)
        return None if name is None else self._buckets.get((name, major))

    def update(self, route: str, major: str, headers: Mapping[str, str]) -> None:
        """Record a response's ``X-RateLimit-*`` headers for the route's bucket.

        Called by the task that sent the request: it is answered now.
        """
        self._answer_current()
        name = headers.get("x-ratelimit-bucket")
        known = self._bucket(route, major)
        if known is not None:
            known.inflight = max(known.inflight - 1, 0)
        if name is None or headers.get("x-ratelimit-remaining") is None:
            return
        self._routes[route] = name
        bucket = self._buckets.setdefault((name, major), _Bucket())
        try:
            limit = int(headers.get("x-ratelimit-limit", "1"))
            remaining = int(headers["x-ratelimit-remaining"])
            reset_after = float(headers.get("x-ratelimit-reset-after", "0"))
        except ValueError:
            return
        window = headers.get("x-ratelimit-reset", "")
        if window and window == bucket.window:
            remaining = min(remaining, bucket.remaining)  # answers of one window arrive out of order
        else:
            remaining = max(remaining - bucket.inflight, 0)
        bucket.limit, bucket.remaining, bucket.window = limit, remaining, window
        bucket.reset_at = self.clock() + reset_after

    def limited(self, route: str, major: str, retry_after: float, *, is_global: bool) -> None:
        """A 429: pause everything (global) or the route's bucket for ``retry_after`` seconds.

        A global 429 that comes after the last global pause ended also lowers
        ``global_limit`` for the rest of the run, to what the server let
        through in the last window (the requests answered then without a
        429), and at least by half, never below 1: Discord's global limit is
        per bot, so a running bot's own requests share it, and an emulator may
        be set lower. Without that, every request waiting on the pause would go
        again at its end, and all but a few would meet another 429. The 429s
        of requests already in flight when a pause began change nothing more;
        a refused request does not count against the window.
        """
        now = self.clock()
        until = now + retry_after
        if is_global:
            task = _current_task()
            refused = self._open.pop(task, None) if task is not None else None
            if refused is not None and refused in self._sent:  # it did not go through
                self._sent.remove(refused)
            if self.global_limit and now >= self._global_until:
                through = sum(1 for r in self._sent
                              if r.answered is not None and r.answered > now - self.global_window)
                self.global_limit = max(min(self.global_limit // 2, through), 1)
            self._global_until = max(self._global_until, until)
            return
        name = self._routes.setdefault(route, f"route:{route}")
        bucket = self._buckets.setdefault((name, major), _Bucket())
        bucket.remaining = 0
        bucket.reset_at = max(bucket.reset_at, until)


def _current_task() -> asyncio.Task[object] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running event loop
        return None


def retry_after(headers: Mapping[str, str], body: Any) -> tuple[float, bool]:
    """Seconds to wait after a 429 (its body's ``retry_after``, else ``Retry-After``,
    else ``X-RateLimit-Reset-After``, else 1), and whether the limit is global."""
    wait: float | None = None
    if isinstance(body, dict) and isinstance(body.get("retry_after"), (int, float)):
        wait = float(body["retry_after"])
    for name in ("retry-after", "x-ratelimit-reset-after"):
        if wait is None and headers.get(name):
            try:
                wait = float(headers[name])
            except ValueError:
                pass
    is_global = (isinstance(body, dict) and body.get("global") is True) \
        or headers.get("x-ratelimit-global", "").lower() == "true" \
        or headers.get("x-ratelimit-scope") == "global"
    return (1.0 if wait is None else max(wait, 0.0)), is_global
