"""The permission endpoints: the guild-wide list, and one command's overwrites.

Discord's "Application Commands" documentation (endpoints): the guild-wide list holds only commands with overwrites
in that guild, each ``{"id", "application_id", "guild_id", "permissions"}``;
an entry whose ``id`` is the application id holds the overwrites for every
command without its own. GET of a command without overwrites is 404 code
10066 (observed). PUT replaces all of a command's overwrites (at most 100,
each ``{"id": snowflake, "type": 1 ROLE | 2 USER | 3 CHANNEL, "permission":
bool}``); an empty list removes them. The batch edit (PUT on the guild-wide
list) was disabled with permissions v2 and answers 405 like any unknown method.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Reply, Scope
from cmdsync.emulator.reference.form_body import nest
from cmdsync.model import MAX_OVERWRITES, OverwriteType

_OVERWRITE_TYPES = sorted(int(t) for t in OverwriteType)


def _entry(scope: Scope, target: str, overwrites: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": target, "application_id": scope.app.id, "guild_id": scope.guild_id,
            "permissions": overwrites}


def guild_permissions(call: Call) -> Reply:
    """GET .../guilds/{guild}/commands/permissions."""
    with call.scope(permissions=True) as scope:
        table = scope.store.permissions(scope.db, scope.app.id, scope.guild_id)
        return Reply(200, [_entry(scope, target, overwrites)
                           for target, overwrites in table.items()])


def _check_target(scope: Scope, target: str) -> None:
    """A guild command of this guild, a global command, or the application id."""
    if target == scope.app.id:
        return
    store, db, app_id = scope.store, scope.db, scope.app.id
    if (store.command(db, app_id, scope.guild_id, target) is None
            and store.command(db, app_id, "", target) is None):
        raise error_replies.unknown("command")


def get_permissions(call: Call) -> Reply:
    """GET .../commands/{command}/permissions (404 10066 when none are set)."""
    with call.scope(permissions=True) as scope:
        target = call.params["command_id"]
        _check_target(scope, target)
        overwrites = scope.store.permissions(scope.db, scope.app.id, scope.guild_id).get(target)
        if overwrites is None:
            raise error_replies.unknown("permissions")
        return Reply(200, _entry(scope, target, overwrites))


def put_permissions(call: Call) -> Reply:
    """PUT .../commands/{command}/permissions: replace all of its overwrites."""
    with call.scope(edit=True) as scope:
        target = call.params["command_id"]
        _check_target(scope, target)
        overwrites = overwrites_of(call.body)
        return Reply(200, replace_overwrites(scope, target, overwrites))


def replace_overwrites(scope: Scope, target: str, overwrites: list[dict[str, Any]]
                       ) -> dict[str, Any]:
    """Replace the overwrites of ``target`` (a command, or the application's id for all
    of its commands) in the scope, and queue APPLICATION_COMMAND_PERMISSIONS_UPDATE
    (Discord: a PUT "fires the Application Command Permissions Update event"); the
    entry as Discord returns it."""
    scope.store.set_permissions(scope.db, scope.app.id, scope.guild_id, target, overwrites)
    entry = _entry(scope, target, overwrites)
    scope.emit("APPLICATION_COMMAND_PERMISSIONS_UPDATE", entry, guild_id=entry["guild_id"])
    return entry


def overwrites_of(body: Any) -> list[dict[str, Any]]:
    """The overwrites of a ``{"permissions": [...]}`` body, or 50035 like Discord."""
    if not isinstance(body, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                 "Only dictionaries may be used in a ModelType")
    items = body.get("permissions")
    if items is None:
        return []
    if not isinstance(items, list):
        raise error_replies.field_error(("permissions",), "LIST_TYPE_CONVERT",
                                 "Only iterables may be used in a ListType")
    if len(items) > MAX_OVERWRITES:
        raise error_replies.field_error(("permissions",), "BASE_TYPE_MAX_LENGTH",
                                 f"Must be {MAX_OVERWRITES} or fewer in length.")
    leaves = [(["permissions", str(index), *path], code, message)
              for index, item in enumerate(items)
              for path, code, message in _overwrite_problems(item)]
    if leaves:
        raise error_replies.invalid_form(nest(leaves))
    return [{"id": item["id"], "type": item["type"], "permission": item["permission"]}
            for item in items]


def _overwrite_problems(item: Any) -> list[tuple[list[str], str, str]]:
    if not isinstance(item, dict):
        return [([], "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")]
    problems = []
    for key in ("id", "type", "permission"):
        if key not in item:
            problems.append(([key], "BASE_TYPE_REQUIRED", "This field is required"))
    target = item.get("id")
    if "id" in item and not (isinstance(target, str) and target.isascii()
                             and target.isdigit() and int(target) < 2**64):
        problems.append((["id"], "NUMBER_TYPE_COERCE", f'Value "{target}" is not snowflake.'))
    kind = item.get("type")
    if "type" in item and (isinstance(kind, bool) or kind not in _OVERWRITE_TYPES):
        problems.append((["type"], "BASE_TYPE_CHOICES",
                         f"Value must be one of {{{', '.join(map(str, _OVERWRITE_TYPES))}}}."))
    if "permission" in item and not isinstance(item["permission"], bool):
        problems.append((["permission"], "BOOLEAN_TYPE_CONVERT",
                         "Must be either true or false."))
    return problems
