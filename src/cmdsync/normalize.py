"""Canonical forms of application commands: for the API, and for comparing.

Two functions carry Discord's semantics (FACTS.md "What a GET returns"):

- :func:`to_api` turns a manifest command (enum names, permission-name lists)
  into the JSON Discord accepts (integers, a decimal permission string).
- :func:`canonical` turns either side, a manifest command or a command as
  Discord returned it, into one comparable form: response-only fields
  dropped, defaults filled in (``nsfw`` false, ``contexts`` null, missing /
  null / ``{}`` localizations equal, ``required`` and ``autocomplete`` false
  omitted, ``description`` "" on USER and MESSAGE commands).

Both are pure and never raise on well-typed input; call them on commands
that passed validation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cmdsync.model import (
    ChannelType,
    CommandType,
    EntryPointHandler,
    IntegrationType,
    InteractionContext,
    OptionType,
    OverwriteType,
    Permission,
    enum_value,
)

RESPONSE_ONLY = frozenset({"id", "application_id", "version", "guild_id", "name_localized",
                           "description_localized", "default_permission"})
_LIST_ENUMS = {"contexts": InteractionContext, "integration_types": IntegrationType,
               "channel_types": ChannelType}


def permissions_value(value: Any) -> str | None:
    """``default_member_permissions`` as Discord's decimal string (or None).

    Accepts a decimal string, an int, or a list of lowercase permission names
    (``["manage_guild"]`` -> ``"32"``).
    """
    if value is None:
        return None
    if isinstance(value, list):
        bits = 0
        for name in value:
            bits |= 1 << Permission[str(name).upper()]
        return str(bits)
    return str(int(value))


def _enum(enum_cls: Any, value: Any) -> Any:
    converted = enum_value(enum_cls, value)
    return value if converted is None else converted


def to_api(command: dict[str, Any]) -> dict[str, Any]:
    """A manifest command as Discord's JSON: enum names become integers.

    Keys are kept as given (``id`` included, so a bulk overwrite keeps ids).
    """
    result = dict(command)
    if "type" in result:
        result["type"] = _enum(CommandType, result["type"])
    if "handler" in result:
        result["handler"] = _enum(EntryPointHandler, result["handler"])
    if "default_member_permissions" in result:
        result["default_member_permissions"] = permissions_value(
            result["default_member_permissions"])
    for key, enum_cls in _LIST_ENUMS.items():
        if isinstance(result.get(key), list):
            result[key] = [_enum(enum_cls, item) for item in result[key]]
    if isinstance(result.get("options"), list):
        result["options"] = [_option_to_api(option) for option in result["options"]]
    return result


def _option_to_api(option: dict[str, Any]) -> dict[str, Any]:
    result = dict(option)
    if "type" in result:
        result["type"] = _enum(OptionType, result["type"])
    if isinstance(result.get("channel_types"), list):
        result["channel_types"] = [_enum(ChannelType, c) for c in result["channel_types"]]
    if isinstance(result.get("options"), list):
        result["options"] = [_option_to_api(child) for child in result["options"]]
    return result


def overwrite_to_api(overwrite: dict[str, Any], guild_id: str) -> dict[str, Any]:
    """A manifest overwrite as Discord's JSON: constants become ids.

    ``everyone`` is the guild id; ``all_channels`` the guild id minus 1
    (FACTS.md "Overwrite id constants").
    """
    target = overwrite["id"]
    if target == "everyone":
        target = guild_id
    elif target == "all_channels":
        target = str(int(guild_id) - 1)
    return {"id": str(target), "type": _enum(OverwriteType, overwrite["type"]),
            "permission": bool(overwrite["permission"])}


def _localizations(value: Any) -> dict[str, str] | None:
    if not value:
        return None
    table = {k: v for k, v in value.items() if v is not None}
    return dict(sorted(table.items())) or None


def canonical(command: dict[str, Any], *, scope: str = "global",
              default_integration_types: Iterable[int] | None = None) -> dict[str, Any]:
    """The comparable form of a command, from a manifest or from Discord.

    ``scope`` is ``"global"`` or a guild id: ``dm_permission``, ``contexts``
    and ``integration_types`` only mean something on global commands.
    ``default_integration_types`` is what Discord fills in for a global
    command that leaves ``integration_types`` unset (the application's
    installation contexts, when known; else ``[0]``, guild install).
    """
    api = to_api(command)
    kind = api.get("type", CommandType.CHAT_INPUT)
    result: dict[str, Any] = {
        "type": kind,
        "name": api.get("name"),
        "name_localizations": _localizations(api.get("name_localizations")),
        "description": api.get("description") or "",
        "description_localizations": _localizations(api.get("description_localizations")),
        "default_member_permissions": api.get("default_member_permissions"),
        "nsfw": bool(api.get("nsfw", False)),
    }
    if kind in (CommandType.USER, CommandType.MESSAGE):
        result["description"] = ""
        result["description_localizations"] = None
    if scope == "global":
        contexts = api.get("contexts")
        result["contexts"] = sorted(contexts) if contexts is not None else None
        types = api.get("integration_types")
        if types is None:
            types = list(default_integration_types or [IntegrationType.GUILD_INSTALL])
        result["integration_types"] = sorted(int(t) for t in types)
        dm = api.get("dm_permission")
        result["dm_permission"] = True if dm is None else bool(dm)
    if kind == CommandType.PRIMARY_ENTRY_POINT:
        result["handler"] = api.get("handler")
    options = [_canonical_option(o) for o in api.get("options") or []]
    if options:
        result["options"] = options
    return result


def _canonical_option(option: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "type": option.get("type"),
        "name": option.get("name"),
        "name_localizations": _localizations(option.get("name_localizations")),
        "description": option.get("description") or "",
        "description_localizations": _localizations(option.get("description_localizations")),
    }
    if option.get("required"):
        result["required"] = True
    if option.get("autocomplete"):
        result["autocomplete"] = True
    choices = option.get("choices")
    if choices:
        result["choices"] = [
            {"name": c.get("name"), "name_localizations": _localizations(
                c.get("name_localizations")), "value": c.get("value")} for c in choices]
    if option.get("channel_types"):
        result["channel_types"] = sorted(option["channel_types"])
    for key in ("min_value", "max_value", "min_length", "max_length"):
        if option.get(key) is not None:
            result[key] = option[key]
    children = [_canonical_option(child) for child in option.get("options") or []]
    if children:
        result["options"] = children
    return result
