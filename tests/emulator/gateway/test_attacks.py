"""The gateway and the emulator's HTTP server under attack (issue 32, items 1, 2, 8, 15):
a page on another site or a DNS-rebinding name opening the gateway, a compressed
message that inflates past Discord's payload limit, a request whose headers never
end, and a socket that heartbeats but never IDENTIFYs. Each attack is made for real,
with a raw socket or the ``websockets`` client against the served emulator."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cmdsync.emulator import Emulator
from cmdsync.emulator.app import create_app
from cmdsync.emulator.gateway import GatewayConfig
from cmdsync.emulator.server import BackgroundServer
from tests.support.emulator import FakeClock, emulator

Served = tuple[Emulator, str, FakeClock]
WAIT = 10  # seconds a test waits for the server at most (a bound, never a pause)


def _upgrade(base_url: str, *, host: str | None = None, origin: str | None = None,
             path: str = "/gateway?v=10&encoding=json") -> str:
    """The status line the server answers a websocket upgrade with, sent by hand so that
    ``Host`` and ``Origin`` are whatever an attacker's browser would send."""
    address = base_url.removeprefix("http://")
    name, port = address.rsplit(":", 1)
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or address}", "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
             "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection((name, int(port)), timeout=WAIT) as raw:
        raw.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = raw.recv(4096).decode("latin-1")
    return answer.split("\r\n", 1)[0]


# -- 1. Origin and Host ------------------------------------------------------------------

@pytest.mark.parametrize(("host", "origin"), [
    (None, "https://attacker.example"),  # a page on another site
    (None, "null"),  # a sandboxed frame or a file: page
    ("attacker.example", None),  # a DNS-rebinding name: the page's own host, no Origin
    ("attacker.example", "http://attacker.example"),  # ... and same-origin to itself
])
def test_an_upgrade_from_a_foreign_page_or_host_is_refused(
        served: Served, host: str | None, origin: str | None) -> None:
    assert _upgrade(served[1], host=host, origin=origin) == "HTTP/1.1 403 Forbidden"
    assert served[0].gateway.sessions() == []


def test_bots_without_origin_and_the_emulators_own_pages_may_connect(served: Served) -> None:
    own = served[1]
    assert _upgrade(own) == "HTTP/1.1 101 Switching Protocols"  # a bot library: no Origin
    assert _upgrade(own, origin=own) == "HTTP/1.1 101 Switching Protocols"
    localhost = "localhost:" + own.rsplit(":", 1)[1]
    assert _upgrade(own, host=localhost,
                    origin=f"http://{localhost}") == "HTTP/1.1 101 Switching Protocols"


def test_the_host_the_emulator_was_started_on_may_connect(served: Served) -> None:
    app = create_app(served[0], hosts=("bots.internal",))
    with BackgroundServer(app) as base:
        port = base.rsplit(":", 1)[1]
        assert _upgrade(base, host=f"bots.internal:{port}") == \
            "HTTP/1.1 101 Switching Protocols"
        assert _upgrade(base, host=f"other.internal:{port}") == "HTTP/1.1 403 Forbidden"


@pytest.mark.anyio
@pytest.mark.parametrize("gateway_config", [GatewayConfig(identify_limit=1)])
async def test_a_refused_page_cannot_spend_identifies(served: Served, raw: Any) -> None:
    """One IDENTIFY left for the day: three refused pages leave it to the real bot."""
    url = served[1].replace("http", "ws") + "/gateway?v=10&encoding=json"
    for _ in range(3):
        with pytest.raises(InvalidStatus) as refused:
            await connect(url, origin="https://attacker.example",  # type: ignore[arg-type]
                          open_timeout=WAIT)
        assert refused.value.response.status_code == 403
    client = await raw()  # the real bot, with the day's one IDENTIFY
    ready = await client.identify()
    assert ready["t"] == "READY"
    assert served[0].gateway.sessions()[0]["ready"] is True


# -- 2. A compressed message past 4096 bytes -----------------------------------------------

@pytest.mark.anyio
@pytest.mark.parametrize(("megabytes", "reason"), [
    (2, r"frame exceeds limit of 4096 bytes"),  # 2 KB on the wire: refused while inflated
    (16, r"frame with \d+ bytes exceeds limit of 4096 bytes"),  # refused as it arrives
])
async def test_a_deflated_message_is_refused_while_it_is_read(
        served: Served, raw: Any, megabytes: int, reason: str) -> None:
    """Megabytes of JSON that deflate to kilobytes are refused at 4096 bytes (1009), not
    inflated whole and refused by the gateway's decoder afterwards (4002)."""
    url = served[1].replace("http", "ws") + "/gateway?v=10&encoding=json"
    bomb = '{"op": 1, "d": null, "pad": "' + "x" * (megabytes * 1024 * 1024) + '"}'
    async with connect(url, compression="deflate", open_timeout=WAIT, max_size=None) as socket_:
        assert socket_.protocol.extensions, "the server took no permessage-deflate"
        await asyncio.wait_for(socket_.recv(), WAIT)  # HELLO
        await socket_.send(bomb)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(socket_.recv(), WAIT)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009
    assert re.fullmatch(reason, closed.value.rcvd.reason), closed.value.rcvd.reason
    client = await raw()  # the gateway still serves
    assert (await client.identify())["t"] == "READY"


def _peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/PID/status")


@pytest.fixture
def served_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``cmdsync emulator`` in its own process, as users run it; its base URL."""
    process = subprocess.Popen([sys.executable, "-m", "cmdsync", "emulator", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    timer = threading.Timer(60, process.kill)  # a banner that never comes ends the test
    timer.start()
    line = process.stdout.readline()
    timer.cancel()
    base = line.split(" at ", 1)[1].split("/api/", 1)[0]
    try:
        yield process, base
    finally:
        process.terminate()
        process.wait(WAIT)


@pytest.mark.slow
@pytest.mark.posix
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/status")
def test_the_emulators_memory_stays_flat_under_forty_deflate_bombs(
        served_process: tuple[subprocess.Popen[str], str]) -> None:
    """The issue's attack: 40 messages of 16 MB that deflate to about 16 KB each, and 40
    of 2 MB that deflate to 2 KB; the emulator's peak resident memory grows by less than
    64 MiB (it grew by 640 MB)."""
    process, base = served_process
    url = base.replace("http", "ws") + "/gateway?v=10&encoding=json"
    bombs = {megabytes: '{"op": 1, "d": null, "pad": "' + "x" * (megabytes << 20) + '"}'
             for megabytes in (2, 16)}

    async def one(megabytes: int) -> int:
        bomb = bombs[megabytes]
        async with connect(url, compression="deflate", open_timeout=WAIT * 6) as socket_:
            await asyncio.wait_for(socket_.recv(), WAIT * 6)
            await socket_.send(bomb)
            try:
                await asyncio.wait_for(socket_.recv(), WAIT * 6)
            except ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd is not None else 1006
        return 0

    async def attack() -> list[int]:
        return await asyncio.gather(*(one(megabytes) for megabytes in [16, 2] * 40))

    before = _peak_rss_kib(process.pid)
    codes = asyncio.run(attack())
    assert codes == [1009] * 80
    assert _peak_rss_kib(process.pid) - before < 64 * 1024


# -- 8. Requests whose headers never end -------------------------------------------------

@pytest.fixture
def quick() -> Iterator[str]:
    """The emulator served with a header timeout of half a second."""
    with BackgroundServer(create_app(emulator()), header_timeout=0.5) as base:
        yield base


def _open(base_url: str) -> socket.socket:
    name, port = base_url.removeprefix("http://").rsplit(":", 1)
    raw = socket.create_connection((name, int(port)), timeout=WAIT)
    return raw


def _closed_by_server(raw: socket.socket) -> bool:
    """Read until the server closes (True), or until WAIT seconds pass (False)."""
    try:
        while raw.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_request_whose_headers_never_end_is_closed(quick: str) -> None:
    with _open(quick) as raw:
        raw.sendall(b"GET /api/v10/gateway HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert _closed_by_server(raw)


def test_a_connection_that_sends_nothing_is_closed(quick: str) -> None:
    with _open(quick) as raw:
        assert _closed_by_server(raw)


def test_a_client_trickling_header_bytes_is_closed_all_the_same(quick: str) -> None:
    """A byte every 0.1 s never lets the headers end: the deadline is the whole
    header's, not each byte's."""
    with _open(quick) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < WAIT:
            try:
                raw.sendall(b"X")
            except OSError:  # reset or broken pipe: the server closed it
                closed = True
                break
            time.sleep(0.1)
        assert closed or _closed_by_server(raw)


def test_the_next_request_on_a_kept_alive_connection_is_bounded_too(quick: str) -> None:
    with _open(quick) as raw:
        raw.sendall(b"GET /api/v10/gateway HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while not answer.endswith(b"}"):
            answer += raw.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200 OK")
        assert b'"url":"ws://127.0.0.1' in answer
        raw.sendall(b"GET /api/v10/gateway HTTP/1.1\r\nHost: 127.")
        assert _closed_by_server(raw)


def test_whole_requests_and_gateway_sessions_outlive_the_header_timeout(quick: str) -> None:
    """The deadline ends incomplete requests only: a websocket stays open past it."""
    async def session() -> int:
        url = quick.replace("http", "ws") + "/gateway?v=10&encoding=json"
        async with connect(url, open_timeout=WAIT) as socket_:
            await asyncio.wait_for(socket_.recv(), WAIT)  # HELLO
            await asyncio.sleep(1.0)  # twice the header timeout
            await socket_.send('{"op": 1, "d": null}')
            return int(__import__("json").loads(await asyncio.wait_for(socket_.recv(),
                                                                       WAIT))["op"])

    assert asyncio.run(session()) == 11  # HEARTBEAT_ACK


# -- 15. A socket that never IDENTIFYs --------------------------------------------------

@pytest.mark.anyio
async def test_a_socket_that_heartbeats_but_never_identifies_is_closed(
        served: Served, raw: Any) -> None:
    clock = served[2]
    client = await raw()
    assert (await client.recv())["op"] == 10
    for _ in range(3):  # heartbeats keep it from 4009, not from 4003
        clock.advance(10)
        await client.send({"op": 1, "d": None})
        assert (await client.recv())["op"] == 11
    clock.advance(1)  # 31 seconds since HELLO
    assert await client.closed() == (4003, ("Not authenticated: no IDENTIFY or RESUME "
                                     "within 30 seconds"))


@pytest.mark.anyio
@pytest.mark.parametrize("gateway_config", [GatewayConfig(identify_timeout=5)])
async def test_an_identified_session_is_not_held_to_the_identify_timeout(
        served: Served, raw: Any) -> None:
    clock = served[2]
    client = await raw()
    await client.identify()
    await client.recv()  # GUILD_CREATE
    witness = await raw()  # never identifies: its close shows a tick looked at the clock
    assert (await witness.recv())["op"] == 10
    clock.advance(20)
    assert await witness.closed() == (4003, ("Not authenticated: no IDENTIFY or RESUME "
                                      "within 5 seconds"))
    await client.send({"op": 1, "d": None})
    assert (await client.recv())["op"] == 11
    assert served[0].gateway.sessions()[0]["connected"] is True
