"""``POST /oauth2/token``: the client-credentials grant.

Discord's "Application Commands" documentation (endpoints): a form-encoded body
``grant_type=client_credentials&scope=applications.commands.update`` with
HTTP Basic ``client_id:client_secret`` (the form fields ``client_id`` and
``client_secret`` are accepted too) answers ``{"access_token", "token_type":
"Bearer", "expires_in": 604800, "scope"}`` and no refresh token. The token is
a bearer token of that application carrying exactly the scopes granted; it
expires after ``expires_in`` seconds. Errors are OAuth2's (RFC 6749 5.2):
401 ``invalid_client``, 400 ``unsupported_grant_type``, ``invalid_scope``
or ``invalid_request``.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from urllib.parse import parse_qs

from cmdsync.emulator.database import Store, Token
from cmdsync.emulator.seed import COMMANDS_SCOPE, PERMISSIONS_SCOPE

TOKEN_LIFETIME = 604800  # seconds (Discord's documentation)
GRANTABLE_SCOPES = frozenset({COMMANDS_SCOPE, PERMISSIONS_SCOPE, "applications.commands",
                              "identify", "guilds", "connections", "email"})


def client_credentials(store: Store, body: bytes, authorization: str | None, *,
                       now: float) -> tuple[int, dict[str, object]]:
    """Grant a token, or refuse: ``(status, JSON body)``; ``now`` in epoch seconds."""
    try:
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8"),
                                               keep_blank_values=True).items()}
    except UnicodeDecodeError:
        return 400, {"error": "invalid_request"}
    client_id, secret = _client(form, authorization)
    app = store.application(client_id)
    if app is None or not secret or not secrets.compare_digest(
            secret.encode(), app.client_secret.encode()):
        return 401, {"error": "invalid_client"}
    if form.get("grant_type") != "client_credentials":
        return 400, {"error": "unsupported_grant_type"}
    scopes = frozenset(form.get("scope", "").split())
    if not scopes or not scopes <= GRANTABLE_SCOPES:
        return 400, {"error": "invalid_scope",
                     "error_description": "The requested scope is invalid, unknown, or "
                                          "malformed."}
    value = secrets.token_urlsafe(24)
    store.add_token(Token(value, "bearer", app.id, None, scopes, now + TOKEN_LIFETIME,
                          frozenset()))
    return 200, {"access_token": value, "token_type": "Bearer",
                 "expires_in": TOKEN_LIFETIME, "scope": " ".join(sorted(scopes))}


def _client(form: dict[str, str], authorization: str | None) -> tuple[str, str]:
    """``(client_id, client_secret)`` from HTTP Basic, else from the form ("" if bad)."""
    scheme, _, encoded = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return form.get("client_id", ""), form.get("client_secret", "")
    try:
        client_id, _, secret = base64.b64decode(encoded, validate=True).decode(
            "utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return "", ""
    return client_id, secret
