"""Moderation as a bot does it: kick, ban, unban, the bans list, a member's nickname,
roles and timeout, each with Discord's permission and hierarchy checks.

Discord's "Guild Resource" (Remove Guild Member, Create / Remove Guild Ban, Get Guild
Ban(s), Modify Guild Member, Add / Remove Guild Member Role) and "Topics > Permissions"
(a member may act on another only from a higher highest role; nobody acts on the
owner). Each route reads as parse, check, call, serialize: the checks answer as
Discord does (403 50013 Missing Permissions, 404 10007 Unknown Member, 10011 Unknown
Role, 10026 Unknown Ban, 400 50035 for a timeout past 28 days), and :class:`Guilds`
makes the change in one transaction, then sends its gateway events (GUILD_MEMBER_REMOVE
and GUILD_MEMBER_UPDATE with GUILD_MEMBERS; GUILD_BAN_ADD and GUILD_BAN_REMOVE with
GUILD_MODERATION). A ban's reason is the ``X-Audit-Log-Reason`` header.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import unquote

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Guild, Member
from cmdsync.emulator.domain.permissions import Permissions, highest_position, outranks
from cmdsync.emulator.reference import access, error_replies
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.resources import objects
from cmdsync.emulator.store.database import Store

MAX_TIMEOUT = timedelta(days=28)  # "communication_disabled_until": at most 28 days ahead
MAX_NICK = 32  # characters


class Guilds:
    """The changes moderation makes, each in its own transaction, then its events."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def kick(self, guild: Guild, member: Member) -> None:
        """Remove ``member``: GUILD_MEMBER_REMOVE."""
        user = self._user(member["user_id"])
        with self.store.transaction() as db:
            self.store.delete_fixture(db, "member", guild["id"], member["user_id"])
        self._send(guild, "GUILD_MEMBER_REMOVE", {"guild_id": guild["id"], "user": user},
                   Intent.GUILD_MEMBERS)

    def ban(self, guild: Guild, user_id: str, reason: str | None) -> None:
        """Ban ``user_id`` (a member or not), removing the member: GUILD_BAN_ADD, and
        GUILD_MEMBER_REMOVE for a member."""
        user, member = self._user(user_id), self.store.member(guild["id"], user_id)
        with self.store.transaction() as db:
            self.store.put_fixture(db, "ban", guild["id"], user_id,
                                   {"user_id": user_id, "reason": reason})
            if member is not None:
                self.store.delete_fixture(db, "member", guild["id"], user_id)
        self._send(guild, "GUILD_BAN_ADD", {"guild_id": guild["id"], "user": user},
                   Intent.GUILD_MODERATION)
        if member is not None:
            self._send(guild, "GUILD_MEMBER_REMOVE", {"guild_id": guild["id"], "user": user},
                       Intent.GUILD_MEMBERS)

    def unban(self, guild: Guild, user_id: str) -> None:
        """Lift the ban: GUILD_BAN_REMOVE."""
        with self.store.transaction() as db:
            self.store.delete_fixture(db, "ban", guild["id"], user_id)
        self._send(guild, "GUILD_BAN_REMOVE", {"guild_id": guild["id"],
                                               "user": self._user(user_id)},
                   Intent.GUILD_MODERATION)

    def edit(self, guild: Guild, member: Member) -> dict[str, Any]:
        """Store ``member`` as it now is: GUILD_MEMBER_UPDATE; the member object."""
        with self.store.transaction() as db:
            self.store.put_fixture(db, "member", guild["id"], member["user_id"], member)
        body = objects.guild_member(self.store, member)
        self._send(guild, "GUILD_MEMBER_UPDATE", body | {"guild_id": guild["id"]},
                   Intent.GUILD_MEMBERS)
        return body

    def _user(self, user_id: str) -> dict[str, Any]:
        return objects.user(self.store, user_id) or payloads.user(user_id)

    def _send(self, guild: Guild, event: str, body: dict[str, Any], intent: Intent) -> None:
        if self.events is not None:
            for app_id in self.store.applications_in(guild["id"]):
                self.events.dispatch(app_id, event, body, guild_id=guild["id"],
                                     intent=intent)


# -- the routes ---------------------------------------------------------------------


def kick(call: Call) -> Reply:
    """``DELETE /guilds/{guild_id}/members/{user_id}``: 204."""
    guild, member = _guild(call), _member(call)
    _may(call, guild, Permissions.KICK_MEMBERS, over=member["user_id"])
    Guilds(call.store, call.gateway).kick(guild, member)
    return Reply(204, None)


def ban(call: Call) -> Reply:
    """``PUT /guilds/{guild_id}/bans/{user_id}``: 204."""
    guild, user_id = _guild(call), call.params["user_id"]
    if call.store.user(user_id) is None and call.store.application(user_id) is None:
        raise error_replies.unknown("user")
    target = user_id if call.store.member(guild["id"], user_id) is not None else None
    _may(call, guild, Permissions.BAN_MEMBERS, over=target)
    reason = call.headers.get("x-audit-log-reason")
    Guilds(call.store, call.gateway).ban(guild, user_id,
                                         unquote(reason) if reason is not None else None)
    return Reply(204, None)


def unban(call: Call) -> Reply:
    """``DELETE /guilds/{guild_id}/bans/{user_id}``: 204; 404 10026 without a ban."""
    guild = _guild(call)
    _may(call, guild, Permissions.BAN_MEMBERS)
    _ban(call, guild)
    Guilds(call.store, call.gateway).unban(guild, call.params["user_id"])
    return Reply(204, None)


def get_ban(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/bans/{user_id}``: ``{"reason", "user"}``."""
    guild = _guild(call)
    _may(call, guild, Permissions.BAN_MEMBERS)
    found = _ban(call, guild)
    return Reply(200, {"reason": found.get("reason"),
                       "user": objects.user(call.store, call.params["user_id"])
                       or payloads.user(call.params["user_id"])})


def list_bans(call: Call) -> Reply:
    """``GET /guilds/{guild_id}/bans``: every ban, ``{"reason", "user"}``."""
    guild = _guild(call)
    _may(call, guild, Permissions.BAN_MEMBERS)
    return Reply(200, [{"reason": ban.get("reason"),
                        "user": objects.user(call.store, ban["user_id"])
                        or payloads.user(ban["user_id"])}
                       for ban in call.store.bans(guild["id"])])


def edit_member(call: Call) -> Reply:
    """``PATCH /guilds/{guild_id}/members/{user_id}``: ``nick``, ``roles``,
    ``communication_disabled_until``; the member."""
    guild, member = _guild(call), _member(call)
    body = call.body if isinstance(call.body, dict) else {}
    changed: Member = {**member}
    if "nick" in body:
        nick = body["nick"]
        if nick is not None and (not isinstance(nick, str) or len(nick) > MAX_NICK):
            raise error_replies.field_error(("nick",), "BASE_TYPE_MAX_LENGTH",
                                            f"Must be {MAX_NICK} or fewer in length.")
        _may(call, guild, Permissions.MANAGE_NICKNAMES, over=member["user_id"])
        changed["nick"] = nick or None
    if "roles" in body:
        roles = [str(r) for r in body["roles"] or []]
        _may_give(call, guild, set(roles) ^ set(member.get("roles") or []))
        changed["roles"] = roles
    if "communication_disabled_until" in body:
        until = _until(body["communication_disabled_until"], call.now)
        _may(call, guild, Permissions.MODERATE_MEMBERS, over=member["user_id"])
        if until is not None and _is_admin(call.store, guild, member):
            raise error_replies.missing_permissions()  # an administrator cannot be timed out
        changed["communication_disabled_until"] = until
    return Reply(200, Guilds(call.store, call.gateway).edit(guild, changed))


def add_role(call: Call) -> Reply:
    """``PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}``: 204."""
    return _role_change(call, add=True)


def remove_role(call: Call) -> Reply:
    """``DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}``: 204."""
    return _role_change(call, add=False)


def _role_change(call: Call, *, add: bool) -> Reply:
    guild, member, role_id = _guild(call), _member(call), call.params["role_id"]
    _may_give(call, guild, {role_id})
    roles = [r for r in member.get("roles") or [] if r != role_id] + ([role_id] if add else [])
    Guilds(call.store, call.gateway).edit(guild, {**member, "roles": roles})
    return Reply(204, None)


# -- the checks ----------------------------------------------------------------------


def _guild(call: Call) -> Guild:
    if call.token.kind != "bot":
        raise error_replies.bots_only()
    access.guild(call.store, call.params["guild_id"], call.token.application_id)
    guild = call.store.guild(call.params["guild_id"])
    if guild is None:
        raise error_replies.unknown("guild")
    return guild


def _member(call: Call) -> Member:
    member = call.store.member(call.params["guild_id"], call.params["user_id"])
    if member is None:
        raise error_replies.unknown("member")
    return member


def _ban(call: Call, guild: Guild) -> dict[str, Any]:
    found = call.store.fixture("ban", guild["id"], call.params["user_id"])
    if found is None:
        raise error_replies.ErrorReply(404, 10026, "Unknown Ban")
    return found


def _positions(store: Store, guild: Guild) -> dict[str, int]:
    return {role["id"]: role["position"] for role in objects.roles(store, guild["id"])}


def _may(call: Call, guild: Guild, permission: Permissions, *, over: str | None = None
         ) -> None:
    """The bot has ``permission`` in the guild and, acting on the member ``over``,
    outranks them: else 403 50013."""
    bot_id = call.token.application_id
    if not Permissions(call.store.bot_permissions(guild, bot_id)) & permission:
        raise error_replies.missing_permissions()
    if over is None:
        return
    positions = _positions(call.store, guild)
    target = call.store.member(guild["id"], over)
    mine = call.store.member(guild["id"], bot_id)
    if not outranks(actor_owner=guild.get("owner_id") == bot_id,
                    actor_top=highest_position(_roles(mine), positions),
                    target_owner=guild.get("owner_id") == over,
                    target_top=highest_position(_roles(target), positions)):
        raise error_replies.missing_permissions()


def _may_give(call: Call, guild: Guild, roles: set[str]) -> None:
    """MANAGE_ROLES, each role known (404 10011) and below the bot's highest role."""
    positions = _positions(call.store, guild)
    for role_id in roles:
        if role_id not in positions:
            raise error_replies.ErrorReply(404, 10011, "Unknown Role")
    _may(call, guild, Permissions.MANAGE_ROLES)
    bot_id = call.token.application_id
    mine = call.store.member(guild["id"], bot_id)
    top = highest_position(_roles(mine), positions)
    if guild.get("owner_id") != bot_id and any(positions[r] >= top for r in roles):
        raise error_replies.missing_permissions()


def _roles(member: Member | None) -> list[str]:
    return list(member.get("roles") or []) if member is not None else []


def _is_admin(store: Store, guild: Guild, member: Member) -> bool:
    bits = store.member_permissions(guild, member["user_id"], member)
    return bool(bits & Permissions.ADMINISTRATOR)


def _until(value: Any, now: float) -> str | None:
    """A timeout's end (ISO 8601), at most 28 days ahead; None lifts it."""
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        when = None
    start = datetime.fromtimestamp(now, timezone.utc)
    if when is None or when.tzinfo is None or when - start > MAX_TIMEOUT:
        raise error_replies.field_error(
            ("communication_disabled_until",), "BASE_TYPE_BAD_DATETIME",
            "Could not interpret value as a datetime up to 28 days from now.")
    return when.isoformat()
