"""A seed's shape, checked before any of it is applied (see :mod:`cmdsync.emulator.seed`).

Each problem raises :class:`~cmdsync.errors.UsageError` naming the place in the seed
(``guilds[0].members[1]: 'user_id' is required``) and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from cmdsync.emulator.domain.enums import ApplicationFlag
from cmdsync.emulator.domain.objects import Application
from cmdsync.errors import UsageError
from cmdsync.model import (
    ChannelType,
    IntegrationType,
    Permission,
    enum_value,
)

FIXTURE_SECTIONS = ("roles", "members", "channels", "messages")
# Application flags a seed may name (Discord's "Application Object": Application Flags):
# the privileged intents' (the Developer Portal's switches; without one, an IDENTIFY that
# asks for its intent is closed with 4014), and EMBEDDED (an Activity).
FLAG_NAMES = {str(flag.name).lower(): int(flag) for flag in (
    ApplicationFlag.GATEWAY_PRESENCE, ApplicationFlag.GATEWAY_PRESENCE_LIMITED,
    ApplicationFlag.GATEWAY_GUILD_MEMBERS, ApplicationFlag.GATEWAY_GUILD_MEMBERS_LIMITED,
    ApplicationFlag.EMBEDDED, ApplicationFlag.GATEWAY_MESSAGE_CONTENT,
    ApplicationFlag.GATEWAY_MESSAGE_CONTENT_LIMITED)}


def check_seed(data: Any, source: str = "seed", *, complete: bool = True) -> None:
    """Raise :class:`UsageError` for the first problem in a seed.

    A ``complete`` seed (a seed file, a reset) holds an application and
    every user, role and channel its fixtures name; a seed added to a
    running emulator (``POST /_emulator/seed``) may name what is there already.
    """
    if not isinstance(data, dict):
        raise UsageError(f"{source} must be a mapping with applications, guilds and users")
    required = {"applications": ("id", "bot_token", "client_secret"), "guilds": ("id",),
                "users": ("id",)}
    for section, keys in required.items():
        for where, item in _records(data, section, keys, f"{source}: "):
            if section == "applications":
                application_of(item, where)
            if section == "guilds":
                _check_guild(item, where)
            if section == "users" and item.get("bearer_token") not in (None, "") \
                    and item.get("application_id") in (None, ""):
                raise UsageError(f"{where}: 'application_id' is required with a bearer_token")
    if complete and not data.get("applications"):
        raise UsageError(f"{source}: at least one application is required")
    if complete:
        _check_references(data, source)


def _check_references(data: dict[str, Any], source: str) -> None:
    """Every user, role and channel a guild's fixtures name is declared in the seed."""
    people = {str(u["id"]) for u in data.get("users") or []}
    bots = {str(a["id"]) for a in data.get("applications") or []}
    for index, guild in enumerate(data.get("guilds") or []):
        where = f"{source}: guilds[{index}]"
        roles = {str(r["id"]) for r in guild.get("roles") or []} | {str(guild["id"])}
        channels = {str(c["id"]) for c in guild.get("channels") or []}
        owner = guild.get("owner_id")
        if owner is not None and str(owner) not in people:
            raise UsageError(f"{where}: owner_id {owner} is not one of the seed's users: "
                             "add it to users")
        for number, member in enumerate(guild.get("members") or []):
            place = f"{where}.members[{number}]"
            if str(member["user_id"]) not in people | bots:
                raise UsageError(f"{place}: user {member['user_id']} is not one of the seed's "
                                 "users (or an application's bot): add it to users")
            unknown = [r for r in member.get("roles") or [] if str(r) not in roles]
            if unknown:
                raise UsageError(f"{place}: role {unknown[0]} is not one of the guild's roles")
        for number, message in enumerate(guild.get("messages") or []):
            place = f"{where}.messages[{number}]"
            if str(message["channel_id"]) not in channels:
                raise UsageError(f"{place}: channel {message['channel_id']} is not one of the "
                                 "guild's channels")
            if str(message["author_id"]) not in people | bots:
                raise UsageError(f"{place}: author {message['author_id']} is not one of the "
                                 "seed's users")


def permission_bits(value: Any, where: str) -> int:
    """A permission set from an integer, a decimal string or a list of lowercase names
    (``[view_channel, administrator]``); raises :class:`UsageError` naming ``where``."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, list):
        bits = [enum_value(Permission, name) for name in value]
        unknown = [name for name, bit in zip(value, bits) if bit is None]
        if not unknown:
            return sum(1 << bit for bit in set(bits) if bit is not None)
        raise UsageError(f"{where}: unknown permission {unknown[0]!r}: use Discord's names "
                         "in lowercase (view_channel, administrator, ...)")
    raise UsageError(f"{where}: permissions must be an integer, a decimal string or a list "
                     "of permission names")


def _records(container: dict[str, Any], section: str, keys: tuple[str, ...], prefix: str
             ) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(place, item)`` for each item of ``container[section]``, a list of mappings
    holding ``keys``; :class:`UsageError` naming the place otherwise."""
    items = container.get(section) or []
    if not isinstance(items, list):
        raise UsageError(f"{prefix}{section} must be a list")
    for index, item in enumerate(items):
        place = f"{prefix}{section}[{index}]"
        if not isinstance(item, dict):
            raise UsageError(f"{place} must be a mapping")
        for key in keys:
            if item.get(key) in (None, ""):
                raise UsageError(f"{place}: {key!r} is required")
        yield place, item


def _check_guild(guild: dict[str, Any], where: str) -> None:
    if not isinstance(guild.get("applications", []), list):
        raise UsageError(f"{where}: applications must be a list of application ids")
    required = {"roles": ("id",), "members": ("user_id",), "channels": ("id",),
                "messages": ("id", "channel_id", "author_id")}
    for section, keys in required.items():
        for place, item in _records(guild, section, keys, f"{where}."):
            if section == "roles":
                permission_bits(item.get("permissions", 0), place)
            if section == "members" and not isinstance(item.get("roles", []), list):
                raise UsageError(f"{place}: roles must be a list of role ids")
            if section == "channels" and enum_value(ChannelType, item.get("type", 0)) is None:
                raise UsageError(f"{place}: type must be a channel type (0 text, 2 voice, ...)")


def application_of(item: dict[str, Any], where: str) -> Application:
    flags = item.get("flags", 0)
    if isinstance(flags, list):
        unknown = [name for name in flags if str(name).lower() not in FLAG_NAMES]
        if unknown:
            raise UsageError(f"{where}: unknown flag {unknown[0]!r}: use an integer or "
                             f"{', '.join(FLAG_NAMES)}")
        flags = sum(FLAG_NAMES[str(name).lower()] for name in flags)
    if not isinstance(flags, int) or isinstance(flags, bool) or flags < 0:
        raise UsageError(f"{where}: flags must be an integer or a list of flag names")
    types = []
    for value in item.get("integration_types") or ["guild_install"]:
        number = enum_value(IntegrationType, value)
        if number is None:
            raise UsageError(f"{where}: unknown integration type {value!r}: use guild_install "
                             "or user_install")
        types.append(number)
    return Application(str(item["id"]), str(item.get("name", "Application")), flags,
                       tuple(sorted(set(types))), str(item["client_secret"]),
                       redirect_uris=_redirect_uris(item.get("redirect_uris"), where))


def _redirect_uris(value: Any, where: str) -> tuple[str, ...]:
    """An application's OAuth2 redirect URIs: absolute, without a fragment (RFC 6749
    3.1.2); raises :class:`UsageError` naming the item."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise UsageError(f"{where}: redirect_uris must be a list of URIs")
    for index, uri in enumerate(value):
        parts = urlsplit(uri) if isinstance(uri, str) else None
        if parts is None or not parts.scheme or "#" in uri or (
                parts.scheme in ("http", "https") and not parts.hostname):
            raise UsageError(f"{where}: redirect_uris[{index}] must be an absolute URI "
                             "without a fragment, such as http://127.0.0.1:53682/callback")
    return tuple(dict.fromkeys(value))
