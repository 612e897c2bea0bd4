"""One emulator: its state, seed, limits, rate limiter, faults, request log and clock.

:func:`new_emulator` is the way in, for the CLI, tests and in-process use::

    emulator = new_emulator()                      # in memory, default seed
    emulator = new_emulator(state=".cmdsync/local.sqlite", seed=load_seed("seed.yaml"))
    app = create_app(emulator)                     # cmdsync.emulator.app

``clock`` (epoch seconds) drives rate-limit windows, token expiry, the UTC
day of the daily create budget and snowflakes, so tests can move time.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cmdsync.emulator.gateway import members
from cmdsync.emulator.gateway.hub import Gateway
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.faults import FaultConfig, Faults
from cmdsync.emulator.reference.rate_limits import RateLimitConfig, RateLimiter
from cmdsync.emulator.seed import apply_seed, check_seed, default_seed
from cmdsync.emulator.store.database import Store, opening


@dataclass(frozen=True)
class LogEntry:
    """One API request: method, path, matched route template, status, time
    (epoch seconds), how many commands it created, and the rate-limit headers
    of its answer (``X-RateLimit-Limit``, ``-Remaining``, ``-Reset``,
    ``-Reset-After``, ``-Bucket``; on a 429 ``Retry-After``, ``X-RateLimit-Scope``
    and ``X-RateLimit-Global``: Discord's "Rate Limits" documentation).

    The :class:`RequestLog` keeps the path with the interaction token's segment as
    the route writes it (``/api/v10/webhooks/1.../{interaction_token}``): the token
    is a credential, and the admin API and the console show the log to anyone who
    can reach them."""

    method: str
    path: str
    route: str
    status: int
    time: float
    creates: int = 0
    kind: str = "read"  # "read", "write" or "token"
    ratelimit: dict[str, str] = field(default_factory=dict)


def ratelimit_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The rate-limit headers among ``headers`` (any case), as Discord spells them."""
    return {_RATELIMIT_NAMES[name.lower()]: value for name, value in headers.items()
            if name.lower() in _RATELIMIT_NAMES}


_RATELIMIT_NAMES = {name.lower(): name for name in (
    "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
    "X-RateLimit-Reset-After", "X-RateLimit-Bucket", "X-RateLimit-Scope",
    "X-RateLimit-Global", "Retry-After")}


TOKEN_SEGMENT = "{interaction_token}"


def without_token(path: str, route: str) -> str:
    """``path`` with the segment the ``route``'s (``"POST /webhooks/..."``)
    ``{interaction_token}`` matched written as that template segment. A route is
    matched at the end of the path (after the ``/api/v10`` its mount adds), one
    segment for each of the template's."""
    template = route.partition(" ")[2].strip("/").split("/")
    parts = path.strip("/").split("/")
    offset = len(parts) - len(template)
    if offset < 0 or TOKEN_SEGMENT not in template:
        return path
    parts[offset + template.index(TOKEN_SEGMENT)] = TOKEN_SEGMENT
    return "/" + "/".join(parts)


class RequestLog:
    """API requests since the last reset, with counts (thread-safe).

    Counts cover every request; only the last ``keep`` entries are kept, so a
    long-running emulator does not grow without bound.
    """

    def __init__(self, keep: int = 10_000) -> None:
        self._lock = threading.Lock()
        self._entries: deque[LogEntry] = deque(maxlen=keep)
        self._counts = Counter[str]()

    def record(self, entry: LogEntry) -> None:
        """Log ``entry``, its path without the interaction token (see :class:`LogEntry`)."""
        if TOKEN_SEGMENT in entry.route:
            entry = replace(entry, path=without_token(entry.path, entry.route))
        with self._lock:
            self._entries.append(entry)
            self._counts.update({"requests": 1, f"{entry.kind}s": 1, "creates": entry.creates,
                                 "rate_limited": entry.status == 429,
                                 "errors": entry.status >= 400})

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._counts.clear()

    def entries(self) -> list[LogEntry]:
        with self._lock:
            return list(self._entries)

    def counts(self) -> dict[str, int]:
        """``requests``, ``reads``, ``writes``, ``tokens`` (OAuth2), ``creates``
        (commands created), ``rate_limited`` (429s), ``errors`` (4xx and 5xx)."""
        with self._lock:
            return {key: int(self._counts[key]) for key in (
                "requests", "reads", "writes", "tokens", "creates", "rate_limited", "errors")}


class Emulator:
    """Everything one emulator instance holds; see the module docstring."""

    def __init__(self, store: Store, *, seed: dict[str, Any],
                 ratelimit: RateLimitConfig | None = None, faults: FaultConfig | None = None,
                 limits: Limits | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.seed = seed
        self.limiter = RateLimiter(ratelimit)
        self.faults = Faults(faults)
        self.limits = limits or Limits()
        self.clock = clock
        self.log = RequestLog()
        self.gateway = Gateway(store, clock=lambda: self.clock())

    def reset(self, seed: dict[str, Any] | None = None) -> None:
        """Forget every command, overwrite, token and count; apply ``seed``
        (or the current one) again. Raises UsageError for a bad seed."""
        if seed is not None:
            check_seed(seed)
            self.seed = seed
        self.store.reset()
        apply_seed(self.store, self.seed, now=self.clock())
        self.limiter.reset()
        self.log.clear()
        self.gateway.reset()

    def add_seed(self, seed: dict[str, Any]) -> None:
        """Add a seed's applications, guilds (with their fixtures) and users to the
        current state; applications already there keep their settings, guilds and
        fixtures already there the keys the seed leaves out (:mod:`cmdsync.emulator.seed`).
        Members added or changed reach connected bots as GUILD_MEMBER_ADD / UPDATE."""
        check_seed(seed, complete=False)
        before = members.snapshot(self.gateway, [str(g["id"]) for g in seed.get("guilds") or []])
        apply_seed(self.store, seed, now=self.clock(), keep_applications=True, partial=True)
        members.dispatch_changes(self.gateway, before)


def new_emulator(*, state: str = ":memory:", seed: dict[str, Any] | None = None,
                 ratelimit: RateLimitConfig | None = None, faults: FaultConfig | None = None,
                 limits: Limits | None = None,
                 clock: Callable[[], float] = time.time) -> Emulator:
    """An emulator on ``state`` (``":memory:"`` or an SQLite file) with ``seed``
    applied (the default seed when None). Applying a seed to a state file
    that has it already changes nothing; commands and application settings
    in the file are kept. A state file is opened and seeded under its lock
    (:func:`~cmdsync.emulator.store.database.opening`), so processes starting on
    one new file at once do not collide."""
    seed = seed if seed is not None else default_seed()
    check_seed(seed)
    with opening(state):  # another process may be making the same file
        emulator = Emulator(Store(state), seed=seed, ratelimit=ratelimit, faults=faults,
                            limits=limits, clock=clock)
        apply_seed(emulator.store, seed, now=clock(), keep_applications=True)
    return emulator
