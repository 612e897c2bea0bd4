"""``cmdsync login`` under attack: forged callbacks, slow clients, a hostile token endpoint.

Each test makes the attack for real against the real loopback listener
(raw sockets, real HTTP requests) while ``cmdsync login`` runs in-process,
its "browser" an HTTP client in a thread (as in tests/cli/test_login.py),
in front of :mod:`tests.support.oauth`'s stand-in for Discord.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from cmdsync.client.loopback import MAX_CONNECTIONS, Listener
from cmdsync.emulator.server import BackgroundServer
from tests.support.cli import login_user, run
from tests.support.emulator import APP, USER_ID, emulator
from tests.support.oauth import SECRET, Ledger, free_port, oauth_standin

TRICKLE_CAP = 40.0  # seconds a trickling client goes on at most (the old listener: forever)


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with the application's client id and secret; the store under tmp_path."""
    return login_user(tmp_path, monkeypatch, client_id=APP, client_secret=SECRET)


@pytest.fixture
def standin(port: int) -> Iterator[tuple[str, Ledger]]:
    with oauth_standin(emulator(), registered=(f"http://127.0.0.1:{port}/callback",)) as found:
        yield found


class Trickler:
    """A raw connection to the listener that sends a request line a byte every ``every``
    seconds and never finishes it, until the listener answers or closes the connection
    (at most :data:`TRICKLE_CAP` seconds)."""

    def __init__(self, port: int, every: float = 0.5) -> None:
        self.port = port
        self.every = every
        self.sending = threading.Event()
        self.closed_after: float | None = None  # seconds from connecting
        self.answer = b""
        self.thread = threading.Thread(target=self._trickle, daemon=True)

    def start(self) -> None:
        """Connect and send the first bytes; returns once they are sent."""
        self.thread.start()
        assert self.sending.wait(10), "the trickling client could not connect"

    def _trickle(self) -> None:
        begun = time.monotonic()  # before the listener can take the connection
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as connection:
            connection.sendall(b"GET /callback?state=")
            self.sending.set()
            while time.monotonic() - begun < TRICKLE_CAP:
                if select.select([connection], [], [], self.every)[0]:
                    self.answer = _until_closed(connection)
                    break
                try:
                    connection.sendall(b"a")
                except OSError:
                    break
            else:
                return
            self.closed_after = time.monotonic() - begun

    def join(self) -> None:
        self.thread.join(timeout=TRICKLE_CAP + 10)


def _until_closed(connection: socket.socket) -> bytes:
    found = b""
    try:
        while chunk := connection.recv(4096):
            found += chunk
    except ConnectionResetError:  # closed by the listener; a timeout is not a close
        pass
    return found


def nothing() -> None:
    pass


class Browser:
    """``webbrowser.open`` replaced: ``before()`` runs at once, before login starts
    serving; then a thread runs ``attack()`` (what an attacker's page would do) and
    follows the URL as a browser would (unless not ``follow``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, before: Callable[[], None] = nothing,
                 attack: Callable[[], None] = nothing, follow: bool = True) -> None:
        self.before, self.attack, self.follow = before, attack, follow
        self.threads: list[threading.Thread] = []
        self._pages: list[httpx.Response] = []
        monkeypatch.setattr("webbrowser.open", self.open)

    def open(self, url: str) -> bool:
        self.before()
        self.threads.append(threading.Thread(target=self._browse, args=(url,), daemon=True))
        self.threads[-1].start()
        return True

    def _browse(self, url: str) -> None:
        self.attack()
        if self.follow:
            self._pages.append(httpx.get(url, follow_redirects=True, timeout=10))

    def pages(self) -> list[httpx.Response]:
        """The pages the browser showed, once it is done."""
        for thread in self.threads:
            thread.join(timeout=30)
        return self._pages


# -- item 5: only the callback with the login's state counts ---------------------------

def test_a_callback_without_the_login_state_is_refused_and_the_login_goes_on(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    callback = f"http://127.0.0.1:{port}/callback"
    forged: list[httpx.Response] = []

    def attack() -> None:  # what any page's <img src=...> can do, before the browser
        for query in ("", "?code=stolen", "?code=stolen&state=forged",
                      "?error=access_denied&state=forged", "?code=x&state=%C3%A9"):
            forged.append(httpx.get(callback + query, timeout=10))

    browser = Browser(monkeypatch, attack=attack)
    code, out, err = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port",
                         str(port), "--timeout", "60")
    assert code == 0, err
    assert out.startswith(f"Logged in as emulator-user ({USER_ID}) for application {APP}")
    assert [(page.status_code, page.headers["content-type"]) for page in forged] == [
        (400, "text/html; charset=utf-8")] * 5
    assert "<h1>Login refused</h1><p>This answer is not for the login cmdsync started; " \
        "that login goes on waiting for its own.</p>" in forged[0].text
    assert ledger.grants == ["authorization_code"]  # the forged codes were never exchanged
    pages = browser.pages()
    assert [page.status_code for page in pages] == [200]
    assert "<h1>Logged in</h1>" in pages[0].text


# -- item 6: slow clients hold up neither the real callback nor the login's timeout ----

def test_a_client_trickling_bytes_does_not_hold_up_the_real_callback(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, _ = standin
    slow = Trickler(port)
    browser = Browser(monkeypatch, before=slow.start)  # connected before the browser
    code, out, err = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port",
                         str(port), "--timeout", "30")
    assert (code, [page.status_code for page in browser.pages()]) == (0, [200]), err
    assert out.startswith(f"Logged in as emulator-user ({USER_ID})")
    slow.join()
    assert slow.closed_after is not None  # closed on the way out, not left trickling


def test_a_trickling_client_does_not_stretch_the_login_past_its_timeout(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        port: int) -> None:
    slow = Trickler(port)
    Browser(monkeypatch, before=slow.start, follow=False)
    begun = time.monotonic()
    code, _, err = run(capsys, "login", "--api-url", "http://127.0.0.1:9/api/v10", "--port",
                       str(port), "--timeout", "2")
    took = time.monotonic() - begun
    assert (code, err.splitlines()[-1].split(":")[0]) == (1, "error"), err
    assert f"no answer came to http://127.0.0.1:{port}/callback within 2 s" in err
    assert 2 <= took < 12, took  # about its timeout (a machine however busy: < 12 s)
    slow.join()
    assert slow.closed_after is not None and slow.closed_after < 12


def test_a_connection_slower_than_its_deadline_gets_408_and_is_closed(port: int) -> None:
    slow = Trickler(port, every=0.2)
    found: list[int] = []

    def then_the_browser() -> None:
        slow.start()
        slow.join()  # the listener ends it, trickling or not
        found.append(httpx.get(f"http://127.0.0.1:{port}/callback?code=c&state=s",
                               timeout=10).status_code)

    with Listener(port, state="s", page=lambda query: ("Logged in", ""),
                  connection_timeout=1.0) as listener:
        thread = threading.Thread(target=then_the_browser, daemon=True)
        thread.start()
        assert listener.wait(TRICKLE_CAP + 10) == {"code": "c", "state": "s"}
    thread.join(timeout=10)
    assert slow.answer.startswith(b"HTTP/1.0 408 ")
    assert slow.closed_after is not None and 0.9 <= slow.closed_after < 10
    assert found == [200]


def test_a_flood_of_idle_connections_does_not_lock_out_the_browser(port: int) -> None:
    idle: list[socket.socket] = []
    found: list[int] = []

    def flood_then_the_browser() -> None:
        for _ in range(2 * MAX_CONNECTIONS):  # each new one past the cap ends the oldest
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        found.append(httpx.get(f"http://127.0.0.1:{port}/callback?code=c&state=s",
                               timeout=10).status_code)

    try:
        with Listener(port, state="s", page=lambda query: ("Logged in", "")) as listener:
            thread = threading.Thread(target=flood_then_the_browser, daemon=True)
            thread.start()
            assert listener.wait(30) == {"code": "c", "state": "s"}
        thread.join(timeout=10)
        assert found == [200]
        assert [_until_closed(connection) for connection in idle] == [b""] * len(idle)
    finally:
        for connection in idle:
            connection.close()


# -- item 12: the PKCE verifier is a secret like the others -----------------------------

def echoing_token_endpoint(verifiers: list[str]) -> Starlette:
    """An authorization server that approves at once, and a token endpoint that answers
    every request with an error repeating the form and the credentials it was sent."""

    async def authorize(request: Request) -> Response:
        query = request.query_params
        return RedirectResponse(f"{query['redirect_uri']}?code=hostile-code-1&state="
                                f"{query['state']}", status_code=302)

    async def token(request: Request) -> Response:
        body = (await request.body()).decode()
        verifiers.append(str((await request.form()).get("code_verifier")))
        credentials = request.headers.get("authorization", "").split(" ", 1)[-1]
        return JSONResponse({"error": "invalid_request",
                             "error_description": f"{body}; authorization={credentials}"},
                            status_code=400)

    return Starlette(routes=[Route("/oauth2/authorize", authorize),
                             Route("/api/v10/oauth2/token", token, methods=["POST"])])


def test_a_token_endpoint_echoing_the_request_never_shows_the_verifier(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        port: int) -> None:
    verifiers: list[str] = []
    callback = f"http://127.0.0.1:{port}/callback"
    with BackgroundServer(echoing_token_endpoint(verifiers)) as base:
        Browser(monkeypatch)
        code, out, err = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port",
                             str(port), "--timeout", "60")
    assert len(verifiers) == 1 and len(verifiers[0]) == 86
    assert verifiers[0] not in out + err
    assert (code, out, err.splitlines()[-1]) == (1, "", (
        "error: POST /oauth2/token: HTTP 400: invalid_request: grant_type=authorization_code"
        f"&code=[redacted]&redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback"
        f"&code_verifier=[redacted]; authorization=[redacted]: add exactly {callback} to the "
        "application's OAuth2 Redirects in the Developer Portal (Discord matches redirect "
        "URIs exactly), or pass --port with the port of one registered"))
