"""A served emulator with a hand-moved clock, and a raw gateway client for protocol tests.

``served`` is ``(emulator, base_url, clock)``; ``raw`` connects a
:class:`RawClient` (the ``websockets`` library) to its gateway.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cmdsync.emulator import Emulator, Limits
from cmdsync.emulator.gateway import GatewayConfig
from cmdsync.emulator.seed import BOT_TOKEN
from tests.support.emulator import FakeClock, emulator, http_server

WAIT = 10  # seconds a test waits for a frame at most (a bound, never a pause)


class RawClient:
    """One websocket to the gateway, reading JSON payloads (zlib-stream when asked)."""

    def __init__(self, socket: ClientConnection, *, zlib_stream: bool) -> None:
        self.socket = socket
        self._inflate = zlib.decompressobj() if zlib_stream else None

    async def recv(self) -> dict[str, Any]:
        import asyncio

        frame = await asyncio.wait_for(self.socket.recv(), WAIT)
        if self._inflate is not None:
            assert isinstance(frame, bytes) and frame.endswith(b"\x00\x00\xff\xff")
            frame = self._inflate.decompress(frame).decode()
        payload: dict[str, Any] = json.loads(frame)
        return payload

    async def send(self, payload: Any) -> None:
        await self.socket.send(payload if isinstance(payload, (str, bytes))
                               else json.dumps(payload))

    async def closed(self) -> tuple[int, str]:
        """Read until the server closes; its code and reason."""
        import asyncio

        try:
            while True:
                await asyncio.wait_for(self.socket.recv(), WAIT)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None, "closed without a close frame"
            return exc.rcvd.code, exc.rcvd.reason

    async def identify(self, *, intents: int = 513, token: str = BOT_TOKEN,
                       **extra: Any) -> dict[str, Any]:
        """HELLO read, IDENTIFY sent; READY returned."""
        hello = await self.recv()
        assert hello["op"] == 10
        await self.send({"op": 2, "d": {"token": token, "intents": intents, "properties": {
            "os": "linux", "browser": "test", "device": "test"}, **extra}})
        ready = await self.recv()
        assert ready["t"] == "READY", ready
        return ready


@pytest.fixture
def gateway_config() -> GatewayConfig:
    return GatewayConfig()


@pytest.fixture
def seed() -> dict[str, Any] | None:
    return None


@pytest.fixture
def limits() -> Limits:
    """A generous interaction deadline: a busy machine never fails a bot that answers."""
    return Limits(interaction_deadline=30)


@pytest.fixture
def served(gateway_config: GatewayConfig, seed: dict[str, Any] | None, limits: Limits
           ) -> Iterator[tuple[Emulator, str, FakeClock]]:
    clock = FakeClock()
    instance = emulator(clock=clock, seed=seed, limits=limits)
    instance.gateway.config = gateway_config
    with http_server(instance) as url:
        yield instance, url, clock


@pytest.fixture
async def raw(served: tuple[Emulator, str, FakeClock]) -> AsyncIterator[Any]:
    """``await raw(query="v=10&encoding=json")``: a connected :class:`RawClient`."""
    sockets: list[ClientConnection] = []

    async def open_client(query: str = "v=10&encoding=json", path: str = "/gateway"
                          ) -> RawClient:
        socket = await connect(served[1].replace("http", "ws") + f"{path}?{query}",
                               open_timeout=WAIT, max_size=None)
        sockets.append(socket)
        return RawClient(socket, zlib_stream="compress=zlib-stream" in query)

    yield open_client
    for socket in sockets:
        await socket.close()
