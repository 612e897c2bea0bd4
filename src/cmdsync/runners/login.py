"""``cmdsync login``, ``logout`` and ``auth status``; the stored Bearer token plan and apply use.

:func:`login` runs the OAuth2 authorization code grant with PKCE through a
loopback redirect (:mod:`cmdsync.client.oauth2`, :mod:`cmdsync.client.loopback`),
reads who approved it (``GET /users/@me``) and stores the tokens
(:mod:`cmdsync.client.logins`). :func:`stored_bearer` gives plan and apply
the stored token, refreshed first when it has expired (the rotated tokens
stored). Nothing here prints; what the user must see comes back as values
or through the ``announce`` callback (which never receives a token).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx

from cmdsync.client import oauth2
from cmdsync.client.auth import ClientCredentials, Token
from cmdsync.client.http import USER_AGENT
from cmdsync.client.logins import Login, Place, Store, default_store
from cmdsync.client.loopback import Listener
from cmdsync.client.redact import remember
from cmdsync.errors import ApiError, ClientError, CmdsyncError, NetworkError
from cmdsync.runners.aio import run

LOGIN_SOURCE = "cmdsync login"  # a stored token's source: a 401 then says to log in again
REFRESH_MARGIN = 60.0  # seconds before the stored expiry when the token is refreshed
MANAGE_GUILD = 1 << 5
MANAGE_ROLES = 1 << 28
ADMINISTRATOR = 1 << 3


def now() -> float:
    """Epoch seconds; tests replace it."""
    return time.time()


@dataclass(frozen=True)
class LoginRequest:
    """What ``cmdsync login`` was asked: ``timeout`` in seconds for the browser's answer."""

    place: Place
    credentials: ClientCredentials
    port: int
    timeout: float = 300.0
    transport: httpx.AsyncBaseTransport | None = None


def _http(api_url: str, transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=api_url.rstrip("/"), transport=transport,
                             timeout=oauth2.TIMEOUT, headers={"User-Agent": USER_AGENT})


def login(request: LoginRequest, *, announce: Callable[[str, bool], None],
          open_browser: Callable[[str], bool] | None, store: Store | None = None,
          clock: Callable[[], float] | None = None) -> Login:
    """Log in and store the tokens; the :class:`~cmdsync.client.logins.Login` stored.

    ``announce`` receives the authorize URL (no secret in it) and whether
    ``open_browser`` (``webbrowser.open``; None with ``--no-browser``) opened it. Only
    an answer with this login's ``state`` counts: the
    :class:`~cmdsync.client.loopback.Listener` refuses others and goes on waiting. Raises
    :class:`~cmdsync.errors.CmdsyncError` before the browser opens when others could
    write the token store, when no answer came within ``request.timeout`` seconds, for
    a refused or cancelled answer and for a failed exchange, and
    :class:`~cmdsync.errors.UsageError` when the port is taken.
    """
    store = store or default_store()
    store.check()
    pkce = oauth2.Pkce.new()
    state = secrets.token_urlsafe(32)
    with Listener(request.port, state=state, page=_page) as listener:
        url = oauth2.authorize_url(request.place.api_url,
                                   client_id=request.credentials.client_id,
                                   redirect_uri=listener.uri, state=state,
                                   challenge=pkce.challenge)
        opened = open_browser(url) if open_browser is not None else False
        announce(url, opened)
        query = listener.wait(request.timeout)
    code = _code(query, listener.uri)
    return run(_finish(request, code, listener.uri, pkce.verifier, store, clock or now))


def _page(query: Mapping[str, str]) -> tuple[str, str]:
    """The page the browser shows after the redirect (with this login's state)."""
    if "code" not in query:
        return "Login not completed", "Return to the terminal to see why."
    return "Logged in", "You may close this tab and return to the terminal."


def _code(query: Mapping[str, str], redirect_uri: str) -> str:
    """The authorization code of the answer (its state checked by the listener); raises
    for a refused or cancelled answer."""
    error = query.get("error")
    if error == "access_denied":
        raise CmdsyncError("the login was cancelled in the browser (access_denied): "
                           "nothing was stored")
    if error:
        description = query.get("error_description", "")
        hint = f": {oauth2.register_hint(redirect_uri)}" if "redirect" in description else ""
        raise CmdsyncError(f"the authorization failed: {error}"
                           + (f": {description}" if description else "") + hint)
    code = query.get("code", "")
    if not code:
        raise CmdsyncError(f"the answer that came to {redirect_uri} holds no code: run "
                           "`cmdsync login` again")
    remember(code)
    return code


async def _finish(request: LoginRequest, code: str, redirect_uri: str, verifier: str,
                  store: Store, clock: Callable[[], float]) -> Login:
    async with _http(request.place.api_url, request.transport) as http:
        asked = clock()
        grant = await oauth2.exchange_code(http, request.credentials, code=code,
                                           redirect_uri=redirect_uri, verifier=verifier)
        user = await _get(http, "/users/@me", grant.access_token)
    name = str(user.get("global_name") or user.get("username") or "")
    found = Login(request.place, str(user.get("id", "")), name, grant.scope,
                  asked + grant.expires_in, grant.access_token, grant.refresh_token)
    store.save(found)
    return found


async def _get(http: httpx.AsyncClient, path: str, access_token: str) -> Any:
    """A GET with the user's token; raises :class:`~cmdsync.errors.ApiError`."""
    try:
        response = await http.get(path, headers={"Authorization": f"Bearer {access_token}"})
    except httpx.HTTPError as exc:
        raise NetworkError(f"GET {path}: {type(exc).__name__}: cannot reach {http.base_url}",
                           method="GET", path=path) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200:
        message = body.get("message") if isinstance(body, dict) else None
        code = body.get("code") if isinstance(body, dict) else None
        raise ApiError(method="GET", path=path, status=response.status_code,
                       code=code if isinstance(code, int) else None,
                       message=str(message or response.reason_phrase),
                       hint=f"{oauth2.LOGIN_AGAIN}" if response.status_code == 401 else None)
    return body


async def fresh(login: Login, *, credentials: ClientCredentials | None, store: Store,
                http: httpx.AsyncClient, clock: Callable[[], float]) -> Login:
    """``login`` itself while it has not expired, else refreshed (``refresh_token``) and
    stored again. Raises :class:`~cmdsync.client.oauth2.LoginExpiredError` on
    ``invalid_grant`` and :class:`~cmdsync.errors.CmdsyncError` when it expired and no
    client secret is at hand to refresh it with."""
    if clock() < login.expires_at - REFRESH_MARGIN:
        return login
    if credentials is None or credentials.client_id != login.place.application_id:
        raise CmdsyncError(
            f"the login of {login.user_name} ({login.user_id}) has expired: set "
            f"DISCORD_CLIENT_ID={login.place.application_id} and DISCORD_CLIENT_SECRET (or "
            f"--client-secret-file) to refresh it, or {oauth2.LOGIN_AGAIN}")
    asked = clock()
    grant = await oauth2.refresh(http, credentials, login.refresh_token)
    renewed = replace(login, access_token=grant.access_token,
                      refresh_token=grant.refresh_token or login.refresh_token,
                      expires_at=asked + grant.expires_in, scopes=grant.scope or login.scopes)
    store.save(renewed)
    return renewed


async def stored_bearer(place: Place, *, credentials: ClientCredentials | None,
                        transport: httpx.AsyncBaseTransport | None = None,
                        store: Store | None = None,
                        clock: Callable[[], float] | None = None) -> Token | None:
    """The stored login's Bearer token for ``place`` (refreshed when expired), or None
    when no one is logged in there. Raises as :func:`fresh`."""
    store = store or default_store()
    found = store.current(place)
    if found is None:
        return None
    async with _http(place.api_url, transport) as http:
        found = await fresh(found, credentials=credentials, store=store, http=http,
                            clock=clock or now)
    return Token("Bearer", found.access_token, f"{LOGIN_SOURCE} ({found.user_name})")


@dataclass(frozen=True)
class Logout:
    """What ``logout`` did: ``login`` forgotten (None: no one was logged in);
    ``revoke_error`` why revoking failed (None: revoked)."""

    login: Login | None
    revoke_error: str | None = None


def logout(place: Place, *, credentials: ClientCredentials | None,
           transport: httpx.AsyncBaseTransport | None = None,
           store: Store | None = None) -> Logout:
    """Revoke the current login's refresh token (which ends its access tokens), then
    forget it, even when revoking failed."""
    store = store or default_store()
    found = store.current(place)
    if found is None:
        return Logout(None)
    error: str | None = None
    if credentials is None:
        error = "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET are not set"
    else:
        try:
            run(_revoke(place, credentials, found, transport))
        except ClientError as exc:
            error = str(exc)
    store.forget(found)
    return Logout(found, error)


async def _revoke(place: Place, credentials: ClientCredentials, found: Login,
                  transport: httpx.AsyncBaseTransport | None) -> None:
    async with _http(place.api_url, transport) as http:
        await oauth2.revoke(http, credentials, found.refresh_token)


@dataclass(frozen=True)
class ManagedGuild:
    """A guild the user may manage; ``roles`` whether they may manage its roles as well
    (editing overwrites needs both)."""

    id: str
    name: str
    roles: bool


@dataclass(frozen=True)
class Status:
    """Who is logged in at a place (``login`` None: no one), and the guilds they manage
    (``guilds_error`` says why those could not be read)."""

    place: Place
    login: Login | None
    guilds: tuple[ManagedGuild, ...] = ()
    guilds_error: str | None = None


def status(place: Place, *, credentials: ClientCredentials | None,
           transport: httpx.AsyncBaseTransport | None = None, store: Store | None = None,
           clock: Callable[[], float] | None = None) -> Status:
    """The current login (refreshed when expired) and ``GET /users/@me/guilds``'s guilds
    where the user has MANAGE_GUILD (or is the owner, or an administrator)."""
    store = store or default_store()
    found = store.current(place)
    if found is None:
        return Status(place, None)
    return run(_status(place, found, credentials, transport, store, clock or now))


async def _status(place: Place, found: Login, credentials: ClientCredentials | None,
                  transport: httpx.AsyncBaseTransport | None, store: Store,
                  clock: Callable[[], float]) -> Status:
    async with _http(place.api_url, transport) as http:
        try:
            found = await fresh(found, credentials=credentials, store=store, http=http,
                                clock=clock)
            guilds = await _get(http, "/users/@me/guilds", found.access_token)
        except CmdsyncError as exc:  # refused, unreachable, or expired with no secret
            return Status(place, found, guilds_error=str(exc))
    return Status(place, found, tuple(_managed(guilds)))


def _managed(guilds: Any) -> list[ManagedGuild]:
    found = []
    for guild in guilds if isinstance(guilds, list) else []:
        if not isinstance(guild, dict):
            continue
        try:
            bits = int(guild.get("permissions") or 0)
        except ValueError:
            bits = 0
        every = bool(guild.get("owner")) or bool(bits & ADMINISTRATOR)
        if every or bits & MANAGE_GUILD:
            found.append(ManagedGuild(str(guild.get("id")), str(guild.get("name", "")),
                                      every or bool(bits & MANAGE_ROLES)))
    return sorted(found, key=lambda g: (g.name.lower(), g.id))
