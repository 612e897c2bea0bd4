"""Fault injection for tests: latency, 500/502 answers and dropped connections.

Off by default. Faults apply to Discord's endpoints only, never to the admin
API, and are drawn from a seeded random generator so a failing test can be
replayed.
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass, field

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send


@dataclass
class FaultConfig:
    """What to inject. Rates are fractions of requests (0 to 1).

    ``latency`` is added to every request, in seconds; ``error_rate`` of
    requests answer one of ``error_statuses``; ``drop_rate`` of requests
    have their connection cut mid-response.
    """

    latency: float = 0.0
    error_rate: float = 0.0
    error_statuses: list[int] = field(default_factory=lambda: [500, 502])
    drop_rate: float = 0.0
    seed: int = 0


class InjectedFault(Exception):
    """Raised inside a request to answer with a fault instead."""

    def __init__(self, status: int, *, drop: bool = False) -> None:
        super().__init__(f"injected {'drop' if drop else status}")
        self.status = status
        self.drop = drop

    def response(self) -> Response:
        if self.drop:
            return _DroppedResponse()
        return JSONResponse({"message": f"{self.status}: injected fault", "code": 0},
                            status_code=self.status)


class _DroppedResponse(Response):
    """Promises a body, sends half of it and stops: the client sees a cut connection."""

    def __init__(self) -> None:
        super().__init__(status_code=200)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", b"64")]})
        await send({"type": "http.response.body", "body": b'{"partial":', "more_body": False})


class Faults:
    """Decides, per request, whether to inject a fault."""

    def __init__(self, config: FaultConfig | None = None) -> None:
        self._lock = threading.Lock()
        self.configure(config or FaultConfig())
        self.injected = 0

    def configure(self, config: FaultConfig) -> None:
        with self._lock:
            self.config = config
            self._random = random.Random(config.seed)

    async def before(self) -> None:
        """Sleep for the latency, then maybe raise :class:`InjectedFault`."""
        config = self.config
        if config.latency:
            await asyncio.sleep(config.latency)
        with self._lock:
            roll = self._random.random()
            pick = self._random.choice(config.error_statuses) if config.error_statuses else 500
        if roll < config.drop_rate:
            self.injected += 1
            raise InjectedFault(200, drop=True)
        if roll < config.drop_rate + config.error_rate:
            self.injected += 1
            raise InjectedFault(pick)
