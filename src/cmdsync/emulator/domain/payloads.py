"""Discord's objects as it sends them, built from the emulator's types (pure: no store).

One serializer per resource, shared by REST, the gateway and the interaction
payload: users (``UserResponse``, a bot user), a seeded message (Discord's
"Message Object"), a message's or modal's components with their ``id``
(:func:`numbered_components`). Fields the emulator does not model take the values a new
account has. The serializers that need the store to find related objects (a
member's user, a channel's siblings) are in :mod:`cmdsync.emulator.resources.objects`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from typing import Any

from cmdsync.emulator.domain.objects import Application, Channel, Member, Role, SeedMessage, User
from cmdsync.model import ChannelType, InteractionContext

JOINED_AT = "2024-01-01T00:00:00+00:00"  # every seeded member's join date, and a thread's
_TEXT = (ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT)
_VOICE = (ChannelType.GUILD_VOICE, ChannelType.GUILD_STAGE_VOICE)
_FORUMS = (ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA)
AUTO_ARCHIVE = 4320  # minutes: a new channel's default_auto_archive_duration, its threads'


def bot_user(app: Application, *, pii: bool = True) -> dict[str, Any]:
    """The application's bot user; ``pii`` adds the ``UserPIIResponse`` fields."""
    body = _user_base(app.id, app.name, bot=True)
    if pii:
        body.update(mfa_enabled=True, locale="en-US", premium_type=0, email=None,
                    verified=True)
    return body


def user(user_id: str, *, pii: bool = False, username: str | None = None,
         global_name: str | None = None) -> dict[str, Any]:
    """A (human) user: ``username`` or ``user<last four digits>``; ``pii`` as in
    :func:`bot_user`."""
    body = _user_base(user_id, username or f"user{user_id[-4:]}", bot=False)
    body["global_name"] = global_name
    if pii:
        body.update(mfa_enabled=False, locale="en-US", premium_type=0, verified=True)
    return body


def _user_base(user_id: str, username: str, *, bot: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": user_id, "username": username, "avatar": None,
        "discriminator": f"{int(user_id) % 10000:04d}" if bot else "0",
        "public_flags": 0, "flags": 0}
    body.update(banner=None, accent_color=None, global_name=None,
                avatar_decoration_data=None, collectibles=None, primary_guild=None)
    if bot:
        body["bot"] = True
    return body


DM_STRIDE = 1 << 40  # how far apart the DM channels of one user with two applications are


def dm_channel_id(user_id: str, context: InteractionContext, rank: int = 0) -> str:
    """The id of the user's DM (BOT_DM) or group DM (PRIVATE_CHANNEL) channel with the
    application added ``rank``-th (0: the first): a DM is between two users, so each bot
    has its own with a user; stable per user, context and application, below the user's
    own id (never the same); ``POST /users/@me/channels`` gives the bot the same DM
    channel."""
    return str(max(int(user_id) - 1 - int(context) - rank * DM_STRIDE, 1))


def fixture_message(message: SeedMessage, author: dict[str, Any], guild_id: str | None
                    ) -> dict[str, Any]:
    """A fixture message as Discord's message object."""
    body = {"id": message["id"], "channel_id": message["channel_id"], "type": 0,
            "author": author, "content": message.get("content", ""),
            "timestamp": JOINED_AT, "edited_timestamp": None, "tts": False,
            "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [], "embeds": [], "pinned": _pinned(message), "flags": 0,
            "components": []}
    if guild_id:
        body["guild_id"] = guild_id
    return body


def _pinned(message: Mapping[str, Any]) -> bool:
    """Whether a bot pinned the fixture message ("Pin Message")."""
    return bool(message.get("pinned", False))


def person(user_id: str, seeded: User | None, app: Application | None
           ) -> dict[str, Any] | None:
    """The user ``user_id`` as Discord shows it (``UserResponse``): the ``seeded`` user,
    else the bot user of the application with that id, else None."""
    if seeded is not None:
        return user(user_id, username=seeded.get("username"),
                    global_name=seeded.get("global_name"))
    return bot_user(app, pii=False) if app is not None else None


def seeded_user(seeded: User) -> dict[str, Any]:
    """A seeded user as ``UserResponse``."""
    return user(seeded["id"], username=seeded.get("username"),
                global_name=seeded.get("global_name"))


def member(seeded: Member, person: dict[str, Any]) -> dict[str, Any]:
    """A member (``{"user_id", "nick", "roles"}``) as Discord's "Guild Member" object, for
    REST and the gateway alike; ``person`` is its user's object."""
    return {"avatar": None, "banner": None,
            "communication_disabled_until": seeded.get("communication_disabled_until"),
            "flags": 0,
            "joined_at": JOINED_AT, "nick": seeded.get("nick"), "pending": False,
            "premium_since": None, "roles": list(seeded.get("roles") or []),
            "user": person, "mute": False, "deaf": False}


def interaction_member(seeded: Member, person: dict[str, Any], permissions: int
                       ) -> dict[str, Any]:
    """The member an interaction carries: :func:`member` with its ``permissions`` in the
    channel (Discord's "Interaction Object": ``member``)."""
    return member(seeded, person) | {"permissions": str(permissions)}


def role(fixture: Role, position: int) -> dict[str, Any]:
    """A role fixture as Discord's "Permissions > Role Object" (``GuildRoleResponse``);
    what a bot set on it (:data:`ROLE_SETTINGS`: Create / Modify Guild Role) shows."""
    body = {"id": fixture["id"], "name": fixture["name"],
            "permissions": str(fixture["permissions"]), "position": position, "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False, "managed": False, "mentionable": False, "icon": None,
            "unicode_emoji": None, "flags": 0}
    return body | settings(fixture, ROLE_SETTINGS)


# What a bot may set on a role (Discord's "Modify Guild Role" JSON params), kept in its
# fixture; ``colors`` holds ``color`` as its ``primary_color`` ("Role Colors Object").
ROLE_SETTINGS = ("color", "colors", "hoist", "mentionable", "icon", "unicode_emoji")
# What a bot may set on a guild channel ("Modify Channel", guild channel), kept in its
# fixture; each shows only on the channel types whose object has the field.
CHANNEL_SETTINGS = ("topic", "nsfw", "rate_limit_per_user", "bitrate", "user_limit",
                    "parent_id", "permission_overwrites", "last_pin_timestamp")


def settings(fixture: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The ``keys`` a fixture holds (those a bot set through the REST routes)."""
    return {key: fixture[key] for key in keys if key in fixture}


def resolved_role(seeded: Role) -> dict[str, Any]:
    """A role in an interaction's ``resolved.roles``."""
    return {"id": seeded["id"], "name": seeded["name"], "color": 0, "hoist": False,
            "icon": None, "unicode_emoji": None, "position": 0,
            "permissions": seeded["permissions"], "managed": False, "mentionable": False,
            "flags": 0}


def guild_channel(guild_id: str, fixture: Channel, position: int
                  ) -> dict[str, Any]:
    """A guild channel (not a thread) as ``GuildChannelResponse``."""
    kind = int(fixture["type"])
    body: dict[str, Any] = {"id": fixture["id"], "type": kind, "flags": 0,
                            "guild_id": guild_id, "name": fixture["name"],
                            "position": position, "permission_overwrites": [],
                            "parent_id": None}
    if kind != ChannelType.GUILD_CATEGORY:
        body.update(last_message_id=None, nsfw=False)
    if kind == ChannelType.GUILD_TEXT or kind in _VOICE or kind in _FORUMS:
        body["rate_limit_per_user"] = 0
    if kind in _TEXT or kind in _VOICE:
        body["last_pin_timestamp"] = None
    if kind in _TEXT:
        body.update(topic=None, default_thread_rate_limit_per_user=0,
                    default_auto_archive_duration=AUTO_ARCHIVE)
    if kind in _VOICE:
        body.update(bitrate=64000, user_limit=0, rtc_region=None, video_quality_mode=1)
    if kind in _FORUMS:
        body.update(topic=None, available_tags=[], default_reaction_emoji=None,
                    default_sort_order=None, default_forum_layout=0,
                    default_thread_rate_limit_per_user=0,
                    default_auto_archive_duration=AUTO_ARCHIVE)
    body.update({key: value for key, value in settings(fixture, CHANNEL_SETTINGS).items()
                 if key in body})
    return body


def interaction_channel(channel: Channel, guild_id: str | None, permissions: int
                        ) -> dict[str, Any]:
    """The channel an interaction carries, or one in its ``resolved.channels``: the partial
    channel with the invoking member's ``permissions`` in it."""
    body: dict[str, Any] = {"id": channel["id"], "type": channel["type"],
                            "name": channel.get("name"), "permissions": str(permissions),
                            "flags": 0, "parent_id": None}
    if guild_id:
        body["guild_id"] = guild_id
    return body


# Where a component holds others: a row's, section's or container's ``components``, a
# section's ``accessory``, a label's ``component``; in this order, depth first.
_NESTED = ("components", "accessory", "component")


def numbered_components(tree: Any) -> Any:
    """A copy of a message's or modal's ``components`` with an ``id`` on every component,
    as Discord keeps them ("Component Reference > Anatomy of a Component": the ``id`` is a
    32-bit integer unique in the message, "generated sequentially if left empty",
    generation never uses an ``id`` the message has already, and an ``id`` of ``0`` is
    taken as empty). The ids the bot gave stay; the others are 1, 2, 3 ... in the order
    a component comes depth first (a parent before its children, as the docs' examples
    number an action row 1 and its select 2), each the lowest number above the last
    one given that no component of the message has. Anything but a list comes back as it
    is (the checks refuse it), and so do its items that are not objects."""
    if not isinstance(tree, list):
        return tree
    copied = [_copied(item) for item in tree]
    nodes = list(_depth_first(copied))
    used = {node["id"] for node in nodes if _given(node.get("id"))}
    last = 0
    for node in nodes:
        if not _given(node.get("id")):
            last += 1
            while last in used:
                last += 1
            node["id"] = last
    return copied


def _given(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value != 0


def _copied(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    out = dict(item)
    for key in _NESTED:
        if isinstance(out.get(key), list):
            out[key] = [_copied(child) for child in out[key]]
        elif isinstance(out.get(key), dict):
            out[key] = _copied(out[key])
    return out


def _depth_first(tree: list[Any]) -> Iterator[dict[str, Any]]:
    for item in tree:
        if not isinstance(item, dict):
            continue
        yield item
        for key in _NESTED:
            inner = item.get(key)
            yield from _depth_first(inner if isinstance(inner, list) else [inner])


def iso(now: float) -> str:
    """A time (epoch seconds) as Discord writes timestamps (ISO 8601, UTC)."""
    return datetime.fromtimestamp(now, timezone.utc).isoformat()
