"""The bodies of the dispatches the emulator sends, built from the seed's fixtures.

Shapes: Discord's "Gateway Events" documentation (Ready, Guild Create,
Guild Members Chunk, Guild Member Add / Update / Remove, Rate Limited,
Application Command Permissions Update) and the "Guild", "Channel",
"Permissions > Role Object" and "Guild Member" resources. Fields the
emulator does not model take the values of a new guild (no icon, no
features, default notification settings). Presences are never sent.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator import profiles
from cmdsync.emulator.database import Application, Store
from cmdsync.emulator.invocation import JOINED_AT
from cmdsync.model import ChannelType

THREAD_TYPES = (ChannelType.ANNOUNCEMENT_THREAD, ChannelType.PUBLIC_THREAD,
                ChannelType.PRIVATE_THREAD)
_VOICE_TYPES = (ChannelType.GUILD_VOICE, ChannelType.GUILD_STAGE_VOICE)
_FORUM_TYPES = (ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA)
_TEXT_TYPES = (ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT)
LARGE_THRESHOLD = 50  # members above which a guild is "large" (IDENTIFY's default)


def ready(app: Application, session_id: str, resume_url: str, guild_ids: list[str],
          shard: list[int] | None, version: int) -> dict[str, Any]:
    """READY: the bot user, the guilds as unavailable, the session and the application."""
    body: dict[str, Any] = {
        "v": version, "user": profiles.bot_user(app), "guilds": [
            {"id": guild_id, "unavailable": True} for guild_id in guild_ids],
        "session_id": session_id, "resume_gateway_url": resume_url,
        "application": {"id": app.id, "flags": app.flags}, "session_type": "normal",
        "private_channels": [], "relationships": [], "presences": [], "user_settings": {},
        "guild_join_requests": [], "geo_ordered_rtc_regions": ["local"], "auth": {}}
    if shard is not None:
        body["shard"] = shard
    return body


def guild_create(store: Store, app: Application, guild_id: str, *, members: bool,
                 large_threshold: int = LARGE_THRESHOLD) -> dict[str, Any]:
    """GUILD_CREATE of a seeded guild: roles, channels and threads; every member with
    the GUILD_MEMBERS intent (``members``), else only the bot's own."""
    guild = store.guild(guild_id) or {"id": guild_id, "name": "Guild"}
    everyone = store.fixtures("member", guild_id)
    if not any(member["user_id"] == app.id for member in everyone):
        everyone.append({"user_id": app.id, "roles": [], "nick": None})
    sent = everyone if members else [m for m in everyone if m["user_id"] == app.id]
    channels = store.fixtures("channel", guild_id)
    parents = [c["id"] for c in channels if c["type"] in _TEXT_TYPES]
    body = _guild(guild, store.fixtures("role", guild_id))
    body.update(
        joined_at=JOINED_AT, large=len(everyone) > large_threshold, unavailable=False,
        member_count=len(everyone), voice_states=[],
        members=[member(store, guild_id, m, app) for m in sent],
        channels=[channel(c, position) for position, c in enumerate(channels)
                  if c["type"] not in THREAD_TYPES],
        threads=[thread(c, guild_id, parents[0] if parents else None, app.id)
                 for c in channels if c["type"] in THREAD_TYPES],
        presences=[], stage_instances=[], guild_scheduled_events=[], soundboard_sounds=[])
    return body


def _guild(guild: dict[str, Any], roles: list[dict[str, Any]]) -> dict[str, Any]:
    guild_id = guild["id"]
    if not any(r["id"] == guild_id for r in roles):
        roles = [{"id": guild_id, "name": "@everyone", "permissions": "0"}, *roles]
    ordered = sorted(roles, key=lambda r: r["id"] != guild_id)  # @everyone first, position 0
    return {
        "id": guild_id, "name": guild.get("name", "Guild"), "icon": None, "icon_hash": None,
        "splash": None, "discovery_splash": None, "owner_id": guild.get("owner_id", guild_id),
        "afk_channel_id": None, "afk_timeout": 300, "widget_enabled": False,
        "widget_channel_id": None, "verification_level": 0,
        "default_message_notifications": 0, "explicit_content_filter": 0,
        "roles": [role(r, position) for position, r in enumerate(ordered)], "emojis": [],
        "features": [], "mfa_level": 0, "application_id": None, "system_channel_id": None,
        "system_channel_flags": 0, "rules_channel_id": None, "max_presences": None,
        "max_members": 500000, "vanity_url_code": None, "description": None, "banner": None,
        "premium_tier": 0, "premium_subscription_count": 0,
        "preferred_locale": guild.get("preferred_locale", "en-US"),
        "public_updates_channel_id": None, "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50, "nsfw_level": 0, "nsfw": False, "stickers": [],
        "premium_progress_bar_enabled": False, "safety_alerts_channel_id": None,
        "incidents_data": None, "hub_type": None, "latest_onboarding_question_id": None,
        "home_header": None, "version": 0, "lazy": True, "application_command_counts": {},
        "embedded_activities": [], "activity_instances": []}


def role(fixture: dict[str, Any], position: int) -> dict[str, Any]:
    """A role object ("Permissions > Role Object")."""
    return {"id": fixture["id"], "name": fixture["name"], "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False, "icon": None, "unicode_emoji": None, "position": position,
            "permissions": str(fixture["permissions"]), "managed": False,
            "mentionable": False, "flags": 0, "description": None}


def channel(fixture: dict[str, Any], position: int) -> dict[str, Any]:
    """A guild channel as GUILD_CREATE lists it, with the fields of its type."""
    kind = ChannelType(fixture["type"])
    body: dict[str, Any] = {"id": fixture["id"], "type": int(kind), "name": fixture["name"],
                            "position": position, "permission_overwrites": [], "flags": 0}
    if kind == ChannelType.GUILD_CATEGORY:
        return body
    body.update(parent_id=None, nsfw=False, rate_limit_per_user=0)
    if kind in _TEXT_TYPES or kind in _VOICE_TYPES:
        body.update(last_message_id=None, last_pin_timestamp=None)
    if kind in _TEXT_TYPES:
        body.update(topic=None, default_thread_rate_limit_per_user=0,
                    default_auto_archive_duration=4320)
    if kind in _VOICE_TYPES:
        body.update(bitrate=64000, user_limit=0, rtc_region=None, video_quality_mode=1)
    if kind in _FORUM_TYPES or kind == ChannelType.GUILD_DIRECTORY:
        body.update(topic=None, available_tags=[], default_reaction_emoji=None,
                    default_sort_order=None, default_forum_layout=0,
                    default_thread_rate_limit_per_user=0, default_auto_archive_duration=4320,
                    last_message_id=None, template="")
    return body


def thread(fixture: dict[str, Any], guild_id: str, parent_id: str | None, owner_id: str
           ) -> dict[str, Any]:
    """A thread as GUILD_CREATE's ``threads`` lists it (the guild's first text channel is
    its parent: seeds give none)."""
    return {"id": fixture["id"], "type": int(fixture["type"]), "name": fixture["name"],
            "guild_id": guild_id, "parent_id": parent_id, "owner_id": owner_id,
            "last_message_id": None, "rate_limit_per_user": 0, "flags": 0,
            "message_count": 0, "member_count": 1, "total_message_sent": 0,
            "thread_metadata": {"archived": False, "auto_archive_duration": 4320,
                                "archive_timestamp": JOINED_AT, "locked": False,
                                "invitable": True, "create_timestamp": JOINED_AT}}


def member(store: Store, guild_id: str, fixture: dict[str, Any], app: Application
           ) -> dict[str, Any]:
    """A guild member object with its user (the bot's own for the application's id)."""
    user_id = fixture["user_id"]
    if user_id == app.id:
        user = profiles.bot_user(app, pii=False)
    else:
        seeded = store.fixture("user", "", user_id) or {}
        user = profiles.user(user_id, username=seeded.get("username"),
                             global_name=seeded.get("global_name"))
    return {"user": user, "nick": fixture.get("nick"), "avatar": None, "banner": None,
            "roles": list(fixture.get("roles") or []), "joined_at": JOINED_AT,
            "premium_since": None, "deaf": False, "mute": False, "flags": 0,
            "pending": False, "communication_disabled_until": None}


def members_chunk(store: Store, app: Application, guild_id: str, *, query: str | None,
                  limit: int, user_ids: list[str] | None, nonce: str | None
                  ) -> dict[str, Any]:
    """GUILD_MEMBERS_CHUNK for a REQUEST_GUILD_MEMBERS (one chunk: guilds are small).

    ``user_ids`` picks members by id (``not_found`` lists the others); else
    ``query`` is a prefix of the username or nickname (case-insensitive;
    empty: everyone) and ``limit`` caps the count (0: no cap).
    """
    fixtures = store.fixtures("member", guild_id)
    found: list[dict[str, Any]] = []
    not_found: list[str] = []
    if user_ids is not None:
        by_id = {m["user_id"]: m for m in fixtures}
        for user_id in user_ids:
            if user_id in by_id:
                found.append(member(store, guild_id, by_id[user_id], app))
            else:
                not_found.append(user_id)
    else:
        prefix = (query or "").casefold()
        for fixture in fixtures:
            body = member(store, guild_id, fixture, app)
            names = (body["user"]["username"], body["nick"] or "")
            if any(name.casefold().startswith(prefix) for name in names):
                found.append(body)
        if limit:
            found = found[:limit]
    chunk: dict[str, Any] = {"guild_id": guild_id, "members": found, "chunk_index": 0,
                             "chunk_count": 1}
    if user_ids is not None:
        chunk["not_found"] = not_found
    if nonce is not None:
        chunk["nonce"] = nonce
    return chunk
