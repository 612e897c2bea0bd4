"""Messages in channels as the gateway tells bots of them, and a seeded user sending one.

Discord's "Gateway Events > Message Create": a message in a guild goes to the
applications installed there whose sessions asked for GUILD_MESSAGES, one in a DM
to the application's sessions that asked for DIRECT_MESSAGES; a guild message
carries its author's ``member`` (without ``user``). Message content is privileged
("Gateway > Privileged Intents"): a session without MESSAGE_CONTENT gets ``content``,
``embeds``, ``attachments`` and ``components`` empty, except in the application's
own messages, in DMs and in messages that mention its bot. A message a bot edits or
deletes through the channel routes sends MESSAGE_UPDATE (the whole message, shaped the
same) or MESSAGE_DELETE (its id, channel and guild) the same way ("Message Update",
"Message Delete").

:func:`user_sends` is what the admin API's ``POST /_emulator/messages`` does: a seeded
user writes in a guild channel they are a member of, or in their DM with a bot; the
message is kept with the channel's others and dispatched as MESSAGE_CREATE.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import Intent, Refusal
from cmdsync.emulator.reference.call import Events
from cmdsync.emulator.resources import objects
from cmdsync.emulator.store.database import Store
from cmdsync.errors import UsageError

_HIDDEN = {"content": "", "embeds": [], "attachments": [], "components": []}
_MENTION = re.compile(r"<@!?([0-9]{1,20})>")
MAX_CONTENT = 2000  # characters ("Create Message": content)


def dispatch_created(store: Store, events: Events | None, message: Mapping[str, Any], *,
                     guild_id: str | None, dm_of: str | None = None) -> int:
    """MESSAGE_CREATE for ``message`` (its ``author`` set) in ``guild_id``'s channel, or
    in the DM of the application ``dm_of``; how many sessions got it."""
    return _dispatch(store, events, "MESSAGE_CREATE", message, guild_id=guild_id, dm_of=dm_of)


def dispatch_updated(store: Store, events: Events | None, message: Mapping[str, Any], *,
                     guild_id: str | None, dm_of: str | None = None) -> int:
    """MESSAGE_UPDATE for ``message`` as it now is (Discord sends the whole message),
    shaped as MESSAGE_CREATE is; how many sessions got it."""
    return _dispatch(store, events, "MESSAGE_UPDATE", message, guild_id=guild_id, dm_of=dm_of)


def dispatch_deleted(store: Store, events: Events | None, message: Mapping[str, Any], *,
                     guild_id: str | None, dm_of: str | None = None) -> int:
    """MESSAGE_DELETE (``id``, ``channel_id``, ``guild_id``) for a message deleted; how many
    sessions got it."""
    if events is None:
        return 0
    body = {"id": message["id"], "channel_id": message["channel_id"]}
    if guild_id:
        body["guild_id"] = guild_id
    return sum(events.dispatch(app_id, "MESSAGE_DELETE", body, guild_id=guild_id,
                               intent=Intent.DIRECT_MESSAGES if dm_of
                               else Intent.GUILD_MESSAGES)
               for app_id in ([dm_of] if dm_of else store.applications_in(guild_id or "")))


def _dispatch(store: Store, events: Events | None, event: str, message: Mapping[str, Any], *,
              guild_id: str | None, dm_of: str | None) -> int:
    if events is None:
        return 0
    body = dict(message)
    if guild_id:
        body["guild_id"] = guild_id
        member = store.member(guild_id, message["author"]["id"])
        if member is not None:
            permissions = store.member_permissions(store.guild(guild_id) or {
                "id": guild_id, "name": ""}, member["user_id"], member)
            body["member"] = {key: value for key, value in payloads.interaction_member(
                member, message["author"], permissions).items()
                if key not in ("user", "permissions")}
    mentioned = set(_MENTION.findall(str(message.get("content") or "")))
    sent = 0
    for app_id in ([dm_of] if dm_of else store.applications_in(guild_id or "")):
        whole = bool(dm_of) or message["author"]["id"] == app_id or app_id in mentioned
        sent += events.dispatch(
            app_id, event, body, guild_id=guild_id,
            intent=Intent.DIRECT_MESSAGES if dm_of else Intent.GUILD_MESSAGES,
            shaped=None if whole else _shaped(body))
    return sent


def _shaped(body: dict[str, Any]) -> Any:
    hidden = {**body, **_HIDDEN}

    def shaped(intents: int) -> dict[str, Any]:
        return body if intents & (1 << Intent.MESSAGE_CONTENT) else hidden

    return shaped


def user_sends(store: Store, events: Events | None, *, channel_id: str, user_id: str,
               content: str, now: float) -> dict[str, Any]:
    """A seeded user's message in ``channel_id`` (a guild channel of theirs, or their DM
    with a bot: see :func:`~cmdsync.emulator.resources.objects.dm_channel`), kept and
    dispatched; :class:`UsageError` naming what is wrong (the admin API answers 400)."""
    if store.user(user_id) is None:
        raise UsageError(f"no user {user_id} in the emulator: add it to the seed's users "
                         f"({Refusal.UNKNOWN_USER.value})")
    if not isinstance(content, str) or not 1 <= len(content) <= MAX_CONTENT:
        raise UsageError(f"content must be 1 to {MAX_CONTENT} characters")
    found = store.find_channel(channel_id)
    dm_of = None
    if found is not None:
        guild_id: str | None = found[0]
        if store.member(found[0], user_id) is None:
            raise UsageError(f"user {user_id} is not a member of guild {found[0]}: add it "
                             f"to the guild's members ({Refusal.NOT_A_MEMBER.value})")
    else:
        dm = objects.dm_of(store, channel_id)
        if dm is None:
            raise UsageError(f"no channel {channel_id}: give a guild channel, or a user's "
                             f"DM channel ({Refusal.UNKNOWN_CHANNEL.value})")
        guild_id, dm_of = None, dm[0]
    author = objects.user(store, user_id) or payloads.user(user_id)
    with store.transaction() as db:
        message = {"id": store.next_snowflake(db, now), "type": 0, "channel_id": channel_id,
                   "author": author, "content": content, "timestamp": payloads.iso(now),
                   "edited_timestamp": None, "tts": False, "mention_everyone": False,
                   "mentions": [m for m in (objects.user(store, i) for i in dict.fromkeys(
                       _MENTION.findall(content))) if m is not None],
                   "mention_roles": [], "attachments": [], "embeds": [], "pinned": False,
                   "flags": 0, "components": []}
        db.execute("INSERT OR REPLACE INTO channel_messages VALUES (?, ?, ?)",
                   (message["id"], channel_id, json.dumps(message)))
    dispatch_created(store, events, message, guild_id=guild_id, dm_of=dm_of)
    return message


def user_reacts(store: Store, events: Events | None, *, message_id: str, user_id: str,
                emoji: str, add: bool) -> dict[str, Any]:
    """A seeded user adds (or removes) the reaction ``emoji`` (a unicode emoji, or
    ``name:id`` for a custom one) on a message: the message's ``reactions`` counts
    change and the bots get MESSAGE_REACTION_ADD or MESSAGE_REACTION_REMOVE
    ("Gateway Events", GUILD_MESSAGE_REACTIONS or DIRECT_MESSAGE_REACTIONS); the
    message as it now is. :class:`UsageError` naming what is unknown."""
    if store.user(user_id) is None:
        raise UsageError(f"no user {user_id} in the emulator: add it to the seed's users")
    name, _, emoji_id = emoji.partition(":")
    if not name:
        raise UsageError("name the emoji: a unicode emoji, or name:id for a custom one")
    shown = {"id": emoji_id or None, "name": name}
    with store.transaction() as db:
        found = store.any_message(db, message_id)
        if found is None:
            raise UsageError(f"no message {message_id} in the emulator")
        kept_as, message = found
        users = (store.fixture("reaction", message_id, emoji) or {}).get("users", [])
        if (user_id in users) == add:  # already there, or not there: no change, no event
            return message
        users = [*users, user_id] if add else [u for u in users if u != user_id]
        store.put_fixture(db, "reaction", message_id, emoji, {"users": users})
        bot_id = str((message.get("author") or {}).get("id"))
        reactions = [r for r in message.get("reactions") or [] if r["emoji"] != shown]
        if users:
            reactions.append({"count": len(users), "count_details": {
                "burst": 0, "normal": len(users)}, "me": bot_id in users, "me_burst": False,
                "emoji": shown, "burst_colors": []})
        message["reactions"] = reactions
        store.replace_message(db, kept_as, message)
    guild_id = message.get("guild_id") or (found_channel[0] if (
        found_channel := store.find_channel(message["channel_id"])) else None)
    body: dict[str, Any] = {"user_id": user_id, "channel_id": message["channel_id"],
                            "message_id": message_id, "emoji": shown, "burst": False,
                            "type": 0}
    if guild_id:
        body["guild_id"] = guild_id
    if add:
        body["message_author_id"] = bot_id
    dm = None if guild_id else objects.dm_of(store, str(message["channel_id"]))
    if events is not None:  # a DM's reaction goes to the bot the DM is with
        for app_id in (store.applications_in(guild_id) if guild_id
                       else [dm[0]] if dm is not None else []):
            events.dispatch(app_id, "MESSAGE_REACTION_ADD" if add
                            else "MESSAGE_REACTION_REMOVE", body, guild_id=guild_id,
                            intent=Intent.GUILD_MESSAGE_REACTIONS if guild_id
                            else Intent.DIRECT_MESSAGE_REACTIONS)
    return message
