"""Canonical forms of application commands: for the API, and for comparing.

Functions carrying Discord's semantics (Discord's application command object (checked against real responses)):

- :func:`to_api` turns a manifest command (enum names, permission-name lists)
  into the JSON Discord accepts (integers, a decimal permission string).
- :func:`request_body` is :func:`to_api` without response-only keys: what a
  create, edit or bulk overwrite sends.
- :func:`canonical` turns either side, a manifest command or a command as
  Discord returned it, into one comparable form: response-only fields
  dropped, defaults filled in (``nsfw`` false, ``contexts`` null,
  ``dm_permission`` true, missing / null / ``{}`` localizations equal,
  ``required`` and ``autocomplete`` false omitted, options ``[]`` omitted,
  ``description`` "" on USER and MESSAGE commands, ``integration_types``
  from the application when known).
- :func:`canonical_overwrites` does the same for permission overwrites.
- :func:`same` compares canonical values the way JSON does (``1 == 1.0``,
  but ``true != 1``).

All are pure and never raise on input that passed validation.
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
# Discord's field for a global command that leaves it unset (Discord's documentation).
DEFAULT_DM_PERMISSION = True
# Unsettled: Discord's documentation does not say; the emulator fills in APP_HANDLER.
DEFAULT_HANDLER = int(EntryPointHandler.APP_HANDLER)
_OPTION_NUMBERS = ("min_value", "max_value", "min_length", "max_length")


def permissions_value(value: Any) -> str | None:
    """``default_member_permissions`` as Discord's decimal string (or None).

    Accepts a decimal string, an int, or a list of lowercase permission names
    (``["manage_guild"]`` -> ``"32"``; Discord's "Permissions" documentation).
    """
    if value is None:
        return None
    if isinstance(value, list):
        bits = 0
        for name in value:
            bits |= 1 << Permission[str(name).upper()]
        return str(bits)
    return str(int(value))


def permission_names(value: str | None) -> list[str] | None:
    """The lowercase permission names of a decimal permission string.

    The inverse of :func:`permissions_value` for lists: ``"32"`` ->
    ``["manage_guild"]``. None when ``value`` is None, ``"0"`` (administrators
    only, clearer as a string) or has a bit Discord does not name.
    """
    if value is None or not str(value).isdigit() or int(value) == 0:
        return None
    bits = int(value)
    names = [p.name.lower() for p in Permission if bits & (1 << p)]
    if sum(1 << Permission[n.upper()] for n in names) != bits:
        return None
    return names


def _enum(enum_cls: Any, value: Any) -> Any:
    converted = enum_value(enum_cls, value)
    return value if converted is None else converted


def to_api(command: dict[str, Any]) -> dict[str, Any]:
    """A manifest command as Discord's JSON: enum names become integers.

    Keys are kept as given (``id`` included, so a bulk overwrite keeps ids);
    option and choice order is preserved.
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


def request_body(command: dict[str, Any], *, keep_id: bool = True) -> dict[str, Any]:
    """What to send for a manifest command: :func:`to_api` minus response-only keys.

    ``id`` stays when ``keep_id`` (a bulk overwrite item updates that command
    in place, Discord's "Application Commands" documentation (endpoints)); ``*_localized`` go at every depth.
    """
    api = to_api(command)
    body = {k: v for k, v in api.items() if k not in RESPONSE_ONLY or (keep_id and k == "id")}
    if isinstance(body.get("options"), list):
        body["options"] = [_strip_option(o) for o in body["options"]]
    return body


def _strip_option(option: dict[str, Any]) -> dict[str, Any]:
    result = {k: v for k, v in option.items() if k not in RESPONSE_ONLY}
    if isinstance(result.get("choices"), list):
        result["choices"] = [{k: v for k, v in c.items() if k not in RESPONSE_ONLY}
                             if isinstance(c, dict) else c for c in result["choices"]]
    if isinstance(result.get("options"), list):
        result["options"] = [_strip_option(o) for o in result["options"]]
    return result


def overwrite_to_api(overwrite: dict[str, Any], guild_id: str) -> dict[str, Any]:
    """A manifest overwrite as Discord's JSON: constants become ids.

    ``everyone`` is the guild id; ``all_channels`` the guild id minus 1
    (Discord's documentation "Overwrite id constants").
    """
    target = overwrite["id"]
    if target == "everyone":
        target = guild_id
    elif target == "all_channels":
        target = str(int(guild_id) - 1)
    return {"id": str(target), "type": _enum(OverwriteType, overwrite["type"]),
            "permission": bool(overwrite["permission"])}


def canonical_overwrites(overwrites: Iterable[dict[str, Any]], guild_id: str
                         ) -> list[dict[str, Any]]:
    """Overwrites (manifest or Discord's) in API form, sorted by type then id.

    Order carries no meaning in Discord's overwrite list, so sorting keeps a
    reordered list from showing as a change.
    """
    api = [overwrite_to_api(o, guild_id) for o in overwrites]
    return sorted(api, key=lambda o: (o["type"], int(o["id"]) if o["id"].isdigit() else 0,
                                      o["id"]))


def _localizations(value: Any) -> dict[str, str] | None:
    if not value:
        return None
    table = {k: v for k, v in value.items() if v is not None}
    return dict(sorted(table.items())) or None


def _int_set(values: Iterable[Any]) -> list[int]:
    return sorted({int(v) for v in values})


def canonical(command: dict[str, Any], *, scope: str = "global",
              default_integration_types: Iterable[int] | None = None) -> dict[str, Any]:
    """The comparable form of a command, from a manifest or from Discord.

    ``scope`` is ``"global"`` or a guild id: ``dm_permission``, ``contexts``
    and ``integration_types`` only mean something on global commands and are
    dropped for guild ones. ``default_integration_types`` is what Discord
    fills in for a global command that leaves ``integration_types`` unset
    (the application's installation contexts); when it is None (unknown) an
    unset ``integration_types`` stays None, which :func:`cmdsync.plan.diff`
    reads as "whatever Discord has".
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
        "nsfw": bool(api.get("nsfw")),  # absent: false
    }
    if kind in (CommandType.USER, CommandType.MESSAGE):
        result["description"] = ""
        result["description_localizations"] = None
    if scope == "global":
        contexts = api.get("contexts")
        result["contexts"] = _int_set(contexts) if contexts is not None else None
        types = api.get("integration_types")
        if types is None and default_integration_types is not None:
            types = list(default_integration_types)
        result["integration_types"] = _int_set(types) if types is not None else None
        dm = api.get("dm_permission")
        result["dm_permission"] = DEFAULT_DM_PERMISSION if dm is None else bool(dm)
    if kind == CommandType.PRIMARY_ENTRY_POINT:
        handler = api.get("handler")
        result["handler"] = DEFAULT_HANDLER if handler is None else handler
    options = [_canonical_option(o) for o in api.get("options") or []]
    if options and kind not in (CommandType.USER, CommandType.MESSAGE):
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
        result["channel_types"] = _int_set(option["channel_types"])
    for key in _OPTION_NUMBERS:
        if option.get(key) is not None:
            result[key] = option[key]
    children = [_canonical_option(child) for child in option.get("options") or []]
    if children:
        result["options"] = children
    return result


def same(left: Any, right: Any) -> bool:
    """JSON equality: numbers compare by value (``1 == 1.0``), booleans only to booleans."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    return type(left) is type(right) and left == right


def fill_unknown(desired: dict[str, Any], live: dict[str, Any] | None) -> dict[str, Any]:
    """``desired`` with fields it leaves to Discord taken from ``live``.

    Only ``integration_types`` (None when the application's default is not
    known) is filled: what Discord holds is then, by definition, the default.
    """
    if live is None or "integration_types" not in desired:
        return desired
    if desired["integration_types"] is not None:
        return desired
    return {**desired, "integration_types": live.get("integration_types")}

