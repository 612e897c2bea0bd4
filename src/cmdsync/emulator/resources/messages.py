"""Channel messages a bot sends beside the interaction, stored per channel.

Routes (Discord's "Channel" resource docs: Create Message, Get Channel
Message(s), Edit Message, Delete Message), for a bot token (a Bearer token
gets 403 code 20002) in a guild the application is installed in (else 403
50001 Missing Access), or in its DM channel with a seeded user
(:func:`cmdsync.emulator.resources.objects.dm_channel`); the bot's permissions are its
member fixture's, else ``@everyone``'s (in a DM, ``@everyone``'s defaults):

- ``POST /channels/{channel.id}/messages``: 200 and the message. Needs
  VIEW_CHANNEL (50001) and SEND_MESSAGES (SEND_MESSAGES_IN_THREADS in a
  thread; 403 50013); a category or a forum is 400 50008. The body is
  checked as Discord checks it (:func:`cmdsync.emulator.interactions.response_checks.check_message`:
  content, embeds, components, flags, allowed mentions; 50006 when empty).
  Embeds come back as Discord renders them (``type`` ``rich``, fields with
  ``inline``). ``message_reference`` makes a reply (type 19) to a message of the
  channel; an unknown one is 50035 ``REPLIES_UNKNOWN_MESSAGE`` unless
  ``fail_if_not_exists`` is false. ``nonce`` comes back as sent.
- ``GET /channels/{channel.id}/messages/{message.id}`` (READ_MESSAGE_HISTORY,
  else 50001) and ``GET /channels/{channel.id}/messages`` (``limit`` 1-100,
  default 50; ``before``, ``after``; newest first): the messages the bot
  sent, the seed's messages and the non-ephemeral interaction responses.
- ``PATCH .../messages/{message.id}``: content, embeds, components,
  flags, allowed mentions and attachments of a message the bot sent
  (another's is 403 50005); ``edited_timestamp`` set.
- ``DELETE .../messages/{message.id}``: 204; another user's message needs
  MANAGE_MESSAGES (403 50013).

An unknown channel is 404 10003, an unknown message 404 10008. Every body
form Discord takes is taken (:mod:`cmdsync.emulator.reference.request_body`), with
files as :mod:`cmdsync.emulator.interactions.attachments`. :func:`sent` lists the stored
messages for the admin API (``GET /_emulator/messages``); a reset forgets them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.domain.payloads import fixture_message
from cmdsync.emulator.domain.permissions import EVERYONE, Permissions
from cmdsync.emulator.interactions import attachments
from cmdsync.emulator.interactions import response_checks as checks
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Reply
from cmdsync.emulator.resources import message_events, objects
from cmdsync.emulator.store.database import Store
from cmdsync.model import EPHEMERAL, Permission

MAX_LIMIT, DEFAULT_LIMIT = 100, 50
DM_PERMISSIONS = int(EVERYONE)  # what a bot may do in a DM, as invocations take it
REPLY, DEFAULT = 19, 0  # message types
_EDITABLE = ("content", "embeds", "components", "flags")


@dataclass(frozen=True)
class _Place:
    """The bot in a channel: its application, the channel's guild, the channel and
    the bot's permissions there."""

    app: Application
    guild_id: str
    channel: dict[str, Any]
    permissions: int

    def require(self, permission: Permission) -> None:
        if not self.permissions & Permissions[permission.name]:
            raise error_replies.missing_permissions()


def place(call: Call) -> _Place:
    """The channel in the path, as the token's bot sees it (404, 403 otherwise)."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    app = call.store.application(call.token.application_id)
    if app is None:
        raise error_replies.unauthorized()
    found = objects.find_channel(call.store, call.params["channel_id"])
    if found is None:
        dm = objects.dm_of(call.store, call.params["channel_id"])
        if dm is None or dm[0] != app.id:  # another bot's DM with a user is not this one's
            raise error_replies.unknown("channel")
        return _Place(app, "", dm[1], DM_PERMISSIONS)
    guild_id, channel = found
    if not call.store.installed_in(guild_id, app.id):
        raise error_replies.missing_access()
    permissions = objects.bot_permissions(call.store, guild_id, app.id)
    if not permissions & Permissions.VIEW_CHANNEL:
        raise error_replies.missing_access()
    return _Place(app, guild_id, channel, permissions)


def create_message(call: Call) -> Reply:
    """``POST /channels/{channel_id}/messages``."""
    where = place(call)
    threads = channel_type(where) in objects.THREADS
    where.require(Permission.SEND_MESSAGES_IN_THREADS if threads else Permission.SEND_MESSAGES)
    if channel_type(where) in objects.NOT_TEXT:
        raise error_replies.not_a_text_channel()
    body = _object(call.body)
    checks.check_message(attachments.with_uploads(body, call.uploads), require_content=True,
                         prefix=())
    channel_id = where.channel["id"]
    with call.store.transaction() as db:
        replied = _replied(call.store, db, where, body.get("message_reference"))
        message_id = call.store.next_snowflake(db, call.now)
        message: dict[str, Any] = {
            "type": REPLY if replied else DEFAULT, "content": body.get("content") or "",
            **attachments.mentions(call.store, where.guild_id, body.get("content") or "",
                                   body.get("allowed_mentions"),
                                   permissions=where.permissions,
                                   replied_author=replied["author"] if replied else None),
            "attachments": attachments.build(body, call.uploads, channel_id,
                                             lambda: call.store.next_snowflake(db, call.now)),
            "embeds": rendered_embeds(body.get("embeds")), "timestamp": payloads.iso(call.now),
            "edited_timestamp": None, "flags": checks.message_flags(body),
            "components": payloads.numbered_components(list(body.get("components") or [])),
            "id": message_id,
            "channel_id": channel_id, "author": payloads.bot_user(where.app, pii=False),
            "pinned": False, "tts": bool(body.get("tts"))}
        if isinstance(body.get("nonce"), (str, int)) and not isinstance(body["nonce"], bool):
            message["nonce"] = body["nonce"]
        if replied:
            message["message_reference"] = {"type": 0, "channel_id": channel_id,
                                            "message_id": replied["id"]}
            if where.guild_id:
                message["message_reference"]["guild_id"] = where.guild_id
            message["referenced_message"] = replied
        _save(db, message)
    message_events.dispatch_created(call.store, call.gateway, message,
                                    guild_id=where.guild_id or None,
                                    dm_of=None if where.guild_id else where.app.id)
    return Reply(200, message)


def get_message(call: Call) -> Reply:
    """``GET /channels/{channel_id}/messages/{message_id}``."""
    where = place(call)
    _history(where)
    with call.store.transaction() as db:
        found = _find(call.store, db, where, call.params["message_id"])
    if found is None:
        raise error_replies.unknown_message()
    return Reply(200, found[1])


def list_messages(call: Call) -> Reply:
    """``GET /channels/{channel_id}/messages``."""
    where = place(call)
    _history(where)
    limit = _number(call.query.get("limit"), "limit", DEFAULT_LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        raise error_replies.field_error(("limit",), "NUMBER_TYPE_MAX",
                                        f"int value should be <= {MAX_LIMIT} and >= 1.")
    before = _number(call.query.get("before"), "before", 2**64)
    after = _number(call.query.get("after"), "after", 0)
    with call.store.transaction() as db:
        every = _in_channel(call.store, db, where)
    chosen = [m for m in every if after < int(m["id"]) < before]
    chosen.sort(key=lambda m: int(m["id"]), reverse=True)
    return Reply(200, chosen[:limit])


def edit_message(call: Call) -> Reply:
    """``PATCH /channels/{channel_id}/messages/{message_id}``."""
    where = place(call)
    body = _object(call.body)
    checks.check_message(attachments.with_uploads(body, call.uploads), require_content=False,
                         prefix=())
    with call.store.transaction() as db:
        found = _find(call.store, db, where, call.params["message_id"])
        if found is None:
            raise error_replies.unknown_message()
        kind, message = found
        if kind != "sent":
            raise error_replies.another_users_message()
        for key in _EDITABLE:
            if key in body:
                message[key] = body[key] if body[key] is not None else (
                    0 if key == "flags" else "" if key == "content" else [])
        message["embeds"] = rendered_embeds(message["embeds"])
        if "components" in body:
            message["components"] = payloads.numbered_components(message["components"])
        if "content" in body or "allowed_mentions" in body:
            message.update(attachments.mentions(
                call.store, where.guild_id, message["content"], body.get("allowed_mentions"),
                permissions=where.permissions))
        message["attachments"] = attachments.build(
            body, call.uploads, where.channel["id"],
            lambda: call.store.next_snowflake(db, call.now), existing=message["attachments"])
        if not any(message.get(k) for k in ("content", "embeds", "components", "attachments")):
            raise error_replies.empty_message()
        message["edited_timestamp"] = payloads.iso(call.now)
        _save(db, message)
    message_events.dispatch_updated(call.store, call.gateway, message,
                                    guild_id=where.guild_id or None,
                                    dm_of=None if where.guild_id else where.app.id)
    return Reply(200, message)


def delete_message(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}/messages/{message_id}``."""
    where = place(call)
    with call.store.transaction() as db:
        found = _find(call.store, db, where, call.params["message_id"])
        if found is None:
            raise error_replies.unknown_message()
        kind, message = found
        if message["author"]["id"] != where.app.id:
            where.require(Permission.MANAGE_MESSAGES)
        if kind == "sent":
            db.execute("DELETE FROM channel_messages WHERE id = ?", (message["id"],))
        elif kind == "fixture":
            call.store.delete_fixture(db, "message", where.guild_id, message["id"])
        else:
            call.store.delete_message(db, message["id"])
    message_events.dispatch_deleted(call.store, call.gateway,
                                    {"id": message["id"], "channel_id": where.channel["id"]},
                                    guild_id=where.guild_id or None,
                                    dm_of=None if where.guild_id else where.app.id)
    return Reply(204, None)


def sent(store: Store, *, channel_id: str | None = None, after: str | None = None
         ) -> list[dict[str, Any]]:
    """The messages bots sent through the channel routes, oldest first; only those of
    ``channel_id`` and with ids above ``after`` when given."""
    query, args = "SELECT body FROM channel_messages WHERE 1 = 1", []
    if channel_id:
        query, args = query + " AND channel_id = ?", [channel_id]
    with store.transaction() as db:
        rows = db.execute(query, args).fetchall()
    found = [json.loads(row["body"]) for row in rows]
    if after and after.isdigit():
        found = [m for m in found if int(m["id"]) > int(after)]
    return sorted(found, key=lambda m: int(m["id"]))


def rendered_embeds(embeds: Any) -> list[dict[str, Any]]:
    """Embeds as Discord returns them: ``type`` ``rich`` unless given, and every field
    with ``inline`` (false unless given)."""
    out = []
    for embed in embeds or []:
        shown = {"type": "rich", **embed}
        if isinstance(embed.get("fields"), list):
            shown["fields"] = [{"inline": False, **field} for field in embed["fields"]]
        out.append(shown)
    return out


# -- lookups ------------------------------------------------------------------------


def channel_type(where: _Place) -> int:
    return int(where.channel["type"])


def _history(where: _Place) -> None:
    if not where.permissions & Permissions.READ_MESSAGE_HISTORY:
        raise error_replies.missing_access()


def _save(db: sqlite3.Connection, message: Mapping[str, Any]) -> None:
    db.execute("INSERT OR REPLACE INTO channel_messages VALUES (?, ?, ?)",
               (message["id"], message["channel_id"], json.dumps(dict(message))))


def _find(store: Store, db: sqlite3.Connection, where: _Place, message_id: str
          ) -> tuple[str, dict[str, Any]] | None:
    """``(kind, message)``: ``sent`` through these routes, a seed ``fixture`` or an
    ``interaction`` response; None when the channel has no such message."""
    return next(((kind, m) for kind, m in _every(store, db, where, message_id)), None)


def _in_channel(store: Store, db: sqlite3.Connection, where: _Place) -> list[dict[str, Any]]:
    return [message for _, message in _every(store, db, where, None)]


def _every(store: Store, db: sqlite3.Connection, where: _Place, message_id: str | None
           ) -> list[tuple[str, dict[str, Any]]]:
    channel_id = where.channel["id"]
    found: list[tuple[str, dict[str, Any]]] = []
    clause, args = ("AND id = ?", [message_id]) if message_id else ("", [])
    for row in db.execute(f"SELECT body FROM channel_messages WHERE channel_id = ? {clause}",
                          [channel_id, *args]):
        found.append(("sent", json.loads(row["body"])))
    for row in db.execute(f"SELECT body FROM messages WHERE 1 = 1 {clause}", args):
        message = json.loads(row["body"])
        if message.get("channel_id") == channel_id and not int(message["flags"]) & EPHEMERAL:
            message.pop("guild_id", None)  # REST messages carry no guild_id
            found.append(("interaction", message))
    for fixture in store.seed_messages(where.guild_id):
        if fixture["channel_id"] == channel_id and message_id in (None, fixture["id"]):
            author = objects.user(store, fixture["author_id"]) or payloads.user(
                fixture["author_id"])
            found.append(("fixture", fixture_message(fixture, author, None)))
    return found


def _replied(store: Store, db: sqlite3.Connection, where: _Place, reference: Any
             ) -> dict[str, Any] | None:
    """The message a reply refers to (None: not a reply, or a missing one allowed)."""
    if reference is None:
        return None
    if not isinstance(reference, dict):
        raise error_replies.field_error(("message_reference",), "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    message_id = str(reference.get("message_id") or "")
    found = _find(store, db, where, message_id) if message_id.isdigit() else None
    if found is None and reference.get("fail_if_not_exists", True) is not False:
        raise error_replies.field_error(("message_reference",), "REPLIES_UNKNOWN_MESSAGE",
                                        "Unknown message")
    return found[1] if found else None


def _object(body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    return body


def _number(raw: str | None, name: str, default: int) -> int:
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise error_replies.field_error((name,), "NUMBER_TYPE_COERCE",
                                        f'Value "{raw}" is not int.')
    return int(raw)
