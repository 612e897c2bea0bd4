"""A user's OAuth2 authorization: PKCE, the authorize URL, and the token endpoint's grants.

Discord's "OAuth2" documentation (topics/oauth2), after RFC 6749, RFC 7636
(PKCE) and RFC 7009 (revocation):

- the browser visits ``https://discord.com/oauth2/authorize`` (the API URL's
  site, without ``/api/vN``: :func:`authorize_url`) with ``response_type=code``,
  ``client_id``, ``redirect_uri``, ``scope``, ``state`` and the PKCE
  ``code_challenge`` (S256);
- ``POST {api}/oauth2/token`` (a form; the client authenticated with HTTP
  Basic) exchanges the code (``authorization_code``, with the
  ``code_verifier``) or a refresh token (``refresh_token``) for
  ``{access_token, token_type: "Bearer", expires_in, refresh_token, scope}``
  (:class:`Grant`); errors are ``{"error", "error_description"}``;
- ``POST {api}/oauth2/token/revoke`` revokes a token.

Tokens never appear in messages: every one read is given to
:func:`cmdsync.client.redact.remember` as well, and so is each PKCE
verifier made (a token endpoint's error may echo the form it was sent).
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlencode

import httpx

from cmdsync.client.redact import remember
from cmdsync.errors import ClientError, CmdsyncError, NetworkError

# identify: who logged in; guilds: the guilds `auth status` lists (not in issue 26's
# list, added for that); the scope permission overwrites need.
LOGIN_SCOPES = ("identify", "guilds", "applications.commands.permissions.update")
LOGIN_AGAIN = "run `cmdsync login` again"
TIMEOUT = 15.0  # seconds, for each request to the token endpoint


class LoginExpiredError(CmdsyncError):
    """Discord refused the stored grant (``invalid_grant``): the user must log in again.

    ``reason`` is the refusal alone (``POST /oauth2/token: HTTP 400: invalid_grant:
    ...``), for a message that says what to do otherwise."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}: the login is no longer valid: {LOGIN_AGAIN}")
        self.reason = reason


class ClientAuth(Protocol):
    """How the client authenticates at the token endpoint: HTTP Basic, as
    :class:`cmdsync.client.auth.ClientCredentials` gives it (a protocol, so that
    :mod:`cmdsync.client.auth` may exchange a refresh token through this module)."""

    def basic(self) -> str:
        """The ``Authorization`` header value."""
        ...


@dataclass(frozen=True)
class Grant:
    """A token response: ``expires_in`` in seconds from when it was answered."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_in: float
    scope: tuple[str, ...]


@dataclass(frozen=True)
class Pkce:
    """A PKCE pair (RFC 7636): the secret ``verifier`` and its S256 ``challenge``."""

    verifier: str = field(repr=False)
    challenge: str

    @classmethod
    def new(cls) -> Pkce:
        """A fresh pair: 64 random bytes, URL-safe (86 characters, within 43-128); the
        verifier is remembered as a secret, so no output shows it."""
        verifier = secrets.token_urlsafe(64)
        remember(verifier)
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        return cls(verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii"))


def site_url(api_url: str) -> str:
    """The site an API base URL belongs to: ``https://discord.com/api/v10`` ->
    ``https://discord.com`` (an emulator's root, likewise)."""
    return re.sub(r"/api(/v\d+)?/?$", "", api_url.rstrip("/"))


def authorize_url(api_url: str, *, client_id: str, redirect_uri: str, state: str,
                  challenge: str, scopes: tuple[str, ...] = LOGIN_SCOPES) -> str:
    """The URL the user opens to approve the login (``/oauth2/authorize``)."""
    query = urlencode({"response_type": "code", "client_id": client_id,
                       "redirect_uri": redirect_uri, "scope": " ".join(scopes),
                       "state": state, "code_challenge": challenge,
                       "code_challenge_method": "S256"})
    return f"{site_url(api_url)}/oauth2/authorize?{query}"


async def exchange_code(http: httpx.AsyncClient, credentials: ClientAuth, *, code: str,
                  redirect_uri: str, verifier: str) -> Grant:
    """``authorization_code`` grant; raises :class:`~cmdsync.errors.CmdsyncError` naming
    OAuth2's ``error`` (an unregistered ``redirect_uri`` says which URI to register)."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier}
    return _grant(await _post(http, "/oauth2/token", credentials, form), redirect_uri=redirect_uri)


async def refresh(http: httpx.AsyncClient, credentials: ClientAuth, refresh_token: str) -> Grant:
    """``refresh_token`` grant: new tokens (the old refresh token is then spent).

    Raises :class:`LoginExpiredError` on ``invalid_grant`` (revoked, spent or
    expired), :class:`~cmdsync.errors.CmdsyncError` on other refusals.
    """
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    return _grant(await _post(http, "/oauth2/token", credentials, form), redirect_uri=None)


async def revoke(http: httpx.AsyncClient, credentials: ClientAuth, token: str) -> None:
    """``POST /oauth2/token/revoke`` (RFC 7009); raises
    :class:`~cmdsync.errors.ClientError` when it is not answered with 200."""
    response = await _post(http, "/oauth2/token/revoke", credentials,
                     {"token": token, "token_type_hint": "refresh_token"})
    if response.status_code != 200:
        raise ClientError(f"POST /oauth2/token/revoke: HTTP {response.status_code}"
                          f"{_oauth_error(response)}", method="POST",
                          path="/oauth2/token/revoke")


async def _post(http: httpx.AsyncClient, path: str, credentials: ClientAuth,
          form: dict[str, str]) -> httpx.Response:
    basic = credentials.basic()
    remember(basic.split(" ", 1)[1])  # the secret in base64, should an answer echo it bare
    try:
        return await http.post(path, data=form, headers={"Authorization": basic})
    except httpx.HTTPError as exc:
        raise NetworkError(f"POST {path}: {type(exc).__name__}: cannot reach "
                           f"{http.base_url}", method="POST", path=path) from None


def _oauth_error(response: httpx.Response) -> str:
    """``": invalid_grant: <description>"`` from an OAuth2 error body, or ``""``."""
    body = _body(response)
    error = body.get("error")
    if not isinstance(error, str):
        return ""
    description = body.get("error_description")
    return f": {error}" + (f": {description}" if isinstance(description, str) else "")


def _body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _grant(response: httpx.Response, *, redirect_uri: str | None) -> Grant:
    body = _body(response)
    if response.status_code == 200 and isinstance(body.get("access_token"), str):
        remember(body["access_token"])
        remember(str(body.get("refresh_token", "")))
        scope = str(body.get("scope", "")).split()
        return Grant(body["access_token"], str(body.get("refresh_token", "")),
                     float(body.get("expires_in") or 0), tuple(scope))
    reason = f"POST /oauth2/token: HTTP {response.status_code}{_oauth_error(response)}"
    if body.get("error") == "invalid_grant":
        raise LoginExpiredError(reason)
    if body.get("error") == "invalid_client":
        raise CmdsyncError(f"{reason}: check DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET")
    if redirect_uri is not None and "redirect" in str(body.get("error_description", "")):
        raise CmdsyncError(f"{reason}: {register_hint(redirect_uri)}")
    raise CmdsyncError(reason)


def register_hint(redirect_uri: str) -> str:
    """What to do when Discord does not know the redirect URI (it matches exactly)."""
    return (f"add exactly {redirect_uri} to the application's OAuth2 Redirects in the "
            "Developer Portal (Discord matches redirect URIs exactly), or pass --port with "
            "the port of one registered")
