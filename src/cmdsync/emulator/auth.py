"""Who may call what: tokens, applications, guilds and scopes.

``Authorization: Bot <token>`` or ``Bearer <token>`` (FACTS.md "Endpoints"
and "Errors"): a missing, unknown or expired token is 401 code 0; another
application's token 403 code 20012; a bot token on the permission PUT 403
code 20001; a bearer token without a needed scope 401 code 40001 (observed)
or 403 code 50026; a user who may not manage the guild 403 code 50013.
"""

from __future__ import annotations

import time

from cmdsync.emulator import errors
from cmdsync.emulator.seed import COMMANDS_SCOPE, PERMISSIONS_SCOPE
from cmdsync.emulator.store import Application, Store, Token


def authenticate(store: Store, header: str | None) -> Token:
    """The token named by an ``Authorization`` header, or 401."""
    if not header or " " not in header:
        raise errors.unauthorized()
    scheme, _, value = header.partition(" ")
    token = store.token(value.strip())
    if token is None or scheme.lower() != token.kind:
        raise errors.unauthorized()
    if token.expires_at is not None and token.expires_at < time.time():
        raise errors.unauthorized()
    return token


def application(store: Store, token: Token, app_id: str) -> Application:
    """The application in the path, if this token may act for it."""
    app = store.application(app_id)
    if app is None:
        raise errors.unknown("application")
    if token.application_id != app_id:
        raise errors.ApiError(403, 20012, "You are not authorized to perform this action on "
                              "this application")
    return app


def guild(store: Store, guild_id: str) -> None:
    if not store.guild_exists(guild_id):
        raise errors.unknown("guild")


def may_write_commands(token: Token) -> None:
    """Bots may; bearer tokens need ``applications.commands.update``."""
    if token.kind == "bearer" and COMMANDS_SCOPE not in token.scopes:
        raise errors.ApiError(403, 50026, "Missing required OAuth2 scope")


def may_edit_permissions(token: Token, guild_id: str) -> None:
    """Only a user's bearer token with the scope, for a guild it may manage."""
    if token.kind == "bot":
        raise errors.ApiError(403, 20001, "Bots cannot use this endpoint")
    if PERMISSIONS_SCOPE not in token.scopes:
        raise errors.ApiError(401, 40001, "Unauthorized")
    if guild_id not in token.guilds:
        raise errors.ApiError(403, 50013, "Missing Permissions")
