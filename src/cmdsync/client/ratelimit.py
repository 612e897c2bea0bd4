"""Client-side rate limiting from Discord's headers (FACTS.md "Rate limits").

Three waits, in this order, before each request:

1. a global pause after a 429 with ``global: true`` (or
   ``X-RateLimit-Global`` / ``X-RateLimit-Scope: global``);
2. a sliding window of at most ``global_limit`` requests per
   ``global_window`` seconds, so a plan over hundreds of guilds stays under
   Discord's 50 requests per second without ever meeting a 429;
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


class RateLimiter:
    """Waits before requests so that Discord never has to answer 429.

    ``global_limit`` requests per ``global_window`` seconds (0 disables the
    proactive window; 429s are still honoured).
    """

    def __init__(self, *, global_limit: int = 45, global_window: float = 1.0,
                 clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self.global_limit = global_limit
        self.global_window = global_window
        self.clock = clock
        self.sleep = sleep
        self._sent: collections.deque[float] = collections.deque()
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
        async with self._global_lock:
            await self._wait(self._global_until - self.clock())
            if self.global_limit:
                while True:
                    now = self.clock()
                    while self._sent and self._sent[0] <= now - self.global_window:
                        self._sent.popleft()
                    if len(self._sent) < self.global_limit:
                        self._sent.append(now)
                        break
                    await self._wait(self._sent[0] + self.global_window - now)
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

    def _bucket(self, route: str, major: str) -> _Bucket | None:
        name = self._routes.get(route)
        return None if name is None else self._buckets.get((name, major))

    def update(self, route: str, major: str, headers: Mapping[str, str]) -> None:
        """Record a response's ``X-RateLimit-*`` headers for the route's bucket."""
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
        """A 429: pause everything (global) or the route's bucket for ``retry_after`` seconds."""
        until = self.clock() + retry_after
        if is_global:
            self._global_until = max(self._global_until, until)
            return
        name = self._routes.setdefault(route, f"route:{route}")
        bucket = self._buckets.setdefault((name, major), _Bucket())
        bucket.remaining = 0
        bucket.reset_at = max(bucket.reset_at, until)
