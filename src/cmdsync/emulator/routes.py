"""The command endpoints, and the table of every Discord route the emulator serves.

Paths and semantics: Discord's "Application Commands" documentation (endpoints); the
identity endpoints (``/users/@me``, ``/applications/@me`` ...) are in
:mod:`cmdsync.emulator.resources.identity`, the interaction routes in
:mod:`cmdsync.emulator.interactions.responses` and ``follow_ups``, users, members,
channels and roles in :mod:`cmdsync.emulator.resources.guilds`, channel messages in
:mod:`cmdsync.emulator.resources.messages`.
Each :class:`Route` names its handler, its rate-limit bucket (routes sharing a
bucket share a limit; as on Discord, listing and bulk-overwriting a scope's
commands share one) and whether it is a read or a write (for the request log's
counts).

The two routes that answer with a scope's commands answer with their JSON
already encoded (bytes, from
:func:`cmdsync.emulator.application_commands.bodies.commands_json`): each command's JSON
is made once per version, and a listing once per version of the
scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from cmdsync.emulator.application_commands import bodies, commands
from cmdsync.emulator.application_commands.overwrites import (
    get_permissions,
    guild_permissions,
    put_permissions,
)
from cmdsync.emulator.gateway.rest import get_gateway, get_gateway_bot
from cmdsync.emulator.interactions import follow_ups
from cmdsync.emulator.interactions import responses as interactions
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Handler, Reply
from cmdsync.emulator.resources import (
    channels,
    guilds,
    identity,
    messages,
    moderation,
    pins,
    roles,
    threads,
)


def list_commands(call: Call) -> Reply:
    """GET .../commands[?with_localizations=true]: made once per version of the scope
    (:meth:`~cmdsync.emulator.store.database.Store.scope_version`) and way of asking."""
    localizations, locale = call.with_localizations(), call.locale()
    with call.scope() as scope:
        store, app = scope.store, scope.app
        return Reply(200, store.remembered(
            ("list", app.id, scope.guild_id, app.integration_types, localizations, locale),
            store.scope_version(app.id, scope.guild_id),
            lambda: bodies.commands_json(scope.commands(), app, localizations=localizations,
                                         locale=locale)))


def create_command(call: Call) -> Reply:
    """POST .../commands: 201 created, 200 overwrote the command of that name."""
    with call.scope() as scope:
        status, command = commands.upsert(scope, call.body)
        return Reply(status, bodies.command(command, scope.app), int(status == 201))


def bulk_overwrite(call: Call) -> Reply:
    """PUT .../commands: 200 and the scope's full list."""
    with call.scope() as scope:
        saved, creates = commands.bulk_overwrite(scope, call.body)
        return Reply(200, bodies.commands_json(saved, scope.app), creates)


def get_command(call: Call) -> Reply:
    with call.scope() as scope:
        command = scope.store.command(scope.db, scope.app.id, scope.guild_id,
                                      call.params["command_id"])
        if command is None:
            raise error_replies.unknown("command")
        return Reply(200, bodies.command(command, scope.app))


def edit_command(call: Call) -> Reply:
    with call.scope() as scope:
        command = commands.edit(scope, call.params["command_id"], call.body)
        return Reply(200, bodies.command(command, scope.app))


def delete_command(call: Call) -> Reply:
    with call.scope() as scope:
        commands.delete(scope, call.params["command_id"])
        return Reply(204, None)


@dataclass(frozen=True)
class Route:
    """One method on one path: its handler, rate-limit bucket and kind.

    ``auth`` False: no ``Authorization`` (the interaction routes, where the
    interaction token in the path is the credential). ``forms``: the body may
    be multipart/form-data or form-urlencoded with ``payload_json`` too
    (:mod:`cmdsync.emulator.reference.request_body`), as on Discord's message routes.
    ``optional_body``: an empty body is read as none, as Discord reads the PUTs that take
    an optional one (a ban, a member's role). ``inline``: the handler runs on the server's event loop, not in a worker thread: a
    short one that never waits for another request (the command and permission routes,
    in-memory SQLite work); the others may wait for a bot (an interaction's answer, an
    endpoint's verification) and run in threads.
    """

    path: str
    method: str
    handler: Handler
    bucket: str
    auth: bool = True
    forms: bool = False
    inline: bool = False
    optional_body: bool = False  # an empty body is no body (a ban, a role given), not 50109

    @property
    def writes(self) -> bool:
        return self.method != "GET"


_APP = "/applications/{application_id}"
_GUILD = _APP + "/guilds/{guild_id}"
_WEBHOOK = "/webhooks/{application_id}/{interaction_token}"
_CHANNEL = "/channels/{channel_id}"
# In match order: "/applications/@me" before "/applications/{application_id}", the
# literal ".../commands/permissions" before ".../commands/{command_id}".
# PUT .../commands/permissions (batch edit) is deliberately absent: Discord answers 405.
ROUTES: tuple[Route, ...] = (
    Route("/users/@me", "GET", identity.current_user, "users/@me"),
    Route("/gateway", "GET", get_gateway, "gateway", auth=False),
    Route("/gateway/bot", "GET", get_gateway_bot, "gateway"),
    Route("/applications/@me", "GET", identity.my_application, "application"),
    Route("/applications/@me", "PATCH", identity.edit_application, "application:edit"),
    Route("/oauth2/applications/@me", "GET", identity.my_application, "application"),
    Route("/oauth2/@me", "GET", identity.authorization, "oauth2/@me"),
    Route(_APP, "GET", identity.get_application, "application"),
    Route(_APP, "PATCH", identity.edit_application, "application:edit"),
    Route(_APP + "/commands", "GET", list_commands, "commands", inline=True),
    Route(_APP + "/commands", "PUT", bulk_overwrite, "commands", inline=True),
    Route(_APP + "/commands", "POST", create_command, "commands:create", inline=True),
    Route(_APP + "/commands/{command_id}", "GET", get_command, "command", inline=True),
    Route(_APP + "/commands/{command_id}", "PATCH", edit_command, "command:edit", inline=True),
    Route(_APP + "/commands/{command_id}", "DELETE", delete_command, "command:delete", inline=True),
    Route(_GUILD + "/commands", "GET", list_commands, "commands", inline=True),
    Route(_GUILD + "/commands", "PUT", bulk_overwrite, "commands", inline=True),
    Route(_GUILD + "/commands", "POST", create_command, "commands:create", inline=True),
    Route(_GUILD + "/commands/permissions", "GET", guild_permissions, "permissions", inline=True),
    Route(_GUILD + "/commands/{command_id}", "GET", get_command, "command", inline=True),
    Route(_GUILD + "/commands/{command_id}", "PATCH", edit_command, "command:edit", inline=True),
    Route(_GUILD + "/commands/{command_id}", "DELETE", delete_command, "command:delete",
          inline=True),
    Route(_GUILD + "/commands/{command_id}/permissions", "GET", get_permissions,
          "permissions", inline=True),
    Route(_GUILD + "/commands/{command_id}/permissions", "PUT", put_permissions,
          "permissions:edit", inline=True),
    Route("/interactions/{interaction_id}/{interaction_token}/callback", "POST",
          interactions.callback, "interaction:callback", auth=False, forms=True),
    Route(_WEBHOOK, "POST", follow_ups.execute, "webhook", auth=False, forms=True),
    Route(_WEBHOOK + "/messages/{message_id}", "GET", follow_ups.get_message, "webhook",
          auth=False),
    Route(_WEBHOOK + "/messages/{message_id}", "PATCH", follow_ups.edit_message, "webhook",
          auth=False, forms=True),
    Route(_WEBHOOK + "/messages/{message_id}", "DELETE", follow_ups.delete_message,
          "webhook", auth=False),
    # What a bot reads and sends beside the interaction (guilds, messages).
    Route("/users/@me/channels", "POST", guilds.create_dm, "users/@me/channels"),
    Route("/users/@me/guilds", "GET", guilds.my_guilds, "users/@me/guilds"),
    Route("/users/{user_id}", "GET", guilds.get_user, "users"),
    Route("/soundboard-default-sounds", "GET", guilds.default_sounds, "soundboard"),
    Route("/guilds/{guild_id}", "GET", guilds.get_guild, "guild"),
    Route("/guilds/{guild_id}/members/{user_id}", "GET", guilds.get_member, "members"),
    Route("/guilds/{guild_id}/members/{user_id}", "PATCH", moderation.edit_member,
          "members:edit"),
    Route("/guilds/{guild_id}/members/{user_id}", "DELETE", moderation.kick, "members:kick"),
    Route("/guilds/{guild_id}/members/{user_id}/roles/{role_id}", "PUT", moderation.add_role,
          "members:roles", optional_body=True),
    Route("/guilds/{guild_id}/members/{user_id}/roles/{role_id}", "DELETE",
          moderation.remove_role, "members:roles"),
    Route("/guilds/{guild_id}/bans", "GET", moderation.list_bans, "bans"),
    Route("/guilds/{guild_id}/bans/{user_id}", "GET", moderation.get_ban, "bans"),
    Route("/guilds/{guild_id}/bans/{user_id}", "PUT", moderation.ban, "bans:edit",
          optional_body=True),
    Route("/guilds/{guild_id}/bans/{user_id}", "DELETE", moderation.unban, "bans:edit"),
    Route("/guilds/{guild_id}/channels", "GET", guilds.list_channels, "guild/channels"),
    Route("/guilds/{guild_id}/channels", "POST", channels.create_channel,
          "guild/channels:create"),
    Route("/guilds/{guild_id}/roles", "GET", guilds.list_roles, "guild/roles"),
    Route("/guilds/{guild_id}/roles", "POST", roles.create_role, "guild/roles:edit"),
    Route("/guilds/{guild_id}/roles/{role_id}", "GET", roles.get_role, "guild/roles"),
    Route("/guilds/{guild_id}/roles/{role_id}", "PATCH", roles.edit_role, "guild/roles:edit"),
    Route("/guilds/{guild_id}/roles/{role_id}", "DELETE", roles.delete_role,
          "guild/roles:edit"),
    Route(_CHANNEL, "GET", guilds.get_channel, "channel"),
    Route(_CHANNEL, "PATCH", channels.edit_channel, "channel:edit"),
    Route(_CHANNEL, "DELETE", channels.delete_channel, "channel:delete"),
    Route(_CHANNEL + "/permissions/{overwrite_id}", "PUT", channels.put_overwrite,
          "channel/permissions"),
    Route(_CHANNEL + "/permissions/{overwrite_id}", "DELETE", channels.delete_overwrite,
          "channel/permissions"),
    Route(_CHANNEL + "/messages", "GET", messages.list_messages, "messages"),
    Route(_CHANNEL + "/messages", "POST", messages.create_message, "messages:create",
          forms=True),
    Route(_CHANNEL + "/messages/bulk-delete", "POST", pins.bulk_delete,
          "messages:bulk-delete"),
    Route(_CHANNEL + "/messages/pins", "GET", pins.list_pins, "pins"),
    Route(_CHANNEL + "/messages/pins/{message_id}", "PUT", pins.pin, "pins:edit",
          optional_body=True),
    Route(_CHANNEL + "/messages/pins/{message_id}", "DELETE", pins.unpin, "pins:edit"),
    Route(_CHANNEL + "/pins", "GET", pins.list_pins_deprecated, "pins"),
    Route(_CHANNEL + "/pins/{message_id}", "PUT", pins.pin, "pins:edit", optional_body=True),
    Route(_CHANNEL + "/pins/{message_id}", "DELETE", pins.unpin, "pins:edit"),
    Route(_CHANNEL + "/messages/{message_id}", "GET", messages.get_message, "messages"),
    Route(_CHANNEL + "/messages/{message_id}", "PATCH", messages.edit_message,
          "messages:edit", forms=True),
    Route(_CHANNEL + "/messages/{message_id}", "DELETE", messages.delete_message,
          "messages:delete"),
    Route(_CHANNEL + "/messages/{message_id}/threads", "POST", threads.start_from_message,
          "threads:create"),
    Route(_CHANNEL + "/threads", "POST", threads.start_thread, "threads:create", forms=True),
    Route(_CHANNEL + "/thread-members", "GET", threads.list_members, "thread-members"),
    Route(_CHANNEL + "/thread-members/@me", "PUT", threads.join, "thread-members:edit",
          optional_body=True),
    Route(_CHANNEL + "/thread-members/@me", "DELETE", threads.leave, "thread-members:edit"),
    Route(_CHANNEL + "/thread-members/{user_id}", "GET", threads.get_member,
          "thread-members"),
    Route(_CHANNEL + "/thread-members/{user_id}", "PUT", threads.add_member,
          "thread-members:edit", optional_body=True),
    Route(_CHANNEL + "/thread-members/{user_id}", "DELETE", threads.remove_member,
          "thread-members:edit"),
)
