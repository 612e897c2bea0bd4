"""Fault injection for tests: added latency, 500/502 answers and dropped connections.

Off by default. Faults apply to Discord's endpoints only, never to the admin
API, and are drawn from a seeded random generator so a failing test replays.
A dropped connection promises a body, sends part of it and raises
:class:`DroppedConnection`, so the server (uvicorn) closes the socket and the
client sees an incomplete response; :class:`QuietDrops` keeps that out of
uvicorn's error log.
"""

from __future__ import annotations

import logging
import random
import threading
from dataclasses import dataclass

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

_REASONS = {500: "500: Internal Server Error", 502: "502: Bad Gateway",
            503: "503: Service Unavailable", 504: "504: Gateway Timeout"}


@dataclass(frozen=True)
class FaultConfig:
    """What to inject. Rates are fractions of requests, from 0 to 1.

    ``latency`` (seconds) is added to every request; ``error_rate`` of the
    requests answer one of ``error_statuses``; ``drop_rate`` of them have
    their connection cut mid-response; ``seed`` seeds the random draws.
    """

    latency: float = 0.0
    error_rate: float = 0.0
    error_statuses: tuple[int, ...] = (500, 502)
    drop_rate: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.latency < 0 or not 0 <= self.error_rate <= 1 or not 0 <= self.drop_rate <= 1:
            raise ValueError("latency must be >= 0 and rates between 0 and 1")
        if not self.error_statuses or any(s not in _REASONS for s in self.error_statuses):
            raise ValueError(f"error_statuses must be some of {sorted(_REASONS)}")


class DroppedConnection(Exception):
    """Raised after a partial body: the server then cuts the connection."""


class InjectedFault(Exception):
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


class Faults:
    """Decides, per request, whether to inject a fault; counts what it injected."""

    def __init__(self, config: FaultConfig | None = None) -> None:
        self._lock = threading.Lock()
        self.injected = 0
        self.configure(config or FaultConfig())

    def configure(self, config: FaultConfig) -> None:
        with self._lock:
            self.config = config
            self._random = random.Random(config.seed)

    def draw(self) -> InjectedFault | None:
        """The fault for this request, if any (the latency is the caller's to sleep)."""
        with self._lock:
            config = self.config
            if not (config.drop_rate or config.error_rate):
                return None
            roll = self._random.random()
            status = self._random.choice(config.error_statuses)
            if roll < config.drop_rate:
                self.injected += 1
                return InjectedFault(None)
            if roll < config.drop_rate + config.error_rate:
                self.injected += 1
                return InjectedFault(status)
        return None


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
