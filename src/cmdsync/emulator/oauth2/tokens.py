"""``POST /oauth2/token`` and ``POST /oauth2/token/revoke``: OAuth2's token endpoints.

Discord's "OAuth2" topic, after RFC 6749 (OAuth2), RFC 7636 (PKCE) and RFC
7009 (revocation). Both take a form-encoded body and authenticate the client
by HTTP Basic ``client_id:client_secret`` or by the form fields
``client_id`` and ``client_secret`` (not both: RFC 6749 2.3.1).

Grants (``grant_type``):

- ``client_credentials`` with ``scope`` (Discord's "Application Commands"
  documentation, endpoints): a Bearer token of the application carrying
  exactly those scopes, valid ``expires_in`` seconds, and no refresh token;
- ``authorization_code`` with ``code``, ``redirect_uri`` (the one of the
  authorization request, when it named one) and ``code_verifier`` (PKCE
  S256, when the request carried a ``code_challenge``): a code from the
  consent page (:mod:`cmdsync.emulator.oauth2.consent`), single use and valid 10
  minutes. Any attempt to redeem a code uses it up, whoever makes it: one
  that fails its checks (another client's code, another ``redirect_uri``, a
  wrong ``code_verifier``, an expired code) is refused and cannot be tried
  again, not even by the client it was issued to (RFC 6749 10.5: a code seen
  twice is compromised); a code presented again after it was redeemed is
  refused and revokes the tokens it was exchanged for (RFC 6749 4.1.2);
- ``refresh_token`` with ``refresh_token`` (and optionally a narrower
  ``scope``): a new access token and a new refresh token; the old refresh
  token is spent. Presented again by its client, a spent refresh token
  revokes the whole grant: the current refresh token and every access token
  issued from the grant (RFC 9700 4.14.2: either the client or an attacker
  holds a copy, and the server cannot tell which).

Success: 200 ``{"access_token", "token_type": "Bearer", "expires_in": 604800,
"refresh_token", "scope"}`` (no ``refresh_token`` for client credentials).
Errors (RFC 6749 5.2): 401 ``{"error": "invalid_client"}``; 400
``unsupported_grant_type``, ``invalid_request``, ``invalid_grant`` or
``invalid_scope``, with an ``error_description``.

Revocation takes ``token`` (an access or refresh token; ``token_type_hint``
is read as a hint only) and answers 200 ``{}``: the grant the token came from
is revoked, its refresh token and every access token issued from it. An
unknown token, or another client's, changes nothing and answers 200 too
(RFC 7009 2.2).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from collections.abc import Callable
from urllib.parse import parse_qs

from cmdsync.emulator.domain.enums import OAuth2Scope
from cmdsync.emulator.domain.objects import Application, Token
from cmdsync.emulator.oauth2 import grants

COMMANDS_SCOPE = OAuth2Scope.COMMANDS_UPDATE.value
PERMISSIONS_SCOPE = OAuth2Scope.PERMISSIONS_UPDATE.value
from cmdsync.emulator.store.database import Store
from cmdsync.errors import EmulatorError

TOKEN_LIFETIME = grants.TOKEN_LIFETIME  # seconds (Discord's documentation)
# What a user may grant on the consent page (Discord's "OAuth2" topic, "OAuth2 Scopes").
AUTHORIZE_SCOPES = frozenset({PERMISSIONS_SCOPE, "applications.commands", "identify",
                              "guilds", "guilds.members.read", "connections", "email"})
# applications.commands.update is for client credentials only (Discord's "OAuth2 Scopes").
GRANTABLE_SCOPES = AUTHORIZE_SCOPES | {COMMANDS_SCOPE}
Answer = tuple[int, dict[str, object]]
BAD_SCOPE = "The requested scope is invalid, unknown, or malformed."


class OAuthError(EmulatorError):
    """An RFC 6749 5.2 error answer: ``status`` and ``{"error", "error_description"}``."""

    def __init__(self, error: str, description: str | None = None, *,
                 status: int = 400) -> None:
        super().__init__(error)
        self.error = error
        self.description = description
        self.status = status

    def answer(self) -> Answer:
        body: dict[str, object] = {"error": self.error}
        if self.description is not None:
            body["error_description"] = self.description
        return self.status, body


def token(store: Store, body: bytes, authorization: str | None, *, now: float) -> Answer:
    """``POST /oauth2/token``: ``(status, JSON body)``; ``now`` in epoch seconds."""
    try:
        form = _form(body)
        app = _client(store, form, authorization)
        grant_type = form.get("grant_type")
        if not grant_type:
            raise OAuthError("invalid_request", "grant_type is required")
        grant = _GRANTS.get(grant_type)
        if grant is None:
            raise OAuthError("unsupported_grant_type")
        return 200, grant(store, app, form, now)
    except OAuthError as refused:
        return refused.answer()


def revoke(store: Store, body: bytes, authorization: str | None) -> Answer:
    """``POST /oauth2/token/revoke``: ``(status, JSON body)`` (RFC 7009)."""
    try:
        form = _form(body)
        app = _client(store, form, authorization)
        if not form.get("token"):
            raise OAuthError("invalid_request", "token is required")
    except OAuthError as refused:
        return refused.answer()
    grants.revoke(store, app.id, form["token"])
    return 200, {}


def _client_credentials(store: Store, app: Application, form: dict[str, str],
                        now: float) -> dict[str, object]:
    scopes = frozenset(form.get("scope", "").split())
    if not scopes or not scopes <= GRANTABLE_SCOPES:
        raise OAuthError("invalid_scope", BAD_SCOPE)
    value = secrets.token_urlsafe(24)
    store.add_token(Token(value, "bearer", app.id, None, scopes, now + TOKEN_LIFETIME,
                          frozenset()))
    return {"access_token": value, "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME, "scope": " ".join(sorted(scopes))}


def _authorization_code(store: Store, app: Application, form: dict[str, str],
                        now: float) -> dict[str, object]:
    value = form.get("code", "")
    if not value:
        raise OAuthError("invalid_request", "code is required")
    with store.transaction() as db:  # what it changes is committed before any refusal
        found = grants.find_code(db, value)
        if found is None:
            problem: str | None = "Invalid \"code\" in request."
        elif found[1] is not None:  # a second use: whoever holds it may not keep the tokens
            grants.revoke_grant(db, found[1])
            problem = "The code has already been used: the tokens issued for it are revoked."
        else:  # any attempt uses the code up, another client's too
            problem = "Invalid \"code\" in request." if found[0].application_id != app.id \
                else _code_problem(found[0], form, now)
            if problem is not None:
                grants.forget_code(db, value)
            else:
                issued = grants.redeem(store, db, value, found[0],
                                       guilds=_managed(store, found[0].user_id), now=now)
    if problem is not None:
        raise OAuthError("invalid_grant", problem)
    return _issued(issued)


def _code_problem(code: grants.Code, form: dict[str, str], now: float) -> str | None:
    """Why ``code`` may not be exchanged with ``form``, or None."""
    if code.expires_at <= now:
        return "Invalid \"code\" in request: it has expired (codes are valid 10 minutes)."
    if form.get("redirect_uri", "") != code.redirect_uri:
        return ("Invalid \"redirect_uri\" in request: it must be the redirect_uri of the "
                "authorization request.")
    verifier = form.get("code_verifier")
    if code.challenge is None:
        return None if verifier is None else "code_verifier given, but the authorization " \
                                             "request had no code_challenge."
    if not verifier:
        return "code_verifier is required: the authorization request had a code_challenge."
    digest = hashlib.sha256(verifier.encode("utf-8")).digest()
    computed = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    if not secrets.compare_digest(computed, code.challenge):
        return "Invalid \"code_verifier\": it does not match the code_challenge (S256)."
    return None


def _refresh_token(store: Store, app: Application, form: dict[str, str],
                   now: float) -> dict[str, object]:
    value = form.get("refresh_token", "")
    if not value:
        raise OAuthError("invalid_request", "refresh_token is required")
    asked = frozenset(form["scope"].split()) if form.get("scope") else None
    with store.transaction() as db:  # a revoked grant is committed before the refusal
        if grants.replayed(db, value, app.id):
            issued = None
            problem = ("Invalid \"refresh_token\" in request: it was already used, so it "
                       "may have been copied: the grant is revoked (every token issued from "
                       "it); authorize again.")
        else:
            granted = grants.granted_scopes(db, value)
            if granted is not None and asked is not None and not asked <= granted:
                raise OAuthError("invalid_scope", "The requested scope exceeds the scope "
                                 "granted.")
            issued = grants.refresh(store, db, value, app.id, asked,
                                    guilds_of=lambda user: _managed(store, user), now=now)
            problem = ("Invalid \"refresh_token\" in request: it is unknown, revoked or "
                       "already used.")
    if issued is None:
        raise OAuthError("invalid_grant", problem)
    return _issued(issued)


_GRANTS: dict[str, Callable[[Store, Application, dict[str, str], float], dict[str, object]]] = {
    "client_credentials": _client_credentials,
    "authorization_code": _authorization_code,
    "refresh_token": _refresh_token,
}


def _issued(issued: grants.Issued) -> dict[str, object]:
    return {"access_token": issued.access_token, "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME, "refresh_token": issued.refresh_token,
            "scope": " ".join(sorted(issued.scopes))}


def _managed(store: Store, user_id: str) -> frozenset[str]:
    """The guilds a seeded user may manage (the seed's ``users[].guilds``)."""
    user = store.user(user_id)
    return frozenset(str(g) for g in (user.get("guilds") if user else None) or [])


def _form(body: bytes) -> dict[str, str]:
    """The form's fields; a field given twice is ``invalid_request`` (RFC 6749 3.2)."""
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise OAuthError("invalid_request", "the body must be a UTF-8 form") from None
    repeated = sorted(name for name, values in fields.items() if len(values) > 1)
    if repeated:
        raise OAuthError("invalid_request", f"{repeated[0]} is given more than once")
    return {name: values[0] for name, values in fields.items()}


def _client(store: Store, form: dict[str, str], authorization: str | None) -> Application:
    """The client application authenticated by HTTP Basic or the form, else 401."""
    scheme, _, encoded = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic":
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
    elif "client_secret" in form:
        raise OAuthError("invalid_request", "authenticate the client one way: HTTP Basic "
                         "or client_secret in the form, not both")
    else:
        try:
            client_id, _, secret = base64.b64decode(encoded, validate=True).decode(
                "utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            client_id, secret = "", ""
    app = store.application(client_id) if client_id else None
    if app is None or not secret or not secrets.compare_digest(
            secret.encode(), app.client_secret.encode()):
        raise OAuthError("invalid_client", status=401)
    return app
