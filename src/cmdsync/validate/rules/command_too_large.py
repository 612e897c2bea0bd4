"""A command's size (its names, descriptions and choices) must be at most 8000 characters.

Discord sums, over the command, every option at every depth and every
choice, the lengths of ``name``, ``description`` and choice ``value``; for a
field with localizations only its longest version (the default included)
counts (Discord's "Application Commands" documentation, "Size"). Over 8000 the service rejects
the command with 50035 ``APPLICATION_COMMAND_TOO_LARGE``. A choice's
``name`` is a name and counts like the others. Lengths are counted in
Unicode code points. A choice value that is a number counts by the length
of its decimal text (``str(value)``: ``1000`` counts 4, ``2.5`` counts 3),
which is how it is written in the JSON body; Discord's documentation does not say how
Discord measures numbers.

Failing::

    - name: lookup
      description: Look up an item
      options:
        - type: string
          name: item
          description: Which item
          choices: &items  # 25 choices of a 100-character name and value: 5000
            - {name: "Aaaa... (100 characters)", value: "aaaa... (100 characters)"}
            # ... 24 more
        - {type: string, name: other, description: Another item, choices: *items}

Passing::

    - name: lookup
      description: Look up an item
      options:
        - type: string
          name: item
          description: Which item
          choices: &items  # 25 choices of a 100-character name and value: 5000
            - {name: "Aaaa... (100 characters)", value: "aaaa... (100 characters)"}
            # ... 24 more
        - {type: string, name: other, description: Another item, autocomplete: true}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet, option_keys, options
from cmdsync.model import MAX_COMMAND_SIZE
from cmdsync.validate.rules.base import Finding

ID = "CS301"
NAME = "command-too-large"
TITLE = "Command size (names, descriptions, choices) is at most 8000 characters"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def field_size(data: dict[str, Any], field: str) -> int:
    """Length of the longest version of ``field`` (default or a localization)."""
    # The sizes of every field of every command are summed: plain loops, no paths built.
    value = data.get(field)
    size = len(value) if isinstance(value, str) else 0
    table = data.get(field + "_localizations")
    if isinstance(table, dict):
        for text in table.values():
            if isinstance(text, str) and len(text) > size:
                size = len(text)
    return size



def value_size(value: object) -> int:
    """Length a choice value adds: a string's length, a number's ``str()`` length."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return len(str(value))
    return 0


def _own_size(data: dict[str, Any]) -> int:
    return field_size(data, "name") + field_size(data, "description")


def option_size(data: dict[str, Any]) -> int:
    """What an option adds to its command's size, without its child options."""
    size = _own_size(data)
    items = data.get("choices")
    if isinstance(items, list):
        for choice in items:
            if isinstance(choice, dict):
                size += field_size(choice, "name") + value_size(choice.get("value"))
    return size


def command_size(entry: CommandEntry, sizes: dict[bytes, int]) -> tuple[int, dict[int, int]]:
    """The command's size, and what each top-level option (by index) adds to it.

    ``sizes``: option sizes by their own fields
    (:func:`~cmdsync.manifest.entries.option_keys`), kept over the commands of one
    check, so that an option that distinct commands share is measured once.
    """
    total = _own_size(entry.data)
    per_option: dict[int, int] = {}
    at = len(entry.path) + 1
    for option, key in zip(options(entry), option_keys(entry)):
        size = sizes.get(key) if key is not None else None
        if size is None:
            size = option_size(option.data)
            if key is not None:
                sizes[key] = size
        top = option.path[at]
        if isinstance(top, int):
            per_option[top] = per_option.get(top, 0) + size
        total += size
    return total, per_option


def check(manifest: ManifestSet) -> Iterator[Finding]:
    sizes: dict[bytes, int] = {}
    for entry in manifest.commands:
        size, per_option = command_size(entry, sizes)
        if size <= MAX_COMMAND_SIZE:
            continue
        message = (f"command {entry.name or '(unnamed)'!r} is {size} characters in size; "
                   f"Discord allows at most {MAX_COMMAND_SIZE} (names, descriptions and "
                   "choices, counting the longest localization of each): shorten it by "
                   f"{size - MAX_COMMAND_SIZE}")
        if per_option:
            index, biggest = max(per_option.items(), key=lambda item: item[1])
            name = entry.data["options"][index].get("name")
            if isinstance(name, str):
                message += f" (option {name!r} accounts for {biggest})"
        yield Finding(entry.doc, entry.path, message)
