"""Application-command semantics of the emulator: upsert, edit, bulk overwrite, responses.

Every function takes an open store transaction and raises
:class:`~cmdsync.emulator.errors.ApiError` exactly where Discord answers with
an error (FACTS.md "Endpoints", "Validation rules", "What a GET returns").
A global command has ``guild_id == ""``.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Any

from cmdsync.diagnostics import Severity
from cmdsync.emulator import errors
from cmdsync.emulator.store import Application, Store, StoredCommand
from cmdsync.model import (
    APPLICATION_FLAG_EMBEDDED,
    LOCALE_FALLBACKS,
    MAX_COMMANDS_PER_TYPE,
    CommandType,
)
from cmdsync.validate import validate_api_commands

DAILY_CREATES = 200
MAX_BULK_ITEMS = 130
# Fields Discord stores from a write; unknown keys are ignored silently.
_COMMAND_FIELDS = ("type", "name", "name_localizations", "description",
                   "description_localizations", "options", "default_member_permissions",
                   "dm_permission", "contexts", "integration_types", "nsfw", "handler")
_OPTION_FIELDS = ("type", "name", "name_localizations", "description",
                  "description_localizations", "required", "choices", "options",
                  "channel_types", "min_value", "max_value", "min_length", "max_length",
                  "autocomplete")
# Rules Discord does not enforce with 50035: unknown and response-only keys
# are ignored, guild-only fields too; caps and duplicates have their own codes.
_NOT_ENFORCED = ("CS010", "CS014", "CS015", "CS302", "CS305", "CS307", "CS5")


def today() -> str:
    """The UTC day the daily create budget counts in (YYYY-MM-DD)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def validate(items: Any, guild_id: str, app: Application, *, single: bool) -> None:
    """Raise 50035 if Discord would reject these command bodies."""
    scope = guild_id or "global"
    found = [d for d in validate_api_commands(items, scope=scope, ignore=_NOT_ENFORCED)
             if d.severity is Severity.ERROR]
    if found:
        raise errors.invalid_form(errors.form_errors(found, strip_index=single))
    for index, item in enumerate(items if isinstance(items, list) else []):
        if item.get("type") == CommandType.PRIMARY_ENTRY_POINT:
            where = "" if single else f"{index}."
            if guild_id:
                raise errors.whole_request_error(
                    "APPLICATION_COMMAND_INVALID_TYPE",
                    f"{where}type: PRIMARY_ENTRY_POINT commands can only be global")
            if not app.flags & APPLICATION_FLAG_EMBEDDED:
                raise errors.whole_request_error(
                    "APPLICATION_COMMAND_INVALID_TYPE",
                    f"{where}type: only applications with an Activity (EMBEDDED) can have "
                    "a PRIMARY_ENTRY_POINT command")


def stored_body(body: dict[str, Any]) -> dict[str, Any]:
    """The fields Discord keeps from a command body, in canonical shape."""
    result = {k: body[k] for k in _COMMAND_FIELDS if k in body}
    result.setdefault("type", CommandType.CHAT_INPUT)
    if result["type"] in (CommandType.USER, CommandType.MESSAGE):
        result.pop("description", None)
        result.pop("description_localizations", None)
        result.pop("options", None)
    if result.get("options") is not None:
        result["options"] = [_stored_option(o) for o in result["options"]]
    if not result.get("options"):
        result.pop("options", None)
    return result


def _stored_option(option: dict[str, Any]) -> dict[str, Any]:
    result = {k: option[k] for k in _OPTION_FIELDS if k in option}
    if not result.get("required"):
        result.pop("required", None)  # sent as false, read back without it
    if not result.get("autocomplete"):
        result.pop("autocomplete", None)
    if result.get("options") is not None:
        result["options"] = [_stored_option(o) for o in result["options"]]
    if not result.get("options"):
        result.pop("options", None)
    return result


def _caps(commands: list[StoredCommand], *, new: list[dict[str, Any]] | None = None) -> None:
    counts: dict[int, int] = {}
    for command in commands:
        counts[command.type] = counts.get(command.type, 0) + 1
    for body in new or []:
        counts[body["type"]] = counts.get(body["type"], 0) + 1
    for kind, count in counts.items():
        if count > MAX_COMMANDS_PER_TYPE.get(CommandType(kind), 0):
            raise errors.ApiError(400, 30032, "Maximum number of application commands "
                                  f"reached ({MAX_COMMANDS_PER_TYPE[CommandType(kind)]})")


def _budget(store: Store, db: sqlite3.Connection, app_id: str, guild_id: str,
            creates: int) -> None:
    if creates and store.creates_today(db, app_id, guild_id, today()) + creates > DAILY_CREATES:
        raise errors.ApiError(400, 30034, "Max number of daily application command creates "
                              f"has been reached ({DAILY_CREATES})")
    store.count_creates(db, app_id, guild_id, today(), creates)


def _save(store: Store, db: sqlite3.Connection, old: StoredCommand | None, app_id: str,
          guild_id: str, body: dict[str, Any]) -> StoredCommand:
    """Write a command; the version changes only when the stored body does."""
    if old is not None and old.body == body:
        return old
    if old is not None and old.name != body["name"]:
        store.drop_permissions(db, app_id, old.id)  # a rename drops overwrites
    command = StoredCommand(
        id=old.id if old else store.next_snowflake(db), application_id=app_id,
        guild_id=guild_id, type=body["type"], name=body["name"], body=body,
        version=store.next_snowflake(db))
    store.save_command(db, command)
    return command


def upsert(store: Store, db: sqlite3.Connection, app: Application, guild_id: str,
           payload: Any) -> tuple[int, StoredCommand]:
    """POST: create, or overwrite the command with the same name and type (200)."""
    if not isinstance(payload, dict):
        raise errors.whole_request_error("MODEL_TYPE_CONVERT", "Expected an object")
    validate([payload], guild_id, app, single=True)
    body = stored_body(payload)
    existing = store.commands(db, app.id, guild_id)
    match = next((c for c in existing if c.type == body["type"] and c.name == body["name"]),
                 None)
    if match is not None:
        return 200, _save(store, db, match, app.id, guild_id, body)
    _caps(existing, new=[body])
    _budget(store, db, app.id, guild_id, 1)
    return 201, _save(store, db, None, app.id, guild_id, body)


def edit(store: Store, db: sqlite3.Connection, app: Application, guild_id: str,
         command_id: str, payload: Any) -> StoredCommand:
    """PATCH: each provided field replaces the stored one entirely."""
    old = store.command(db, app.id, guild_id, command_id)
    if old is None:
        raise errors.unknown("command")
    if not isinstance(payload, dict):
        raise errors.whole_request_error("MODEL_TYPE_CONVERT", "Expected an object")
    merged = {**old.body, **{k: v for k, v in payload.items() if k != "type"}}
    validate([merged], guild_id, app, single=True)
    body = stored_body(merged)
    if body["name"] != old.name and any(
            c.type == old.type and c.name == body["name"] and c.id != old.id
            for c in store.commands(db, app.id, guild_id)):
        raise errors.ApiError(400, 40041, "An application command with that name already "
                              "exists")
    return _save(store, db, old, app.id, guild_id, body)


def delete(store: Store, db: sqlite3.Connection, app: Application, guild_id: str,
           command_id: str) -> None:
    old = store.command(db, app.id, guild_id, command_id)
    if old is None:
        raise errors.unknown("command")
    store.delete_command(db, old)


def bulk_overwrite(store: Store, db: sqlite3.Connection, app: Application, guild_id: str,
                   payload: Any) -> list[StoredCommand]:
    """PUT: the scope becomes exactly this list; an item's ``id`` updates in place."""
    if not isinstance(payload, list):
        raise errors.whole_request_error("MODEL_TYPE_CONVERT", "Expected an array")
    if len(payload) > MAX_BULK_ITEMS:
        raise errors.whole_request_error("BASE_TYPE_MAX_LENGTH", "Must be "
                                         f"{MAX_BULK_ITEMS} or fewer in length.")
    validate(payload, guild_id, app, single=False)
    existing = store.commands(db, app.id, guild_id)
    by_id = {c.id: c for c in existing}
    by_key = {(c.type, c.name): c for c in existing}
    plan: list[tuple[StoredCommand | None, dict[str, Any]]] = []
    for index, item in enumerate(payload):
        body = stored_body(item)
        wanted_id = item.get("id")
        if wanted_id is not None and wanted_id not in by_id:
            raise errors.invalid_form({str(index): {"id": {"_errors": [{
                "code": "APPLICATION_COMMAND_ID_INVALID",
                "message": f"Unknown application command id {wanted_id}"}]}}})
        old = by_id.get(wanted_id) if wanted_id else by_key.get((body["type"], body["name"]))
        plan.append((old, body))
    kept = {old.id for old, _ in plan if old is not None}
    for command in existing:
        if command.id not in kept and command.type == CommandType.PRIMARY_ENTRY_POINT:
            raise errors.ApiError(400, 50240, "You cannot remove this app's Entry Point "
                                  "command in a bulk update operation. Please include the "
                                  "Entry Point command in your update request or delete it "
                                  "separately.")
    _caps([], new=[body for _, body in plan])
    _budget(store, db, app.id, guild_id, sum(1 for old, _ in plan if old is None))
    for command in existing:
        if command.id not in kept:
            store.delete_command(db, command)
    return [_save(store, db, old, app.id, guild_id, body) for old, body in plan]


def render(command: StoredCommand, app: Application, *, localizations: bool = True,
           locale: str | None = None) -> dict[str, Any]:
    """The command as Discord returns it (FACTS.md "What a GET returns")."""
    body = command.body
    out: dict[str, Any] = {
        "id": command.id, "application_id": command.application_id,
        "version": command.version,
        "default_member_permissions": body.get("default_member_permissions"),
        "type": command.type, "name": command.name,
        "description": body.get("description", ""),
    }
    if command.guild_id:
        out["guild_id"] = command.guild_id
    else:
        out["dm_permission"] = body.get("dm_permission", True) is not False
        out["contexts"] = body.get("contexts")
        types = body.get("integration_types")
        out["integration_types"] = types if types is not None else app.integration_types
    out["nsfw"] = bool(body.get("nsfw", False))
    _localize(out, body, localizations, locale)
    if command.type == CommandType.PRIMARY_ENTRY_POINT:
        out["handler"] = body.get("handler", 1)
    if body.get("options"):
        out["options"] = [_render_option(o, localizations, locale) for o in body["options"]]
    return out


def _render_option(option: dict[str, Any], localizations: bool, locale: str | None
                   ) -> dict[str, Any]:
    out = {k: v for k, v in option.items()
           if k not in ("name_localizations", "description_localizations", "options",
                        "choices")}
    _localize(out, option, localizations, locale)
    if option.get("choices") is not None:
        out["choices"] = []
        for choice in option["choices"]:
            rendered = {"name": choice["name"], "value": choice["value"]}
            _localize(rendered, choice, localizations, locale, description=False)
            out["choices"].append(rendered)
    if option.get("options"):
        out["options"] = [_render_option(o, localizations, locale) for o in option["options"]]
    return out


def _localize(out: dict[str, Any], body: dict[str, Any], localizations: bool,
              locale: str | None, *, description: bool = True) -> None:
    fields = ("name", "description") if description else ("name",)
    for field in fields:
        table = body.get(f"{field}_localizations") or None
        if localizations:
            out[f"{field}_localizations"] = table
        elif locale and table:
            value = pick_locale(table, locale)
            if value is not None:
                out[f"{field}_localized"] = value


def pick_locale(table: dict[str, str], locale: str) -> str | None:
    """The value for ``locale``, else for its fallbacks (en-US <-> en-GB, es-419 -> es-ES)."""
    for candidate in (locale, *LOCALE_FALLBACKS.get(locale, ())):
        if table.get(candidate):
            return table[candidate]
    return None
