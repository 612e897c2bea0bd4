"""The read-only routes a bot calls for users, members, channels and roles.

Bodies are :mod:`cmdsync.emulator.objects` (Discord's "User", "Guild" and
"Channel" resource docs):

- ``GET /users/{user.id}``: a seeded user or an application's bot user,
  for any token; 404 10013 Unknown User.
- ``GET /guilds/{guild.id}/members/{user.id}``: a member fixture; 404 10007
  Unknown Member.
- ``GET /guilds/{guild.id}/channels``, ``GET /guilds/{guild.id}/roles``:
  every channel and role of the guild.
- ``GET /guilds/{guild.id}[?with_counts=true]``: the guild, its roles and
  (with counts) its member count.
- ``GET /channels/{channel.id}``: a guild channel the bot can see (403
  50001 without VIEW_CHANNEL), or its DM channel with a user; 404 10003
  Unknown Channel.
- ``POST /users/@me/channels`` ``{"recipient_id"}``: the bot's DM channel
  with a seeded user (the one that user's BOT_DM interactions carry); 400
  50033 Invalid Recipient(s) for anyone else.

The guild routes take a bot token (a Bearer token gets 403 code 20002) of an
application installed in the guild: 404 10004 for an unknown guild, 403
50001 Missing Access for one the application is not in.
"""

from __future__ import annotations

from cmdsync.emulator import access, error_replies, messages, objects
from cmdsync.emulator.call import Call, Reply


def get_user(call: Call) -> Reply:
    """``GET /users/{user_id}``."""
    found = objects.user(call.store, call.params["user_id"])
    if found is None:
        raise error_replies.unknown("user")
    return Reply(200, found)


def get_member(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/members/{user_id}``."""
    guild_id = _guild(call)
    found = objects.member(call.store, guild_id, call.params["user_id"])
    if found is None:
        raise error_replies.unknown("member")
    return Reply(200, found)


def list_channels(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/channels``."""
    return Reply(200, objects.channels(call.store, _guild(call)))


def list_roles(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/roles``."""
    return Reply(200, objects.roles(call.store, _guild(call)))


def get_channel(call: Call) -> Reply:
    """``GET /channels/{channel_id}``."""
    return Reply(200, messages.place(call).channel)


def get_guild(call: Call) -> Reply:
    """``GET /guilds/{guild_id}[?with_counts=true]``."""
    with_counts = call.query.get("with_counts", "").lower() in ("true", "1")
    return Reply(200, objects.guild(call.store, _guild(call), with_counts=with_counts))


def create_dm(call: Call) -> Reply:
    """``POST /users/@me/channels`` ``{"recipient_id"}``: the bot's DM channel."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    body = call.body if isinstance(call.body, dict) else {}
    recipient = body.get("recipient_id")
    found = objects.dm_channel(call.store, str(recipient)) if isinstance(
        recipient, (str, int)) and str(recipient).isdigit() else None
    if found is None:
        raise error_replies.ErrorReply(400, 50033, "Invalid Recipient(s)")
    return Reply(200, found)


def _guild(call: Call) -> str:
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    guild_id = call.params["guild_id"]
    access.guild(call.store, guild_id, call.token.application_id)
    return guild_id
