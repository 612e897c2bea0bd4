"""The loopback redirect of a native app's OAuth2 login (RFC 8252, section 7.3).

A one-shot HTTP server on ``127.0.0.1`` at a fixed port (Discord matches
redirect URIs exactly, so the port cannot be picked at random): it answers
requests until one comes to ``/callback``, whose query it returns, or until
``timeout`` seconds have passed. Bounded in what it reads: a request line
of at most 8 KiB, at most 50 headers, never a body, and each connection
given 5 seconds. Ctrl-C (KeyboardInterrupt) stops it; the socket is closed
on every way out.
"""

from __future__ import annotations

import html
import http.server
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from cmdsync.errors import CmdsyncError, UsageError

if TYPE_CHECKING:
    from typing_extensions import Self

CALLBACK_PATH = "/callback"
DEFAULT_PORT = 53682
_MAX_LINE = 8192
_MAX_HEADERS = 50
_PAGE = ("<!doctype html><html><head><meta charset='utf-8'><title>cmdsync login</title>"
         "</head><body><h1>{title}</h1><p>{text}</p></body></html>")


def redirect_uri(port: int) -> str:
    """The redirect URI to register in the Developer Portal for ``port``."""
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


class _Handler(http.server.BaseHTTPRequestHandler):
    timeout = 5.0  # seconds a connection may take to send its request
    server: _Server

    def handle_one_request(self) -> None:
        line = self.rfile.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            self.send_error(414)
            return
        self.raw_requestline = line
        if not line or not self.parse_request():
            return
        if len(self.headers) > _MAX_HEADERS:
            self.send_error(431)
            return
        if self.command != "GET":
            self.send_error(405)
            return
        self.do_GET()
        self.wfile.flush()
        self.close_connection = True  # one request a connection: nothing waits on keep-alive

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path != CALLBACK_PATH or self.server.query is not None:
            self.send_error(404)
            return
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        self.server.query = query
        title, text = self.server.page(query)
        body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Nothing logged: the query holds the authorization code."""


class _Server(http.server.HTTPServer):
    query: dict[str, str] | None = None
    page: Callable[[dict[str, str]], tuple[str, str]]


class Listener:
    """The loopback server, bound at construction (so a busy port fails before the
    browser opens); use as a context manager, then :meth:`wait`.

    ``page`` turns the callback's query into the browser page's title and
    text. Raises :class:`~cmdsync.errors.UsageError` when the port cannot
    be bound.
    """

    def __init__(self, port: int, page: Callable[[dict[str, str]], tuple[str, str]]) -> None:
        try:
            self._server = _Server(("127.0.0.1", port), _Handler)
        except OSError as exc:
            raise UsageError(f"cannot listen on 127.0.0.1:{port} for the login's redirect: "
                             f"{exc.strerror or exc}: pass --port with another port "
                             f"registered as a redirect URI") from None
        self._server.page = page
        self._server.timeout = 0.25  # seconds per wait, so Ctrl-C is seen promptly
        self.uri = redirect_uri(port)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._server.server_close()

    def wait(self, timeout: float, *, clock: Callable[[], float] = time.monotonic
             ) -> dict[str, str]:
        """The callback's query parameters; raises :class:`~cmdsync.errors.CmdsyncError`
        when none came within ``timeout`` seconds (the redirect URI may be unknown to
        Discord, which then shows its own error page and never redirects)."""
        deadline = clock() + timeout
        while self._server.query is None:
            if clock() >= deadline:
                raise CmdsyncError(
                    f"no answer came to {self.uri} within {timeout:g} s: if the browser "
                    f"shows \"Invalid OAuth2 redirect_uri\", add exactly {self.uri} to the "
                    "application's OAuth2 Redirects in the Developer Portal (or pass --port "
                    "with the port of one registered); then run `cmdsync login` again")
            self._server.handle_request()
        return self._server.query
