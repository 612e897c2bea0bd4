"""In a raw ``.json`` array of commands, enum fields must be Discord's integers.

A ``.json`` file holding a bare array of commands is Discord's wire format:
it is what a deploy script sends to a bulk overwrite as it stands, and
Discord's API accepts only integers for enum fields (Discord's "Application Commands" documentation (its enums):
command type, option type, channel type, interaction context, integration
type, entry-point handler). YAML manifests and JSON manifest objects may use
the lowercase names (``string``, ``chat_input``, ``bot_dm``) because cmdsync
translates them; a raw array may not. A name in any case (``"string"``,
``"STRING"``) is reported here with the integer to write instead. A list of
lowercase permission names in ``default_member_permissions`` is a cmdsync
extension too: Discord wants the decimal bit-set string, which the message
gives. Discord rejects all of these with 50035 (Invalid Form Body).

Failing (``commands.json``)::

    [{"name": "echo", "description": "Echo text", "type": "chat_input",
      "options": [{"type": "string", "name": "text", "description": "Text"}]}]

Passing::

    [{"name": "echo", "description": "Echo text", "type": 1,
      "options": [{"type": 3, "name": "text", "description": "Text"}]}]
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, OptionEntry
from cmdsync.manifest.loader import Document, Path
from cmdsync.model import (
    ChannelType,
    CommandType,
    EntryPointHandler,
    IntegrationType,
    InteractionContext,
    OptionType,
    Permission,
    enum_names,
    enum_value,
)
from cmdsync.validate.rules.base import Finding

ID = "CS016"
NAME = "raw-json-enum-name"
TITLE = "Raw JSON command arrays use integers for enums"
SEVERITY = Severity.ERROR
PER_COMMAND = True

_FIX = "Discord's API takes only integers"
# Field -> (enum, what a value is called in messages) for single values and lists.
_COMMAND_FIELDS: dict[str, tuple[type[enum.IntEnum], str]] = {
    "type": (CommandType, "command type"),
    "handler": (EntryPointHandler, "handler"),
    "contexts": (InteractionContext, "context"),
    "integration_types": (IntegrationType, "integration type"),
}
_OPTION_FIELDS: dict[str, tuple[type[enum.IntEnum], str]] = {
    "type": (OptionType, "option type"),
    "channel_types": (ChannelType, "channel type"),
}
_LISTS = frozenset({"contexts", "integration_types", "channel_types"})


def check_command(entry: CommandEntry) -> Iterator[Finding]:
    if entry.raw:
        yield from _fields(entry.doc, entry.path, entry.data, _COMMAND_FIELDS)
        yield from _permissions(entry)


def check_option(option: OptionEntry) -> Iterator[Finding]:
    if option.entry.raw:
        yield from _fields(option.entry.doc, option.path, option.data, _OPTION_FIELDS)


def integer_for(enum_cls: type[enum.IntEnum], value: object) -> int | None:
    """Discord's integer for an enum name written in any case, else None."""
    if isinstance(value, str):
        return enum_names(enum_cls).get(value.lower())
    return None


def _fields(doc: Document, path: Path, data: dict[str, Any],
            fields: dict[str, tuple[type[enum.IntEnum], str]]) -> Iterator[Finding]:
    for key, (enum_cls, what) in fields.items():
        value = data.get(key)
        # contexts, integration_types and channel_types are lists; a lone value
        # where a list belongs is the schema's (CS011).
        found: list[tuple[int | None, Any]] = [(None, value)]
        if key in _LISTS:
            found = list(enumerate(value)) if isinstance(value, list) else []
        for index, item in found:
            number = integer_for(enum_cls, item)
            if number is not None:
                at = path + (key,) if index is None else path + (key, index)
                yield Finding(doc, at, f"{what} {item!r} is an enum name; {_FIX}: "
                                       f"write {number}")


def _permissions(entry: CommandEntry) -> Iterator[Finding]:
    value = entry.data.get("default_member_permissions")
    if not isinstance(value, list) or not value:
        return
    bits = [enum_value(Permission, name) if isinstance(name, str) else None for name in value]
    if any(bit is None for bit in bits):
        return  # an unknown name: CS013 and CS308 report it
    total = sum(1 << bit for bit in set(bits) if bit is not None)
    yield Finding(entry.doc, entry.path + ("default_member_permissions",),
                  f"default_member_permissions is a list of permission names; Discord's API "
                  f'takes a decimal string: write "{total}"')
