"""Which command a user means, and whether they may see and use it where they are: checks
1, 3 and 4 of :mod:`cmdsync.emulator.interactions.invocation` (Discord's "Application
Commands": contexts, integration types, and "Application Command Permissions":
overwrites and their precedence, ``default_member_permissions``).
"""

from __future__ import annotations

import difflib
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cmdsync.emulator.application_commands.bodies import command as render_command
from cmdsync.emulator.application_commands.command_line import (
    Refused,
    in_other_locales,
    named,
    parse_line,
)
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.emulator.domain.objects import Application, StoredCommand
from cmdsync.emulator.domain.permissions import Permissions
from cmdsync.emulator.interactions.place import KINDS, Invocation, Where
from cmdsync.emulator.store.database import Store
from cmdsync.model import (
    CommandType,
    IntegrationType,
    InteractionContext,
    OverwriteType,
    Permission,
)

# How a refusal for an unknown command ends when nothing else explains it (the
# pytest plugin words it for a test: cmdsync.testing).
APPLY_FIRST = "apply your manifest first (cmdsync apply)"




def find_command(store: Store, db: sqlite3.Connection, app: Application,
                  invocation: Invocation, where: Where) -> StoredCommand:
    kind = KINDS[invocation.kind]
    if kind == CommandType.CHAT_INPUT:
        name = parse_line(invocation.line or "").name
    elif invocation.name:
        name = invocation.name
    else:
        raise Refused(Refusal.INVALID_REQUEST,
                      f"a {invocation.kind} command is invoked by its name")
    scopes = ([where.guild["id"]] if where.guild else []) + [""]
    for scope in scopes:
        for command in store.commands(db, app.id, scope):
            if command.type != kind:
                continue
            if named(command_names(command), name, invocation.locale):
                return command
    place = f"in guild {where.guild['id']} or globally" if where.guild else "globally"
    raise Refused(Refusal.UNKNOWN_COMMAND,
                  f"application {app.id} has no {kind.name} command named {name!r} {place}",
                  fix=command_hint(store, db, app, kind, name, scopes, invocation.locale))


def command_names(command: StoredCommand) -> dict[str, Any]:
    return {"name": command.name,
            "name_localizations": command.body.get("name_localizations")}


def command_hint(store: Store, db: sqlite3.Connection, app: Application, kind: CommandType,
          name: str, scopes: list[str], locale: str) -> str:
    """Why a command is not found, and what to do: another locale, another type, another
    guild, a typo."""
    here = [c for scope in scopes for c in store.commands(db, app.id, scope)]
    localized = in_other_locales([command_names(c) for c in here if c.type == kind], name, locale,
                                 "/{name}" if kind == CommandType.CHAT_INPUT else
                                 f"the {kind.name} command {{name!r}}")
    if localized:
        return localized
    same_name = [c for c in here if c.name == name]
    if same_name:
        other = CommandType(same_name[0].type)
        flag = {CommandType.USER: "--user-command NAME", CommandType.MESSAGE:
                "--message-command NAME", CommandType.CHAT_INPUT: "'/NAME ...'"}.get(
                    other, other.name)
        return f"{name!r} is a {other.name} command: run it with {flag}"
    elsewhere = db.execute("SELECT guild_id FROM commands WHERE application_id = ? AND "
                           "name = ? AND type = ? AND guild_id != '' ORDER BY guild_id",
                           (app.id, name, int(kind))).fetchone()
    if elsewhere is not None and elsewhere["guild_id"] not in scopes:
        return f"it is a command of guild {elsewhere['guild_id']}: add --guild " \
               f"{elsewhere['guild_id']}"
    close = difflib.get_close_matches(name, [c.name for c in here if c.type == kind], n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    return APPLY_FIRST


def installation_owners(store: Store, app: Application, body: Mapping[str, Any], where: Where,
                   invocation: Invocation) -> dict[str, str]:
    """``authorizing_integration_owners`` for the command here, or :class:`Refused`."""
    label = command_label(body)
    context_name = where.context.name.lower()
    if body.get("guild_id"):
        if where.guild is None or where.guild["id"] != body["guild_id"]:
            raise Refused(Refusal.NOT_SHOWN,
                          f"{label} is a command of guild {body['guild_id']}: it shows only "
                          "there")
        return {"0": body["guild_id"]}
    contexts = body.get("contexts")
    if contexts is None:
        contexts = [int(c) for c in InteractionContext]
        if body.get("dm_permission") is False:
            contexts.remove(InteractionContext.BOT_DM)
    if int(where.context) not in contexts:
        allowed = ", ".join(InteractionContext(c).name.lower() for c in contexts) or "none"
        raise Refused(Refusal.NOT_SHOWN,
                      f"{label} does not show in a {context_name}: its contexts are {allowed}")
    types = body.get("integration_types") or list(app.integration_types)
    owners: dict[str, str] = {}
    guild_install = IntegrationType.GUILD_INSTALL in types
    if guild_install and where.guild is not None:
        if store.installed_in(where.guild["id"], app.id):
            owners["0"] = where.guild["id"]
    elif guild_install and where.context == InteractionContext.BOT_DM:
        owners["0"] = "0"
    if IntegrationType.USER_INSTALL in types and \
            IntegrationType.USER_INSTALL in app.integration_types:
        owners["1"] = where.user["id"]
    if not owners:
        if where.guild is not None and guild_install:
            raise Refused(Refusal.NOT_SHOWN, f"application {app.id} is not installed in guild "
                          f"{where.guild['id']}: invite it with the applications.commands "
                          "scope")
        raise Refused(Refusal.NOT_SHOWN,
                      f"{label} is not installed where it would show in a {context_name}: "
                      f"its integration types are "
                      f"{', '.join(IntegrationType(t).name.lower() for t in types)}")
    return owners


@dataclass(frozen=True)
class Decision:
    """Whether a member may use a command where they are, and the rule that decided it
    (worded as the client explains a refusal)."""

    allowed: bool
    rule: str


def check_permissions(store: Store, db: sqlite3.Connection, app: Application,
                       body: Mapping[str, Any], where: Where) -> None:
    decision = permission_decision(store, db, app, body, where)
    if not decision.allowed:
        raise Refused(Refusal.NOT_PERMITTED, decision.rule)


def permission_decision(store: Store, db: sqlite3.Connection, app: Application,
                        body: Mapping[str, Any], where: Where) -> Decision:
    """Check 4 of the module docstring for a guild-installed command (``body`` as
    :func:`cmdsync.emulator.application_commands.bodies.command` renders it) and a member in
    a guild channel."""
    assert where.guild is not None and where.member is not None
    guild_id, user_id = where.guild["id"], where.user["id"]
    label = command_label(body)
    if where.permissions & Permissions.ADMINISTRATOR:  # the owner and Administrator: every command
        return Decision(True, f"user {user_id} owns the guild: every command is theirs"
                        if where.guild.get("owner_id") == user_id else
                        f"user {user_id} has Administrator: every command is theirs")
    overwrites = store.permissions(db, app.id, guild_id)
    levels = [("command", overwrites.get(str(body["id"]), [])),
              ("application", overwrites.get(app.id, []))]
    all_channels = str(int(guild_id) - 1)
    for level, entries in levels:
        decided = _channel_overwrite(entries, where.channel["id"], all_channels)
        if decided is not None:
            if not decided[1]:
                target = "this channel" if decided[0] == where.channel["id"] else "all channels"
                return Decision(False, f"{label} is not allowed in channel "
                                f"{where.channel['id']}: the {level}-level overwrite for "
                                f"{target} denies it")
            break
    roles = set(where.member.get("roles") or [])
    for level, entries in levels:
        decided = _member_overwrite(entries, user_id, roles, guild_id)
        if decided is not None:
            verdict = "allows" if decided[1] else "denies"
            return Decision(decided[1], f"user {user_id} may{'' if decided[1] else ' not'} "
                            f"use {label}: the {level}-level overwrite for {decided[0]} "
                            f"{verdict} it")
    required = body.get("default_member_permissions")
    if required is None:
        return Decision(True, f"no overwrite, and {label} has no default_member_permissions: "
                        "every member may use it")
    if where.permissions & int(required) == int(required):
        names = [p.name.lower() for p in Permission if int(required) & (1 << p)]
        return Decision(True, f"user {user_id} has {', '.join(names)} "
                        "(default_member_permissions)")
    missing = int(required) & ~where.permissions
    names = [p.name.lower() for p in Permission if missing & (1 << p)]
    return Decision(False, f"user {user_id} may not use {label}: default_member_permissions "
                    f"asks for {', '.join(names) or 'administrator'}, which they lack"
                    if int(required) else
                    f"user {user_id} may not use {label}: default_member_permissions is "
                    "\"0\" (administrators only)")


def member_decision(store: Store, app: Application, command: StoredCommand, *,
                    guild_id: str, channel_id: str, user_id: str,
                    roles: Sequence[str] | None = None) -> Decision:
    """What the client decides for ``user_id`` (a member fixture of the guild; with
    ``roles``, a member holding just those instead) running ``command`` in the guild's
    channel ``channel_id``: checks 3 and 4 of the module docstring, as :func:`prepare`
    makes them. The emulator console's permission table."""
    guild = store.guild(guild_id)
    channel = store.channel(guild_id, channel_id)
    member = store.member(guild_id, user_id) if roles is None else {
        "user_id": user_id, "roles": list(roles)}
    if guild is None or channel is None or member is None:
        raise Refused(Refusal.INVALID_REQUEST,
                      f"no guild {guild_id}, channel {channel_id} or member {user_id}")
    user = store.user(user_id) or {"id": user_id}
    where = Where(InteractionContext.GUILD, guild, channel, user, member,
                   store.member_permissions(guild, user_id, member))
    body = render_command(command, app)
    invocation = Invocation(app.id, guild_id=guild_id, channel_id=channel_id, user_id=user_id)
    try:
        owners = installation_owners(store, app, body, where, invocation)
    except Refused as exc:
        return Decision(False, str(exc))
    if "0" not in owners:
        return Decision(True, f"{command_label(body)} is installed by the user: guild permissions "
                        "do not apply")
    with store.transaction() as db:
        return permission_decision(store, db, app, body, where)


def _channel_overwrite(entries: Sequence[Mapping[str, Any]], channel_id: str,
                       all_channels: str) -> tuple[str, bool] | None:
    for target in (channel_id, all_channels):
        for entry in entries:
            if entry["type"] == OverwriteType.CHANNEL and entry["id"] == target:
                return target, bool(entry["permission"])
    return None


def _member_overwrite(entries: Sequence[Mapping[str, Any]], user_id: str, roles: set[str],
                      guild_id: str) -> tuple[str, bool] | None:
    for entry in entries:
        if entry["type"] == OverwriteType.USER and entry["id"] == user_id:
            return f"user {user_id}", bool(entry["permission"])
    mine = [e for e in entries if e["type"] == OverwriteType.ROLE and e["id"] in roles
            and e["id"] != guild_id]
    if any(e["permission"] for e in mine):
        return f"role {next(e['id'] for e in mine if e['permission'])}", True
    if mine:
        return f"role {mine[0]['id']}", False
    for entry in entries:
        if entry["type"] == OverwriteType.ROLE and entry["id"] == guild_id:
            return "@everyone", bool(entry["permission"])
    return None


def command_label(body: Mapping[str, Any]) -> str:
    kind = body.get("type", CommandType.CHAT_INPUT)
    return f"/{body['name']}" if kind == CommandType.CHAT_INPUT else \
        f"the {CommandType(kind).name.lower()} command {body['name']!r}"
