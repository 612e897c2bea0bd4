"""Pinning messages in a guild channel and deleting messages in bulk, as a bot does it.

Discord's "Message Resource": Pin Message, Unpin Message and Get Channel Pins
(``/channels/{channel.id}/messages/pins``), the deprecated Pin / Unpin Message and Get
Pinned Messages (``/channels/{channel.id}/pins``), and Bulk Delete Messages. Each route
reads as parse, check, call, serialize; the bot's permissions are those it has in the
channel (:func:`~cmdsync.emulator.resources.channels.place`: 403 50001 where it cannot
see it, 404 10003 Unknown Channel, 400 50003 in a DM). The checks answer as Discord does:

- pinning and unpinning need PIN_MESSAGES (split from MANAGE_MESSAGES, and alone
  required since February 2026: Discord's change log), else 403 50013; an unknown
  message is 404 10008; past 250 pins 400 30003. Pinning a pinned message, or unpinning
  one that is not, changes nothing and sends nothing;
- listing needs only VIEW_CHANNEL, and without READ_MESSAGE_HISTORY lists nothing;
  ``limit`` is 1-50 (default 50), ``before`` an ISO 8601 time; newest pin first;
- a bulk delete needs MANAGE_MESSAGES (403 50013), and 2-100 distinct message ids
  (400 50035 otherwise; a repeated id's leaf code ``BASE_TYPE_DUPLICATES`` is the
  emulator's guess), none older than 14 days by its snowflake (400 50034, observed
  message); ids of no message of the channel count but delete nothing.

:class:`Pins` makes each change in one transaction, then sends its gateway event:
CHANNEL_PINS_UPDATE (GUILDS intent) with the channel's ``last_pin_timestamp``, and
MESSAGE_DELETE_BULK (GUILD_MESSAGES intent) with the ids deleted. A pin is kept as a
``pin`` fixture keyed by channel and message; the message's ``pinned`` follows it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any, cast

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Guild, SeedMessage
from cmdsync.emulator.domain.permissions import Permissions
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.resources import objects, roles
from cmdsync.emulator.resources.channels import place
from cmdsync.emulator.store.database import DISCORD_EPOCH_MS, Store
from cmdsync.model import EPHEMERAL

MAX_PINS = 250  # "Maximum number of pins reached for the channel (250)"
MAX_LIMIT = 50  # Get Channel Pins' ``limit``, and what the deprecated listing gives
BULK_MIN, BULK_MAX = 2, 100
BULK_AGE = 14 * 24 * 3600  # seconds: "will not delete messages older than 2 weeks"


class Pins:
    """Pins and bulk deletes, each change in its own transaction, then its event."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def pin(self, guild: Guild, channel: dict[str, Any], message_id: str, *, pinned: bool,
            now: float) -> None:
        """Pin (or unpin) the message, known to be the channel's: CHANNEL_PINS_UPDATE,
        unless it already was (or was not)."""
        with self.store.transaction() as db:
            found = find(self.store, db, guild, channel["id"], message_id)
            if found is None or bool(found[1].get("pinned")) == pinned:
                return
            _keep(self.store, db, guild, found[0], {**found[1], "pinned": pinned})
            if pinned:
                self.store.put_fixture(db, "pin", channel["id"], message_id, {
                    "message_id": message_id, "pinned_at": payloads.iso(now)})
            else:
                self.store.delete_fixture(db, "pin", channel["id"], message_id)
            latest = max((p["pinned_at"] for p in self.store.pins(channel["id"])),
                         default=None, key=datetime.fromisoformat)
            self.store.put_fixture(db, "channel", guild["id"], channel["id"],
                                   {**channel, "last_pin_timestamp": latest})
        roles.send(self.store, self.events, guild["id"], "CHANNEL_PINS_UPDATE", {
            "guild_id": guild["id"], "channel_id": channel["id"],
            "last_pin_timestamp": latest}, Intent.GUILDS)

    def delete(self, guild: Guild, channel_id: str, message_ids: list[str]) -> None:
        """Delete the channel's messages among ``message_ids`` (and their pins):
        MESSAGE_DELETE_BULK with the ids deleted, if any was."""
        deleted = []
        with self.store.transaction() as db:
            for message_id in message_ids:
                found = find(self.store, db, guild, channel_id, message_id)
                if found is None:
                    continue
                if found[0] == "fixture":
                    self.store.delete_fixture(db, "message", guild["id"], message_id)
                else:
                    db.execute(f"DELETE FROM {_TABLES[found[0]]} WHERE id = ?", (message_id,))
                self.store.delete_fixture(db, "pin", channel_id, message_id)
                deleted.append(message_id)
        if deleted:
            roles.send(self.store, self.events, guild["id"], "MESSAGE_DELETE_BULK", {
                "ids": deleted, "channel_id": channel_id, "guild_id": guild["id"]},
                Intent.GUILD_MESSAGES)


_TABLES = {"interaction": "messages", "channel": "channel_messages"}


def find(store: Store, db: sqlite3.Connection, guild: Guild, channel_id: str,
         message_id: str) -> tuple[str, dict[str, Any]] | None:
    """``(kept_as, message)`` of a message of the channel: ``channel`` (a bot's, or a
    user's sent through the admin API), ``interaction`` (a response, not ephemeral) or
    ``fixture`` (the seed's, as stored); None when the channel has no such message."""
    found = store.any_message(db, message_id)
    if found is not None and found[1].get("channel_id") == channel_id and not (
            found[0] == "interaction" and int(found[1].get("flags") or 0) & EPHEMERAL):
        return found
    seeded = store.seed_message(guild["id"], message_id)
    if seeded is not None and seeded["channel_id"] == channel_id:
        return "fixture", dict(seeded)
    return None


def _keep(store: Store, db: sqlite3.Connection, guild: Guild, kept_as: str,
          message: dict[str, Any]) -> None:
    if kept_as == "fixture":
        store.put_fixture(db, "message", guild["id"], message["id"], message)
    else:
        store.replace_message(db, kept_as, message)


def _shown(store: Store, kept_as: str, message: dict[str, Any]) -> dict[str, Any]:
    """The message as the REST routes send it (no ``guild_id``)."""
    if kept_as != "fixture":
        return {key: value for key, value in message.items() if key != "guild_id"}
    author = objects.user(store, message["author_id"]) or payloads.user(message["author_id"])
    return payloads.fixture_message(cast(SeedMessage, message), author, None)


# -- the routes ---------------------------------------------------------------------


def pin(call: Call) -> Reply:
    """``PUT /channels/{channel_id}/messages/pins/{message_id}`` (and ``.../pins/...``):
    204."""
    return _pin(call, pinned=True)


def unpin(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}/messages/pins/{message_id}`` (and
    ``.../pins/...``): 204."""
    return _pin(call, pinned=False)


def _pin(call: Call, *, pinned: bool) -> Reply:
    guild, channel, permissions = place(call)
    if not permissions & Permissions.PIN_MESSAGES:
        raise error_replies.missing_permissions()
    with call.store.transaction() as db:
        found = find(call.store, db, guild, channel["id"], call.params["message_id"])
    if found is None:
        raise error_replies.unknown_message()
    if pinned and not found[1].get("pinned") and len(call.store.pins(channel["id"])) >= MAX_PINS:
        raise error_replies.ErrorReply(400, 30003, "Maximum number of pins reached for the "
                                                   f"channel ({MAX_PINS})")
    Pins(call.store, call.gateway).pin(guild, channel, found[1]["id"], pinned=pinned,
                                       now=call.now)
    return Reply(204, None)


def list_pins(call: Call) -> Reply:
    """``GET /channels/{channel_id}/messages/pins``: ``{"items": [{"pinned_at",
    "message"}], "has_more"}``."""
    limit = _limit(call.query.get("limit"))
    before = _before(call.query.get("before"))
    items = [item for item in _pinned(call)
             if before is None or datetime.fromisoformat(item["pinned_at"]) < before]
    return Reply(200, {"items": items[:limit], "has_more": len(items) > limit})


def list_pins_deprecated(call: Call) -> Reply:
    """``GET /channels/{channel_id}/pins``: the first 50 pinned messages."""
    return Reply(200, [item["message"] for item in _pinned(call)[:MAX_LIMIT]])


def bulk_delete(call: Call) -> Reply:
    """``POST /channels/{channel_id}/messages/bulk-delete``: 204."""
    guild, channel, permissions = place(call)
    ids = _message_ids(roles.body_object(call.body))
    if not permissions & Permissions.MANAGE_MESSAGES:
        raise error_replies.missing_permissions()
    oldest = (call.now - BULK_AGE) * 1000 - DISCORD_EPOCH_MS
    if any((int(message_id) >> 22) < oldest for message_id in ids):
        raise error_replies.ErrorReply(400, 50034, "You can only bulk delete messages that "
                                                   "are under 14 days old.")
    Pins(call.store, call.gateway).delete(guild, channel["id"], ids)
    return Reply(204, None)


# -- the checks ----------------------------------------------------------------------


def _pinned(call: Call) -> list[dict[str, Any]]:
    """The channel's pins, newest first, as ``{"pinned_at", "message"}`` (none without
    READ_MESSAGE_HISTORY; a pin whose message is gone is skipped)."""
    guild, channel, permissions = place(call)
    if not permissions & Permissions.READ_MESSAGE_HISTORY:
        return []
    items = []
    with call.store.transaction() as db:
        for kept in call.store.pins(channel["id"]):
            found = find(call.store, db, guild, channel["id"], kept["message_id"])
            if found is not None:
                items.append({"pinned_at": kept["pinned_at"],
                              "message": _shown(call.store, *found)})
    return sorted(items, key=lambda item: datetime.fromisoformat(item["pinned_at"]),
                  reverse=True)


def _limit(raw: str | None) -> int:
    if raw is None or raw == "":
        return MAX_LIMIT
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_LIMIT:
        raise error_replies.field_error(("limit",), "NUMBER_TYPE_MAX",
                                        f"int value should be <= {MAX_LIMIT} and >= 1.")
    return int(raw)


def _before(raw: str | None) -> datetime | None:
    if raw is None or raw == "":
        return None
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise error_replies.field_error(("before",), "DATE_TIME_TYPE_PARSE",
                                        "Could not parse " + raw + ". Should be ISO8601.")
    return when


def _message_ids(body: dict[str, Any]) -> list[str]:
    """Bulk Delete Messages' ``messages``: 2-100 distinct snowflakes (50035)."""
    ids = body.get("messages")
    if ids is None:
        raise error_replies.field_error(("messages",), "BASE_TYPE_REQUIRED",
                                        "This field is required")
    if not isinstance(ids, list):
        raise error_replies.field_error(("messages",), "BASE_TYPE_INVALID",
                                        "Must be an array.")
    if len(ids) < BULK_MIN:
        raise error_replies.field_error(("messages",), "BASE_TYPE_MIN_LENGTH",
                                        f"Must be {BULK_MIN} or more in length.")
    if len(ids) > BULK_MAX:
        raise error_replies.field_error(("messages",), "BASE_TYPE_MAX_LENGTH",
                                        f"Must be {BULK_MAX} or fewer in length.")
    for index, value in enumerate(ids):
        if isinstance(value, bool) or not str(value).isdigit() or int(str(value)) >= 2**64:
            raise error_replies.field_error(("messages", str(index)), "NUMBER_TYPE_COERCE",
                                            f'Value "{value}" is not snowflake.')
    shown = [str(value) for value in ids]
    if len(set(shown)) != len(shown):
        raise error_replies.field_error(("messages",), "BASE_TYPE_DUPLICATES",
                                        "Must not contain duplicates.")
    return shown
