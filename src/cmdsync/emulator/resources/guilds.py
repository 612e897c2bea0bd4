"""The read-only routes a bot calls for users, members, channels and roles.

Bodies are :mod:`cmdsync.emulator.resources.objects` (Discord's "User", "Guild" and
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
- ``GET /users/@me/guilds[?before=&after=&limit=&with_counts=true]``: the
  guilds of the caller (``MyGuildResponse``: ``id``, ``name``, ``owner``,
  ``permissions``, ...), sorted by id, at most ``limit`` (1-200, default
  200). A bot token: the guilds its application is installed in. A Bearer
  token with scope ``guilds``: those its user is a member or the owner of, or
  may manage (the seed's ``users[].guilds``, whose ``permissions`` include
  MANAGE_GUILD); without the scope 401 code 40001.
- ``POST /users/@me/channels`` ``{"recipient_id"}``: the bot's DM channel
  with a seeded user (the one that user's BOT_DM interactions carry); 400
  50033 Invalid Recipient(s) for anyone else.
- ``GET /soundboard-default-sounds``: Discord's default soundboard sounds
  ("Soundboard > List Default Soundboard Sounds"), which py-cord reads before it is
  ready: the one Discord's docs show ("Example Default Soundboard Sound", ``quack``).

The guild routes take a bot token (a Bearer token gets 403 code 20002) of an
application installed in the guild: 404 10004 for an unknown guild, 403
50001 Missing Access for one the application is not in.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.reference import access, error_replies
from cmdsync.emulator.reference.call import Call, Reply
from cmdsync.emulator.resources import messages, objects, profiles
from cmdsync.model import ALL_PERMISSION_BITS, Permission


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


def my_guilds(call: Call) -> Reply:
    """``GET /users/@me/guilds``."""
    token, store = call.token, call.store
    limit = call.query.get("limit", "200")
    if not (limit.isdigit() and 1 <= int(limit) <= 200):
        raise error_replies.field_error(("limit",), "NUMBER_TYPE_MAX",
                                        "int value should be between 1 and 200.")
    if token.kind == "bot":
        found = [(g, objects.bot_permissions(store, g, token.application_id), False)
                 for g in store.guilds_of(token.application_id)]
    elif "guilds" not in token.scopes:
        raise error_replies.missing_scope()
    else:
        app = store.application(token.application_id)
        user_id = token.user_id or (profiles.owner_id(store, app) if app else "")
        found = _users_guilds(call, user_id)
    after, before = call.query.get("after", ""), call.query.get("before", "")
    found = [item for item in sorted(found, key=lambda item: int(item[0]))
             if (not after.isdigit() or int(item[0]) > int(after))
             and (not before.isdigit() or int(item[0]) < int(before))]
    with_counts = call.query.get("with_counts", "").lower() in ("true", "1")
    return Reply(200, [_my_guild(call, guild_id, bits, owner, with_counts)
                       for guild_id, bits, owner in found[:int(limit)]])


def _users_guilds(call: Call, user_id: str) -> list[tuple[str, int, bool]]:
    """``(guild id, permissions, owner)`` of each guild the user is in or may manage."""
    store = call.store
    user = store.user(user_id)
    managed = call.token.guilds | {str(g) for g in (user.get("guilds") if user else None) or []}
    found = []
    for guild_id in store.guild_ids():
        guild = store.guild(guild_id)
        if guild is None:
            continue
        member = store.member(guild_id, user_id)
        owner = guild.get("owner_id") == user_id
        if member is None and not owner and guild_id not in managed:
            continue
        bits = (store.member_permissions(guild, user_id, member) if member is not None
                else ALL_PERMISSION_BITS if owner else 0)
        if guild_id in managed:
            bits |= 1 << Permission.MANAGE_GUILD
        found.append((guild_id, bits, owner))
    return found


def _my_guild(call: Call, guild_id: str, bits: int, owner: bool, with_counts: bool
              ) -> dict[str, Any]:
    guild = call.store.guild(guild_id)
    body: dict[str, Any] = {"id": guild_id, "name": guild["name"] if guild else "", "icon": None,
                            "banner": None, "owner": owner, "permissions": str(bits),
                            "features": []}
    if with_counts:
        body.update(approximate_member_count=len(call.store.members(guild_id)),
                    approximate_presence_count=0)
    return body


def create_dm(call: Call) -> Reply:
    """``POST /users/@me/channels`` ``{"recipient_id"}``: the bot's DM channel."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    body = call.body if isinstance(call.body, dict) else {}
    recipient = body.get("recipient_id")
    found = objects.dm_channel(call.store, str(recipient), call.token.application_id) \
        if isinstance(recipient, (str, int)) and str(recipient).isdigit() else None
    if found is None:
        raise error_replies.ErrorReply(400, 50033, "Invalid Recipient(s)")
    return Reply(200, found)


# "Soundboard > Soundboard Sound Object > Example Default Soundboard Sound": a default
# sound has no guild_id and no user.
DEFAULT_SOUNDS = ({"name": "quack", "sound_id": "1", "volume": 1.0, "emoji_id": None,
                   "emoji_name": "\N{DUCK}", "available": True},)


def default_sounds(call: Call) -> Reply:
    """``GET /soundboard-default-sounds``: a bot token only (openapi.json: BotToken)."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    return Reply(200, [dict(sound) for sound in DEFAULT_SOUNDS])


def _guild(call: Call) -> str:
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    guild_id = call.params["guild_id"]
    access.guild(call.store, guild_id, call.token.application_id)
    return guild_id
