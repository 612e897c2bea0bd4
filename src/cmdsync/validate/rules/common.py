"""Helpers shared by rule modules: labels, localized values, option types, snowflakes.

Not a rule (it is not listed in the registry). Everything here is pure and
tolerant of wrongly typed values, which the schema reports separately.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, TypeGuard

from cmdsync.manifest.entries import CommandEntry, OptionList
from cmdsync.manifest.loader import Path
from cmdsync.model import (
    GLOBAL,
    CommandType,
    InteractionContext,
    OptionType,
    enum_names,
    enum_value,
)

# Option types that take choices, autocomplete and (numbers) min/max values.
CHOICE_TYPES = frozenset({OptionType.STRING, OptionType.INTEGER, OptionType.NUMBER})
SUB_TYPES = frozenset({OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP})


def option_type(data: dict[str, Any]) -> int | None:
    """The option type of ``data`` as an int, None if missing or invalid."""
    kind = data.get("type")
    if type(kind) is str:  # the usual case, looked up at once: rules ask of every option
        return _OPTION_TYPES.get(kind)
    return enum_value(OptionType, kind)


_OPTION_TYPES = enum_names(OptionType)


def type_name(kind: int) -> str:
    """``"STRING"`` for 3."""
    return OptionType(kind).name


def is_number(value: object) -> TypeGuard[int | float]:
    """True for ints and floats, False for bools (a bool is an int in Python)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def kind_word(data: dict[str, Any]) -> str:
    """``"subcommand group"``, ``"subcommand"`` or ``"option"``."""
    kind = option_type(data)
    if kind == OptionType.SUB_COMMAND_GROUP:
        return "subcommand group"
    if kind == OptionType.SUB_COMMAND:
        return "subcommand"
    return "option"


def quoted_name(data: dict[str, Any]) -> str:
    """``'name'`` of an object, or ``(unnamed)``."""
    name = data.get("name")
    return repr(name) if isinstance(name, str) else "(unnamed)"


def label(data: dict[str, Any]) -> str:
    """``"subcommand 'add'"``, ``"option 'user'"`` for messages."""
    return f"{kind_word(data)} {quoted_name(data)}"


def command_label(entry: CommandEntry) -> str:
    """``"command 'ban'"``, or ``"USER command 'Show Profile'"`` for context menus."""
    kind = entry.type
    prefix = "" if kind in (None, CommandType.CHAT_INPUT) else f"{CommandType(kind).name} "
    return f"{prefix}command {quoted_name(entry.data)}"


def lookup(entry: CommandEntry, path: Path) -> Any:
    """The value at ``path`` (a path inside ``entry``), None if it is not there."""
    node: Any = entry.data
    for part in path[len(entry.path):]:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def owner_data(olist: OptionList) -> dict[str, Any]:
    """The command or option object that holds ``olist``."""
    owner = lookup(olist.entry, olist.path[:-1])
    return owner if isinstance(owner, dict) else {}


def owner_label(olist: OptionList) -> str:
    """``"command 'tag'"`` or ``"subcommand 'add'"``: who holds ``olist``."""
    if olist.depth == 0:
        return command_label(olist.entry)
    return label(owner_data(olist))


def localized(data: dict[str, Any], field: str, path: Path) -> Iterator[tuple[Path, str | None, Any]]:
    """The default value of ``field`` and each of its localizations.

    Yields ``(path, locale, value)``: locale None for the default value at
    ``path + (field,)``, then each ``<field>_localizations`` entry at
    ``path + (field + "_localizations", locale)``. Missing values are skipped;
    values are yielded whatever their type (the schema checks types).
    """
    if field in data:
        yield path + (field,), None, data[field]
    key = field + "_localizations"
    table = data.get(key)
    if isinstance(table, dict):
        for locale, value in table.items():
            if value is not None:
                yield path + (key, locale), locale, value


def where(locale: str | None) -> str:
    """``""`` or ``" (fr)"``, to name a localization in a message."""
    return f" ({locale})" if locale else ""


def scope_phrase(scope: str) -> str:
    """``"the global scope"`` or ``"guild 333..."``, for messages."""
    return "the global scope" if scope == GLOBAL else f"guild {scope}"


def bot_dm_indexes(contexts: object) -> list[int]:
    """Indexes of BOT_DM (1 or ``bot_dm``) in a ``contexts`` value."""
    if not isinstance(contexts, list):
        return []
    return [i for i, item in enumerate(contexts)
            if enum_value(InteractionContext, item) == InteractionContext.BOT_DM]


_DIGITS = re.compile(r"[0-9]{17,20}")
_MAX_SNOWFLAKE = 2**64 - 1


SNOWFLAKE_HINTS = {
    "application_id": "copy the Application ID from the Developer Portal",
    "guild id": "copy it in Discord (Developer Mode, right-click the server, Copy Server ID)",
    "command id": "copy it from a GET of the live commands, or remove it",
}


def is_snowflake(value: str) -> bool:
    """Whether ``value`` is a snowflake string: 17-20 ASCII digits, at most 2^64-1."""
    return bool(_DIGITS.fullmatch(value)) and int(value) <= _MAX_SNOWFLAKE


def judgeable(value: object) -> TypeGuard[str]:
    """Whether an id is a string without an unexpanded ``${VAR}`` (CS004 reports those)."""
    return isinstance(value, str) and "${" not in value


def snowflake_problem(value: str) -> str | None:
    """Why ``value`` is not a snowflake (to follow the value in a message), or None."""
    if is_snowflake(value):
        return None
    if _DIGITS.fullmatch(value):
        return "is larger than a 64-bit snowflake can be"
    if value.isascii() and value.isdigit():
        return f"has {len(value)} digits"
    return "is not a number"
