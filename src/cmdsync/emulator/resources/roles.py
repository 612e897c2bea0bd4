"""A guild's roles as a bot manages them: create, read, modify and delete, with Discord's
permission and hierarchy checks.

Discord's "Guild Resource" (Create Guild Role, Get Guild Role, Modify Guild Role,
Delete Guild Role) and "Topics > Permissions" ("Permission Hierarchy": a bot edits only
roles below its highest role, and grants a role only permissions it has itself; the
owner is above everyone). Each route reads as parse, check, call, serialize: the checks
answer as Discord does (403 50013 Missing Permissions, 404 10011 Unknown Role, 400 50028
Invalid Role for ``@everyone``, 400 30005 past 250 roles, 400 50035 for a bad field),
and :class:`Roles` makes the change in one transaction, then sends its gateway event
(GUILD_ROLE_CREATE, GUILD_ROLE_UPDATE, GUILD_ROLE_DELETE, with the GUILDS intent).

A new role is placed at position 1, above ``@everyone`` and below every other role, as
Discord places it; a deleted role leaves its members. The checks shared with the channel
routes (:func:`bot_guild`, :func:`require`, :func:`top_position`) are here.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Guild
from cmdsync.emulator.domain.permissions import ALL, Permissions, highest_position
from cmdsync.emulator.reference import access, error_replies
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.resources import objects
from cmdsync.emulator.store.database import Store

MAX_ROLES = 250  # "Maximum number of guild roles reached (250)"
MAX_NAME = 100  # characters, a role's name and a channel's
MAX_COLOR = 0xFFFFFF
NEW_ROLE = "new role"  # Create Guild Role's default name


class Roles:
    """The changes to a guild's roles, each in its own transaction, then its event."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def create(self, guild: Guild, fields: dict[str, Any], now: float) -> dict[str, Any]:
        """A new role at position 1 (the others move up): GUILD_ROLE_CREATE; the role."""
        with self.store.transaction() as db:
            role_id = self.store.next_snowflake(db, now)
            others = [r for r in self.store.roles(guild["id"]) if r["id"] != guild["id"]]
            for other in others:  # re-added after the new one: the fixtures' order is theirs
                self.store.delete_fixture(db, "role", guild["id"], other["id"])
            self.store.put_fixture(db, "role", guild["id"], role_id, {"id": role_id, **fields})
            for other in others:
                self.store.put_fixture(db, "role", guild["id"], other["id"], other)
        body = self.shown(guild, role_id)
        self._send(guild, "GUILD_ROLE_CREATE", {"guild_id": guild["id"], "role": body})
        return body

    def edit(self, guild: Guild, role: dict[str, Any]) -> dict[str, Any]:
        """Store ``role`` as it now is: GUILD_ROLE_UPDATE; the role."""
        with self.store.transaction() as db:
            self.store.put_fixture(db, "role", guild["id"], role["id"], role)
        body = self.shown(guild, role["id"])
        self._send(guild, "GUILD_ROLE_UPDATE", {"guild_id": guild["id"], "role": body})
        return body

    def delete(self, guild: Guild, role_id: str) -> None:
        """Delete the role and take it from its members: GUILD_ROLE_DELETE."""
        with self.store.transaction() as db:
            self.store.delete_fixture(db, "role", guild["id"], role_id)
            for member in self.store.members(guild["id"]):
                if role_id in (member.get("roles") or []):
                    kept = [r for r in member.get("roles") or [] if r != role_id]
                    self.store.put_fixture(db, "member", guild["id"], member["user_id"],
                                           {**member, "roles": kept})
        self._send(guild, "GUILD_ROLE_DELETE", {"guild_id": guild["id"], "role_id": role_id})

    def shown(self, guild: Guild, role_id: str) -> dict[str, Any]:
        """The role as Discord sends it, at its position among the guild's."""
        return next(r for r in objects.roles(self.store, guild["id"]) if r["id"] == role_id)

    def _send(self, guild: Guild, event: str, body: dict[str, Any]) -> None:
        send(self.store, self.events, guild["id"], event, body, Intent.GUILDS)


def send(store: Store, events: Events | None, guild_id: str, event: str, body: Any,
         intent: Intent) -> None:
    """Dispatch ``event`` to every application installed in the guild (with ``intent``)."""
    if events is not None:
        for app_id in store.applications_in(guild_id):
            events.dispatch(app_id, event, body, guild_id=guild_id, intent=intent)


# -- the routes ---------------------------------------------------------------------


def create_role(call: Call) -> Reply:
    """``POST /guilds/{guild_id}/roles``: 200 and the role."""
    guild = bot_guild(call)
    body = body_object(call.body)
    require(call, guild, Permissions.MANAGE_ROLES)
    if len(call.store.roles(guild["id"])) >= MAX_ROLES:
        raise error_replies.ErrorReply(400, 30005, "Maximum number of guild roles reached "
                                                   f"({MAX_ROLES})")
    everyone = call.store.role(guild["id"], guild["id"])
    fields: dict[str, Any] = {"name": NEW_ROLE,  # by default, @everyone's permissions
                              "permissions": str(everyone["permissions"] if everyone else 0)}
    fields.update(_fields(body))
    _may_grant(call, guild, int(fields["permissions"]), had=0)
    return Reply(200, Roles(call.store, call.gateway).create(guild, fields, call.now))


def get_role(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/roles/{role_id}``: the role."""
    guild = bot_guild(call)
    _role(call, guild)
    return Reply(200, Roles(call.store, call.gateway).shown(guild, call.params["role_id"]))


def edit_role(call: Call) -> Reply:
    """``PATCH /guilds/{guild_id}/roles/{role_id}``: the role as it now is."""
    guild = bot_guild(call)
    role = _role(call, guild)
    fields = _fields(body_object(call.body))
    _may_manage(call, guild, role["id"])
    if "permissions" in fields:
        _may_grant(call, guild, int(fields["permissions"]), had=int(role["permissions"]))
    return Reply(200, Roles(call.store, call.gateway).edit(guild, {**role, **fields}))


def delete_role(call: Call) -> Reply:
    """``DELETE /guilds/{guild_id}/roles/{role_id}``: 204."""
    guild = bot_guild(call)
    role = _role(call, guild)
    if role["id"] == guild["id"]:
        raise error_replies.ErrorReply(400, 50028, "Invalid Role")
    _may_manage(call, guild, role["id"])
    Roles(call.store, call.gateway).delete(guild, role["id"])
    return Reply(204, None)


# -- the checks (shared with the channel routes) ------------------------------------


def bot_guild(call: Call) -> Guild:
    """The guild in the path, for a bot token of an application installed there (403
    20002 for a Bearer token, 404 10004, 403 50001 as :func:`access.guild`)."""
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    access.guild(call.store, call.params["guild_id"], call.token.application_id)
    guild = call.store.guild(call.params["guild_id"])
    if guild is None:
        raise error_replies.unknown("guild")
    return guild


def require(call: Call, guild: Guild, permission: Permissions) -> None:
    """The bot has ``permission`` in the guild (Administrator and the owner have every
    one), else 403 50013."""
    if not guild_permissions(call, guild) & permission:
        raise error_replies.missing_permissions()


def guild_permissions(call: Call, guild: Guild) -> int:
    return call.store.bot_permissions(guild, call.token.application_id)


def top_position(store: Store, guild: Guild, user_id: str) -> int:
    """The position of the member's highest role (0, ``@everyone``'s, for none)."""
    member = store.member(guild["id"], user_id)
    positions = {role["id"]: role["position"] for role in objects.roles(store, guild["id"])}
    return highest_position(member.get("roles") or [] if member else [], positions)


def _role(call: Call, guild: Guild) -> dict[str, Any]:
    found = call.store.fixture("role", guild["id"], call.params["role_id"])
    if found is None:
        raise error_replies.ErrorReply(404, 10011, "Unknown Role")
    return found


def _may_manage(call: Call, guild: Guild, role_id: str) -> None:
    """MANAGE_ROLES, and the role below the bot's highest role (the owner's any): 50013."""
    require(call, guild, Permissions.MANAGE_ROLES)
    bot_id = call.token.application_id
    if guild.get("owner_id") == bot_id:
        return
    position = Roles(call.store, None).shown(guild, role_id)["position"]
    if position >= top_position(call.store, guild, bot_id):
        raise error_replies.missing_permissions()


def _may_grant(call: Call, guild: Guild, bits: int, *, had: int) -> None:
    """A role gets only permissions the bot has (those it had already stay): 50013."""
    if (bits & ~had) & ~guild_permissions(call, guild):
        raise error_replies.missing_permissions()


def _fields(body: dict[str, Any]) -> dict[str, Any]:
    """The role fields of a Create / Modify Guild Role body, checked (50035); a null
    leaves a field as it is."""
    fields: dict[str, Any] = {}
    if body.get("name") is not None:
        name = body["name"]
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
            raise error_replies.field_error(("name",), "BASE_TYPE_BAD_LENGTH",
                                            f"Must be between 1 and {MAX_NAME} in length.")
        fields["name"] = name
    if body.get("permissions") is not None:
        fields["permissions"] = str(bits(body["permissions"], "permissions"))
    colors = body.get("colors")
    if isinstance(colors, dict):
        fields["colors"] = {"primary_color": _color(colors.get("primary_color") or 0,
                                                    ("colors", "primary_color")),
                            "secondary_color": colors.get("secondary_color"),
                            "tertiary_color": colors.get("tertiary_color")}
        fields["color"] = fields["colors"]["primary_color"]
    elif body.get("color") is not None:
        fields["color"] = _color(body["color"], ("color",))
        fields["colors"] = {"primary_color": fields["color"], "secondary_color": None,
                            "tertiary_color": None}
    for key in ("hoist", "mentionable"):
        if body.get(key) is not None:
            fields[key] = bool(body[key])
    for key in ("icon", "unicode_emoji"):
        if key in body:
            fields[key] = body[key]
    return fields


def bits(value: Any, name: str) -> int:
    """A permission set from a body (a decimal string or an int), else 50035."""
    if isinstance(value, bool) or not str(value).isdigit():
        raise error_replies.field_error((name,), "NUMBER_TYPE_COERCE",
                                        f'Value "{value}" is not int.')
    return int(str(value)) & int(ALL)


def _color(value: Any, path: tuple[str, ...]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COLOR:
        raise error_replies.field_error(path, "NUMBER_TYPE_MAX",
                                        f"int value should be <= {MAX_COLOR} and >= 0.")
    return value


def body_object(body: Any) -> dict[str, Any]:
    """A JSON object body (none: ``{}``), else 50035."""
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    return body
