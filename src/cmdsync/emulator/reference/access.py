"""Who may call what: tokens, applications, guilds and scopes.

``Authorization: Bot <token>`` or ``Bearer <token>`` (Discord's "Application Commands" documentation (endpoints),
"Errors"):

- a missing, malformed, unknown or expired token: 401 code 0;
- a token of another application than the one in the path: 403 code 20012;
- a bearer token without the scope the endpoint needs: 401 code 40001
  (observed; Discord said it may become 50026). Command endpoints need
  ``applications.commands.update``, permission endpoints
  ``applications.commands.permissions.update`` (openapi.json security);
- editing permissions with a bot token: 403 code 20001; with a user who may
  not manage the guild: 403 code 50013.
"""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection

from cmdsync.emulator.domain.enums import OAuth2Scope
from cmdsync.emulator.domain.objects import Application, Token
from cmdsync.emulator.reference import error_replies

COMMANDS_SCOPE = OAuth2Scope.COMMANDS_UPDATE.value
PERMISSIONS_SCOPE = OAuth2Scope.PERMISSIONS_UPDATE.value
from cmdsync.emulator.store.database import Store


def authenticate(store: Store, header: str | None, *, now: float) -> Token:
    """The token an ``Authorization`` header names, or 401.

    ``now`` is epoch seconds, for the expiry of client-credentials tokens.
    """
    scheme, _, value = (header or "").strip().partition(" ")
    token = store.token(value.strip()) if value.strip() else None
    if token is None or scheme.lower() != token.kind:
        raise error_replies.unauthorized()
    if token.expires_at is not None and token.expires_at <= now:
        raise error_replies.unauthorized()
    return token


def application(store: Store, token: Token, app_id: str) -> Application:
    """The application in the path, if ``token`` may act for it (else 404 / 403)."""
    app = store.application(app_id)
    if app is None:
        raise error_replies.unknown("application")
    if token.application_id != app_id:
        raise error_replies.other_application()
    return app


def guild(store: Store, guild_id: str, application_id: str) -> None:
    """404 code 10004 unless the guild exists; 403 code 50001 (Missing Access) unless the
    application is installed in it with the applications.commands scope."""
    if not store.guild_exists(guild_id):
        raise error_replies.unknown("guild")
    if not store.installed_in(guild_id, application_id):
        raise error_replies.missing_access()


def require_scope(token: Token, *, permissions: bool) -> None:
    """Bots pass; bearer tokens need the endpoint's scope (401 code 40001)."""
    scope = PERMISSIONS_SCOPE if permissions else COMMANDS_SCOPE
    if token.kind == "bearer" and scope not in token.scopes:
        raise error_replies.missing_scope()


def not_a_bot(token: Token) -> None:
    """Editing permissions needs a user's bearer token (403 code 20001)."""
    if token.kind == "bot":
        raise error_replies.bots_forbidden()


def manages_guild(token: Token, guild_id: str) -> None:
    """The token's user may manage the guild (else 403 code 50013)."""
    if guild_id not in token.guilds:
        raise error_replies.missing_permissions()


def loopback(host: str) -> bool:
    """Whether ``host`` (a ``Host`` header's name, lower case) names this machine's
    loopback: ``localhost``, ``127.0.0.0/8`` or ``::1``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def foreign_host(connection: HTTPConnection) -> str | None:
    """The host a request or websocket names (its ``Host`` header's name, lower case),
    when that is not a loopback name nor one the emulator was started on
    (``app.state.admin_hosts``: a DNS-rebinding page names its own); None when it is
    the emulator's own."""
    host = (connection.url.hostname or "").lower().rstrip(".")
    return None if loopback(host) or host in connection.app.state.admin_hosts else host
