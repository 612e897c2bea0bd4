"""The Discord endpoints the emulator serves, one small handler each.

Each handler takes a :class:`Call` (the parsed request: path parameters,
token, query, headers, JSON body) and returns ``(status, body)``; errors are
raised as :class:`~cmdsync.emulator.errors.ApiError`. Paths and semantics:
FACTS.md "Endpoints".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cmdsync.emulator import auth, commands, errors
from cmdsync.emulator.store import Application, Store, Token
from cmdsync.model import MAX_OVERWRITES, OverwriteType

Result = tuple[int, Any]


@dataclass
class Call:
    """One authenticated API request, as handlers see it."""

    store: Store
    token: Token
    params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = None
    creates: int = 0  # commands created, for the request log
    extra: dict[str, Any] = field(default_factory=dict)

    def app(self) -> Application:
        return auth.application(self.store, self.token, self.params["application_id"])

    def guild_id(self) -> str:
        guild_id = self.params.get("guild_id", "")
        if guild_id:
            auth.guild(self.store, guild_id)
        return guild_id

    def locale(self) -> str | None:
        if "x-discord-locale" in self.headers:
            return self.headers["x-discord-locale"]
        accept = self.headers.get("accept-language", "")
        return accept.split(",")[0].split(";")[0].strip() or None


def list_commands(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    localizations = call.query.get("with_localizations", "").lower() in ("true", "1")
    with call.store.transaction() as db:
        found = call.store.commands(db, app.id, guild_id)
    return 200, [commands.render(c, app, localizations=localizations, locale=call.locale())
                 for c in found]


def create_command(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    auth.may_write_commands(call.token)
    with call.store.transaction() as db:
        status, command = commands.upsert(call.store, db, app, guild_id, call.body)
    call.creates = 1 if status == 201 else 0
    return status, commands.render(command, app)


def bulk_overwrite(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    auth.may_write_commands(call.token)
    with call.store.transaction() as db:
        before = {c.id for c in call.store.commands(db, app.id, guild_id)}
        saved = commands.bulk_overwrite(call.store, db, app, guild_id, call.body)
    call.creates = sum(1 for c in saved if c.id not in before)
    return 200, [commands.render(c, app) for c in saved]


def get_command(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    with call.store.transaction() as db:
        command = call.store.command(db, app.id, guild_id, call.params["command_id"])
    if command is None:
        raise errors.unknown("command")
    return 200, commands.render(command, app)


def edit_command(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    auth.may_write_commands(call.token)
    with call.store.transaction() as db:
        command = commands.edit(call.store, db, app, guild_id, call.params["command_id"],
                                call.body)
    return 200, commands.render(command, app)


def delete_command(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    auth.may_write_commands(call.token)
    with call.store.transaction() as db:
        commands.delete(call.store, db, app, guild_id, call.params["command_id"])
    return 204, None


def _permission_object(app_id: str, guild_id: str, target: str,
                       overwrites: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": target, "application_id": app_id, "guild_id": guild_id,
            "permissions": overwrites}


def guild_permissions(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    with call.store.transaction() as db:
        table = call.store.permissions(db, app.id, guild_id)
    return 200, [_permission_object(app.id, guild_id, target, overwrites)
                 for target, overwrites in table.items()]


def batch_permissions(call: Call) -> Result:
    """Batch edit was disabled with permissions v2: Discord answers 405."""
    raise errors.method_not_allowed()


def _target_exists(call: Call, app: Application, guild_id: str, target: str) -> bool:
    if target == app.id:  # the application-wide entry
        return True
    with call.store.transaction() as db:
        return (call.store.command(db, app.id, guild_id, target) is not None
                or call.store.command(db, app.id, "", target) is not None)


def get_permissions(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    target = call.params["command_id"]
    if not _target_exists(call, app, guild_id, target):
        raise errors.unknown("command")
    with call.store.transaction() as db:
        overwrites = call.store.permissions(db, app.id, guild_id).get(target)
    if overwrites is None:
        raise errors.unknown("permissions")
    return 200, _permission_object(app.id, guild_id, target, overwrites)


def put_permissions(call: Call) -> Result:
    app, guild_id = call.app(), call.guild_id()
    auth.may_edit_permissions(call.token, guild_id)
    target = call.params["command_id"]
    if not _target_exists(call, app, guild_id, target):
        raise errors.unknown("command")
    overwrites = _overwrites(call.body)
    with call.store.transaction() as db:
        call.store.set_permissions(db, app.id, guild_id, target, overwrites)
    return 200, _permission_object(app.id, guild_id, target, overwrites)


def _overwrites(body: Any) -> list[dict[str, Any]]:
    """Validate ``{"permissions": [...]}``; raise 50035 like Discord."""
    if not isinstance(body, dict) or not isinstance(body.get("permissions"), list):
        raise errors.invalid_form({"permissions": {"_errors": [
            {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}})
    items = body["permissions"]
    if len(items) > MAX_OVERWRITES:
        raise errors.invalid_form({"permissions": {"_errors": [
            {"code": "BASE_TYPE_MAX_LENGTH",
             "message": f"Must be {MAX_OVERWRITES} or fewer in length."}]}})
    problems: dict[str, Any] = {}
    result = []
    for index, item in enumerate(items):
        bad = _overwrite_problems(item)
        if bad:
            problems[str(index)] = bad
        else:
            result.append({"id": item["id"], "type": item["type"],
                           "permission": item["permission"]})
    if problems:
        raise errors.invalid_form({"permissions": problems})
    return result


def _overwrite_problems(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return {"_errors": [{"code": "MODEL_TYPE_CONVERT", "message": "Expected an object"}]}
    bad: dict[str, Any] = {}
    if not (isinstance(item.get("id"), str) and item["id"].isdigit()):
        bad["id"] = {"_errors": [{"code": "NUMBER_TYPE_COERCE",
                                  "message": f"Value \"{item.get('id')}\" is not snowflake."}]}
    if item.get("type") not in [t.value for t in OverwriteType]:
        bad["type"] = {"_errors": [{"code": "BASE_TYPE_CHOICES",
                                    "message": "Value must be one of {1, 2, 3}."}]}
    if not isinstance(item.get("permission"), bool):
        bad["permission"] = {"_errors": [{"code": "BOOLEAN_TYPE_COERCE",
                                          "message": "Must be either true or false."}]}
    return bad


Handler = Callable[[Call], Result]

_APP = "/applications/{application_id}"
_GUILD = _APP + "/guilds/{guild_id}"
# (path, {method: (handler, is_write)}) in match order: the literal
# ".../commands/permissions" must come before ".../commands/{command_id}".
ROUTES: list[tuple[str, dict[str, Handler]]] = [
    (_APP + "/commands", {"GET": list_commands, "POST": create_command,
                          "PUT": bulk_overwrite}),
    (_APP + "/commands/{command_id}", {"GET": get_command, "PATCH": edit_command,
                                       "DELETE": delete_command}),
    (_GUILD + "/commands", {"GET": list_commands, "POST": create_command,
                            "PUT": bulk_overwrite}),
    (_GUILD + "/commands/permissions", {"GET": guild_permissions, "PUT": batch_permissions}),
    (_GUILD + "/commands/{command_id}", {"GET": get_command, "PATCH": edit_command,
                                         "DELETE": delete_command}),
    (_GUILD + "/commands/{command_id}/permissions", {"GET": get_permissions,
                                                     "PUT": put_permissions}),
]

