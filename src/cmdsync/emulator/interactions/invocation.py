"""Running a command as a user in Discord's client: checks first, then the interaction.

:func:`prepare` takes an :class:`Invocation` (what ``cmdsync invoke`` sends
to ``POST /_emulator/interactions``) and, inside one store transaction,
checks what the Discord client checks before it sends anything, then builds
the interaction payload. A check that fails raises :class:`Refused` with
the reason, worded as the client would explain it. Sources are Discord's
developer documentation: "Interactions > Receiving and Responding" (the
interaction object, its ``data``, ``resolved``, ``app_permissions``,
``context``, ``authorizing_integration_owners``), "Application Commands"
(contexts, integration types, ``default_member_permissions``, option types
and their limits, autocomplete's ``focused``) and "Application Command
Permissions" (overwrites and their precedence).

The checks, in order:

1. the command exists in the scope (guild commands of ``guild_id``, then
   global ones), by its name or the name the client shows in the user's
   locale (its localization, a fallback's: :mod:`cmdsync.emulator.interactions.command_line`
   reads the command line, localized names of subcommands, options and
   choices included, and the interaction carries the default names);
2. read-repair: the client remembers the ``version`` of each global
   command it last saw; a different version now means the client's copy is
   outdated, so the invocation is answered with Discord's 50035
   ``INTERACTION_APPLICATION_COMMAND_INVALID_VERSION`` and the client takes
   the new version (the next invocation goes through);
3. visibility in the context: ``contexts`` (null: every context; a legacy
   ``dm_permission: false`` hides it in bot DMs), ``integration_types``
   against how the application is installed (in the guild for
   GUILD_INSTALL; USER_INSTALL when the application supports it, taken as
   authorized by the user);
4. in a guild, for a guild-installed command, whether the member may use it:
   the guild owner and members with Administrator always may; otherwise the
   channel overwrites (the channel, then all channels ``guild_id - 1``;
   command-level before application-level) must not deny it, and the member
   overwrites decide (user; then the member's roles, where one allow wins;
   then ``@everyone``, the guild id; command-level before application-level),
   and without any, ``default_member_permissions`` must be a subset of the
   member's permissions;
5. the options: a subcommand (group) where the command has them, known
   names, required ones present, values of the option's type (users,
   channels, roles and messages must exist in the guild fixtures), choices,
   ``min_value``/``max_value``, ``min_length``/``max_length``,
   ``channel_types``. For autocomplete the last option given is the one
   being typed (``focused``): it must have ``autocomplete``, its value is
   sent as typed and nothing is required yet.
"""

from __future__ import annotations

import difflib
import re
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cmdsync.emulator.application_commands.bodies import command as render_command
from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import InteractionType
from cmdsync.emulator.domain.objects import Application, Channel, Guild, Member, StoredCommand, User
from cmdsync.emulator.domain.payloads import JOINED_AT, dm_channel_id, fixture_message
from cmdsync.emulator.domain.permissions import EVERYONE as EVERYONE_PERMISSIONS
from cmdsync.emulator.domain.permissions import Permissions
from cmdsync.emulator.interactions.command_line import (
    Line,
    Refused,
    choice_value,
    in_other_locales,
    named,
    number,
    parse_line,
    read_line,
    shown_name,
)
from cmdsync.emulator.store.database import Store
from cmdsync.model import (
    LOCALES,
    MAX_NUMBER,
    ChannelType,
    CommandType,
    IntegrationType,
    InteractionContext,
    OptionType,
    OverwriteType,
    Permission,
)

__all__ = [  # Line, Refused and parse_line live in command_line, and are public here too
    "APPLY_FIRST", "ATTACHMENT_SIZE_LIMIT",
    "JOINED_AT", "MAX_STRING", "Decision", "Invocation", "Line", "Outdated", "Prepared",
    "Refused", "app_permissions", "dm_channel_id", "fixture_message", "member_decision",
    "parse_line", "permission_decision", "prepare"]

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # bytes, a guild without boosts
_CONTEXT_NAMES = {"guild": InteractionContext.GUILD, "bot_dm": InteractionContext.BOT_DM,
                  "private_channel": InteractionContext.PRIVATE_CHANNEL}
_KINDS = {"chat_input": CommandType.CHAT_INPUT, "user": CommandType.USER,
          "message": CommandType.MESSAGE}
_MENTION = re.compile(r"^<(@!?|@&|#)([0-9]{1,20})>$")
MAX_STRING = 6000  # characters in a string option's value
# How a refusal for an unknown command ends when nothing else explains it (the
# pytest plugin words it for a test: cmdsync.testing).
APPLY_FIRST = "apply your manifest first (cmdsync apply)"


class Outdated(Exception):
    """The client's copy of a global command is older than the command (read-repair)."""


@dataclass(frozen=True)
class Invocation:
    """What a user does in the client.

    ``kind`` is ``chat_input`` (with ``line``, e.g. ``/mod ban user:<@1>
    reason:"spam"``), ``user`` or ``message`` (with ``name`` and
    ``target_id``). ``guild_id`` None means a DM with the bot (``context``
    ``bot_dm``) unless ``context`` is ``private_channel``. ``user_id`` None
    is the guild's owner (or the first user fixture); ``channel_id`` None
    the guild's first text channel.
    """

    application_id: str
    kind: str = "chat_input"
    line: str | None = None
    name: str | None = None
    target_id: str | None = None
    autocomplete: bool = False
    guild_id: str | None = None
    channel_id: str | None = None
    user_id: str | None = None
    locale: str = "en-US"
    context: str | None = None

    @classmethod
    def from_json(cls, body: Any) -> Invocation:
        """An invocation from the admin API's JSON body; :class:`Refused` if malformed."""
        if not isinstance(body, dict):
            raise Refused("the body must be a JSON object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(body) - known)
        if unknown:
            raise Refused(f"unknown field {unknown[0]!r}: use {', '.join(sorted(known))}")
        for key, value in body.items():
            if key == "autocomplete":
                if not isinstance(value, bool):
                    raise Refused("autocomplete must be true or false")
            elif value is not None and not isinstance(value, str):
                raise Refused(f"{key} must be a string")
        if body.get("kind", "chat_input") not in _KINDS:
            raise Refused(f"kind must be one of {', '.join(_KINDS)}")
        if body.get("context") is not None and body["context"] not in _CONTEXT_NAMES:
            raise Refused(f"context must be one of {', '.join(_CONTEXT_NAMES)}")
        if not body.get("application_id"):
            raise Refused("application_id is required")
        return cls(**body)


@dataclass
class Prepared:
    """A checked invocation: the command, the interaction payload and its token."""

    app: Application
    command: StoredCommand
    payload: dict[str, Any]
    token: str
    outdated: bool = False


@dataclass(frozen=True)
class _Where:
    """Where the user is: context, guild, channel, the user and (in a guild) the member."""

    context: InteractionContext
    guild: Guild | None
    channel: Channel
    user: User
    member: Member | None
    permissions: int  # the member's (in a guild) or the DM's


def prepare(store: Store, db: sqlite3.Connection, invocation: Invocation, *,
            interaction_id: str) -> Prepared:
    """Check ``invocation`` (see the module docstring) and build its interaction.

    Raises :class:`Refused`. For an outdated global command the returned
    :class:`Prepared` has ``outdated`` set (the new version is remembered in
    the same transaction, so the caller commits and then answers 50035).
    """
    app = store.application(invocation.application_id)
    if app is None:
        raise Refused(f"no application {invocation.application_id} in the emulator")
    if invocation.locale not in LOCALES:
        raise Refused(f"unknown locale {invocation.locale!r}: use one of Discord's "
                      "(en-US, fr, pt-BR, ...)")
    if invocation.kind == "message" and invocation.guild_id and not invocation.channel_id:
        message = store.seed_message(invocation.guild_id,
                                _snowflake(invocation.target_id or ""))
        if message is not None:  # run from the message: in its channel
            invocation = replace(invocation, channel_id=message["channel_id"])
    where = _where(store, invocation)
    command = _find_command(store, db, app, invocation, where)
    body = render_command(command, app)
    prepared = Prepared(app, command, {}, secrets.token_urlsafe(48))
    if not command.guild_id:
        seen = store.seen_version(db, where.user["id"], command.id)
        store.see_version(db, where.user["id"], command.id, command.version)
        if seen is not None and seen != command.version:
            prepared.outdated = True
            return prepared
    owners = _installations(store, app, body, where, invocation)
    if where.guild is not None and "0" in owners:
        _check_permissions(store, db, app, body, where)
    data: dict[str, Any] = {"id": command.id, "name": command.name, "type": command.type}
    if command.guild_id:
        data["guild_id"] = command.guild_id
    resolved: dict[str, dict[str, Any]] = {}
    if command.type == CommandType.CHAT_INPUT:
        line = parse_line(invocation.line or "")
        options = _options(store, body, line, invocation, where, resolved)
        if options:
            data["options"] = options
    elif command.type in (CommandType.USER, CommandType.MESSAGE):
        data["target_id"] = _target(store, command, invocation, where, resolved)
    if resolved:
        data["resolved"] = resolved
    prepared.payload = _payload(app, invocation, where, data, owners, prepared.token,
                                interaction_id, app_permissions(store, app, where))
    return prepared


# -- where the user is -----------------------------------------------------------


def _where(store: Store, invocation: Invocation) -> _Where:
    context = (_CONTEXT_NAMES[invocation.context] if invocation.context
               else InteractionContext.GUILD if invocation.guild_id
               else InteractionContext.BOT_DM)
    if context == InteractionContext.GUILD and not invocation.guild_id:
        raise Refused("a guild context needs a guild: give --guild ID")
    if context != InteractionContext.GUILD and invocation.guild_id:
        raise Refused(f"--guild {invocation.guild_id} contradicts the {context.name.lower()} "
                      "context: leave one out")
    guild = store.guild(invocation.guild_id) if invocation.guild_id else None
    if invocation.guild_id and guild is None:
        raise Refused(f"no guild {invocation.guild_id} in the emulator: add it with a seed")
    user_id = invocation.user_id or (guild.get("owner_id") if guild else None) or _first_user(store)
    user = store.user(user_id) if user_id else None
    if user is None or user_id is None:
        raise Refused(f"no user {user_id} in the emulator: add it to the seed's users")
    if guild is None:
        dm: Channel = {"id": dm_channel_id(user_id, context), "type": int(
            ChannelType.DM if context == InteractionContext.BOT_DM else ChannelType.GROUP_DM)}
        if invocation.channel_id:
            dm["id"] = invocation.channel_id
        return _Where(context, None, dm, user, None, int(EVERYONE_PERMISSIONS))
    member = store.member(guild["id"], user_id)
    if member is None:
        raise Refused(f"user {user_id} is not a member of guild {guild['id']}: add it to the "
                      "guild's members in the seed")
    channels = store.channels(guild["id"])
    if invocation.channel_id:
        channel = next((c for c in channels if c["id"] == invocation.channel_id), None)
        if channel is None:
            raise Refused(f"no channel {invocation.channel_id} in guild {guild['id']}")
    else:
        channel = next((c for c in channels if c["type"] == ChannelType.GUILD_TEXT), None)
        if channel is None:
            raise Refused(f"guild {guild['id']} has no text channel: give --channel ID or "
                          "add one to the seed")
    return _Where(context, guild, channel, user, member,
                  store.member_permissions(guild, user_id, member))


def _first_user(store: Store) -> str | None:
    users = store.users()
    return str(users[0]["id"]) if users else None


# -- the command, its visibility and permissions -----------------------------------


def _find_command(store: Store, db: sqlite3.Connection, app: Application,
                  invocation: Invocation, where: _Where) -> StoredCommand:
    kind = _KINDS[invocation.kind]
    if kind == CommandType.CHAT_INPUT:
        name = parse_line(invocation.line or "").name
    elif invocation.name:
        name = invocation.name
    else:
        raise Refused(f"a {invocation.kind} command is invoked by its name")
    scopes = ([where.guild["id"]] if where.guild else []) + [""]
    for scope in scopes:
        for command in store.commands(db, app.id, scope):
            if command.type != kind:
                continue
            if named(_names(command), name, invocation.locale):
                return command
    place = f"in guild {where.guild['id']} or globally" if where.guild else "globally"
    raise Refused(f"application {app.id} has no {kind.name} command named {name!r} "
                  f"{place}: {_hint(store, db, app, kind, name, scopes, invocation.locale)}")


def _names(command: StoredCommand) -> dict[str, Any]:
    return {"name": command.name,
            "name_localizations": command.body.get("name_localizations")}


def _hint(store: Store, db: sqlite3.Connection, app: Application, kind: CommandType,
          name: str, scopes: list[str], locale: str) -> str:
    """Why a command is not found, and what to do: another locale, another type, another
    guild, a typo."""
    here = [c for scope in scopes for c in store.commands(db, app.id, scope)]
    localized = in_other_locales([_names(c) for c in here if c.type == kind], name, locale,
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


def _installations(store: Store, app: Application, body: Mapping[str, Any], where: _Where,
                   invocation: Invocation) -> dict[str, str]:
    """``authorizing_integration_owners`` for the command here, or :class:`Refused`."""
    label = _label(body)
    context_name = where.context.name.lower()
    if body.get("guild_id"):
        if where.guild is None or where.guild["id"] != body["guild_id"]:
            raise Refused(f"{label} is a command of guild {body['guild_id']}: it shows only "
                          "there")
        return {"0": body["guild_id"]}
    contexts = body.get("contexts")
    if contexts is None:
        contexts = [int(c) for c in InteractionContext]
        if body.get("dm_permission") is False:
            contexts.remove(InteractionContext.BOT_DM)
    if int(where.context) not in contexts:
        allowed = ", ".join(InteractionContext(c).name.lower() for c in contexts) or "none"
        raise Refused(f"{label} does not show in a {context_name}: its contexts are {allowed}")
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
            raise Refused(f"application {app.id} is not installed in guild "
                          f"{where.guild['id']}: invite it with the applications.commands "
                          "scope")
        raise Refused(f"{label} is not installed where it would show in a {context_name}: "
                      f"its integration types are "
                      f"{', '.join(IntegrationType(t).name.lower() for t in types)}")
    return owners


@dataclass(frozen=True)
class Decision:
    """Whether a member may use a command where they are, and the rule that decided it
    (worded as the client explains a refusal)."""

    allowed: bool
    rule: str


def _check_permissions(store: Store, db: sqlite3.Connection, app: Application,
                       body: Mapping[str, Any], where: _Where) -> None:
    decision = permission_decision(store, db, app, body, where)
    if not decision.allowed:
        raise Refused(decision.rule)


def permission_decision(store: Store, db: sqlite3.Connection, app: Application,
                        body: Mapping[str, Any], where: _Where) -> Decision:
    """Check 4 of the module docstring for a guild-installed command (``body`` as
    :func:`cmdsync.emulator.application_commands.bodies.command` renders it) and a member in a guild channel."""
    assert where.guild is not None and where.member is not None
    guild_id, user_id = where.guild["id"], where.user["id"]
    label = _label(body)
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
        raise Refused(f"no guild {guild_id}, channel {channel_id} or member {user_id}")
    user = store.user(user_id) or {"id": user_id}
    where = _Where(InteractionContext.GUILD, guild, channel, user, member,
                   store.member_permissions(guild, user_id, member))
    body = render_command(command, app)
    invocation = Invocation(app.id, guild_id=guild_id, channel_id=channel_id, user_id=user_id)
    try:
        owners = _installations(store, app, body, where, invocation)
    except Refused as exc:
        return Decision(False, str(exc))
    if "0" not in owners:
        return Decision(True, f"{_label(body)} is installed by the user: guild permissions "
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


def _label(body: Mapping[str, Any]) -> str:
    kind = body.get("type", CommandType.CHAT_INPUT)
    return f"/{body['name']}" if kind == CommandType.CHAT_INPUT else \
        f"the {CommandType(kind).name.lower()} command {body['name']!r}"


# -- options and targets ----------------------------------------------------------


def _options(store: Store, body: Mapping[str, Any], line: Line, invocation: Invocation,
             where: _Where, resolved: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The interaction's ``data.options`` for ``line`` (default names, checked values),
    nested in its subcommand group and subcommand; :class:`Refused` as the client."""
    locale, autocomplete = invocation.locale, invocation.autocomplete
    read = read_line(body, line, locale)
    label = read.label
    given: list[dict[str, Any]] = []
    for index, (option, raw) in enumerate(read.given):
        focused = autocomplete and index == len(read.given) - 1
        given.append(_value(store, option, raw, focused, where, resolved, locale))
    if autocomplete:
        typed = read.given[-1][0] if read.given else None
        if typed is None or not typed.get("autocomplete"):
            with_autocomplete = [shown_name(o, locale) for o in read.definitions
                                 if o.get("autocomplete")]
            raise Refused(
                (f"option {shown_name(typed, locale)} of {label} has no autocomplete"
                 if typed is not None else
                 f"autocomplete needs the option being typed, last: {label} NAME:VALUE")
                + (f" (options with autocomplete: {', '.join(with_autocomplete)})"
                   if with_autocomplete else f" ({label} has no option with autocomplete)"))
    else:
        missing = [shown_name(o, locale) for o in read.definitions if o.get("required")
                   and not any(g["name"] == o["name"] for g in given)]
        if missing:
            raise Refused(f"{label} needs option {', '.join(missing)}")
    for step in reversed(read.path):
        given = [{**step, "options": given}]
    return given


def _value(store: Store, option: Mapping[str, Any], raw: str, focused: bool, where: _Where,
           resolved: dict[str, dict[str, Any]], locale: str) -> dict[str, Any]:
    """The option as the interaction carries it (its default name, the value read as its
    type); :class:`Refused` worded with the name the client shows in ``locale``."""
    kind = OptionType(option["type"])
    name = shown_name(option, locale)
    out: dict[str, Any] = {"name": option["name"], "type": int(kind)}
    if focused:
        out["focused"] = True
        out["value"] = raw
        if kind in (OptionType.INTEGER, OptionType.NUMBER):
            try:
                out["value"] = int(raw) if kind == OptionType.INTEGER else float(raw)
            except ValueError:
                pass  # what is typed so far: Discord sends it as text
        return out
    if raw == "":
        raise Refused(f"option {name} has no value: write {name}:VALUE (the client sends no "
                      "empty option)")
    if kind == OptionType.STRING:
        value: Any = choice_value(option, raw, raw, locale)
        low, high = option.get("min_length"), option.get("max_length", MAX_STRING)
        if (low is not None and len(value) < low) or len(value) > high:
            raise Refused(f"option {name} must be {low or 1} to {high} characters long, not "
                          f"{len(value)}")
    elif kind in (OptionType.INTEGER, OptionType.NUMBER):
        number_kind = "an integer" if kind == OptionType.INTEGER else "a number"
        # With choices the client offers only them, whatever is typed: one message.
        value = choice_value(option, raw, raw, locale) if option.get("choices") else \
            number(raw, integer=kind == OptionType.INTEGER)
        if value is None:
            raise Refused(f"option {name}: {raw!r} is not {number_kind} between "
                          f"-{MAX_NUMBER} and {MAX_NUMBER}")
        if kind == OptionType.NUMBER and float(value).is_integer() and "." not in raw:
            value = int(value)
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused(f"option {name} must be between {low if low is not None else '-∞'} "
                          f"and {high if high is not None else '∞'}, not {raw}")
    elif kind == OptionType.BOOLEAN:
        if raw.lower() not in ("true", "false"):
            raise Refused(f"option {name}: write true or false, not {raw!r}")
        value = raw.lower() == "true"
    elif kind == OptionType.ATTACHMENT:
        raise Refused(f"option {name} is an attachment: invoke cannot upload files")
    else:
        value = _mention(store, kind, name, raw, option, where, resolved)
    out["value"] = value
    return out


def _mention(store: Store, kind: OptionType, name: str, raw: str, option: Mapping[str, Any],
             where: _Where, resolved: dict[str, dict[str, Any]]) -> str:
    match = _MENTION.match(raw)
    sigil, snowflake = (match.group(1), match.group(2)) if match else ("", raw)
    if not snowflake.isdigit():
        raise Refused(f"option {name}: {raw!r} is not a mention or an id")
    guild_id = where.guild["id"] if where.guild else None
    wants_user = kind in (OptionType.USER, OptionType.MENTIONABLE) and sigil != "@&"
    wants_role = kind in (OptionType.ROLE, OptionType.MENTIONABLE) and sigil.startswith("@") \
        and sigil != "@!"
    if kind == OptionType.CHANNEL:
        channel = store.channel(guild_id, snowflake) if guild_id else None
        if channel is None and not guild_id:
            raise Refused(f"option {name}: channel {snowflake} is not in this DM with the "
                          "bot: run the command in its guild"
                          + _home(store, "channel", snowflake))
        if channel is None:
            raise Refused(f"option {name}: no channel {snowflake} in this guild")
        allowed = option.get("channel_types")
        if allowed and channel["type"] not in allowed:
            names = ", ".join(ChannelType(t).name.lower() for t in allowed)
            raise Refused(f"option {name} takes channels of type {names}, not "
                          f"{ChannelType(channel['type']).name.lower()} ({snowflake})")
        resolved.setdefault("channels", {})[snowflake] = _channel(channel, guild_id,
                                                                 where.permissions)
        return snowflake
    if wants_role and guild_id:
        role = store.role(guild_id, snowflake)
        if role is not None:
            resolved.setdefault("roles", {})[snowflake] = _role(role)
            return snowflake
    if wants_user:
        user = store.user(snowflake)
        if user is not None:
            _resolve_user(store, snowflake, user, where, resolved)
            return snowflake
    what = {OptionType.USER: "user", OptionType.ROLE: "role"}.get(kind, "user or role")
    raise Refused(f"option {name}: no {what} {snowflake} in the emulator")


def _home(store: Store, kind: str, snowflake: str) -> str:
    """``: --guild ID`` of the guild whose fixture the channel or message is, else
    `` (--guild)``."""
    read = store.channel if kind == "channel" else store.seed_message
    for guild_id in store.guild_ids():
        if read(guild_id, snowflake) is not None:
            return f": --guild {guild_id}"
    return " (--guild)"


def _snowflake(text: str) -> str:
    match = _MENTION.match(text)
    return match.group(2) if match else text


def _target(store: Store, command: StoredCommand, invocation: Invocation, where: _Where,
            resolved: dict[str, dict[str, Any]]) -> str:
    target = _snowflake(invocation.target_id or "")
    if not target.isdigit():
        raise Refused(f"a {CommandType(command.type).name.lower()} command needs a target: "
                      "give --target ID")
    if command.type == CommandType.USER:
        user = store.user(target)
        if user is None:
            raise Refused(f"no user {target} in the emulator")
        _resolve_user(store, target, user, where, resolved)
        return target
    guild_id = where.guild["id"] if where.guild else None
    message = store.seed_message(guild_id, target) if guild_id else None
    if message is None and not guild_id:
        raise Refused(f"message {target} is not in this DM with the bot: run the command in "
                      "its guild" + _home(store, "message", target))
    if message is None:
        raise Refused(f"no message {target} in this guild: add it to the guild's messages "
                      "in the seed")
    if message["channel_id"] != where.channel["id"]:
        raise Refused(f"message {target} is in channel {message['channel_id']}, not "
                      f"{where.channel['id']}: leave --channel out")
    author = store.user(message["author_id"]) or {"id": message["author_id"]}
    resolved.setdefault("messages", {})[target] = fixture_message(
        message, _user(author), guild_id)
    return target


def _resolve_user(store: Store, user_id: str, user: Mapping[str, Any], where: _Where,
                  resolved: dict[str, dict[str, Any]]) -> None:
    resolved.setdefault("users", {})[user_id] = _user(user)
    if where.guild is None:
        return
    member = store.member(where.guild["id"], user_id)
    if member is not None:
        permissions = store.member_permissions(where.guild, user_id, member)
        body = _member(member, _user(user), permissions)
        del body["user"], body["deaf"], body["mute"]  # resolved members carry neither
        resolved.setdefault("members", {})[user_id] = body


# -- bodies ----------------------------------------------------------------------


def _user(fixture: Mapping[str, Any]) -> dict[str, Any]:
    return payloads.user(str(fixture["id"]), username=fixture.get("username"),
                         global_name=fixture.get("global_name"))


def _member(member: Mapping[str, Any], user: dict[str, Any], permissions: int
            ) -> dict[str, Any]:
    return {"user": user, "roles": list(member.get("roles") or []), "joined_at": JOINED_AT,
            "nick": member.get("nick"), "avatar": None, "banner": None, "premium_since": None,
            "deaf": False, "mute": False, "flags": 0, "pending": False,
            "communication_disabled_until": None, "permissions": str(permissions)}


def _role(role: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": role["id"], "name": role["name"], "color": 0, "hoist": False, "icon": None,
            "unicode_emoji": None, "position": 0, "permissions": role["permissions"],
            "managed": False, "mentionable": False, "flags": 0}


def _channel(channel: Mapping[str, Any], guild_id: str | None, permissions: int
             ) -> dict[str, Any]:
    body = {"id": channel["id"], "type": channel["type"], "name": channel.get("name"),
            "permissions": str(permissions), "flags": 0, "parent_id": None}
    if guild_id:
        body["guild_id"] = guild_id
    return body


def _payload(app: Application, invocation: Invocation, where: _Where, data: dict[str, Any],
             owners: dict[str, str], token: str, interaction_id: str,
             app_permissions: int) -> dict[str, Any]:
    guild = where.guild
    user = _user(where.user)
    payload: dict[str, Any] = {
        "id": interaction_id, "application_id": app.id,
        "type": int(InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE if invocation.autocomplete
                    else InteractionType.APPLICATION_COMMAND),
        "data": data, "token": token, "version": 1, "locale": invocation.locale,
        "context": int(where.context), "authorizing_integration_owners": owners,
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT, "entitlements": [],
        "entitlement_sku_ids": []}
    if guild is not None and where.member is not None:
        payload.update(guild_id=guild["id"], guild_locale=guild.get("preferred_locale", "en-US"),
                       guild={"id": guild["id"], "locale": guild.get("preferred_locale",
                                                                      "en-US"),
                              "features": []},
                       member=_member(where.member, user, where.permissions))
    else:
        payload["user"] = user
    payload["channel"] = _channel(where.channel, guild["id"] if guild else None,
                                  where.permissions)
    payload["channel_id"] = where.channel["id"]
    payload["app_permissions"] = str(app_permissions)
    return payload


def app_permissions(store: Store, app: Application, where: _Where) -> int:
    """What the application may do where it is invoked: in a guild its bot's permissions
    (:meth:`~cmdsync.emulator.store.database.Store.bot_permissions`), in DMs
    ``@everyone``'s defaults."""
    if where.guild is None:
        return int(EVERYONE_PERMISSIONS)
    return store.bot_permissions(where.guild, app.id)
