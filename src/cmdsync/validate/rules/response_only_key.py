"""Keys that only appear in Discord's responses should not be written in a manifest.

Discord returns ``id``, ``application_id``, ``version`` and, for guild
commands, ``guild_id`` on every command, and ``name_localized`` /
``description_localized`` on commands, options and choices when the
requester's locale has an entry (Discord's application command object (checked against real responses)). They are
read-only: Discord sets them and silently ignores them on create, edit and
bulk overwrite, so writing them (often by pasting a GET response) changes
nothing and hides what the manifest really controls. ``id`` is not one of
them: a manifest may keep it to update a command in place. To localize, use
``name_localizations`` / ``description_localizations``.

Failing::

    - name: ping
      description: Check the bot is alive
      version: "1248739021123456789"
      name_localized: ping

Passing::

    - name: ping
      description: Check the bot is alive
      name_localizations: {fr: ping}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, OptionEntry, choices
from cmdsync.manifest.loader import Document, Path
from cmdsync.validate.rules.base import Finding

ID = "CS014"
NAME = "response-only-key"
TITLE = "No response-only keys in commands"
SEVERITY = Severity.WARNING
PER_COMMAND = True

_LOCALIZED = ("name_localized", "description_localized")
COMMAND_KEYS = ("version", "application_id", "guild_id") + _LOCALIZED
OPTION_KEYS = _LOCALIZED
CHOICE_KEYS = ("name_localized",)


def check_command(entry: CommandEntry) -> Iterator[Finding]:
    yield from _keys(entry.doc, entry.path, entry.data, COMMAND_KEYS)


def check_option(option: OptionEntry) -> Iterator[Finding]:
    doc = option.entry.doc
    yield from _keys(doc, option.path, option.data, OPTION_KEYS)
    for path, choice in choices(option):
        yield from _keys(doc, path, choice, CHOICE_KEYS)


def _keys(doc: Document, path: Path, data: dict[str, Any],
          keys: tuple[str, ...]) -> Iterator[Finding]:
    for key in keys:
        if key in data:
            yield Finding(doc, path + (key,), message(key), key=True)


def message(key: str) -> str:
    """The warning for the response-only ``key``."""
    text = f"{key!r} is response-only: Discord sets it and ignores it on write; remove it"
    if key in _LOCALIZED:
        text += f" (to localize, write {key.replace('_localized', '_localizations')!r})"
    return text
