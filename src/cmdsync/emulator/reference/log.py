"""The emulator's request log: every API request it answered, as the admin API and the
console show it (method, route, status, rate-limit headers), with interaction tokens
left out of paths (``{interaction_token}``); and :class:`Activity`, what the bots are
doing now, so that a test can wait until they are idle.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace


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
    kind: str = "read"  # "read", "write", "token", or "unserved" (a route not emulated)
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
        (commands created), ``rate_limited`` (429s), ``errors`` (4xx and 5xx; a route
        not emulated is an entry of kind ``unserved``)."""
        with self._lock:
            return {key: int(self._counts[key]) for key in (
                "requests", "reads", "writes", "tokens", "creates", "rate_limited", "errors")}


class Activity:
    """What the bots are doing now (thread-safe): API requests in flight, and when one
    last began or ended or a gateway dispatch last went out, in ``clock`` seconds
    (monotonic by default).

    A test waits for a bot to settle on :meth:`quiet_for`: no request in flight,
    and nothing begun or sent for that many seconds (the admin API's
    ``GET /_emulator/interactions/{id}?settle=``).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._in_flight = 0
        self._last = clock()

    def begin(self) -> None:
        """An API request came in; :meth:`end` when it is answered."""
        with self._lock:
            self._in_flight += 1
            self._last = self.clock()

    def end(self) -> None:
        with self._lock:
            self._in_flight = max(self._in_flight - 1, 0)
            self._last = self.clock()

    def touch(self) -> None:
        """Something happened that a bot may act on (a gateway dispatch sent)."""
        with self._lock:
            self._last = self.clock()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def quiet_for(self) -> float:
        """Seconds since the last activity; 0.0 while a request is in flight."""
        with self._lock:
            return 0.0 if self._in_flight else max(self.clock() - self._last, 0.0)
