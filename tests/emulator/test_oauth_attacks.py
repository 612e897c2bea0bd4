"""Attacks on the emulator's OAuth2, made for real over HTTP against a served emulator.

- DNS rebinding: a page of another site whose name now resolves to 127.0.0.1
  is same-origin with the emulator, but its requests name its own host. The
  consent page refuses them (403), GET and POST, under every prefix, so the
  page reads no nonce and posts no decision; loopback names and the host the
  emulator was started on are served.
- A refresh token replayed after rotation (RFC 9700 4.14.2) revokes the grant:
  the current refresh token and every access token issued from it.
- An authorization code is used up by any attempt to redeem it, another
  client's included (RFC 6749 10.5); presented again once redeemed, by any
  client, it revokes the tokens it was exchanged for (RFC 6749 4.1.2).

The emulator runs on a fake clock; the consent page is driven as a browser
would (:mod:`tests.support.consent`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from cmdsync.emulator import create_app
from cmdsync.emulator.server import BackgroundServer
from tests.support.consent import consent, pkce, query_of, read_form
from tests.support.emulator import APP, FakeClock, emulator, http_client, http_server

REDIRECT = "http://127.0.0.1:53682/callback"  # the default seed's
SECRET = "emulator-secret"
OTHER = "444444444444444444"
OTHER_SECRET = "other-secret"
REFUSED_HOST = ("This page answers only requests for localhost, 127.0.0.1, [::1] or the host "
                "the emulator listens on, not {host!r}: open it by one of those (another name "
                "may be a web page reaching the emulator by DNS rebinding).")
REPLAYED = ("Invalid \"refresh_token\" in request: it was already used, so it may have been "
            "copied: the grant is revoked (every token issued from it); authorize again.")
UNKNOWN_REFRESH = ("Invalid \"refresh_token\" in request: it is unknown, revoked or already "
                   "used.")
INVALID_CODE = {"error": "invalid_grant", "error_description": "Invalid \"code\" in request."}


@pytest.fixture
def site() -> Iterator[httpx.Client]:
    """A client of a served emulator's root, on a fake clock, with a second client
    application (``OTHER``) seeded."""
    with http_server(emulator(clock=FakeClock())) as base, http_client(base) as client:
        client.post("/_emulator/seed", json={"applications": [{
            "id": OTHER, "bot_token": "other-bot", "client_secret": OTHER_SECRET}]}
                    ).raise_for_status()
        yield client


def params(challenge: str) -> dict[str, str]:
    return {"response_type": "code", "client_id": APP, "redirect_uri": REDIRECT,
            "scope": "identify guilds", "state": "st4te", "code_challenge": challenge,
            "code_challenge_method": "S256"}


def exchange(site: httpx.Client, form: dict[str, str], *,
             auth: tuple[str, str] = (APP, SECRET)) -> httpx.Response:
    """``POST /oauth2/token`` with ``form``, the client authenticated by HTTP Basic."""
    return site.post("/api/v10/oauth2/token", data=form, auth=auth)


def token(site: httpx.Client, *, auth: tuple[str, str] = (APP, SECRET), **form: str
          ) -> httpx.Response:
    return exchange(site, form, auth=auth)


def log_in(site: httpx.Client) -> dict[str, Any]:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    granted = token(site, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                    code_verifier=verifier)
    assert granted.status_code == 200, granted.text
    return dict(granted.json())


def me(site: httpx.Client, access_token: str) -> int:
    """The status of ``GET /users/@me`` with ``access_token``."""
    return site.get("/api/v10/users/@me",
                    headers={"Authorization": f"Bearer {access_token}"}).status_code


# -- DNS rebinding ---------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/oauth2/authorize", "/api/v10/oauth2/authorize",
                                  "/api/oauth2/authorize"])
def test_a_rebound_page_can_neither_read_a_nonce_nor_post_a_decision(
        site: httpx.Client, path: str) -> None:
    port = urlsplit(str(site.base_url)).port
    rebound = {"host": f"rebound.example:{port}"}
    _, challenge = pkce()
    page = site.get(path, params=params(challenge), headers=rebound)
    assert (page.status_code, page.headers["content-type"]) == (
        403, "text/html; charset=utf-8")
    assert REFUSED_HOST.format(host="rebound.example").replace("'", "&#x27;") in page.text
    assert read_form(page.text).hidden == {}  # no nonce
    # the user's own page is open: the rebound page posts its nonce first
    own = site.get(path, params=params(challenge))
    nonce = read_form(own.text).hidden
    assert list(nonce) == ["request"]
    decision = {**nonce, "user_id": "333333333333333333", "decision": "authorize"}
    stolen = site.post(path, data=decision, headers=rebound)
    assert stolen.status_code == 403
    assert "location" not in stolen.headers
    answered = site.post(path, data=decision)  # the nonce is still the user's
    assert answered.status_code == 302
    assert set(query_of(answered.headers["location"])) == {"code", "state"}


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.0.0.2", "[::1]",
                                  "devbox.lan", "DEVBOX.LAN."])
def test_loopback_names_and_the_emulators_own_host_are_served(host: str) -> None:
    with BackgroundServer(create_app(emulator(clock=FakeClock()), hosts=["devbox.lan"])
                          ) as base, http_client(base) as site:
        port = urlsplit(base).port
        _, challenge = pkce()
        page = site.get("/oauth2/authorize", params=params(challenge),
                        headers={"host": f"{host}:{port}"})
        refused = site.get("/oauth2/authorize", params=params(challenge),
                           headers={"host": f"devbox.lan.evil.example:{port}"})
    assert page.status_code == 200
    assert list(read_form(page.text).hidden) == ["request"]
    assert refused.status_code == 403


# -- refresh token rotation ------------------------------------------------------------


def test_a_refresh_token_replayed_after_rotation_revokes_the_whole_grant(
        site: httpx.Client) -> None:
    first = log_in(site)
    rotated = token(site, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert (me(site, first["access_token"]), me(site, second["access_token"])) == (200, 200)
    replayed = token(site, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert (replayed.status_code, replayed.json()) == (
        400, {"error": "invalid_grant", "error_description": REPLAYED})
    after = token(site, grant_type="refresh_token", refresh_token=second["refresh_token"])
    assert (after.status_code, after.json()) == (
        400, {"error": "invalid_grant", "error_description": UNKNOWN_REFRESH})
    assert (me(site, first["access_token"]), me(site, second["access_token"])) == (401, 401)


def test_another_clients_replay_revokes_nothing(site: httpx.Client) -> None:
    first = log_in(site)
    second = token(site, grant_type="refresh_token",
                   refresh_token=first["refresh_token"]).json()
    other = token(site, auth=(OTHER, OTHER_SECRET), grant_type="refresh_token",
                  refresh_token=first["refresh_token"])
    assert other.json() == {"error": "invalid_grant", "error_description": UNKNOWN_REFRESH}
    assert me(site, second["access_token"]) == 200
    third = token(site, grant_type="refresh_token", refresh_token=second["refresh_token"])
    assert third.status_code == 200


# -- authorization codes ---------------------------------------------------------------


def test_another_clients_attempt_uses_the_code_up(site: httpx.Client) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "code_verifier": verifier}
    stolen = exchange(site, form, auth=(OTHER, OTHER_SECRET))
    assert (stolen.status_code, stolen.json()) == (400, INVALID_CODE)
    own = exchange(site, form)
    assert (own.status_code, own.json()) == (400, INVALID_CODE)


def test_a_redeemed_code_presented_by_another_client_revokes_its_tokens(
        site: httpx.Client) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "code_verifier": verifier}
    granted = exchange(site, form).json()
    assert me(site, granted["access_token"]) == 200
    again = exchange(site, form, auth=(OTHER, OTHER_SECRET))
    assert again.json() == {"error": "invalid_grant", "error_description": (
        "The code has already been used: the tokens issued for it are revoked.")}
    assert me(site, granted["access_token"]) == 401
    refreshed = token(site, grant_type="refresh_token", refresh_token=granted["refresh_token"])
    assert refreshed.json()["error"] == "invalid_grant"
