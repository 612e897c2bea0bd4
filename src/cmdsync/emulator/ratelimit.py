"""Discord-style rate limits: per-route buckets and a global limit per token.

Headers (FACTS.md "Rate limits"): ``X-RateLimit-Limit``, ``-Remaining``,
``-Reset`` (epoch seconds, fractional), ``-Reset-After`` (seconds,
fractional) and ``-Bucket`` (an opaque hash shared by the routes of one
bucket). A 429 adds ``Retry-After`` (whole seconds, rounded up),
``X-RateLimit-Scope`` (``user`` or ``global``), ``X-RateLimit-Global`` when
global, and the body ``{"message", "retry_after", "global"}``.

Windows are fixed: a bucket allows ``limit`` requests until its reset time.
All times come from an injectable clock (seconds) so tests need not sleep.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class RateLimitConfig:
    """Limits in requests per window; 0 disables that limit.

    ``global_limit`` is per token per ``global_window`` seconds (Discord: 50
    per second per bot). ``route_limit`` applies per bucket and major
    parameters (application and guild) per ``route_window`` seconds.
    """

    global_limit: int = 50
    global_window: float = 1.0
    route_limit: int = 50
    route_window: float = 1.0


@dataclass
class _Window:
    reset_at: float
    used: int = 0


@dataclass(frozen=True)
class Decision:
    """Whether a request may proceed, and the headers to send either way."""

    allowed: bool
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: float = 0.0
    is_global: bool = False


class RateLimiter:
    """Counts requests per token and per bucket; see the module docstring."""

    def __init__(self, config: RateLimitConfig | None = None, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config or RateLimitConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._global: dict[str, _Window] = {}
        self._routes: dict[tuple[str, str, str], _Window] = {}

    def reset(self) -> None:
        with self._lock:
            self._global.clear()
            self._routes.clear()

    def hit(self, token: str, route: str, major: str) -> Decision:
        """Count one request of ``token`` on ``route`` (e.g. ``PUT /applications/{}/commands``)."""
        now = self._clock()
        bucket = hashlib.sha1(route.encode()).hexdigest()[:16]
        with self._lock:
            cfg = self.config
            if cfg.global_limit:
                window = self._window(self._global, token, now, cfg.global_window)
                if window.used >= cfg.global_limit:
                    return self._limited(window, now, bucket, cfg.route_limit, is_global=True)
                window.used += 1
            if not cfg.route_limit:
                return Decision(True)
            window = self._window(self._routes, (token, bucket, major), now, cfg.route_window)
            if window.used >= cfg.route_limit:
                return self._limited(window, now, bucket, cfg.route_limit, is_global=False)
            window.used += 1
            return Decision(True, _headers(cfg.route_limit, cfg.route_limit - window.used,
                                           window.reset_at, now, bucket))

    @staticmethod
    def _window(table: dict, key: object, now: float, length: float) -> _Window:  # type: ignore[type-arg]
        window: _Window | None = table.get(key)
        if window is None or now >= window.reset_at:
            window = _Window(reset_at=now + length)
            table[key] = window
        return window

    @staticmethod
    def _limited(window: _Window, now: float, bucket: str, limit: int, *,
                 is_global: bool) -> Decision:
        retry = max(window.reset_at - now, 0.001)
        headers = _headers(limit, 0, window.reset_at, now, bucket)
        headers["Retry-After"] = str(math.ceil(retry))
        headers["X-RateLimit-Scope"] = "global" if is_global else "user"
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        return Decision(False, headers, round(retry, 3), is_global)


def _headers(limit: int, remaining: int, reset_at: float, now: float, bucket: str
             ) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(max(remaining, 0)),
        "X-RateLimit-Reset": f"{reset_at:.3f}",
        "X-RateLimit-Reset-After": f"{max(reset_at - now, 0):.3f}",
        "X-RateLimit-Bucket": bucket,
    }
