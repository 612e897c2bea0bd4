"""The loopback redirect of a native app's OAuth2 login (RFC 8252, section 7.3).

An HTTP server on ``127.0.0.1`` at a fixed port (Discord matches redirect
URIs exactly, so the port cannot be picked at random): it answers requests
until one comes to ``/callback`` with the login's ``state``, whose query it
returns, or until ``timeout`` seconds have passed.

Anyone on the machine, and any web page the browser shows (an ``<img>``
pointing at the port), can send requests to it, so:

- a ``/callback`` without the login's ``state`` gets a 400 page and changes
  nothing: the login goes on waiting for its own answer;
- each connection is served in a thread of its own, so a slow one never
  holds up the others (at most :data:`MAX_CONNECTIONS` at once: a new one
  closes the oldest);
- each connection has ``connection_timeout`` seconds (10) for its whole
  request, however slowly its bytes come, then gets a 408 and is closed;
- the login's ``timeout`` bounds the wait whatever the connections do; on
  the way out (an answer, the timeout, Ctrl-C) every connection still open
  is closed, and so is the socket.

Bounded in what it reads: a request line of at most 8 KiB, at most 50
headers, never a body.
"""

from __future__ import annotations

import html
import http.server
import io
import secrets
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from cmdsync.errors import CmdsyncError, UsageError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer
    from typing_extensions import Self

CALLBACK_PATH = "/callback"
DEFAULT_PORT = 53682
CONNECTION_TIMEOUT = 10.0  # seconds a connection has to send its whole request
MAX_CONNECTIONS = 32  # served at once; a new one closes the oldest
_WRITE_TIMEOUT = 5.0  # seconds to send a page (well under 1 KiB)
_POLL = 0.25  # seconds per wait for a connection, so Ctrl-C and the deadline are seen
_MAX_LINE = 8192
_MAX_HEADERS = 50
_PAGE = ("<!doctype html><html><head><meta charset='utf-8'><title>cmdsync login</title>"
         "</head><body><h1>{title}</h1><p>{text}</p></body></html>")
_FORGED = ("Login refused", ("This answer is not for the login cmdsync started; that "
                             "login goes on waiting for its own."))


def redirect_uri(port: int) -> str:
    """The redirect URI to register in the Developer Portal for ``port``."""
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


class _UntilDeadline(io.RawIOBase):
    """A socket's reading side that gives up at a deadline for the whole request: a
    per-read timeout alone lets a client that sends a byte every few seconds stay
    forever."""

    def __init__(self, connection: socket.socket, seconds: float) -> None:
        super().__init__()
        self._connection = connection
        self._deadline = time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request was not complete in time")
        self._connection.settimeout(left)
        return self._connection.recv_into(buffer)  # a timeout raises TimeoutError


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # replaced by one bounded in time for the whole request
        self.rfile = io.BufferedReader(_UntilDeadline(self.connection,
                                                      self.server.connection_timeout))

    def handle_one_request(self) -> None:
        self.close_connection = True  # one request a connection: nothing waits on keep-alive
        self.requestline, self.request_version, self.command = "", "", ""
        try:
            status = self._read_request()
        except TimeoutError:
            status = 408
        self.connection.settimeout(_WRITE_TIMEOUT)
        if status:
            self.send_error(status)
        elif self.command:
            self.do_GET()
        self.wfile.flush()

    def _read_request(self) -> int:
        """0 once a GET is read (or nothing came, or parse_request answered it), else
        the status to refuse it with."""
        line = self.rfile.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            return 414
        self.raw_requestline = line
        if not line or not self.parse_request():
            self.command = ""
            return 0
        if len(self.headers) > _MAX_HEADERS:
            return 431
        return 0 if self.command == "GET" else 405

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path != CALLBACK_PATH:
            self.send_error(404)
            return
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if not secrets.compare_digest(query.get("state", "").encode(),
                                      self.server.state.encode()):
            self._send_page(400, *_FORGED)
            return
        if not self.server.claim():
            self.send_error(404)  # the login already has its answer
            return
        try:
            self._send_page(200, *self.server.page(query))
        finally:  # the page is out (or the browser left): the login may go on
            self.server.answer = query

    def _send_page(self, status: int, title: str, text: str) -> None:
        body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Nothing logged: the query holds the authorization code."""


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """One thread a connection; the open connections kept, to be closed on the way out."""

    daemon_threads = False  # so server_close joins them (ThreadingMixIn skips daemons)
    request_queue_size = MAX_CONNECTIONS  # connections waiting to be accepted (5 in http.server)

    def __init__(self, port: int, *, state: str, page: Callable[[dict[str, str]],
                 tuple[str, str]], connection_timeout: float) -> None:
        self._lock = threading.Lock()  # set before binding: a failed bind calls server_close
        self._open: dict[socket.socket, None] = {}  # oldest first
        super().__init__(("127.0.0.1", port), _Handler)
        self.state = state
        self.page = page
        self.connection_timeout = connection_timeout
        self.timeout = _POLL
        self.answer: dict[str, str] | None = None
        self.failure: BaseException | None = None  # a bug in a connection's thread
        self._claimed = False

    def claim(self) -> bool:
        """Whether this callback is the login's answer (the first with its state)."""
        with self._lock:
            first, self._claimed = not self._claimed, True
        return first

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve ``request`` in a thread; when :data:`MAX_CONNECTIONS` are open, the
        oldest is closed first (a browser's request comes the moment it connects, so a
        flood of idle connections evicts its own, not the browser's)."""
        with self._lock:
            if len(self._open) >= MAX_CONNECTIONS:
                oldest = next(iter(self._open))
                del self._open[oldest]
                _wake(oldest)
            self._open[request] = None
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._lock:  # never shut down in server_close once closed (its fd reused)
            self._open.pop(request, None)
            super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's error ends that connection only; anything but a socket's
        error is a bug, which :meth:`Listener.wait` raises."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError) and self.failure is None:
            self.failure = error

    def server_close(self) -> None:
        with self._lock:
            for connection in self._open:
                _wake(connection)
        super().server_close()  # closes the socket, then joins the threads


def _wake(connection: socket.socket) -> None:
    """End a connection its thread is serving: its read returns, its thread closes it."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class Listener:
    """The loopback server, bound at construction (so a busy port fails before the
    browser opens); use as a context manager, then :meth:`wait`.

    Only a ``/callback`` whose ``state`` is ``state`` is the login's answer;
    ``page`` turns its query into the browser page's title and text.
    ``connection_timeout`` is in seconds, for each connection's whole request.
    Raises :class:`~cmdsync.errors.UsageError` when the port cannot be bound.
    """

    def __init__(self, port: int, *, state: str,
                 page: Callable[[dict[str, str]], tuple[str, str]],
                 connection_timeout: float = CONNECTION_TIMEOUT) -> None:
        try:
            self._server = _Server(port, state=state, page=page,
                                   connection_timeout=connection_timeout)
        except OSError as exc:
            raise UsageError(f"cannot listen on 127.0.0.1:{port} for the login's redirect: "
                             f"{exc.strerror or exc}: pass --port with another port "
                             f"registered as a redirect URI") from None
        self.uri = redirect_uri(port)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._server.server_close()

    def wait(self, timeout: float, *, clock: Callable[[], float] = time.monotonic
             ) -> dict[str, str]:
        """The query of the callback with the login's state, once its page is sent;
        raises :class:`~cmdsync.errors.CmdsyncError` when none came within ``timeout``
        seconds, however many connections came or how slowly (the redirect URI may be
        unknown to Discord, which then shows its own error page and never
        redirects)."""
        deadline = clock() + timeout
        while self._server.answer is None:
            if self._server.failure is not None:
                raise self._server.failure
            if clock() >= deadline:
                raise CmdsyncError(
                    f"no answer came to {self.uri} within {timeout:g} s: if the browser "
                    f"shows \"Invalid OAuth2 redirect_uri\", add exactly {self.uri} to the "
                    "application's OAuth2 Redirects in the Developer Portal (or pass --port "
                    "with the port of one registered); then run `cmdsync login` again")
            self._server.handle_request()  # accepts one connection, or waits _POLL
        return self._server.answer
