"""Fault injection for tests: latency, slow answers, 500/502, dropped connections, lost answers.

Off by default. Faults apply to Discord's endpoints only, never to the admin
API, and are drawn from a seeded random generator so a failing test replays
(given the same order of requests). A dropped connection promises a body,
sends part of it and raises :class:`DroppedConnection`, so the server
(uvicorn) closes the socket and the client sees an incomplete response;
:class:`QuietDrops` keeps that out of uvicorn's error log.

Most faults strike before the request is served, so nothing changes. A
*lost answer* strikes after: the request is served (a write is made) and
its answer is replaced by a 5xx or a dropped connection, as when a proxy
fails after the service committed. A client that sends such a request
again must not make its change twice.
"""

from __future__ import annotations

import logging
import random
import threading
from dataclasses import dataclass

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from cmdsync.emulator.reference.bounds import check_number
from cmdsync.errors import EmulatorError

_REASONS = {500: "500: Internal Server Error", 502: "502: Bad Gateway",
            503: "503: Service Unavailable", 504: "504: Gateway Timeout"}
# Each number's range: (lowest, highest, unit). A latency past a minute (10 minutes for
# the slow ones) holds requests longer than any client waits.
RANGES: dict[str, tuple[float, float, str]] = {
    "latency": (0, 60, "seconds"), "slow_latency": (0, 600, "seconds"),
    "error_rate": (0, 1, ""), "drop_rate": (0, 1, ""), "slow_rate": (0, 1, ""),
    "lost_rate": (0, 1, "")}


@dataclass(frozen=True)
class FaultConfig:
    """What to inject. Rates are fractions of requests, from 0 to 1.

    ``latency`` (seconds) is added to every request; ``error_rate`` of the
    requests answer one of ``error_statuses``; ``drop_rate`` of them have
    their connection cut mid-response; ``slow_rate`` of them wait
    ``slow_latency`` seconds more before being served (past a client's
    timeout, they are served after it gave up); ``lost_rate`` of them are
    served and then lose their answer (one of ``error_statuses`` or a
    dropped connection instead); ``seed`` seeds the random draws.
    """

    latency: float = 0.0
    error_rate: float = 0.0
    error_statuses: tuple[int, ...] = (500, 502)
    drop_rate: float = 0.0
    seed: int = 0
    slow_rate: float = 0.0
    slow_latency: float = 0.0
    lost_rate: float = 0.0

    def __post_init__(self) -> None:
        """Raise ValueError naming the first field out of its range (see :data:`RANGES`)."""
        for name, (low, high, unit) in RANGES.items():
            check_number(name, getattr(self, name), low, high, unit=unit)
        check_number("seed", self.seed, -(2**63), 2**63 - 1, integer=True)
        statuses = self.error_statuses
        if not isinstance(statuses, tuple) or not statuses or any(
                isinstance(s, bool) or not isinstance(s, int) or s not in _REASONS
                for s in statuses):
            raise ValueError(f"error_statuses must be a list of some of {sorted(_REASONS)}, "
                             f"not {list(statuses) if isinstance(statuses, tuple) else statuses!r}")


class DroppedConnection(EmulatorError):
    """Raised after a partial body: the server then cuts the connection."""


class InjectedFault(EmulatorError):
    """Raised inside a request to answer with a fault instead."""

    def __init__(self, status: int | None) -> None:
        super().__init__(f"injected {'drop' if status is None else status}")
        self.status = status

    def response(self) -> Response:
        if self.status is None:
            return _DroppedResponse()
        return JSONResponse({"message": _REASONS[self.status], "code": 0},
                            status_code=self.status)


class _DroppedResponse(Response):
    def __init__(self) -> None:
        super().__init__(status_code=200)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", b"64")]})
        await send({"type": "http.response.body", "body": b'{"id": "1', "more_body": True})
        raise DroppedConnection("injected dropped connection")


@dataclass(frozen=True)
class Draw:
    """One request's faults: ``delay`` seconds to wait, then ``before`` (answer it
    instead of serving) or, once served, ``after`` (a lost answer)."""

    delay: float = 0.0
    before: InjectedFault | None = None
    after: InjectedFault | None = None


FAULT_KINDS = ("error", "drop", "slow", "lost")


class Faults:
    """Decides, per request, which faults to inject; counts them by kind
    (:data:`FAULT_KINDS`) since the configuration was last set."""

    def __init__(self, config: FaultConfig | None = None) -> None:
        self._lock = threading.Lock()
        self.configure(config or FaultConfig())

    def configure(self, config: FaultConfig) -> None:
        with self._lock:
            self.config = config
            self._random = random.Random(config.seed)
            self._counts = dict.fromkeys(FAULT_KINDS, 0)

    @property
    def counts(self) -> dict[str, int]:
        """Faults injected so far, by kind."""
        with self._lock:
            return dict(self._counts)

    def draw(self) -> Draw:
        """This request's faults; see :class:`Draw`."""
        with self._lock:
            config = self.config
            delay = config.latency
            if config.slow_rate and self._random.random() < config.slow_rate:
                self._counts["slow"] += 1
                delay += config.slow_latency
            if config.drop_rate or config.error_rate:
                roll = self._random.random()
                status = self._random.choice(config.error_statuses)
                if roll < config.drop_rate:
                    self._counts["drop"] += 1
                    return Draw(delay, InjectedFault(None))
                if roll < config.drop_rate + config.error_rate:
                    self._counts["error"] += 1
                    return Draw(delay, InjectedFault(status))
            if config.lost_rate and self._random.random() < config.lost_rate:
                self._counts["lost"] += 1
                lost = self._random.choice((*config.error_statuses, None))
                return Draw(delay, after=InjectedFault(lost))
        return Draw(delay)


class QuietDrops(logging.Filter):
    """Keeps injected drops out of uvicorn's error log."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, DroppedConnection)


def quiet_uvicorn_drops() -> None:
    """Install :class:`QuietDrops` on uvicorn's error logger (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietDrops) for f in logger.filters):
        logger.addFilter(QuietDrops())
