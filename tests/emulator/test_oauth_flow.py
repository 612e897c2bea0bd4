"""The emulator's OAuth2 authorization-code flow (issue 26, part 4), over real HTTP.

The consent page at ``/oauth2/authorize`` is read and its form submitted with
an HTTP client as a browser would; codes are exchanged at ``POST
/api/v10/oauth2/token`` with PKCE; tokens are refreshed, revoked and expire
on the emulator's injected clock.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.seed import default_seed
from tests.support.consent import consent, pkce, query_of, read_form
from tests.support.emulator import (
    APP,
    GUILD,
    GUILD_COMMANDS,
    USER_ID,
    FakeClock,
    chat,
    emulator,
    http_client,
    http_server,
)

REDIRECT = "http://127.0.0.1:53682/callback"  # the default seed's
SECRET = "emulator-secret"
SCOPES = "identify guilds applications.commands.permissions.update"
MEMBER = "333333333333333334"
PERMISSIONS = "applications.commands.permissions.update"


@pytest.fixture
def served(clock: FakeClock) -> Iterator[tuple[Emulator, str]]:
    instance = emulator(clock=clock)
    with http_server(instance) as base_url:
        yield instance, base_url


@pytest.fixture
def site(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    """A client of the emulator's root (where ``/oauth2/authorize`` is)."""
    with http_client(served[1]) as client:
        yield client


def params(challenge: str | None = None, **changes: str) -> dict[str, str]:
    query = {"response_type": "code", "client_id": APP, "redirect_uri": REDIRECT,
             "scope": SCOPES, "state": "st4te"}
    if challenge is not None:
        query.update(code_challenge=challenge, code_challenge_method="S256")
    return {**query, **changes}


def exchange(site: httpx.Client, code: str, verifier: str | None, *,
             redirect_uri: str = REDIRECT, auth: tuple[str, str] = (APP, SECRET)
             ) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    if verifier is not None:
        form["code_verifier"] = verifier
    return site.post("/api/v10/oauth2/token", data=form, auth=auth)


def log_in(site: httpx.Client, *, user_id: str | None = None) -> dict[str, Any]:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge), user_id=user_id))["code"]
    granted = exchange(site, code, verifier)
    assert granted.status_code == 200, granted.text
    return dict(granted.json())


def bearer(access_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token}"}


def put_overwrites(site: httpx.Client, access_token: str) -> httpx.Response:
    command = site.post(f"/api/v10{GUILD_COMMANDS}", json=chat(),
                        headers={"Authorization": "Bot emulator-bot-token"}).json()
    return site.put(f"/api/v10{GUILD_COMMANDS}/{command['id']}/permissions",
                    headers=bearer(access_token),
                    json={"permissions": [{"id": GUILD, "type": 1, "permission": False}]})


class _Listener(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.queries.append(self.path)  # type: ignore[attr-defined]
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"logged in")

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_the_whole_flow_through_a_loopback_redirect(served: tuple[Emulator, str],
                                                    site: httpx.Client) -> None:
    listener = http.server.HTTPServer(("127.0.0.1", 0), _Listener)
    listener.queries = []  # type: ignore[attr-defined]
    redirect = f"http://127.0.0.1:{listener.server_address[1]}/callback"
    seed = {**served[0].seed, "applications": [
        {**served[0].seed["applications"][0], "redirect_uris": [redirect]}]}
    site.post("/_emulator/reset", json=seed).raise_for_status()
    verifier, challenge = pkce()
    page = site.get("/oauth2/authorize", params=params(challenge, redirect_uri=redirect))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["x-frame-options"] == "DENY"
    for shown in ("cmdsync emulator wants to access your account", "owner (333333333333333333)",
                  "member (333333333333333334)", PERMISSIONS, "<code>guilds</code>", redirect):
        assert shown in page.text
    form = read_form(page.text)
    assert (form.action, form.users, form.buttons) == (
        "/oauth2/authorize", [USER_ID, MEMBER], ["cancel", "authorize"])
    answer = site.post(form.action, data={**form.hidden, "user_id": USER_ID,
                                          "decision": "authorize"})
    assert answer.status_code == 302
    thread = threading.Thread(target=listener.handle_request)
    thread.start()
    httpx.get(answer.headers["location"], timeout=10)  # the browser follows the redirect
    thread.join(10)
    listener.server_close()
    got = query_of(listener.queries[0])  # type: ignore[attr-defined]
    assert urlsplit(listener.queries[0]).path == "/callback"  # type: ignore[attr-defined]
    assert set(got) == {"code", "state"} and got["state"] == "st4te"
    granted = exchange(site, got["code"], verifier, redirect_uri=redirect)
    assert granted.status_code == 200
    assert granted.headers["cache-control"] == "no-store"
    body = granted.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert (body["token_type"], body["expires_in"], body["scope"]) == (
        "Bearer", 604800, "applications.commands.permissions.update guilds identify")
    me = site.get("/api/v10/users/@me", headers=bearer(body["access_token"])).json()
    assert (me["id"], me["username"]) == (USER_ID, "owner")
    authorization = site.get("/api/v10/oauth2/@me", headers=bearer(body["access_token"])).json()
    assert (authorization["application"]["id"], authorization["user"]["id"],
            authorization["scopes"], authorization["expires"]) == (
        APP, USER_ID, ["applications.commands.permissions.update", "guilds", "identify"],
        "2025-06-22T15:06:40+00:00")
    guilds = site.get("/api/v10/users/@me/guilds", headers=bearer(body["access_token"])).json()
    assert [(g["id"], g["owner"], int(g["permissions"]) & (1 << 5) != 0) for g in guilds] == [
        (GUILD, True, True)]
    assert put_overwrites(site, body["access_token"]).status_code == 200


def test_a_member_who_may_not_manage_the_guild_gets_a_token_refused_there(
        site: httpx.Client) -> None:
    body = log_in(site, user_id=MEMBER)
    guilds = site.get("/api/v10/users/@me/guilds", headers=bearer(body["access_token"])).json()
    assert [(g["id"], g["owner"], int(g["permissions"]) & (1 << 5)) for g in guilds] == [
        (GUILD, False, 0)]
    refused = put_overwrites(site, body["access_token"])
    assert (refused.status_code, refused.json()) == (
        403, {"message": "Missing Permissions", "code": 50013})


def test_the_page_is_served_under_the_api_prefix_too(site: httpx.Client) -> None:
    location = consent(site, params(), path="/api/v10/oauth2/authorize")
    assert location.startswith(REDIRECT + "?code=")


def test_cancel_redirects_with_access_denied_and_the_state(site: httpx.Client) -> None:
    location = consent(site, params(), decision="cancel")
    assert location.startswith(REDIRECT + "?")
    assert query_of(location) == {"error": "access_denied",
                                  "error_description": "The user cancelled.", "state": "st4te"}


@pytest.mark.parametrize(("changes", "shown"), [
    ({"redirect_uri": "http://127.0.0.1:53682/callback/"},
     ("The redirect_uri http://127.0.0.1:53682/callback/ is not registered for cmdsync "
      "emulator (111111111111111111). Redirect URIs are matched exactly")),
    ({"redirect_uri": "https://evil.example/callback"},
     "The redirect_uri https://evil.example/callback is not registered"),
    ({"client_id": "999999999999999999"},
     "Unknown client_id 999999999999999999: it is none of the applications"),
    ({"client_id": ""}, "client_id is missing"),
])
def test_an_unregistered_redirect_uri_or_unknown_client_is_never_redirected_to(
        site: httpx.Client, changes: dict[str, str], shown: str) -> None:
    page = site.get("/oauth2/authorize", params=params(**changes))
    assert page.status_code == 400 and "location" not in page.headers
    assert shown in page.text and "<form" not in page.text


@pytest.mark.parametrize(("changes", "error", "description"), [
    ({"response_type": "token"}, "unsupported_response_type", "response_type must be code."),
    ({"response_type": ""}, "invalid_request", "response_type is missing: give response_type=code."),
    ({"scope": "identify bot"}, "invalid_scope", "Unknown scope bot."),
    ({"scope": "applications.commands.update"}, "invalid_scope",
     "Unknown scope applications.commands.update."),
    ({"scope": ""}, "invalid_scope", "scope is missing."),
    ({"code_challenge": "x" * 43, "code_challenge_method": "plain"}, "invalid_request",
     "code_challenge_method must be S256 (plain is not accepted)."),
    ({"code_challenge": "short", "code_challenge_method": "S256"}, "invalid_request",
     "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)."),
])
def test_other_bad_requests_go_back_to_the_client_as_rfc_6749_says(
        site: httpx.Client, changes: dict[str, str], error: str, description: str) -> None:
    page = site.get("/oauth2/authorize", params=params(**changes))
    assert page.status_code == 302
    assert query_of(page.headers["location"]) == {
        "error": error, "error_description": description, "state": "st4te"}


def test_a_parameter_given_twice_is_an_invalid_request(site: httpx.Client) -> None:
    page = site.get("/oauth2/authorize", params=[*params().items(), ("state", "other")])
    assert query_of(page.headers["location"])["error"] == "invalid_request"
    twice = site.get("/oauth2/authorize", params=[*params().items(), ("redirect_uri", REDIRECT)])
    assert twice.status_code == 400 and "redirect_uri is given more than once" in twice.text


def test_the_form_can_be_submitted_once(site: httpx.Client) -> None:
    form = read_form(site.get("/oauth2/authorize", params=params()).text)
    data = {**form.hidden, "user_id": USER_ID, "decision": "authorize"}
    assert site.post(form.action, data=data).status_code == 302
    again = site.post(form.action, data=data)
    assert again.status_code == 400 and "expired or was already answered" in again.text
    forged = site.post(form.action, data={**data, "request": "guessed"})
    assert forged.status_code == 400 and "location" not in forged.headers


def test_a_pending_page_expires_after_10_minutes(site: httpx.Client, clock: FakeClock) -> None:
    form = read_form(site.get("/oauth2/authorize", params=params()).text)
    clock.advance(600)
    late = site.post(form.action, data={**form.hidden, "user_id": USER_ID,
                                        "decision": "authorize"})
    assert late.status_code == 400 and "expired" in late.text


def test_a_reused_code_is_refused_and_revokes_the_tokens_issued_for_it(
        site: httpx.Client) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    first = exchange(site, code, verifier).json()
    assert site.get("/api/v10/users/@me", headers=bearer(first["access_token"])
                    ).status_code == 200
    again = exchange(site, code, verifier)
    assert (again.status_code, again.json()) == (400, {
        "error": "invalid_grant", "error_description": "The code has already been used: the "
                                                       "tokens issued for it are revoked."})
    gone = site.get("/api/v10/users/@me", headers=bearer(first["access_token"]))
    assert (gone.status_code, gone.json()) == (401, {"message": "401: Unauthorized", "code": 0})
    refreshed = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
        "grant_type": "refresh_token", "refresh_token": first["refresh_token"]})
    assert refreshed.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(("verifier", "description"), [
    ("wrong-" + "v" * 43,
     "Invalid \"code_verifier\": it does not match the code_challenge (S256)."),
    (None, "code_verifier is required: the authorization request had a code_challenge."),
])
def test_a_wrong_or_missing_pkce_verifier_is_refused_and_uses_the_code_up(
        site: httpx.Client, verifier: str | None, description: str) -> None:
    right, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    refused = exchange(site, code, verifier)
    assert (refused.status_code, refused.json()) == (
        400, {"error": "invalid_grant", "error_description": description})
    assert exchange(site, code, right).json()["error"] == "invalid_grant"


def test_without_pkce_a_verifier_is_refused_and_none_is_needed(site: httpx.Client) -> None:
    code = query_of(consent(site, params()))["code"]
    assert exchange(site, code, "v" * 43).json()["error"] == "invalid_grant"
    code = query_of(consent(site, params()))["code"]
    assert exchange(site, code, None).status_code == 200


def test_the_code_is_bound_to_its_redirect_uri_and_client(served: tuple[Emulator, str],
                                                         site: httpx.Client) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    other = exchange(site, code, verifier, redirect_uri="http://127.0.0.1:53682/other")
    assert other.json() == {"error": "invalid_grant", "error_description":
                            "Invalid \"redirect_uri\" in request: it must be the redirect_uri "
                            "of the authorization request."}
    code = query_of(consent(site, params(challenge)))["code"]
    seed = {"applications": [{"id": "444444444444444444", "bot_token": "other-bot",
                              "client_secret": "other-secret"}]}
    site.post("/_emulator/seed", json=seed).raise_for_status()
    stolen = exchange(site, code, verifier, auth=("444444444444444444", "other-secret"))
    assert stolen.json() == {"error": "invalid_grant",
                             "error_description": "Invalid \"code\" in request."}
    assert exchange(site, code, verifier).json() == {  # used up: its own client cannot
        "error": "invalid_grant", "error_description": "Invalid \"code\" in request."}
    wrong = exchange(site, code, verifier, auth=(APP, "wrong"))
    assert (wrong.status_code, wrong.json(), wrong.headers["www-authenticate"]) == (
        401, {"error": "invalid_client"}, 'Basic realm="oauth2"')


def test_codes_expire_after_10_minutes(site: httpx.Client, clock: FakeClock) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge)))["code"]
    clock.advance(600)
    assert exchange(site, code, verifier).json() == {
        "error": "invalid_grant",
        "error_description": "Invalid \"code\" in request: it has expired (codes are valid "
                             "10 minutes)."}


def test_access_tokens_expire_and_the_refresh_token_rotates(site: httpx.Client,
                                                           clock: FakeClock) -> None:
    first = log_in(site)
    clock.advance(604800)
    expired = site.get("/api/v10/users/@me", headers=bearer(first["access_token"]))
    assert (expired.status_code, expired.json()) == (
        401, {"message": "401: Unauthorized", "code": 0})
    refresh = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    second = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data=refresh)
    assert second.status_code == 200
    body = second.json()
    assert body["refresh_token"] != first["refresh_token"]
    assert (body["expires_in"], body["scope"]) == (604800, first["scope"])
    assert put_overwrites(site, body["access_token"]).status_code == 200
    narrower = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
        "grant_type": "refresh_token", "refresh_token": body["refresh_token"],
        "scope": "identify"}).json()
    assert narrower["scope"] == "identify"
    wider = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
        "grant_type": "refresh_token", "refresh_token": narrower["refresh_token"],
        "scope": "identify email"}).json()
    assert wider["error"] == "invalid_scope"
    spent = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data=refresh)
    assert (spent.status_code, spent.json()) == (400, {
        "error": "invalid_grant", "error_description": "Invalid \"refresh_token\" in request: "
        "it was already used, so it may have been copied: the grant is revoked (every token "
        "issued from it); authorize again."})
    assert put_overwrites(site, body["access_token"]).status_code == 401  # RFC 9700 4.14.2


@pytest.mark.parametrize("which", ["refresh_token", "access_token"])
def test_revoking_either_token_revokes_the_grant(site: httpx.Client, which: str) -> None:
    body = log_in(site)
    revoked = site.post("/api/v10/oauth2/token/revoke", auth=(APP, SECRET),
                        data={"token": body[which], "token_type_hint": which})
    assert (revoked.status_code, revoked.json()) == (200, {})
    assert site.get("/api/v10/users/@me", headers=bearer(body["access_token"])
                    ).status_code == 401
    assert put_overwrites(site, body["access_token"]).status_code == 401
    refreshed = site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
        "grant_type": "refresh_token", "refresh_token": body["refresh_token"]})
    assert refreshed.json()["error"] == "invalid_grant"
    again = site.post("/api/v10/oauth2/token/revoke", auth=(APP, SECRET),
                      data={"token": body[which]})
    assert (again.status_code, again.json()) == (200, {})  # RFC 7009: unknown tokens too


def test_revocation_needs_the_client_and_leaves_other_clients_tokens(site: httpx.Client
                                                                     ) -> None:
    body = log_in(site)
    anonymous = site.post("/api/v10/oauth2/token/revoke", data={"token": body["access_token"]})
    assert (anonymous.status_code, anonymous.json()) == (401, {"error": "invalid_client"})
    site.post("/_emulator/seed", json={"applications": [{
        "id": "444444444444444444", "bot_token": "other-bot",
        "client_secret": "other-secret"}]}).raise_for_status()
    other = site.post("/api/v10/oauth2/token/revoke", auth=("444444444444444444", "other-secret"),
                      data={"token": body["refresh_token"]})
    assert other.status_code == 200
    assert site.get("/api/v10/users/@me", headers=bearer(body["access_token"])
                    ).status_code == 200


def test_guilds_need_the_guilds_scope(site: httpx.Client) -> None:
    verifier, challenge = pkce()
    code = query_of(consent(site, params(challenge, scope="identify")))["code"]
    token = exchange(site, code, verifier).json()["access_token"]
    refused = site.get("/api/v10/users/@me/guilds", headers=bearer(token))
    assert (refused.status_code, refused.json()["code"]) == (401, 40001)
    bot = site.get("/api/v10/users/@me/guilds",
                   headers={"Authorization": "Bot emulator-bot-token"}).json()
    assert [(g["id"], g["name"], g["owner"]) for g in bot] == [(GUILD, "Emulator Guild", False)]


def test_the_page_escapes_what_it_shows(served: tuple[Emulator, str],
                                        site: httpx.Client) -> None:
    seed = {**served[0].seed, "applications": [{
        **served[0].seed["applications"][0], "name": "<script>alert(1)</script>",
        "redirect_uris": [REDIRECT + '?x="><b>']}],
        "users": [*served[0].seed["users"], {"id": "333333333333333335",
                                              "username": "<img src=x onerror=alert(1)>"}]}
    site.post("/_emulator/reset", json=seed).raise_for_status()
    page = site.get("/oauth2/authorize", params=params(redirect_uri=REDIRECT + '?x="><b>'))
    assert page.status_code == 200
    assert "<script>" not in page.text and "<img" not in page.text and '"><b>' not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "Content-Security-Policy" in page.headers and "script-src" not in page.headers[
        "content-security-policy"]
    location = consent(site, params(redirect_uri=REDIRECT + '?x="><b>'))
    assert location.startswith(REDIRECT + "?x=%22%3E%3Cb%3E&code=")


def test_no_token_appears_in_the_page_the_log_or_the_server_output(
        site: httpx.Client, capfd: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    verifier, challenge = pkce()
    page = site.get("/oauth2/authorize", params=params(challenge)).text
    body = log_in(site)
    secrets_seen = [body["access_token"], body["refresh_token"], verifier, SECRET]
    site.post("/api/v10/oauth2/token/revoke", auth=(APP, SECRET),
              data={"token": body["refresh_token"]})
    log = site.get("/_emulator/log").text
    state = site.get("/_emulator/state").text
    out, err = capfd.readouterr()
    for text in (page, log, state, out, err, caplog.text):
        assert not any(secret in text for secret in secrets_seen)
    routes = [entry["route"] for entry in site.get("/_emulator/log").json()["requests"]]
    assert routes.count("POST /oauth2/token") == 1 and "GET /oauth2/authorize" in routes


def test_a_state_file_keeps_grants_and_takes_the_seeds_new_redirect_uris(
        tmp_path: Path) -> None:
    state, clock = str(tmp_path / "state.sqlite"), FakeClock()
    with http_server(new_emulator(state=state, clock=clock)) as base_url, \
            http_client(base_url) as site:
        body = log_in(site)
    moved = default_seed()
    moved["applications"][0]["redirect_uris"] = ["http://127.0.0.1:8000/cb"]
    with http_server(new_emulator(state=state, seed=moved, clock=clock)) as base_url, \
            http_client(base_url) as site:
        assert site.get("/api/v10/users/@me", headers=bearer(body["access_token"])
                        ).status_code == 200
        assert site.post("/api/v10/oauth2/token", auth=(APP, SECRET), data={
            "grant_type": "refresh_token", "refresh_token": body["refresh_token"]}
        ).status_code == 200
        assert site.get("/oauth2/authorize", params=params()).status_code == 400
        moved_to = consent(site, params(redirect_uri="http://127.0.0.1:8000/cb"))
        assert moved_to.startswith("http://127.0.0.1:8000/cb?code=")
