"""Application-command semantics: upsert, edit, delete and bulk overwrite.

Every function works inside one open store transaction (a :class:`Scope`)
and raises :class:`~cmdsync.emulator.reference.error_replies.ErrorReply` exactly where Discord
answers with an error (Discord's "Application Commands" documentation (endpoints), "Validation rules"):

- bodies are checked with cmdsync's own rules
  (:func:`cmdsync.validate.validate_api_commands`) and refused with 50035, once
  the fields Discord's request schemas type as nullable and that are null are left out
  (:func:`~cmdsync.emulator.application_commands.bodies.without_nulls`), as Discord
  takes them: absent;
- per scope and type at most 100 CHAT_INPUT, 15 USER, 15 MESSAGE and 1
  PRIMARY_ENTRY_POINT command (else 30032), and at most
  ``Limits.daily_creates`` new commands per scope per UTC day (else 30034);
- ``version`` changes only when the stored body does; renaming or deleting
  a command drops its permission overwrites.

Each distinct command body is checked and brought to its stored form once:
the rules that read one command alone skip an item found valid before (the
schema and the rules across commands, such as duplicate names, see every
item of every request), and the stored form and its JSON text are kept by
the body's bytes (:func:`_stored`). A request's writes go to the store in
one statement (:meth:`~cmdsync.emulator.store.database.Store.save_commands`).
"""

from __future__ import annotations

import json
import marshal
import sqlite3
from datetime import datetime, timedelta, timezone
from typing import Any

from cmdsync.emulator.application_commands.bodies import stored_body, without_nulls
from cmdsync.emulator.domain.objects import Application, StoredCommand
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Scope
from cmdsync.emulator.reference.form_body import invalid_form_body, nest
from cmdsync.emulator.store.database import Store
from cmdsync.manifest.diagnostics import Severity
from cmdsync.model import APPLICATION_FLAG_EMBEDDED, MAX_COMMANDS_PER_TYPE, CommandType
from cmdsync.validate import validate_api_commands

ENTRY_POINT = {"type": int(CommandType.PRIMARY_ENTRY_POINT), "name": "Launch",
               "description": "Launch an activity", "handler": 2}
MAX_BULK_ITEMS = 130  # openapi.json: maxItems of a bulk overwrite
# Rules Discord does not answer with 50035: unknown keys are ignored, as are
# warnings' subjects; the per-scope caps answer 30032 on the resulting state;
# overwrite and cross-file manifest rules do not apply to a request body. CS306 (BOT_DM
# in a guild command's contexts) is a manifest error, not Discord's: Discord takes
# ``contexts: [0, 1, 2]`` on a guild command (interactions.py sends it for every guild
# command it syncs) and keeps no contexts on guild commands (bodies.stored_body).
NOT_ENFORCED = ("CS010", "CS014", "CS015", "CS302", "CS305", "CS306", "CS307", "CS4",
                "CS502")


def stored(scope: Scope, item: dict[str, Any]) -> dict[str, Any]:
    """The canonical stored form of a validated command body in ``scope``."""
    return _stored(item, scope)[0]


def _stored(item: dict[str, Any], scope: Scope, raw: bytes | None = None
            ) -> tuple[dict[str, Any], str]:
    """:meth:`Scope.stored` and its JSON text, each made once per distinct item (by its
    bytes, ``raw`` when known, the kind of scope and the application's installation
    contexts)."""
    raw = raw if raw is not None else _marshalled(item)
    key = None if raw is None else (raw, bool(scope.guild_id), scope.app.integration_types)
    kept = _STORED.get(key) if key is not None else None
    if kept is None:
        body = stored_body(item, guild=bool(scope.guild_id),
                           integration_types=scope.app.integration_types)
        kept = (body, json.dumps(body))
        if key is not None:
            _remember(_STORED, key, kept)
            _remember(_TEXTS, id(body), kept)
    return kept


def _text_of(body: dict[str, Any]) -> str | None:
    """The JSON text :func:`_stored` made of ``body``, if it made ``body``."""
    kept = _TEXTS.get(id(body))
    return kept[1] if kept is not None and kept[0] is body else None


def _remember(table: dict[Any, Any], key: Any, value: Any) -> None:
    table[key] = value
    while len(table) > _KEPT:
        table.pop(next(iter(table)), None)  # handlers run in threads


def validate(items: list[Any], scope: Scope, *, single: bool,
             raws: list[bytes | None] | None = None) -> None:
    """Raise 50035 if Discord would refuse these command bodies (``raws``: their
    :func:`_marshalled` bytes, when known)."""
    raws = raws if raws is not None else [_marshalled(item) for item in items]
    global_scope = not scope.guild_id
    key = None if None in raws else (b"".join(raws), global_scope)  # type: ignore[arg-type]
    if key not in _VALID_BODIES:
        item_keys = [None if raw is None else (raw, global_scope) for raw in raws]
        known = [i for i, k in enumerate(item_keys) if k is not None and k in _VALID_ITEMS]
        found = [d for d in validate_api_commands(items, scope=scope.guild_id or "global",
                                                  ignore=NOT_ENFORCED, known=known)
                 if d.severity is Severity.ERROR]
        if found and known:  # said exactly as when every item is checked
            found = [d for d in validate_api_commands(
                items, scope=scope.guild_id or "global", ignore=NOT_ENFORCED)
                if d.severity is Severity.ERROR]
        if found:
            raise error_replies.invalid_form(invalid_form_body(found, items, single=single))
        for item_key in item_keys:
            if item_key is not None:
                _remember(_VALID_ITEMS, item_key, None)
        if key is not None:
            _remember(_VALID_BODIES, key, None)
    leaves = []
    for index, item in enumerate(items):
        where = [] if single else [str(index)]
        if item.get("type") == CommandType.PRIMARY_ENTRY_POINT and not (
                scope.app.flags & APPLICATION_FLAG_EMBEDDED):
            leaves.append((where + ["type"], "BASE_TYPE_CHOICES",
                           ("PRIMARY_ENTRY_POINT commands need an application with an "
                            "Activity (flag EMBEDDED)")))
        types = item.get("integration_types")
        if not scope.guild_id and types and not set(types) <= set(scope.app.integration_types):
            leaves.append((where + ["integration_types"],
                           "APPLICATION_COMMAND_INTEGRATION_TYPES_UNSUPPORTED",
                           ("A command's integration_types must already be supported at "
                            "application level")))
    if leaves:
        raise error_replies.invalid_form(nest(leaves))


def upsert(scope: Scope, payload: Any) -> tuple[int, StoredCommand]:
    """POST: create (201), or overwrite the command of that type and name (200)."""
    if not isinstance(payload, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                 "Only dictionaries may be used in a ModelType")
    payload = without_nulls(payload)
    validate([payload], scope, single=True)
    body = stored(scope, payload)
    existing = scope.commands()
    match = next((c for c in existing if (c.type, c.name) == (body["type"], body["name"])),
                 None)
    if match is not None:
        return 200, _save(scope, match, body)
    _check_caps([c.type for c in existing] + [body["type"]])
    _spend_creates(scope, 1)
    return 201, _save(scope, None, body)


def edit(scope: Scope, command_id: str, payload: Any) -> StoredCommand:
    """PATCH: each provided field replaces the stored one entirely; ``type`` stays."""
    old = scope.store.command(scope.db, scope.app.id, scope.guild_id, command_id)
    if old is None:
        raise error_replies.unknown("command")
    if not isinstance(payload, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                 "Only dictionaries may be used in a ModelType")
    # a null field replaces the stored one, then reads as absent (the default)
    merged = without_nulls(
        {**old.body, **{k: v for k, v in payload.items() if k not in ("type", "id")}})
    validate([merged], scope, single=True)
    body = stored(scope, merged)
    if any(c.id != old.id and (c.type, c.name) == (old.type, body["name"])
           for c in scope.commands()):
        raise error_replies.name_taken()
    return _save(scope, old, body)


def delete(scope: Scope, command_id: str) -> None:
    """DELETE: the command and every overwrite of it are gone."""
    old = scope.store.command(scope.db, scope.app.id, scope.guild_id, command_id)
    if old is None:
        raise error_replies.unknown("command")
    scope.store.delete_command(scope.db, old)


# Request bodies found valid, by their bytes and whether the scope is global: a bot
# that puts the same commands in hundreds of guilds has them checked once. Valid in
# one guild is valid in any (the rules read the scope only as global or not). Items
# (commands) of valid bodies likewise, for the rules that read one command alone; and
# the stored form of each item.
_VALID_BODIES: dict[tuple[bytes, bool], None] = {}
_VALID_ITEMS: dict[tuple[bytes, bool], None] = {}
_STORED: dict[Any, tuple[dict[str, Any], str]] = {}
_TEXTS: dict[int, tuple[dict[str, Any], str]] = {}  # id of a stored form -> it, its text
_KEPT = 16_384


def _marshalled(item: Any) -> bytes | None:
    """``item``'s bytes (``marshal``, self-delimiting: joined, they key a list), or None
    for a value marshal cannot write."""
    try:
        return marshal.dumps(item)
    except ValueError:
        return None


def bulk_overwrite(scope: Scope, payload: Any) -> tuple[list[StoredCommand], int]:
    """PUT: the scope becomes exactly this list; returns it and how many were new.

    An item's ``id`` updates that command in place (so a rename keeps its id);
    other items match an existing command by type and name. Commands left out
    are deleted, except that leaving out the entry point is refused (50240).
    """
    items = _bulk_items(payload)
    raws = [_marshalled(item) for item in items]
    validate(items, scope, single=False, raws=raws)
    existing = scope.commands()
    plan = _match(scope, items, existing, raws)
    kept = {old.id for old, _ in plan if old is not None}
    if any(c.type == CommandType.PRIMARY_ENTRY_POINT and c.id not in kept for c in existing):
        raise error_replies.entry_point_removed()
    _check_caps([body["type"] for _, body in plan])
    creates = sum(1 for old, _ in plan if old is None)
    _spend_creates(scope, creates)
    for command in existing:
        if command.id not in kept:
            scope.store.delete_command(scope.db, command)
    return _save_all(scope, plan), creates


def _bulk_items(payload: Any) -> list[Any]:
    if payload is None:
        return []
    if not isinstance(payload, list):
        raise error_replies.field_error((), "LIST_TYPE_CONVERT",
                                 "Only iterables may be used in a ListType")
    if len(payload) > MAX_BULK_ITEMS:
        raise error_replies.field_error((), "BASE_TYPE_MAX_LENGTH",
                                 f"Must be {MAX_BULK_ITEMS} or fewer in length.")
    bad = [(str(i), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
           for i, item in enumerate(payload) if not isinstance(item, dict)]
    if bad:
        raise error_replies.invalid_form(nest(([path], code, msg) for path, code, msg in bad))
    return [without_nulls(item) for item in payload]


def _match(scope: Scope, items: list[dict[str, Any]], existing: list[StoredCommand],
           raws: list[bytes | None]) -> list[tuple[StoredCommand | None, dict[str, Any]]]:
    """Pair each item with the command it updates (by ``id``, else type and name)."""
    by_id = {c.id: c for c in existing}
    claimed = {str(item["id"]) for item in items if item.get("id") is not None}
    plan: list[tuple[StoredCommand | None, dict[str, Any]]] = []
    unknown = []
    by_key: dict[tuple[int, str], list[StoredCommand]] = {}
    for command in existing:
        by_key.setdefault((command.type, command.name), []).append(command)
    for index, item in enumerate(items):
        body = _stored(item, scope, raws[index])[0]
        if item.get("id") is not None:
            old = by_id.get(str(item["id"]))
            if old is None or old.type != body["type"]:
                unknown.append(([str(index), "id"], "APPLICATION_COMMAND_UNKNOWN_ID",
                                (f"no {CommandType(body['type']).name} command has id "
                                f"{item['id']} in this scope")))
        else:
            old = next((c for c in by_key.get((body["type"], body["name"]), ())
                        if c.id not in claimed), None)
            if old is not None:
                claimed.add(old.id)
        plan.append((old, body))
    if unknown:
        raise error_replies.invalid_form(nest(unknown))
    return plan


def _check_caps(types: list[int]) -> None:
    for kind, cap in MAX_COMMANDS_PER_TYPE.items():
        if types.count(int(kind)) > cap:
            raise error_replies.too_many_commands()


def _spend_creates(scope: Scope, count: int) -> None:
    """Count ``count`` creates against today's budget of the scope, or refuse."""
    if not count:
        return
    moment = datetime.fromtimestamp(scope.now, timezone.utc)
    day = moment.strftime("%Y-%m-%d")
    used = scope.store.creates_today(scope.db, scope.app.id, scope.guild_id, day)
    limit = scope.limits.daily_creates
    if used + count > limit:
        midnight = datetime(moment.year, moment.month, moment.day,
                            tzinfo=timezone.utc) + timedelta(days=1)
        raise error_replies.too_many_daily_creates(limit, status=scope.limits.daily_creates_status,
                                            retry_after=(midnight - moment).total_seconds())
    scope.store.count_creates(scope.db, scope.app.id, scope.guild_id, day, count)


def _save(scope: Scope, old: StoredCommand | None, body: dict[str, Any]) -> StoredCommand:
    """Write a command; a new version only when the stored body changes."""
    return _save_all(scope, [(old, body)])[0]


def _save_all(scope: Scope, plan: list[tuple[StoredCommand | None, dict[str, Any]]]
              ) -> list[StoredCommand]:
    """Write each (old, body) of ``plan`` in one statement: a new version only where
    the stored body changes; new ids and versions in the order given."""
    store, db = scope.store, scope.db
    changed = [index for index, (old, body) in enumerate(plan)
               if old is None or old.body != body]
    fresh = iter(store.next_snowflakes(
        db, scope.now, sum(2 if plan[index][0] is None else 1 for index in changed)))
    result: list[StoredCommand | None] = [old for old, _ in plan]
    for index in changed:
        old, body = plan[index]
        if old is not None and old.name != body["name"]:
            store.drop_permissions(db, scope.app.id, old.id)  # a rename drops overwrites
        command_id = old.id if old else next(fresh)
        result[index] = StoredCommand(
            id=command_id, application_id=scope.app.id, guild_id=scope.guild_id,
            type=body["type"], name=body["name"], body=body, version=next(fresh),
            text=_text_of(body))
    store.save_commands(db, [c for c in (result[i] for i in changed) if c is not None])
    return [c for c in result if c is not None]


def add_entry_point(store: Store, db: sqlite3.Connection, app: Application,
                    now: float) -> None:
    """Give ``app`` Discord's default global entry point ("Launch") unless it has one.

    Runs inside an open transaction; ``now`` is epoch seconds.
    """
    if any(c.type == CommandType.PRIMARY_ENTRY_POINT for c in store.commands(db, app.id, "")):
        return
    body = stored_body(ENTRY_POINT, guild=False, integration_types=app.integration_types)
    store.save_command(db, StoredCommand(
        id=store.next_snowflake(db, now), application_id=app.id, guild_id="",
        type=int(CommandType.PRIMARY_ENTRY_POINT), name=str(ENTRY_POINT["name"]),
        body=body, version=store.next_snowflake(db, now)))
