"""Run the emulator as a real HTTP server (uvicorn), in the foreground or a thread.

:func:`serve` is what ``cmdsync emulator`` runs: it prints the banner (where
it listens and every credential of the seed) once the socket is bound, then
serves until Ctrl-C. :class:`BackgroundServer` runs the same server in a
thread on an already-bound socket, for tests: ``with BackgroundServer(app)
as base_url: ...`` (``base_url`` like ``http://127.0.0.1:54321``).

Both bound what a client can hold (:func:`uvicorn_config`): a connection
that has not sent a whole request line and headers within
:data:`HEADER_TIMEOUT` seconds of connecting, or of the first byte of its
next request, is closed (uvicorn's own keep-alive timeout ends only idle
connections, not a request that never finishes); and a websocket message,
the gateway's included, is read up to Discord's 4,096-byte gateway payload
limit and refused past it with close code 1009, a permessage-deflate
message while it is inflated, so that memory stays flat.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import os
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from cmdsync.emulator.app import create_app
from cmdsync.emulator.gateway.protocol import MAX_PAYLOAD_BYTES
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.interactions.signing import verify_key
from cmdsync.emulator.reference.faults import quiet_uvicorn_drops
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.emulator.seed import load_seed
from cmdsync.emulator.store.database import Store, opening
from cmdsync.errors import UsageError

HEADER_TIMEOUT = 10.0  # seconds a connection has to send a request line and its headers


class BoundedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11) that closes a connection whose request line and
    headers are not all in ``header_timeout`` seconds after it connected, or after the
    first byte of its next request (a slow-loris client); the body and the answer are
    not bounded. :func:`uvicorn_config` makes one with the timeout it is given."""

    header_timeout: float = HEADER_TIMEOUT
    _headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            self._disarm()  # the headers are in (or the connection is over)
        elif self._headers_due is None:  # a next request has begun
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._headers_due = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None

    def _too_slow(self) -> None:
        self._headers_due = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def uvicorn_config(app: ASGIApp, *, header_timeout: float = HEADER_TIMEOUT,
                   **options: Any) -> uvicorn.Config:
    """The uvicorn configuration the emulator is served with: HTTP/1.1 whose requests
    must have their headers in ``header_timeout`` seconds (:class:`BoundedH11Protocol`),
    and websocket messages of at most
    :data:`~cmdsync.emulator.gateway.protocol.MAX_PAYLOAD_BYTES` (Discord's "Gateway"
    documentation: a larger payload is refused), refused while being read or inflated.
    ``options`` go to :class:`uvicorn.Config` as they are."""
    protocol = type("BoundedH11Protocol", (BoundedH11Protocol,),
                    {"header_timeout": header_timeout})
    return uvicorn.Config(app, log_level="warning", lifespan="off", http=protocol,
                          ws_max_size=MAX_PAYLOAD_BYTES, **options)


def build(*, state: str | None, seed: str | None, global_limit: int,
          local: bool = False) -> Emulator:
    """An emulator on its state file (or memory), with its seed file and global limit.

    ``local``: the state ``plan --local`` and ``apply --local`` use in the working
    directory (``.cmdsync/local.sqlite``, with their seed unless ``seed`` is given:
    the guilds they added for the manifests' are the seed's too, so that their user
    manages them here as there). Without ``seed`` nor ``local``, the default seed
    (:mod:`cmdsync.emulator.seed`). Raises :class:`~cmdsync.errors.UsageError` for an
    unreadable or bad seed file.
    """
    try:
        ratelimit = RateLimitConfig(global_limit=global_limit)
    except ValueError as exc:
        raise UsageError(f"--global-limit: {exc}") from exc
    data = load_seed(seed) if seed else None
    if local:
        from cmdsync.manifest.files import work_directory
        from cmdsync.runners.session import LOCAL_STATE, local_seed

        work_directory(os.getcwd())
        state, data = LOCAL_STATE, data or local_seed(_guilds_in(LOCAL_STATE))
    return new_emulator(state=state or ":memory:", seed=data, ratelimit=ratelimit)


def _guilds_in(state: str) -> list[str]:
    """The ids of the guilds the state file ``state`` holds (none when it is new)."""
    if not os.path.isfile(state):
        return []
    with opening(state):
        store = Store(state)
        try:
            return store.guild_ids()
        finally:
            store.close()


def banner(emulator: Emulator, base_url: str) -> str:
    """What the emulator prints on start: where it listens and the credentials."""
    lines = [f"cmdsync emulator: Discord API v10 at {base_url}/api/v10"]
    for app in emulator.seed.get("applications") or []:
        lines.append(f"  application {app['id']}: bot token {app['bot_token']}, "
                     f"client credentials {app['id']} / {app['client_secret']}")
        stored = emulator.store.application(str(app["id"]))
        if stored is not None:
            lines.append(f"    public key (verify_key) {verify_key(stored)}")
        if stored is not None and stored.redirect_uris:
            lines.append(f"    OAuth2: {base_url}/oauth2/authorize, redirect URIs "
                         f"{' '.join(stored.redirect_uris)}")
    for guild in emulator.seed.get("guilds") or []:
        counts = [f"{len(guild[key])} {key if len(guild[key]) != 1 else key[:-1]}"
                  for key in ("members", "channels") if guild.get(key)]
        lines.append(f"  guild {guild['id']}" + (f" ({', '.join(counts)})" if counts else ""))
    for user in emulator.seed.get("users") or []:
        if not user.get("bearer_token"):
            continue
        lines.append(f"  user {user['id']}: bearer token {user['bearer_token']} "
                     f"(scopes: {' '.join(user.get('scopes') or []) or 'none'}; "
                     f"manages guilds: {' '.join(map(str, user.get('guilds') or [])) or 'none'})")
    lines.append(f"  gateway: {base_url.replace('http', 'ws', 1)}/gateway (bots without an "
                 "interactions endpoint URL get interactions here)")
    lines.append(f"  console: {base_url}/ (commands, permissions, run, log, messages)")
    lines.append(f"  admin API: {base_url}/_emulator/ (reset, seed, log, state, config, "
                 "interactions)")
    return "\n".join(lines) + "\n"


class _AnnouncingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_start: Callable[[str], None]) -> None:
        super().__init__(config)
        self._on_start = on_start

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            self._on_start(f"http://{_url_host(host)}:{port}")


def serve(emulator: Emulator, *, host: str, port: int,
          on_start: Callable[[str], None]) -> None:
    """Serve until interrupted; ``on_start(base_url)`` runs once listening (port 0 works).

    The admin API answers requests for loopback host names and ``host`` only
    (see :func:`~cmdsync.emulator.app.create_app`). Raises
    :class:`~cmdsync.errors.UsageError` when the address cannot be bound (the
    port is taken, say).
    """
    quiet_uvicorn_drops()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        # An address that names no interface of this machine (EADDRNOTAVAIL) or no host at
        # all (socket.gaierror) is the --host's fault; a port in use or refused, the --port's.
        fix = "choose another --host (127.0.0.1 listens on this machine only)" \
            if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL \
            else "choose another --port (0 picks a free one)"
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}: "
                         f"{fix}") from exc
    config = uvicorn_config(create_app(emulator, hosts=(host,)))
    settle_collector()
    _AnnouncingServer(config, on_start).run(sockets=[listener])


# While serving, the collector waits for this many allocations (gen0), as mypy does for
# its runs: a bulk overwrite allocates tens of thousands of short-lived objects, and with
# the default 700 the collector would walk them (and every older one) many times each.
SERVING_THRESHOLD = (50_000, 20, 20)


def settle_collector() -> None:
    """Before serving: set what the process made so far aside for good (:func:`gc.freeze`:
    the modules, the app, the seeded state) and raise the collector's thresholds to
    :data:`SERVING_THRESHOLD`. Only ``cmdsync emulator``'s own process does this; an
    emulator served in a test's process keeps that process's settings."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_THRESHOLD)


class BackgroundServer:
    """uvicorn serving ``app`` on 127.0.0.1 and a free port, in a daemon thread, as
    :func:`uvicorn_config` configures it (``header_timeout`` in seconds)."""

    def __init__(self, app: ASGIApp, *, host: str = "127.0.0.1",
                 header_timeout: float = HEADER_TIMEOUT) -> None:
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that
        # say so, and without it every response waits ~40 ms for a delayed ACK.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.bind((host, 0))
        self.base_url = f"http://{host}:{self._socket.getsockname()[1]}"
        config = uvicorn_config(app, header_timeout=header_timeout)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._socket]}, daemon=True)

    def __enter__(self) -> str:
        quiet_uvicorn_drops()
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the emulator did not start")
            time.sleep(0.01)
        return self.base_url

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
