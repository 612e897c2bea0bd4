"""Threads as a bot starts and joins them, and their members, with Discord's checks.

Discord's "Channel Resource" (Start Thread from Message, Start Thread without Message,
Start Thread in Forum or Media Channel, Join / Leave Thread, Add / Remove / Get Thread
Member, List Thread Members) and "Topics > Threads". Each route reads as parse, check,
call, serialize. A thread is a channel fixture of type 10, 11 or 12
(:func:`~cmdsync.emulator.resources.objects.thread`) keeping its parent, owner,
slowmode, member count and metadata; its members are ``thread_member`` fixtures. The
bot's permissions in a thread are those in its parent ("Threads generally inherit
permissions from the parent channel"). The checks answer as Discord does:

- from a message (the thread's id is the message's): a text channel starts a
  PUBLIC_THREAD, an announcement channel an ANNOUNCEMENT_THREAD, with
  CREATE_PUBLIC_THREADS (403 50013); an unknown message is 404 10008, one with a
  thread already 400 160004;
- without a message: ``type`` 11 or 12, by default PRIVATE_THREAD (Discord's docs),
  with CREATE_PUBLIC_THREADS or CREATE_PRIVATE_THREADS (an announcement channel makes
  an ANNOUNCEMENT_THREAD of 10 or 11); in a forum or media channel with the body's
  ``message`` (400 50035 without), the first message (its id the thread's, answered as
  the thread's ``message``), needing SEND_MESSAGES alone;
- a channel that starts no thread of the kind (a private one in an announcement
  channel: the emulator's guess) is 400 50024, as is a thread route on a channel that
  is not a thread; a bad ``name``, ``auto_archive_duration`` or ``rate_limit_per_user``
  is 400 50035;
- adding a member needs SEND_MESSAGES_IN_THREADS (MANAGE_THREADS too in a private
  thread not ``invitable``) and a guild member (404 10007); removing one MANAGE_THREADS
  or being a private thread's creator; twice, either answers 204 and sends nothing.
  Getting a user not in the thread is 404 10007; listing needs the GUILD_MEMBERS
  privileged intent enabled (else 403 50001, the emulator's guess). A private thread
  the bot is not in is 403 50001 without MANAGE_THREADS.

:class:`Threads` makes each change in one transaction, then sends its events:
THREAD_CREATE (GUILDS), with ``newly_created`` for a new thread, with its ``member`` to
a bot added to one; THREAD_MEMBERS_UPDATE (``added_members`` with their guild
``member``, or ``removed_member_ids``; ``member_count`` capped at 50) with GUILDS to
the bot added or removed, GUILD_MEMBERS to the others; MESSAGE_CREATE for a forum
thread's first message; a private thread's only to its members and the bots with
MANAGE_THREADS. Archiving is not modelled: no THREAD_MEMBER_UPDATE (sent on
unarchiving); the starter message gets no ``thread`` (nor MESSAGE_UPDATE).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import PRIVILEGED, Intent
from cmdsync.emulator.domain.objects import Guild
from cmdsync.emulator.domain.permissions import Permissions
from cmdsync.emulator.interactions import attachments
from cmdsync.emulator.interactions import response_checks as checks
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.resources import channels, message_events, messages, objects, pins, roles
from cmdsync.emulator.store.database import Store
from cmdsync.model import ChannelType

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)  # minutes
MAX_SLOWMODE = 21600  # seconds
MEMBER_COUNT_CAP = 50  # "approximate number of members in the thread, capped at 50"
MAX_LIMIT = 100  # List Thread Members' ``limit``, and its default
_FORUMS = (ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA)
# The thread a channel starts: (public, private); None where it starts none of the kind.
_KINDS: dict[int, tuple[ChannelType | None, ChannelType | None]] = {
    ChannelType.GUILD_TEXT: (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD),
    ChannelType.GUILD_ANNOUNCEMENT: (ChannelType.ANNOUNCEMENT_THREAD, None)}
ALREADY_STARTED = (400, 160004, "A thread has already been created for this message")
WRONG_TYPE = (400, 50024, "Cannot execute action on this channel type")
FirstMessage = Callable[[sqlite3.Connection, str], dict[str, Any]]


class Threads:
    """Threads started and their members changed, each in one transaction, then events."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def start(self, guild: Guild, fields: dict[str, Any], creator: str, now: float, *,
              first: FirstMessage | None = None) -> dict[str, Any]:
        """Add the thread (a new snowflake its id unless ``fields`` has one) with its
        creator as its member, and in a forum its ``first`` message: THREAD_CREATE
        (``newly_created``), THREAD_MEMBERS_UPDATE, MESSAGE_CREATE; the thread."""
        message = None
        with self.store.transaction() as db:
            thread_id = fields.get("id") or self.store.next_snowflake(db, now)
            db.execute("DELETE FROM fixtures WHERE kind = 'thread_member' AND guild_id = ?",
                       (thread_id,))  # a deleted thread's, its message starting another
            self.store.put_fixture(db, "channel", guild["id"], thread_id,
                                   {**fields, "id": thread_id, "member_count": 1})
            self.store.put_fixture(db, "thread_member", thread_id, creator, {
                "user_id": creator, "join_timestamp": payloads.iso(now), "flags": 0})
            if first is not None:
                message = first(db, thread_id)
                db.execute("INSERT INTO channel_messages VALUES (?, ?, ?)",
                           (thread_id, thread_id, json.dumps(message)))
        body = self.shown(thread_id)
        for app_id in self.store.applications_in(guild["id"]):
            if self.events is not None and self._sees(guild, body, app_id):
                self.events.dispatch(app_id, "THREAD_CREATE", {**body, "newly_created": True},
                                     guild_id=guild["id"], intent=Intent.GUILDS)
        self._members_changed(guild, body, added=(creator,))
        if message is not None:
            message_events.dispatch_created(self.store, self.events, message,
                                            guild_id=guild["id"])
            return {**body, "message": message}
        return body

    def add(self, guild: Guild, thread: dict[str, Any], user_id: str, now: float) -> None:
        """Add ``user_id`` to the thread (nothing if a member already): to a bot,
        THREAD_CREATE with its ``member``; THREAD_MEMBERS_UPDATE."""
        with self.store.transaction() as db:
            if self.store.fixture("thread_member", thread["id"], user_id) is not None:
                return
            row = {"user_id": user_id, "join_timestamp": payloads.iso(now), "flags": 0}
            self.store.put_fixture(db, "thread_member", thread["id"], user_id, row)
            self._count(db, guild, thread["id"])
        body = self.shown(thread["id"])
        if self.events is not None and user_id in self.store.applications_in(guild["id"]):
            self.events.dispatch(user_id, "THREAD_CREATE",
                                 {**body, "member": member_object(
                                     self.store, guild["id"], thread["id"], row)},
                                 guild_id=guild["id"], intent=Intent.GUILDS)
        self._members_changed(guild, body, added=(user_id,))

    def remove(self, guild: Guild, thread: dict[str, Any], user_id: str) -> None:
        """Take ``user_id`` from the thread (nothing if not a member):
        THREAD_MEMBERS_UPDATE."""
        with self.store.transaction() as db:
            if self.store.fixture("thread_member", thread["id"], user_id) is None:
                return
            self.store.delete_fixture(db, "thread_member", thread["id"], user_id)
            self._count(db, guild, thread["id"])
        self._members_changed(guild, self.shown(thread["id"]), removed=(user_id,))

    def shown(self, thread_id: str) -> dict[str, Any]:
        """The thread as Discord sends it."""
        return channels.Channels(self.store, self.events).shown(thread_id)

    def _count(self, db: sqlite3.Connection, guild: Guild, thread_id: str) -> None:
        count = min(len(self.store.thread_members(thread_id)), MEMBER_COUNT_CAP)
        self.store.put_fixture(db, "channel", guild["id"], thread_id, {
            **(self.store.fixture("channel", guild["id"], thread_id) or {}),
            "member_count": count})

    def _members_changed(self, guild: Guild, thread: dict[str, Any], *,
                         added: tuple[str, ...] = (), removed: tuple[str, ...] = ()) -> None:
        body: dict[str, Any] = {"id": thread["id"], "guild_id": guild["id"],
                                "member_count": thread["member_count"]}
        if added:
            body["added_members"] = [{**member_object(
                self.store, guild["id"], thread["id"], row, with_member=True), "presence": None}
                for row in self.store.thread_members(thread["id"]) if row["user_id"] in added]
        if removed:
            body["removed_member_ids"] = list(removed)
        if self.events is None:
            return
        for app_id in self.store.applications_in(guild["id"]):
            mine = app_id in added or app_id in removed
            if mine or self._sees(guild, thread, app_id):
                self.events.dispatch(app_id, "THREAD_MEMBERS_UPDATE", body,
                                     guild_id=guild["id"],
                                     intent=Intent.GUILDS if mine else Intent.GUILD_MEMBERS)

    def _sees(self, guild: Guild, thread: dict[str, Any], app_id: str) -> bool:
        """A public thread is seen by every bot of the guild, a private one by its
        members and the bots with MANAGE_THREADS."""
        return (thread["type"] != ChannelType.PRIVATE_THREAD
                or self.store.fixture("thread_member", thread["id"], app_id) is not None
                or bool(self.store.bot_permissions(guild, app_id)
                        & Permissions.MANAGE_THREADS))


def member_object(store: Store, guild_id: str, thread_id: str, row: dict[str, Any], *,
                  with_member: bool = False) -> dict[str, Any]:
    """A ``thread_member`` fixture as Discord's thread member object, ``with_member`` its
    guild ``member`` too (when the user has one)."""
    shown = {"id": thread_id, "user_id": row["user_id"],
             "join_timestamp": row["join_timestamp"], "flags": row.get("flags", 0)}
    member = objects.member(store, guild_id, row["user_id"]) if with_member else None
    return {**shown, "member": member} if member else shown


# -- the routes ---------------------------------------------------------------------


def start_from_message(call: Call) -> Reply:
    """``POST /channels/{channel_id}/messages/{message_id}/threads``: 201 and the thread."""
    guild, parent, permissions = channels.place(call)
    body = roles.body_object(call.body)
    fields = _fields(call, body, parent)
    kind = _KINDS.get(int(parent["type"]), (None, None))[0]
    if kind is None:
        raise error_replies.ErrorReply(*WRONG_TYPE)
    _need(permissions, Permissions.CREATE_PUBLIC_THREADS)
    with call.store.transaction() as db:
        found = pins.find(call.store, db, guild, parent["id"], call.params["message_id"])
    if found is None:
        raise error_replies.unknown_message()
    if call.store.find_channel(found[1]["id"]) is not None:
        raise error_replies.ErrorReply(*ALREADY_STARTED)
    return Reply(201, Threads(call.store, call.gateway).start(
        guild, {**fields, "id": found[1]["id"], "type": int(kind)},
        call.token.application_id, call.now))


def start_thread(call: Call) -> Reply:
    """``POST /channels/{channel_id}/threads``: 201 and the thread (a forum's with its
    first ``message``)."""
    guild, parent, permissions = channels.place(call)
    body = roles.body_object(call.body)
    fields = _fields(call, body, parent)
    first = None
    if int(parent["type"]) in _FORUMS:
        kind = ChannelType.PUBLIC_THREAD
        first = _first_message(call, guild, body, permissions)
        _need(permissions, Permissions.SEND_MESSAGES)  # CREATE_PUBLIC_THREADS is ignored
        if isinstance(body.get("applied_tags"), list):
            fields["applied_tags"] = [str(tag) for tag in body["applied_tags"]][:5]
    else:
        kind = _kind(body, int(parent["type"]))
        _need(permissions, Permissions.CREATE_PRIVATE_THREADS
              if kind == ChannelType.PRIVATE_THREAD else Permissions.CREATE_PUBLIC_THREADS)
        if kind == ChannelType.PRIVATE_THREAD:
            fields["thread_metadata"]["invitable"] = body.get("invitable") is not False
    return Reply(201, Threads(call.store, call.gateway).start(
        guild, {**fields, "type": int(kind)}, call.token.application_id, call.now,
        first=first))


def join(call: Call) -> Reply:
    """``PUT /channels/{channel_id}/thread-members/@me``: 204."""
    guild, thread, _ = _thread(call)
    Threads(call.store, call.gateway).add(guild, thread, call.token.application_id, call.now)
    return Reply(204, None)


def leave(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}/thread-members/@me``: 204."""
    guild, thread, _ = _thread(call)
    Threads(call.store, call.gateway).remove(guild, thread, call.token.application_id)
    return Reply(204, None)


def add_member(call: Call) -> Reply:
    """``PUT /channels/{channel_id}/thread-members/{user_id}``: 204."""
    guild, thread, permissions = _thread(call)
    user_id = call.params["user_id"]
    _need(permissions, Permissions.SEND_MESSAGES_IN_THREADS)
    if thread["type"] == ChannelType.PRIVATE_THREAD and not thread["thread_metadata"].get(
            "invitable", True):
        _need(permissions, Permissions.MANAGE_THREADS)
    if call.store.member(guild["id"], user_id) is None:
        raise error_replies.unknown("member")
    Threads(call.store, call.gateway).add(guild, thread, user_id, call.now)
    return Reply(204, None)


def remove_member(call: Call) -> Reply:
    """``DELETE /channels/{channel_id}/thread-members/{user_id}``: 204."""
    guild, thread, permissions = _thread(call)
    if not (thread["type"] == ChannelType.PRIVATE_THREAD
            and thread["owner_id"] == call.token.application_id):  # its creator may
        _need(permissions, Permissions.MANAGE_THREADS)
    Threads(call.store, call.gateway).remove(guild, thread, call.params["user_id"])
    return Reply(204, None)


def get_member(call: Call) -> Reply:
    """``GET /channels/{channel_id}/thread-members/{user_id}[?with_member=true]``: the
    thread member; 404 10007 for a user not in the thread."""
    guild, thread, _ = _thread(call)
    row = call.store.fixture("thread_member", thread["id"], call.params["user_id"])
    if row is None:
        raise error_replies.unknown("member")
    return Reply(200, member_object(call.store, guild["id"], thread["id"], row,
                                    with_member=_query_true(call, "with_member")))


def list_members(call: Call) -> Reply:
    """``GET /channels/{channel_id}/thread-members``: the thread's members by user id;
    with ``with_member``, a page of them (``after``, ``limit``) with their guild
    members."""
    guild, thread, _ = _thread(call)
    with_member = _query_true(call, "with_member")
    limit, after = _number(call, "limit", MAX_LIMIT), _number(call, "after", 0)
    app = call.store.application(call.token.application_id)
    if app is None or not app.flags & PRIVILEGED[Intent.GUILD_MEMBERS]:
        raise error_replies.missing_access()
    rows = sorted(call.store.thread_members(thread["id"]), key=lambda r: int(r["user_id"]))
    if with_member:
        rows = [r for r in rows if int(r["user_id"]) > after][:limit]
    return Reply(200, [member_object(call.store, guild["id"], thread["id"], row,
                                     with_member=with_member) for row in rows])


# -- the checks ----------------------------------------------------------------------


def _thread(call: Call) -> tuple[Guild, dict[str, Any], int]:
    """The thread in the path (as Discord sends it) and the bot's permissions in its
    parent: 404 10003, 400 50024 for a channel that is not a thread, 403 50001 where
    the bot cannot see the parent, or a private thread it is not in without
    MANAGE_THREADS."""
    guild, channel, permissions = channels.place(call)
    if int(channel["type"]) not in objects.THREADS:
        raise error_replies.ErrorReply(*WRONG_TYPE)
    thread = Threads(call.store, call.gateway).shown(channel["id"])
    parent = call.store.fixture("channel", guild["id"], str(thread.get("parent_id")))
    if parent is not None:
        permissions = channels.channel_permissions(call, guild, parent)
    if not permissions & Permissions.VIEW_CHANNEL:
        raise error_replies.missing_access()
    if thread["type"] == ChannelType.PRIVATE_THREAD and not permissions & (
            Permissions.MANAGE_THREADS) and call.store.fixture(
            "thread_member", thread["id"], call.token.application_id) is None:
        raise error_replies.missing_access()
    return guild, thread, permissions


def _need(permissions: int, permission: Permissions) -> None:
    if not permissions & permission:
        raise error_replies.missing_permissions()


def _fields(call: Call, body: dict[str, Any], parent: dict[str, Any]) -> dict[str, Any]:
    """A new thread's fields from the body, checked (50035): ``name``, slowmode, its
    parent, creator and metadata."""
    name = _required(body, "name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= roles.MAX_NAME:
        raise error_replies.field_error(("name",), "BASE_TYPE_BAD_LENGTH",
                                        f"Must be between 1 and {roles.MAX_NAME} in length.")
    shown = Threads(call.store, call.gateway).shown(parent["id"])
    duration = body.get("auto_archive_duration")
    if duration is None:
        duration = shown.get("default_auto_archive_duration", payloads.AUTO_ARCHIVE)
    elif isinstance(duration, bool) or duration not in ARCHIVE_DURATIONS:
        raise error_replies.field_error(("auto_archive_duration",), "BASE_TYPE_CHOICES",
                                        f"Value must be one of {set(ARCHIVE_DURATIONS)}.")
    slowmode = body.get("rate_limit_per_user")
    if slowmode is None:
        slowmode = shown.get("default_thread_rate_limit_per_user", 0)
    elif isinstance(slowmode, bool) or not isinstance(slowmode, int) or not (
            0 <= slowmode <= MAX_SLOWMODE):
        raise error_replies.field_error(("rate_limit_per_user",), "NUMBER_TYPE_MAX",
                                        f"int value should be <= {MAX_SLOWMODE} and >= 0.")
    when = payloads.iso(call.now)
    return {"name": name.strip(), "parent_id": parent["id"],
            "owner_id": call.token.application_id, "rate_limit_per_user": slowmode,
            "thread_metadata": {"auto_archive_duration": duration, "archive_timestamp": when,
                                "create_timestamp": when}}


def _kind(body: dict[str, Any], parent_type: int) -> ChannelType:
    """Start Thread without Message's ``type`` (by default PRIVATE_THREAD) as the parent
    starts it: 50035 for no thread type, 50024 for one the parent cannot start."""
    value = ChannelType.PRIVATE_THREAD if body.get("type") is None else body["type"]
    if isinstance(value, bool) or value not in objects.THREADS:
        raise error_replies.field_error(("type",), "BASE_TYPE_CHOICES",
                                        "Value must be one of {10, 11, 12}.")
    public, private = _KINDS.get(parent_type, (None, None))
    kind = private if value == ChannelType.PRIVATE_THREAD else public
    if kind is None:
        raise error_replies.ErrorReply(*WRONG_TYPE)
    return kind


def _first_message(call: Call, guild: Guild, body: dict[str, Any], permissions: int
                   ) -> FirstMessage:
    """A forum thread's first message from the body's ``message``, checked as Create
    Message checks it (50035, 50006); made, its id the thread's, once the thread is."""
    first = _required(body, "message")
    if not isinstance(first, dict):
        raise error_replies.field_error(("message",), "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    checks.check_message(attachments.with_uploads(first, call.uploads), require_content=True,
                         prefix=("message",))
    app = call.store.application(call.token.application_id)
    assert app is not None  # channels.place found its bot installed
    def made(db: sqlite3.Connection, thread_id: str) -> dict[str, Any]:
        content = first.get("content") or ""
        return {
            "type": messages.DEFAULT, "content": content,
            **attachments.mentions(call.store, guild["id"], content,
                                   first.get("allowed_mentions"), permissions=permissions),
            "attachments": attachments.build(first, call.uploads, thread_id,
                                             lambda: call.store.next_snowflake(db, call.now)),
            "embeds": messages.rendered_embeds(first.get("embeds")),
            "timestamp": payloads.iso(call.now), "edited_timestamp": None,
            "flags": checks.message_flags(first),
            "components": payloads.numbered_components(list(first.get("components") or [])),
            "id": thread_id, "channel_id": thread_id, "position": 0,
            "author": payloads.bot_user(app, pii=False), "pinned": False, "tts": False}

    return made


def _required(body: dict[str, Any], name: str) -> Any:
    if body.get(name) is None:
        raise error_replies.field_error((name,), "BASE_TYPE_REQUIRED",
                                        "This field is required")
    return body[name]


def _query_true(call: Call, name: str) -> bool:
    return call.query.get(name, "").lower() in ("true", "1")


def _number(call: Call, name: str, default: int) -> int:
    """A query's integer (``limit`` 1-100), else 50035."""
    raw = call.query.get(name) or str(default)
    if not (raw.isascii() and raw.isdigit()):
        raise error_replies.field_error((name,), "NUMBER_TYPE_COERCE",
                                        f'Value "{raw}" is not int.')
    if name == "limit" and not 1 <= int(raw) <= MAX_LIMIT:
        raise error_replies.field_error((name,), "NUMBER_TYPE_MAX",
                                        f"int value should be <= {MAX_LIMIT} and >= 1.")
    return int(raw)
