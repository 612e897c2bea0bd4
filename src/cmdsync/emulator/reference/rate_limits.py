"""Discord-style rate limits: per-route buckets and a global limit per token.

Headers on every counted response (Discord's "Rate Limits" documentation):
``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch seconds, fractional),
``-Reset-After`` (seconds, fractional) and ``-Bucket`` (an opaque hash shared
by the routes of one bucket). A 429 adds ``Retry-After`` (whole seconds,
rounded up), ``X-RateLimit-Scope`` (``user`` for a bucket, ``global``) and,
when global, ``X-RateLimit-Global: true``; its body is built by
:func:`cmdsync.emulator.reference.error_replies.rate_limited`.

Windows are fixed: a bucket allows ``limit`` requests until its reset time.
Times are passed in (epoch seconds), so tests drive a fake clock.
"""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass, field
from typing import TypeVar

from cmdsync.emulator.reference.bounds import check_number

K = TypeVar("K")
_MAX_WINDOWS = 10_000
MAX_LIMIT = 1_000_000  # requests per window
MAX_WINDOW = 3600.0  # seconds


@dataclass(frozen=True)
class RateLimitConfig:
    """Limits in requests per window (seconds); a limit of 0 disables it.

    ``global_limit`` counts every request of one token (Discord: 50 per
    second per bot). ``route_limit`` counts per token, bucket and major
    parameter (the guild, else the application).
    """

    global_limit: int = 50
    global_window: float = 1.0
    route_limit: int = 10
    route_window: float = 1.0

    def __post_init__(self) -> None:
        """Raise ValueError naming the first field out of its range: limits 0 to
        1,000,000 requests, windows above 0 and at most 3600 seconds."""
        for name in ("global_limit", "route_limit"):
            check_number(name, getattr(self, name), 0, MAX_LIMIT, unit="requests",
                         integer=True)
        for name in ("global_window", "route_window"):
            check_number(name, getattr(self, name), 0, MAX_WINDOW, unit="seconds",
                         above_low=True)


@dataclass
class _Window:
    reset_at: float
    used: int = 0


@dataclass(frozen=True)
class Decision:
    """Whether a request may proceed, and the headers to send either way.

    When refused, ``retry_after`` is in seconds and ``is_global`` tells
    which limit refused it.
    """

    allowed: bool
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: float = 0.0
    is_global: bool = False


class RateLimiter:
    """Counts requests per token and per bucket; see the module docstring."""

    def __init__(self, config: RateLimitConfig | None = None) -> None:
        self.config = config or RateLimitConfig()
        self._lock = threading.Lock()
        self._global: dict[str, _Window] = {}
        self._routes: dict[tuple[str, str, str], _Window] = {}

    def configure(self, config: RateLimitConfig) -> None:
        """New limits; every window starts over."""
        with self._lock:
            self.config = config
            self._global.clear()
            self._routes.clear()

    def reset(self) -> None:
        self.configure(self.config)

    def hit(self, token: str, bucket: str, major: str, now: float) -> Decision:
        """Count one request of ``token`` in ``bucket`` (a route's bucket name)."""
        bucket_hash = hashlib.sha1(bucket.encode()).hexdigest()[:16]
        with self._lock:
            if len(self._routes) > _MAX_WINDOWS:  # forget windows that have reset
                self._routes = {k: w for k, w in self._routes.items() if w.reset_at > now}
            cfg = self.config
            route: _Window | None = None
            if cfg.route_limit:
                route = _window(self._routes, (token, bucket, major), now, cfg.route_window)
            headers = (_headers(cfg.route_limit, route, now, bucket_hash)
                       if route is not None else {})
            if cfg.global_limit:
                glob = _window(self._global, token, now, cfg.global_window)
                if glob.used >= cfg.global_limit:
                    return _refused(headers, glob.reset_at - now, is_global=True)
            if route is not None and route.used >= cfg.route_limit:
                return _refused(headers, route.reset_at - now, is_global=False)
            if cfg.global_limit:
                glob.used += 1
            if route is not None:
                route.used += 1
                headers = _headers(cfg.route_limit, route, now, bucket_hash)
            return Decision(True, headers)


def _window(table: dict[K, _Window], key: K, now: float, length: float) -> _Window:
    window = table.get(key)
    if window is None or now >= window.reset_at:
        window = _Window(reset_at=now + length)
        table[key] = window
    return window


def _refused(headers: dict[str, str], retry: float, *, is_global: bool) -> Decision:
    retry = max(retry, 0.001)
    headers = {**headers, "Retry-After": str(math.ceil(retry)),
               "X-RateLimit-Scope": "global" if is_global else "user"}
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return Decision(False, headers, round(retry, 3), is_global)


def _headers(limit: int, window: _Window, now: float, bucket_hash: str) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(max(limit - window.used, 0)),
        "X-RateLimit-Reset": f"{window.reset_at:.3f}",
        "X-RateLimit-Reset-After": f"{max(window.reset_at - now, 0):.3f}",
        "X-RateLimit-Bucket": bucket_hash,
    }
