"""The gateway's websocket (a starlette ``WebSocketRoute``): frames in, payloads out.

The query is the one Discord documents ("Gateway > Connecting"): ``v``
(9 or 10, else close 4012), ``encoding`` (``json``; ``etf`` is not emulated
and closes with a reason saying so) and ``compress`` (``zlib-stream``: one
zlib context for the connection's life, each message ending with a
``Z_SYNC_FLUSH``, sent as binary frames; ``zstd-stream`` is not emulated).
Without transport compression, IDENTIFY's ``compress: true`` sends each
payload as a binary frame of its own zlib stream.

Three tasks per connection: the reader hands frames to the protocol
(:class:`~cmdsync.emulator.gateway.connection.Connection`), the ticker
checks the heartbeat deadline against the emulator's clock every
``GatewayConfig.tick`` seconds, and the writer sends what the protocol and
dispatches queued, then the close. Nothing a client sends makes it raise:
an unexpected error closes that connection with 4000.

Who may connect: bot libraries send no ``Origin``; a browser always sends
one on a websocket handshake, and nothing else checks it for websockets. So
an upgrade is refused (HTTP 403, before any HELLO) when its ``Host`` is not
a loopback name or the address the emulator was started on (a DNS-rebinding
page names its own host), or when it carries an ``Origin`` that is not the
emulator's own (a page on another site): such a page could otherwise log in
with the seed's public bot token, read the guilds and their members, take
the bot's INTERACTION_CREATEs and spend the day's IDENTIFYs. The console and
the admin API make the same checks (:func:`cmdsync.emulator.admin._guarded`).

A client message is read up to Discord's payload limit and no further
(:data:`~cmdsync.emulator.gateway.protocol.MAX_PAYLOAD_BYTES`, the server's
websocket ``max_size``: :func:`cmdsync.emulator.server.uvicorn_config`), a
permessage-deflate message included: one that inflates past it is refused
while it is inflated, with close code 1009 (message too big).
"""

from __future__ import annotations

import asyncio
import json
import logging
import zlib
from typing import Any

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from cmdsync.emulator.gateway.connection import Connection
from cmdsync.emulator.gateway.hub import Gateway, Outlet
from cmdsync.emulator.gateway.protocol import API_VERSIONS, Close, Closed, Op
from cmdsync.emulator.reference.access import foreign_host

PATH = "/gateway"
REFUSED = 1008  # policy violation: the upgrade is answered 403
_log = logging.getLogger(__name__)
_HTTP = {"ws": "http", "wss": "https"}


def routes() -> list[WebSocketRoute]:
    """The websocket at ``/gateway`` (and ``/gateway/``: clients add a slash)."""
    return [WebSocketRoute(PATH, _endpoint), WebSocketRoute(PATH + "/", _endpoint)]


def gateway_url(host: str, *, secure: bool = False) -> str:
    """The URL ``GET /gateway`` gives for a request to ``host`` (``host[:port]``)."""
    return f"{'wss' if secure else 'ws'}://{host}{PATH}"


def _query_problem(query: Any) -> Closed | None:
    version = query.get("v", "10")
    if version not in API_VERSIONS:
        return Closed(Close.INVALID_API_VERSION, f"Invalid API version: {version[:10]}; "
                      "connect with v=10")
    encoding = query.get("encoding", "json")
    if encoding == "etf":
        return Closed(Close.DECODE_ERROR, "encoding=etf (ETF) is not emulated: connect "
                      "with encoding=json")
    if encoding != "json":
        return Closed(Close.DECODE_ERROR, f"Unknown encoding {encoding[:20]!r}: connect "
                      "with encoding=json")
    compress = query.get("compress")
    if compress not in (None, "zlib-stream"):
        return Closed(Close.DECODE_ERROR, f"compress={compress[:20]} is not emulated: use "
                      "zlib-stream or none")
    return None


def refusal(websocket: WebSocket) -> str | None:
    """Why an upgrade is refused (a foreign ``Host`` or ``Origin``), or None."""
    host = foreign_host(websocket)
    if host is not None:
        return (f"host {host[:100] or '(none)'!r} is not this emulator's address: connect "
                "by localhost, 127.0.0.1 or [::1], or start the emulator with --host "
                "set to that name")
    origin = websocket.headers.get("origin")
    own = f"{_HTTP.get(websocket.url.scheme, 'http')}://{websocket.url.netloc}"
    if origin is not None and origin.lower() != own.lower():
        return (f"origin {origin[:100]!r} is a page this emulator did not serve: a bot "
                "connects without an Origin header")
    return None


async def _endpoint(websocket: WebSocket) -> None:
    gateway: Gateway = websocket.app.state.emulator.gateway
    refused = refusal(websocket)
    if refused is not None:
        _log.warning("gateway connection refused: %s", refused)
        await websocket.close(code=REFUSED)
        return
    await websocket.accept()
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def notify() -> None:
        loop.call_soon_threadsafe(wake.set)

    outlet = Outlet(notify, gateway.activity)
    gateway.opened(outlet)
    query = websocket.query_params
    secure = websocket.url.scheme == "wss"
    connection = Connection(gateway, outlet, url=gateway_url(websocket.url.netloc,
                                                             secure=secure),
                            version=int(query.get("v", "10")) if query.get("v") in
                            API_VERSIONS else 10)
    problem = _query_problem(query)
    if problem is not None:
        outlet.close(problem.code, problem.reason)
    else:
        connection.hello()
    compressor = zlib.compressobj() if query.get("compress") == "zlib-stream" else None
    gone: list[int] = []
    reader = asyncio.create_task(_read(websocket, connection, gone, wake))
    ticker = asyncio.create_task(_tick(connection, gateway.config.tick))
    code: int | None = None
    try:
        code = await _write(websocket, connection, compressor, wake, gone)
    finally:
        reader.cancel()
        ticker.cancel()
        gateway.left(outlet, code if code is not None else (gone[0] if gone else 1006))


async def _read(websocket: WebSocket, connection: Connection, gone: list[int],
                wake: asyncio.Event) -> None:
    try:
        while connection.outlet.closing is None:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                gone.append(int(message.get("code") or 1005))
                break
            raw = message.get("text")
            connection.receive(raw if raw is not None else message.get("bytes") or b"")
    except WebSocketDisconnect as exc:
        gone.append(exc.code)
    except Exception:  # noqa: BLE001 - a bug must not take the emulator down: close this one
        _log.exception("gateway connection failed")
        connection.outlet.close(Close.UNKNOWN_ERROR, "Unknown error")
    wake.set()


async def _tick(connection: Connection, every: float) -> None:
    while not connection.timed_out():
        await asyncio.sleep(every)


async def _write(websocket: WebSocket, connection: Connection,
                 compressor: Any, wake: asyncio.Event, gone: list[int]) -> int | None:
    """Send until the protocol closes (its code) or the client leaves (None)."""
    outlet, gateway = connection.outlet, connection.gateway
    while True:
        await wake.wait()
        wake.clear()
        if gone:
            return None
        try:
            items = outlet.take()
            for item in items:
                await _send(websocket, item, compressor, connection.compress_payloads)
            if any(item.get("op") == Op.DISPATCH for item in items):
                gateway.activity.touch()  # written: the bot reads it now, and may act on it
            if outlet.closing is not None:
                await websocket.close(outlet.closing.code, outlet.closing.reason)
                return outlet.closing.code
        except (WebSocketDisconnect, RuntimeError, OSError):  # the client is gone
            return None


async def _send(websocket: WebSocket, item: dict[str, Any], compressor: Any,
                per_payload: bool) -> None:
    text = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
    if compressor is not None:
        data = compressor.compress(text.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH)
        await websocket.send_bytes(data)
    elif per_payload:
        await websocket.send_bytes(zlib.compress(text.encode()))
    else:
        await websocket.send_text(text)
