"""The options and target of a command line, as the client reads them: check 5 of
:mod:`cmdsync.emulator.interactions.invocation` (option types and limits, choices,
``channel_types``, autocomplete's ``focused``), and the interaction's ``resolved``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cmdsync.emulator.application_commands.command_line import (
    Line,
    Refused,
    choice_value,
    number,
    read_line,
    shown_name,
)
from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.emulator.domain.objects import StoredCommand, User
from cmdsync.emulator.domain.payloads import fixture_message
from cmdsync.emulator.interactions.place import Invocation, Where
from cmdsync.emulator.store.database import Store
from cmdsync.model import (
    MAX_NUMBER,
    ChannelType,
    CommandType,
    OptionType,
)

MENTION = re.compile(r"^<(@!?|@&|#)([0-9]{1,20})>$")
MAX_STRING = 6000  # characters in a string option's value




def read_options(store: Store, body: Mapping[str, Any], line: Line, invocation: Invocation,
             where: Where, resolved: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The interaction's ``data.options`` for ``line`` (default names, checked values),
    nested in its subcommand group and subcommand; :class:`Refused` as the client."""
    locale, autocomplete = invocation.locale, invocation.autocomplete
    read = read_line(body, line, locale)
    label = read.label
    given: list[dict[str, Any]] = []
    for index, (option, raw) in enumerate(read.given):
        focused = autocomplete and index == len(read.given) - 1
        given.append(option_value(store, option, raw, focused, where, resolved, locale))
    if autocomplete:
        typed = read.given[-1][0] if read.given else None
        if typed is None or not typed.get("autocomplete"):
            with_autocomplete = [shown_name(o, locale) for o in read.definitions
                                 if o.get("autocomplete")]
            raise Refused(Refusal.INVALID_OPTION, 
                (f"option {shown_name(typed, locale)} of {label} has no autocomplete"
                 if typed is not None else
                 f"autocomplete needs the option being typed, last: {label} NAME:VALUE")
                + (f" (options with autocomplete: {', '.join(with_autocomplete)})"
                   if with_autocomplete else f" ({label} has no option with autocomplete)"))
    else:
        missing = [shown_name(o, locale) for o in read.definitions if o.get("required")
                   and not any(g["name"] == o["name"] for g in given)]
        if missing:
            raise Refused(Refusal.INVALID_OPTION, f"{label} needs option {', '.join(missing)}")
    for step in reversed(read.path):
        given = [{**step, "options": given}]
    return given


def option_value(store: Store, option: Mapping[str, Any], raw: str, focused: bool, where: Where,
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
        raise Refused(Refusal.INVALID_OPTION,
                      f"option {name} has no value: write {name}:VALUE (the client sends no "
                      "empty option)")
    if kind == OptionType.STRING:
        value: Any = choice_value(option, raw, raw, locale)
        low, high = option.get("min_length"), option.get("max_length", MAX_STRING)
        if (low is not None and len(value) < low) or len(value) > high:
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name} must be {low or 1} to {high} characters long, not "
                          f"{len(value)}")
    elif kind in (OptionType.INTEGER, OptionType.NUMBER):
        number_kind = "an integer" if kind == OptionType.INTEGER else "a number"
        # With choices the client offers only them, whatever is typed: one message.
        value = choice_value(option, raw, raw, locale) if option.get("choices") else \
            number(raw, integer=kind == OptionType.INTEGER)
        if value is None:
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name}: {raw!r} is not {number_kind} between "
                          f"-{MAX_NUMBER} and {MAX_NUMBER}")
        if kind == OptionType.NUMBER and float(value).is_integer() and "." not in raw:
            value = int(value)
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name} must be between {low if low is not None else '-∞'} "
                          f"and {high if high is not None else '∞'}, not {raw}")
    elif kind == OptionType.BOOLEAN:
        if raw.lower() not in ("true", "false"):
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name}: write true or false, not {raw!r}")
        value = raw.lower() == "true"
    elif kind == OptionType.ATTACHMENT:
        raise Refused(Refusal.INVALID_OPTION,
                      f"option {name} is an attachment: invoke cannot upload files")
    else:
        value = mention_value(store, kind, name, raw, option, where, resolved)
    out["value"] = value
    return out


def mention_value(store: Store, kind: OptionType, name: str, raw: str, option: Mapping[str, Any],
             where: Where, resolved: dict[str, dict[str, Any]]) -> str:
    match = MENTION.match(raw)
    sigil, snowflake = (match.group(1), match.group(2)) if match else ("", raw)
    if not snowflake.isdigit():
        raise Refused(Refusal.INVALID_OPTION, f"option {name}: {raw!r} is not a mention or an id")
    guild_id = where.guild["id"] if where.guild else None
    wants_user = kind in (OptionType.USER, OptionType.MENTIONABLE) and sigil != "@&"
    wants_role = kind in (OptionType.ROLE, OptionType.MENTIONABLE) and sigil.startswith("@") \
        and sigil != "@!"
    if kind == OptionType.CHANNEL:
        channel = store.channel(guild_id, snowflake) if guild_id else None
        if channel is None and not guild_id:
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name}: channel {snowflake} is not in this DM with the "
                          "bot: run the command in its guild"
                          + home_hint(store, "channel", snowflake))
        if channel is None:
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name}: no channel {snowflake} in this guild")
        allowed = option.get("channel_types")
        if allowed and channel["type"] not in allowed:
            names = ", ".join(ChannelType(t).name.lower() for t in allowed)
            raise Refused(Refusal.INVALID_OPTION,
                          f"option {name} takes channels of type {names}, not "
                          f"{ChannelType(channel['type']).name.lower()} ({snowflake})")
        resolved.setdefault("channels", {})[snowflake] = payloads.interaction_channel(
            channel, guild_id, where.permissions)
        return snowflake
    if wants_role and guild_id:
        role = store.role(guild_id, snowflake)
        if role is not None:
            resolved.setdefault("roles", {})[snowflake] = payloads.resolved_role(role)
            return snowflake
    if wants_user:
        user = store.user(snowflake)
        if user is not None:
            resolve_user(store, snowflake, user, where, resolved)
            return snowflake
    what = {OptionType.USER: "user", OptionType.ROLE: "role"}.get(kind, "user or role")
    raise Refused(Refusal.INVALID_OPTION, f"option {name}: no {what} {snowflake} in the emulator")


def home_hint(store: Store, kind: str, snowflake: str) -> str:
    """``: --guild ID`` of the guild whose fixture the channel or message is, else
    `` (--guild)``."""
    read = store.channel if kind == "channel" else store.seed_message
    for guild_id in store.guild_ids():
        if read(guild_id, snowflake) is not None:
            return f": --guild {guild_id}"
    return " (--guild)"


def snowflake(text: str) -> str:
    match = MENTION.match(text)
    return match.group(2) if match else text


def read_target(store: Store, command: StoredCommand, invocation: Invocation, where: Where,
            resolved: dict[str, dict[str, Any]]) -> str:
    target = snowflake(invocation.target_id or "")
    if not target.isdigit():
        raise Refused(Refusal.INVALID_OPTION,
                      f"a {CommandType(command.type).name.lower()} command needs a target: "
                      "give --target ID")
    if command.type == CommandType.USER:
        user = store.user(target)
        if user is None:
            raise Refused(Refusal.INVALID_OPTION, f"no user {target} in the emulator")
        resolve_user(store, target, user, where, resolved)
        return target
    guild_id = where.guild["id"] if where.guild else None
    message = store.seed_message(guild_id, target) if guild_id else None
    if message is None and not guild_id:
        raise Refused(Refusal.INVALID_OPTION,
                      f"message {target} is not in this DM with the bot: run the command in "
                      "its guild" + home_hint(store, "message", target))
    if message is None:
        raise Refused(Refusal.INVALID_OPTION,
                      f"no message {target} in this guild: add it to the guild's messages "
                      "in the seed")
    if message["channel_id"] != where.channel["id"]:
        raise Refused(Refusal.INVALID_OPTION,
                      f"message {target} is in channel {message['channel_id']}, not "
                      f"{where.channel['id']}: leave --channel out")
    author: User = store.user(message["author_id"]) or {"id": message["author_id"]}
    resolved.setdefault("messages", {})[target] = fixture_message(
        message, payloads.seeded_user(author), guild_id)
    return target


def resolve_user(store: Store, user_id: str, user: User, where: Where,
                  resolved: dict[str, dict[str, Any]]) -> None:
    resolved.setdefault("users", {})[user_id] = payloads.seeded_user(user)
    if where.guild is None:
        return
    member = store.member(where.guild["id"], user_id)
    if member is not None:
        permissions = store.member_permissions(where.guild, user_id, member)
        body = payloads.interaction_member(member, payloads.seeded_user(user), permissions)
        del body["user"], body["deaf"], body["mute"]  # resolved members carry neither
        resolved.setdefault("members", {})[user_id] = body
