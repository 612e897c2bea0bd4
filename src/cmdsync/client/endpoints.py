"""Typed functions for every Discord call plan and apply make (Discord's "Application Commands" documentation (endpoints)).

``scope`` is ``"global"`` or a guild id (a snowflake string). Each function
returns Discord's JSON as parsed and raises
:class:`~cmdsync.errors.ApiError` /
:class:`~cmdsync.errors.NetworkError` on failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from cmdsync.client.auth import Token
from cmdsync.client.http import DiscordClient

Json = dict[str, Any]
_GLOBAL = "/applications/{}/commands"
_GUILD = "/applications/{}/guilds/{}/commands"


def commands_path(application_id: str, scope: str) -> tuple[str, str]:
    """``(path, route template)`` of a scope's commands collection."""
    if scope == "global":
        return f"/applications/{application_id}/commands", _GLOBAL
    return f"/applications/{application_id}/guilds/{scope}/commands", _GUILD


async def list_commands(client: DiscordClient, application_id: str, scope: str) -> list[Json]:
    """``GET .../commands?with_localizations=true``: every command of the scope."""
    path, route = commands_path(application_id, scope)
    body = await client.request("GET", path, route=route,
                                params={"with_localizations": "true"})
    return cast(list[Json], body or [])


async def list_guild_permissions(client: DiscordClient, application_id: str,
                                 guild_id: str) -> list[Json]:
    """``GET .../guilds/{guild}/commands/permissions``: the guild's overwrite sets.

    Only commands with overwrites appear; an entry whose ``id`` is the
    application id is the application-wide set. Uses the bot token, else the
    user's Bearer token (client-credentials tokens may not read overwrites).
    """
    path, route = commands_path(application_id, guild_id)
    body = await client.request("GET", path + "/permissions", route=route + "/permissions",
                                permissions=True)
    return cast(list[Json], body or [])


async def check_user_token(client: DiscordClient, application_id: str, guild_id: str) -> None:
    """``GET .../guilds/{guild}/commands/permissions`` with the user's Bearer token.

    A read that proves, before any write, that the token exists, belongs to
    the application (else 403 code 20012) and has scope
    ``applications.commands.permissions.update`` (else 401 code 40001).
    Whether the user may manage the guild (403 code 50013) only a PUT shows.
    """
    path, route = commands_path(application_id, guild_id)
    await client.request("GET", path + "/permissions", route=route + "/permissions",
                         permissions=True, as_user=True)


async def create_command(client: DiscordClient, application_id: str, scope: str,
                         body: Mapping[str, Any]) -> Json:
    """``POST .../commands``: create (201), or overwrite the same name and type (200)."""
    path, route = commands_path(application_id, scope)
    return cast(Json, await client.request("POST", path, route=route, json_body=dict(body)))


async def edit_command(client: DiscordClient, application_id: str, scope: str,
                       command_id: str, body: Mapping[str, Any]) -> Json:
    """``PATCH .../commands/{id}``: each field sent replaces the stored one."""
    path, route = commands_path(application_id, scope)
    return cast(Json, await client.request("PATCH", f"{path}/{command_id}",
                                           route=route + "/{}", json_body=dict(body)))


async def delete_command(client: DiscordClient, application_id: str, scope: str,
                         command_id: str) -> None:
    """``DELETE .../commands/{id}`` (204); Discord drops the command's overwrites."""
    path, route = commands_path(application_id, scope)
    await client.request("DELETE", f"{path}/{command_id}", route=route + "/{}")


async def bulk_overwrite(client: DiscordClient, application_id: str, scope: str,
                         bodies: Sequence[Mapping[str, Any]]) -> list[Json]:
    """``PUT .../commands``: the scope becomes exactly ``bodies``; an ``id`` keeps a command."""
    path, route = commands_path(application_id, scope)
    body = await client.request("PUT", path, route=route, json_body=[dict(b) for b in bodies])
    return cast(list[Json], body or [])


async def put_permissions(client: DiscordClient, application_id: str, guild_id: str,
                          target_id: str, overwrites: Sequence[Mapping[str, Any]]) -> Json:
    """``PUT .../guilds/{guild}/commands/{id}/permissions``: replace all overwrites.

    ``target_id`` is a command id, or the application id for the
    application-wide set. Needs the user's Bearer token (``Auth.permissions``).
    """
    path, route = commands_path(application_id, guild_id)
    return cast(Json, await client.request(
        "PUT", f"{path}/{target_id}/permissions", route=route + "/{}/permissions",
        json_body={"permissions": [dict(o) for o in overwrites]}, permissions=True))


async def get_application(client: DiscordClient) -> Json:
    """The credentials' application object.

    A bot token reads ``GET /applications/@me`` (``PrivateApplicationResponse``);
    client credentials read the ``application`` of ``GET /oauth2/@me``
    (``ApplicationResponse``), as openapi.json allows ``/applications/@me``
    to bot tokens only. Discord documents the latter as partial: it may lack
    ``flags`` or ``integration_types_config`` (see :mod:`cmdsync.state.application`).
    """
    commands = client.auth.commands
    if isinstance(commands, Token) and commands.scheme.lower() == "bot":
        return cast(Json, await client.request("GET", "/applications/@me",
                                               route="/applications/@me"))
    body = await client.request("GET", "/oauth2/@me", route="/oauth2/@me")
    return cast(Json, body.get("application") if isinstance(body, dict) else None)
