"""Options nest as command -> subcommands, or command -> groups -> subcommands.

Discord's nesting rules (Discord's "Application Commands" documentation): a command's options
are either plain options (STRING, USER, ...) or subcommands and subcommand
groups, never both at one level; a SUB_COMMAND_GROUP holds only
SUB_COMMANDs; a SUB_COMMAND holds only plain options; groups exist only at
the top level, so nothing nests deeper than command -> group -> subcommand
-> option. Plain options have no ``options`` of their own, and USER and
MESSAGE commands take no options at all (an empty ``options: []`` is the
same as none). Discord rejects the rest with 50035 (Invalid Form Body). A
misplaced option is reported once; what is inside it is not checked further.

Failing::

    - name: tag
      description: Manage tags
      options:
        - type: sub_command_group
          name: admin
          description: Admin tools
          options:
            - {type: sub_command_group, name: danger, description: Dangerous tools}
        - {type: string, name: text, description: Tag text}

Passing::

    - name: tag
      description: Manage tags
      options:
        - type: sub_command_group
          name: admin
          description: Admin tools
          options:
            - type: sub_command
              name: purge
              description: Delete every tag
              options:
                - {type: boolean, name: confirm, description: Really?}
        - type: sub_command
          name: show
          description: Show a tag
          options:
            - {type: string, name: text, description: Tag text}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.manifest.loader import Path
from cmdsync.model import CommandType, OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import (
    SUB_TYPES,
    command_label,
    label,
    option_type,
    type_name,
)

ID = "CS207"
NAME = "nesting"
TITLE = "Options nest command -> group -> subcommand -> option"
SEVERITY = Severity.ERROR
PER_COMMAND = True

_CONTEXT_MENUS = (CommandType.USER, CommandType.MESSAGE)


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        items = entry.data.get("options")
        path = entry.path + ("options",)
        if entry.type in _CONTEXT_MENUS:
            if isinstance(items, list) and items:
                yield Finding(entry.doc, path,
                              f"{command_label(entry)} has options; user and message commands "
                              "take none: remove 'options'", key=True)
            continue
        yield from _mixed(entry, path, items)
        yield from _level(entry, path, items, "command", None)


def _described(item: dict[str, Any]) -> str:
    """``"option 'text' (STRING)"``, or just the label for subcommands and groups."""
    kind = option_type(item)
    if kind is None or kind in SUB_TYPES:
        return label(item)
    return f"{label(item)} ({type_name(kind)})"


def _mixed(entry: CommandEntry, path: Path, items: Any) -> Iterator[Finding]:
    """Subcommands and plain options side by side in the command's own options."""
    if not isinstance(items, list):
        return
    known = [(i, item) for i, item in enumerate(items)
             if isinstance(item, dict) and option_type(item) is not None]
    if not known:
        return
    first = known[0][1]
    first_is_sub = option_type(first) in SUB_TYPES
    for index, item in known[1:]:
        if (option_type(item) in SUB_TYPES) == first_is_sub:
            continue
        fix = ("move the options into subcommands" if not first_is_sub
               else "move it into a subcommand")
        yield Finding(entry.doc, path + (index, "type"),
                      f"{_described(item)} sits beside {_described(first)} in "
                      f"{command_label(entry)}: subcommands don't mix with plain options at "
                      f"one level; {fix}")


def _level(entry: CommandEntry, path: Path, items: Any, owner: str,
           holder: dict[str, Any] | None) -> Iterator[Finding]:
    """Check one options array held by a command (``holder`` None), group or subcommand."""
    if not isinstance(items, list):
        return
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind = option_type(item)
        why = _misplaced(kind, owner)
        if why:
            held_by = command_label(entry) if holder is None else label(holder)
            yield Finding(entry.doc, path + (index, "type"),
                          f"{_described(item)} is inside {held_by}: {why}")
            continue
        children = item.get("options")
        if kind == OptionType.SUB_COMMAND_GROUP:
            yield from _level(entry, path + (index, "options"), children, "group", item)
        elif kind == OptionType.SUB_COMMAND:
            yield from _level(entry, path + (index, "options"), children, "subcommand", item)
        elif kind is not None and isinstance(children, list) and children:
            yield Finding(entry.doc, path + (index, "options"),
                          f"{_described(item)} has options; only subcommands and groups "
                          "hold options: remove them", key=True)


def _misplaced(kind: int | None, owner: str) -> str | None:
    """Why an option of type ``kind`` may not sit in an array held by ``owner``."""
    if kind is None or owner == "command":
        return None
    if kind == OptionType.SUB_COMMAND_GROUP:
        return ("groups are allowed only in the command's own options "
                "(command -> group -> subcommand); move it up")
    if owner == "group" and kind != OptionType.SUB_COMMAND:
        return "a group holds only subcommands; wrap it in a subcommand"
    if owner == "subcommand" and kind == OptionType.SUB_COMMAND:
        return "a subcommand holds only plain options; move it up a level"
    return None
