"""Discord's user, member, role and channel objects, built from the seed's fixtures.

One builder per object, used by the REST routes and the gateway's dispatches
alike (``GET /channels/{id}`` and GUILD_CREATE give the same channel).
Shapes: openapi.json ``UserResponse``, ``GuildMemberResponse``,
``GuildRoleResponse``, ``GuildChannelResponse`` and ``ThreadResponse``
(Discord's "User", "Guild", "Channel" and "Permissions > Role Object" docs).
What the fixtures do not model takes Discord's values for a new object: no
avatar, no colour, no topic, no slowmode, no permission overwrites; every
member joined at :data:`~cmdsync.emulator.interactions.invocation.JOINED_AT`; a role's and
a channel's ``position`` is its place among the guild's fixtures.

A bot's DM channel with a seeded user (``type`` 1) has the id the user's BOT_DM
interactions carry (:func:`~cmdsync.emulator.interactions.invocation.dm_channel_id`).

Each channel type carries the fields Discord sends for it: text and
announcement channels ``topic``, ``nsfw``, ``last_message_id``,
``last_pin_timestamp`` and their threads' defaults (and slowmode for text),
voice and stage channels ``bitrate``, ``user_limit``, ``rtc_region``,
``video_quality_mode``, forums their tag and layout settings, threads their
``thread_metadata`` (a thread fixture's ``parent_id`` is the guild's first
text channel, as fixtures do not name one; its owner is the guild's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.objects import Channel, Member
from cmdsync.emulator.domain.payloads import DM_STRIDE, JOINED_AT, dm_channel_id
from cmdsync.emulator.store.database import Store
from cmdsync.model import ChannelType, InteractionContext

THREADS = (ChannelType.ANNOUNCEMENT_THREAD, ChannelType.PUBLIC_THREAD,
           ChannelType.PRIVATE_THREAD)
# What a thread a bot started keeps in its fixture (a seeded thread has the defaults).
_STARTED = ("parent_id", "owner_id", "rate_limit_per_user", "member_count", "applied_tags")
# Channels no message can be sent to: a category, and forums (they take threads).
NOT_TEXT = (ChannelType.GUILD_CATEGORY, ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA)


def user(store: Store, user_id: str) -> dict[str, Any] | None:
    """A seeded user, or an application's bot user (``UserResponse``); None if neither."""
    return payloads.person(user_id, store.user(user_id), store.application(user_id))


def member(store: Store, guild_id: str, user_id: str) -> dict[str, Any] | None:
    """A guild member fixture as ``GuildMemberResponse``, or None (no such member,
    or a user neither seeded nor an application's bot)."""
    fixture = store.member(guild_id, user_id)
    if fixture is None or user(store, user_id) is None:
        return None
    return guild_member(store, fixture)


def guild_member(store: Store, fixture: Member) -> dict[str, Any]:
    """A member fixture (``{"user_id", "nick", "roles"}``) as Discord's "Guild Member"
    object, for REST and the gateway alike; a user nobody seeded gets a bare profile."""
    user_id = fixture["user_id"]
    person = user(store, user_id) or payloads.user(user_id, username=None, global_name=None)
    return payloads.member(fixture, person)


def roles(store: Store, guild_id: str) -> list[dict[str, Any]]:
    """The guild's roles (``GuildRoleResponse``), ``@everyone`` first at position 0
    (one without permissions when the seed names none: every guild has it)."""
    fixtures = store.roles(guild_id)
    if not any(r["id"] == guild_id for r in fixtures):
        fixtures = [{"id": guild_id, "name": "@everyone", "permissions": "0"}, *fixtures]
    ordered = sorted(fixtures, key=lambda r: r["id"] != guild_id)
    return [payloads.role(fixture, position) for position, fixture in enumerate(ordered)]


def channels(store: Store, guild_id: str) -> list[dict[str, Any]]:
    """Every channel of the guild, in the order the seed gives them."""
    fixtures = store.channels(guild_id)
    return [channel(store, guild_id, item, position, fixtures)
            for position, item in enumerate(fixtures)]


def find_channel(store: Store, channel_id: str) -> tuple[str, dict[str, Any]] | None:
    """``(guild_id, channel object)`` of a seeded channel, or None."""
    found = store.find_channel(channel_id)
    if found is None:
        return None
    guild_id, fixture = found
    fixtures = store.channels(guild_id)
    position = next((i for i, item in enumerate(fixtures) if item["id"] == channel_id), 0)
    return guild_id, channel(store, guild_id, fixture, position, fixtures)


def channel(store: Store, guild_id: str, fixture: Channel, position: int,
            siblings: list[Channel]) -> dict[str, Any]:
    """One channel fixture as Discord sends it, over REST and in GUILD_CREATE alike:
    a thread (:func:`thread`) or a guild channel with the fields of its type (see
    the module docstring). ``position`` is its index in ``siblings``, the guild's
    channel fixtures."""
    if int(fixture["type"]) in THREADS:
        return thread(store, guild_id, fixture, siblings)
    return payloads.guild_channel(guild_id, fixture, position)


def thread(store: Store, guild_id: str, fixture: Mapping[str, Any],
           siblings: list[Channel]) -> dict[str, Any]:
    """A thread fixture as ``ThreadResponse``: started by the guild's owner in the
    guild's first text channel (else its first announcement channel), as seeds name
    neither; ``invitable`` only on a private thread. A thread a bot started
    (:mod:`~cmdsync.emulator.resources.threads`) keeps its own parent, owner, slowmode,
    member count, tags and metadata."""
    parents = [c["id"] for kind in (ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT)
               for c in siblings if c["type"] == kind]
    metadata: dict[str, Any] = {"archived": False, "archive_timestamp": JOINED_AT,
                                "auto_archive_duration": payloads.AUTO_ARCHIVE, "locked": False,
                                "create_timestamp": JOINED_AT}
    if int(fixture["type"]) == ChannelType.PRIVATE_THREAD:
        metadata["invitable"] = True
    metadata.update(fixture.get("thread_metadata") or {})
    body = {"id": fixture["id"], "type": int(fixture["type"]), "flags": 0,
            "guild_id": guild_id, "name": fixture["name"],
            "parent_id": parents[0] if parents else None, "last_message_id": None,
            "rate_limit_per_user": 0, "owner_id": _owner(store, guild_id),
            "message_count": 0, "member_count": 1, "total_message_sent": 0,
            "thread_metadata": metadata}
    body.update({key: fixture[key] for key in _STARTED if key in fixture})
    return body


def dm_channel(store: Store, user_id: str, application_id: str | None = None
               ) -> dict[str, Any] | None:
    """The bot's DM channel with a seeded user (``PrivateChannelResponse``), the one a
    BOT_DM interaction of that user carries, for the bot of ``application_id`` (default:
    the first application's); None for an unknown user or application."""
    person = store.user(user_id)
    ids = store.application_ids()
    if person is None or (application_id is not None and application_id not in ids):
        return None
    rank = ids.index(application_id) if application_id is not None else 0
    return {"id": dm_channel_id(user_id, InteractionContext.BOT_DM, rank),
            "type": int(ChannelType.DM), "last_message_id": None, "flags": 0,
            "recipients": [user(store, user_id)]}


def find_dm(store: Store, channel_id: str) -> dict[str, Any] | None:
    """The DM channel of ``channel_id`` (see :func:`dm_channel`), or None."""
    found = dm_of(store, channel_id)
    return found[1] if found is not None else None


def dm_of(store: Store, channel_id: str) -> tuple[str, dict[str, Any]] | None:
    """``(application id, DM channel)`` of the DM channel ``channel_id``: which bot the DM
    is with, and the channel; None when it is no DM of a seeded user."""
    if not channel_id.isdigit():
        return None
    for rank, app_id in enumerate(store.application_ids()):
        recipient = str(int(channel_id) + 1 + int(InteractionContext.BOT_DM)
                        + rank * DM_STRIDE)
        found = dm_channel(store, recipient, app_id)
        if found is not None and found["id"] == channel_id:
            return app_id, found
    return None


def guild(store: Store, guild_id: str, *, with_counts: bool) -> dict[str, Any] | None:
    """A seeded guild as ``GET /guilds/{guild.id}`` returns it (``GuildWithCountsResponse``:
    Discord's values for a new guild where the seed says nothing), or None."""
    found = store.guild(guild_id)
    if found is None:
        return None
    body: dict[str, Any] = {
        "id": guild_id, "name": found["name"], "icon": None, "description": None,
        "home_header": None, "splash": None, "discovery_splash": None, "features": [],
        "banner": None, "owner_id": _owner(store, guild_id), "application_id": None,
        "region": "deprecated", "afk_channel_id": None, "afk_timeout": 300,
        "system_channel_id": None, "system_channel_flags": 0, "widget_enabled": False,
        "widget_channel_id": None, "verification_level": 0, "roles": roles(store, guild_id),
        "default_message_notifications": 0, "mfa_level": 0, "explicit_content_filter": 0,
        "max_presences": None, "max_members": 500000, "max_stage_video_channel_users": 50,
        "max_video_channel_users": 25, "vanity_url_code": None, "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": found.get("preferred_locale", "en-US"), "rules_channel_id": None,
        "safety_alerts_channel_id": None, "public_updates_channel_id": None,
        "premium_progress_bar_enabled": False, "nsfw": False, "nsfw_level": 0, "emojis": [],
        "stickers": [], "incidents_data": None}
    if with_counts:
        body.update(approximate_member_count=len(store.members(guild_id)),
                    approximate_presence_count=0)
    return body


def _owner(store: Store, guild_id: str) -> str:
    guild = store.guild(guild_id)
    return str((guild.get("owner_id") if guild else None) or guild_id)


def bot_permissions(store: Store, guild_id: str, app_id: str) -> int:
    """The application's bot's guild permissions (0 in a guild the emulator lacks)."""
    guild = store.guild(guild_id)
    return store.bot_permissions(guild, app_id) if guild is not None else 0
