"""The bodies of the dispatches the emulator sends, built from the seed's fixtures.

Shapes: Discord's "Gateway Events" documentation (Ready, Guild Create,
Guild Members Chunk, Guild Member Add / Update / Remove, Rate Limited,
Application Command Permissions Update) and the "Guild", "Channel",
"Permissions > Role Object" and "Guild Member" resources. Fields the
emulator does not model take the values of a new guild (no icon, no
features, default notification settings). Presences are never sent.
Roles, channels, threads and members are :mod:`cmdsync.emulator.resources.objects`'
builders, the ones the REST routes answer with.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.objects import Application, Guild
from cmdsync.emulator.domain.payloads import JOINED_AT
from cmdsync.emulator.resources import objects
from cmdsync.emulator.store.database import Store

LARGE_THRESHOLD = 50  # members above which a guild is "large" (IDENTIFY's default)


def ready(app: Application, session_id: str, resume_url: str, guild_ids: list[str],
          shard: list[int] | None, version: int) -> dict[str, Any]:
    """READY: the bot user, the guilds as unavailable, the session and the application."""
    body: dict[str, Any] = {
        "v": version, "user": payloads.bot_user(app), "guilds": [
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
    everyone = store.members(guild_id)
    if not any(member["user_id"] == app.id for member in everyone):
        everyone.append({"user_id": app.id, "roles": [], "nick": None})
    sent = everyone if members else [m for m in everyone if m["user_id"] == app.id]
    channels = objects.channels(store, guild_id)
    body = _guild(guild, objects.roles(store, guild_id))
    body.update(
        joined_at=JOINED_AT, large=len(everyone) > large_threshold, unavailable=False,
        member_count=len(everyone), voice_states=[],
        members=[objects.guild_member(store, m) for m in sent],
        channels=[c for c in channels if c["type"] not in objects.THREADS],
        threads=[c for c in channels if c["type"] in objects.THREADS],
        presences=[], stage_instances=[], guild_scheduled_events=[], soundboard_sounds=[])
    return body


def _guild(guild: Guild, roles: list[dict[str, Any]]) -> dict[str, Any]:
    guild_id = guild["id"]
    return {
        "id": guild_id, "name": guild.get("name", "Guild"), "icon": None, "icon_hash": None,
        "splash": None, "discovery_splash": None, "owner_id": guild.get("owner_id", guild_id),
        "afk_channel_id": None, "afk_timeout": 300, "widget_enabled": False,
        "widget_channel_id": None, "verification_level": 0,
        "default_message_notifications": 0, "explicit_content_filter": 0,
        "roles": roles, "emojis": [],
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


def members_chunk(store: Store, guild_id: str, *, query: str | None,
                  limit: int, user_ids: list[str] | None, nonce: str | None
                  ) -> dict[str, Any]:
    """GUILD_MEMBERS_CHUNK for a REQUEST_GUILD_MEMBERS (one chunk: guilds are small).

    ``user_ids`` picks members by id (``not_found`` lists the others); else
    ``query`` is a prefix of the username or nickname (case-insensitive;
    empty: everyone) and ``limit`` caps the count (0: no cap).
    """
    fixtures = store.members(guild_id)
    found: list[dict[str, Any]] = []
    not_found: list[str] = []
    if user_ids is not None:
        by_id = {m["user_id"]: m for m in fixtures}
        for user_id in user_ids:
            if user_id in by_id:
                found.append(objects.guild_member(store, by_id[user_id]))
            else:
                not_found.append(user_id)
    else:
        prefix = (query or "").casefold()
        for fixture in fixtures:
            body = objects.guild_member(store, fixture)
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
