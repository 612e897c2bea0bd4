"""Helpers shared by the option rules (CS201-CS211): labels and type tests.

Not a rule (it is not listed in the registry). Everything here is pure and
tolerant of wrongly typed values, which the schema reports separately.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from cmdsync.manifest.entries import CommandEntry, OptionList
from cmdsync.manifest.loader import Path
from cmdsync.model import CommandType, OptionType, enum_value

# Option types that take choices, autocomplete and (numbers) min/max values.
CHOICE_TYPES = frozenset({OptionType.STRING, OptionType.INTEGER, OptionType.NUMBER})
SUB_TYPES = frozenset({OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP})


def option_type(data: dict[str, Any]) -> int | None:
    """The option type of ``data`` as an int, None if missing or invalid."""
    return enum_value(OptionType, data.get("type"))


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
