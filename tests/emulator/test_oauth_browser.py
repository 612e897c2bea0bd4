"""The emulator's OAuth2 consent page in a real browser (issue 26, part 4).

Headless Chromium (Debian's ``chromium``; ``.ci/run`` installs it) driven
with Playwright picks a user by its label, clicks Authorize or Cancel, and
follows the redirect to a one-shot listener on 127.0.0.1, which gets the code
(exchanged here with its PKCE verifier) or ``access_denied``. Skipped, saying
why, where Playwright or a Chromium is missing.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.browser import launched
from tests.support.consent import pkce, query_of
from tests.support.emulator import APP, FakeClock, emulator, http_client, http_server

pytestmark = pytest.mark.slow
MEMBER = "333333333333333334"


class _Callback(http.server.BaseHTTPRequestHandler):
    """Records the query of ``/callback`` and answers a page, as ``cmdsync login`` does."""

    def do_GET(self) -> None:
        if self.path.startswith("/callback?"):
            self.server.queries.append(self.path)  # type: ignore[attr-defined]
        self.send_response(200 if self.path.startswith("/callback") else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"<!DOCTYPE html><title>Logged in</title><h1>You may close this tab</h1>")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[http.server.HTTPServer]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Callback)
    server.queries = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(10)


@pytest.fixture
def browser() -> Iterator[Any]:
    yield from launched()


@pytest.mark.parametrize("decision", ["Authorize", "Cancel"])
def test_a_user_picked_in_the_browser_authorizes_and_the_loopback_gets_the_code(
        browser: Any, listener: http.server.HTTPServer, decision: str) -> None:
    redirect = f"http://127.0.0.1:{listener.server_address[1]}/callback"
    instance = emulator(clock=FakeClock())
    seed = {**instance.seed, "applications": [
        {**instance.seed["applications"][0], "redirect_uris": [redirect]}]}
    verifier, challenge = pkce()
    with http_server(instance) as base_url, http_client(base_url) as site:
        site.post("/_emulator/reset", json=seed).raise_for_status()
        url = httpx.URL(f"{base_url}/oauth2/authorize", params={
            "response_type": "code", "client_id": APP, "redirect_uri": redirect,
            "scope": "identify guilds applications.commands.permissions.update",
            "state": "browser-state", "code_challenge": challenge,
            "code_challenge_method": "S256"})
        page = browser.new_page()
        page.goto(str(url))
        assert page.title() == "Authorize cmdsync emulator: cmdsync emulator"
        page.get_by_label(f"member ({MEMBER})").check()
        page.get_by_role("button", name=decision).click()
        page.wait_for_url(f"{redirect}?**", timeout=10_000)
        assert page.locator("h1").inner_text() == "You may close this tab"
        got = query_of(listener.queries[0])  # type: ignore[attr-defined]
        if decision == "Cancel":
            assert got == {"error": "access_denied", "error_description": "The user cancelled.",
                           "state": "browser-state"}
            return
        assert set(got) == {"code", "state"} and got["state"] == "browser-state"
        granted = site.post("/api/v10/oauth2/token", auth=(APP, "emulator-secret"), data={
            "grant_type": "authorization_code", "code": got["code"], "redirect_uri": redirect,
            "code_verifier": verifier})
        assert granted.status_code == 200
        me = site.get("/api/v10/users/@me",
                      headers={"Authorization": f"Bearer {granted.json()['access_token']}"})
        assert (me.json()["id"], me.json()["username"]) == (MEMBER, "member")
