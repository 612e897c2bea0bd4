"""A guild's channels as a bot manages them: create, modify and delete, and their
permission overwrites, with Discord's permission checks.

Discord's "Guild Resource" (Create Guild Channel), "Channel Resource" (Modify Channel,
Delete/Close Channel, Edit Channel Permissions, Delete Channel Permission) and "Topics >
Permissions" ("Permission Overwrites"). Each route reads as parse, check, call,
serialize. The bot's permissions in a channel are its guild permissions after the
channel's overwrites (:func:`~cmdsync.emulator.domain.permissions.in_channel`); without
VIEW_CHANNEL there it gets 403 50001 Missing Access. The checks answer as Discord does:

- creating needs MANAGE_CHANNELS, modifying and deleting MANAGE_CHANNELS in the channel
  (MANAGE_THREADS for a thread); overwrites (in a body, or edited alone) need
  MANAGE_ROLES too, and allow or deny only permissions the bot has, MANAGE_ROLES itself
  only for an administrator or a bot with a MANAGE_ROLES overwrite there (403 50013);
- an overwrite of a role or member the guild lacks, and deleting one the channel lacks,
  is 404 10009 Unknown Overwrite (observed); an unknown channel 404 10003; a DM 400 50003
  (closing one answers it, as Discord does); past 500 channels 400 30013; a bad field 400
  50035 (a ``parent_id`` that is not a category of the guild: ``CHANNEL_PARENT_INVALID``,
  the emulator's guess at Discord's leaf code).

:class:`Channels` makes each change in one transaction, then sends its gateway events
(GUILDS intent): CHANNEL_CREATE, CHANNEL_UPDATE (also for each channel a deleted
category leaves without a parent), CHANNEL_DELETE; THREAD_UPDATE and THREAD_DELETE for a
thread. A text, announcement or forum channel's name is lowercased with its spaces as
dashes, as Discord stores it. Positions are the order channels were made in; ``position``
and a thread's ``archived`` and ``locked`` are not modelled.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Guild
from cmdsync.emulator.domain.permissions import ChannelOverwrite, Permissions, in_channel
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.resources import objects, roles
from cmdsync.emulator.resources.roles import bot_guild, guild_permissions, require
from cmdsync.emulator.store.database import Store
from cmdsync.model import ChannelType

MAX_CHANNELS = 500  # "Maximum number of guild channels reached (500)"
CREATABLE = (0, 2, 4, 5, 13, 14, 15, 16)  # Create Guild Channel's ``type``s
_DASHED = (ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT, ChannelType.GUILD_FORUM,
           ChannelType.GUILD_MEDIA)
_FORUMS = (ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA)
UNKNOWN_OVERWRITE = (404, 10009, "Unknown Overwrite")


class Channels:
    """The changes to a guild's channels, each in its own transaction, then its events."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def create(self, guild: Guild, fields: dict[str, Any], now: float) -> dict[str, Any]:
        """Add the channel, a new snowflake its id: CHANNEL_CREATE; the channel."""
        with self.store.transaction() as db:
            channel_id = self.store.next_snowflake(db, now)
            self.store.put_fixture(db, "channel", guild["id"], channel_id,
                                   {"id": channel_id, **fields})
        body = self.shown(channel_id)
        self._send(guild, "CHANNEL_CREATE", body)
        return body

    def edit(self, guild: Guild, fixture: dict[str, Any]) -> dict[str, Any]:
        """Store the channel as it now is: CHANNEL_UPDATE (THREAD_UPDATE); the channel."""
        self.store.put_fixture(None, "channel", guild["id"], fixture["id"], fixture)
        body = self.shown(fixture["id"])
        threads = int(fixture["type"]) in objects.THREADS
        self._send(guild, "THREAD_UPDATE" if threads else "CHANNEL_UPDATE", body)
        return body

    def delete(self, guild: Guild, fixture: dict[str, Any]) -> dict[str, Any]:
        """Delete the channel (and its pins); a category's channels lose their parent
        (CHANNEL_UPDATE each): CHANNEL_DELETE (THREAD_DELETE); the channel as it was."""
        body = self.shown(fixture["id"])
        children: list[dict[str, Any]] = [
            dict(c) for c in self.store.channels(guild["id"])
            if dict(c).get("parent_id") == fixture["id"]]
        with self.store.transaction() as db:
            self.store.delete_fixture(db, "channel", guild["id"], fixture["id"])
            db.execute("DELETE FROM fixtures WHERE kind = 'pin' AND guild_id = ?",
                       (fixture["id"],))
            for child in children:
                self.store.put_fixture(db, "channel", guild["id"], child["id"],
                                       {**child, "parent_id": None})
        if int(fixture["type"]) in objects.THREADS:
            self._send(guild, "THREAD_DELETE", {key: body[key] for key in (
                "id", "guild_id", "parent_id", "type")})
        else:
            self._send(guild, "CHANNEL_DELETE", body)
        for child in children:
            self._send(guild, "CHANNEL_UPDATE", self.shown(child["id"]))
        return body

    def shown(self, channel_id: str) -> dict[str, Any]:
        """The channel as Discord sends it."""
        found = objects.find_channel(self.store, channel_id)
        assert found is not None
        return found[1]

    def _send(self, guild: Guild, event: str, body: dict[str, Any]) -> None:
        roles.send(self.store, self.events, guild["id"], event, body, Intent.GUILDS)


# -- the routes ---------------------------------------------------------------------


def create_channel(call: Call) -> Reply:
    """``POST /guilds/{guild_id}/channels``: 201 and the channel."""
    guild = bot_guild(call)
    body = roles.body_object(call.body)
    require(call, guild, Permissions.MANAGE_CHANNELS)
    kind = body.get("type") if body.get("type") is not None else 0
    if isinstance(kind, bool) or kind not in CREATABLE:
        raise error_replies.field_error(("type",), "BASE_TYPE_CHOICES",
                                        f"Value must be one of {set(CREATABLE)}.")
    fields = _fields(call, guild, body, int(kind), creating=True)
    if "permission_overwrites" in fields:
        _may_overwrite(call, guild, fields["permission_overwrites"], channel=None)
    if len(call.store.channels(guild["id"])) >= MAX_CHANNELS:
        raise error_replies.ErrorReply(400, 30013, "Maximum number of guild channels "
                                                   f"reached ({MAX_CHANNELS})")
    return Reply(201, Channels(call.store, call.gateway).create(
        guild, {"type": int(kind), **fields}, call.now))


def edit_channel(call: Call) -> Reply:
    """``PATCH /channels/{channel_id}``: the channel as it now is."""
    guild, channel, permissions = place(call)
    body = roles.body_object(call.body)
    threads = int(channel["type"]) in objects.THREADS
    _need(permissions, Permissions.MANAGE_THREADS if threads else Permissions.MANAGE_CHANNELS)
    if body.get("type") is not None and body["type"] != channel["type"]:
        raise error_replies.ErrorReply(400, 50024, "Cannot execute action on this "
                                                   "channel type")
    fields = _fields(call, guild, body, int(channel["type"]), creating=False)
    if threads:
        fields = {key: value for key, value in fields.items() if key == "name"}
    if "permission_overwrites" in fields:
        _need(permissions, Permissions.MANAGE_ROLES)
        _may_overwrite(call, guild, fields["permission_overwrites"], channel=channel)
    return Reply(200, Channels(call.store, call.gateway).edit(guild, {**channel, **fields}))


def delete_channel(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}``: the channel as it was."""
    dm = objects.find_dm(call.store, call.params["channel_id"])
    if dm is not None and call.token.kind == "bot":
        return Reply(200, dm)  # closing a DM: it opens again with POST /users/@me/channels
    guild, channel, permissions = place(call)
    threads = int(channel["type"]) in objects.THREADS
    _need(permissions, Permissions.MANAGE_THREADS if threads else Permissions.MANAGE_CHANNELS)
    return Reply(200, Channels(call.store, call.gateway).delete(guild, channel))


def put_overwrite(call: Call) -> Reply:
    """``PUT /channels/{channel_id}/permissions/{overwrite_id}``: 204."""
    guild, channel, permissions = place(call)
    body = roles.body_object(call.body)
    if body.get("type") is None:
        raise error_replies.field_error(("type",), "BASE_TYPE_REQUIRED",
                                        "This field is required")
    overwrite = _overwrite(call, guild, {**body, "id": call.params["overwrite_id"]},
                           ("type",))
    _need(permissions, Permissions.MANAGE_ROLES)
    _may_overwrite(call, guild, [overwrite], channel=channel)
    kept = [o for o in channel.get("permission_overwrites") or []
            if o["id"] != overwrite["id"]]
    Channels(call.store, call.gateway).edit(
        guild, {**channel, "permission_overwrites": [*kept, overwrite]})
    return Reply(204, None)


def delete_overwrite(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}/permissions/{overwrite_id}``: 204."""
    guild, channel, permissions = place(call)
    _need(permissions, Permissions.MANAGE_ROLES)
    overwrites = channel.get("permission_overwrites") or []
    kept = [o for o in overwrites if o["id"] != call.params["overwrite_id"]]
    if len(kept) == len(overwrites):
        raise error_replies.ErrorReply(*UNKNOWN_OVERWRITE)
    Channels(call.store, call.gateway).edit(guild, {**channel, "permission_overwrites": kept})
    return Reply(204, None)


# -- the checks ----------------------------------------------------------------------


def place(call: Call) -> tuple[Guild, dict[str, Any], int]:
    """The guild channel in the path (its fixture) and the bot's permissions in it:
    403 20002 for a Bearer token, 404 10003, 400 50003 for a DM, 403 50001 where the
    application is not installed or the bot cannot see the channel."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    found = call.store.find_channel(call.params["channel_id"])
    if found is None:
        if objects.find_dm(call.store, call.params["channel_id"]) is not None:
            raise error_replies.ErrorReply(400, 50003, "Cannot execute action on a DM "
                                                       "channel")
        raise error_replies.unknown("channel")
    guild_id, channel = found[0], call.store.fixture("channel", found[0], found[1]["id"])
    guild = call.store.guild(guild_id)
    if guild is None or channel is None or not call.store.installed_in(
            guild_id, call.token.application_id):
        raise error_replies.missing_access()
    permissions = channel_permissions(call, guild, channel)
    if not permissions & Permissions.VIEW_CHANNEL:
        raise error_replies.missing_access()
    return guild, channel, permissions


def channel_permissions(call: Call, guild: Guild, channel: dict[str, Any]) -> int:
    """The bot's permissions in ``channel``: its guild permissions after the overwrites."""
    bot_id = call.token.application_id
    member = call.store.member(guild["id"], bot_id)
    return int(in_channel(guild_permissions(call, guild), [
        ChannelOverwrite.from_payload(o) for o in channel.get("permission_overwrites") or []],
        guild_id=guild["id"], user_id=bot_id,
        roles=list(member.get("roles") or []) if member else []))


def _need(permissions: int, permission: Permissions) -> None:
    if not permissions & permission:
        raise error_replies.missing_permissions()


def _may_overwrite(call: Call, guild: Guild, overwrites: list[dict[str, Any]], *,
                   channel: dict[str, Any] | None) -> None:
    """Overwrites allow or deny only what the bot has in the guild; MANAGE_ROLES only
    for an administrator, or a bot with a MANAGE_ROLES overwrite in the channel: 50013."""
    require(call, guild, Permissions.MANAGE_ROLES)
    bits = guild_permissions(call, guild)
    admin = bool(bits & Permissions.ADMINISTRATOR)
    granted = channel is not None and _has_roles_overwrite(call, guild, channel)
    for overwrite in overwrites:
        both = int(overwrite["allow"]) | int(overwrite["deny"])
        if both & ~bits and not granted:
            raise error_replies.missing_permissions()
        if both & Permissions.MANAGE_ROLES and not (admin or granted):
            raise error_replies.missing_permissions()


def _has_roles_overwrite(call: Call, guild: Guild, channel: dict[str, Any]) -> bool:
    bot_id = call.token.application_id
    member = call.store.member(guild["id"], bot_id)
    mine = {bot_id, guild["id"], *(member.get("roles") or [] if member else [])}
    return any(o["id"] in mine and int(o["allow"]) & Permissions.MANAGE_ROLES
               for o in channel.get("permission_overwrites") or [])


def _fields(call: Call, guild: Guild, body: dict[str, Any], kind: int, *, creating: bool
            ) -> dict[str, Any]:
    """A channel's fields from a Create Guild Channel or Modify Channel body, checked
    (50035) and kept for the types that have them; a null resets a field."""
    fields: dict[str, Any] = {}
    if creating or "name" in body:
        name = body.get("name")
        if name is None:
            raise error_replies.field_error(("name",), "BASE_TYPE_REQUIRED",
                                            "This field is required")
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= roles.MAX_NAME:
            raise error_replies.field_error(("name",), "BASE_TYPE_BAD_LENGTH",
                                            f"Must be between 1 and {roles.MAX_NAME} in "
                                            "length.")
        fields["name"] = (name.strip().lower().replace(" ", "-") if kind in _DASHED
                          else name.strip())
    if "topic" in body:
        most = 4096 if kind in _FORUMS else 1024
        fields["topic"] = _text(body["topic"], "topic", most)
    if "nsfw" in body:
        fields["nsfw"] = bool(body["nsfw"])
    for key, least, most, reset in (("rate_limit_per_user", 0, 21600, 0),
                                    ("bitrate", 8000, 96000, 64000),
                                    ("user_limit", 0, 99 if kind != 13 else 10000, 0)):
        if key in body:
            fields[key] = reset if body[key] is None else _number(body[key], key, least, most)
    if "parent_id" in body:
        fields["parent_id"] = _parent(call, guild, body["parent_id"], kind)
    if body.get("permission_overwrites") is not None:
        items = body["permission_overwrites"]
        if not isinstance(items, list) or len(items) > 100:
            raise error_replies.field_error(("permission_overwrites",), "BASE_TYPE_MAX_LENGTH",
                                            "Must be 100 or fewer in length.")
        fields["permission_overwrites"] = [
            _overwrite(call, guild, item, ("permission_overwrites", str(index)))
            for index, item in enumerate(items)]
    return fields


def _overwrite(call: Call, guild: Guild, item: Any, path: tuple[str, ...]) -> dict[str, Any]:
    """One overwrite as stored (``allow`` and ``deny`` as decimal strings); its role or
    member must be the guild's (404 10009)."""
    if not isinstance(item, dict) or not str(item.get("id") or "").isdigit():
        raise error_replies.field_error(path, "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    kind = item.get("type") if item.get("type") is not None else 0
    if kind not in (0, 1, "0", "1"):
        raise error_replies.field_error(path, "BASE_TYPE_CHOICES",
                                        "Value must be one of {0, 1}.")
    target = str(item["id"])
    known = (call.store.role(guild["id"], target) is not None or target == guild["id"]
             if int(kind) == 0 else call.store.member(guild["id"], target) is not None)
    if not known:
        raise error_replies.ErrorReply(*UNKNOWN_OVERWRITE)
    return {"id": target, "type": int(kind),
            "allow": str(roles.bits(item.get("allow") or 0, "allow")),
            "deny": str(roles.bits(item.get("deny") or 0, "deny"))}


def _parent(call: Call, guild: Guild, value: Any, kind: int) -> str | None:
    if value is None:
        return None
    parent = call.store.fixture("channel", guild["id"], str(value))
    if parent is None or int(parent["type"]) != ChannelType.GUILD_CATEGORY or (
            kind == ChannelType.GUILD_CATEGORY):
        raise error_replies.field_error(("parent_id",), "CHANNEL_PARENT_INVALID",
                                        "Not a category")
    return str(value)


def _text(value: Any, name: str, most: int) -> str | None:
    if value is not None and (not isinstance(value, str) or len(value) > most):
        raise error_replies.field_error((name,), "BASE_TYPE_MAX_LENGTH",
                                        f"Must be {most} or fewer in length.")
    return value or None


def _number(value: Any, name: str, least: int, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise error_replies.field_error((name,), "NUMBER_TYPE_MAX",
                                        f"int value should be <= {most} and >= {least}.")
    return value

