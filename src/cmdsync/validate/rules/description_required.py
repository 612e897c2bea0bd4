"""Slash commands and every option need a description of 1-100 characters.

Discord requires a description of 1-100 characters on CHAT_INPUT commands
and on every option, subcommand and subcommand group, and each localized
description must be 1-100 characters too (Discord's "Application Commands" documentation).
The service rejects a missing one with 50035 ``BASE_TYPE_REQUIRED`` and a
wrong length with ``BASE_TYPE_BAD_LENGTH``. Discord's documentation says nothing about
PRIMARY_ENTRY_POINT commands: their description is not required here, but
when written it is held to the same 100-character limit (as in Discord's
OpenAPI). USER and MESSAGE commands take no description (CS104).

Failing::

    - name: ping
      options:
        - {type: string, name: host, description: ""}

Passing::

    - name: ping
      description: Check the bot is alive
      options:
        - {type: string, name: host, description: Host to ping}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, OptionEntry
from cmdsync.manifest.loader import Document, Path
from cmdsync.model import CommandType, OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import localized, where

ID = "CS103"
NAME = "description-required"
TITLE = "Slash commands and options have a 1-100 character description"
SEVERITY = Severity.ERROR
PER_COMMAND = True

MAX_LENGTH = 100
_OPTION_KINDS: dict[int, str] = {OptionType.SUB_COMMAND: "subcommand",
                                 OptionType.SUB_COMMAND_GROUP: "subcommand group"}


def check_command(entry: CommandEntry) -> Iterator[Finding]:
    if entry.type == CommandType.CHAT_INPUT:
        yield from _description(entry.doc, entry.path, entry.data, "slash command",
                                required=True)
    elif entry.type == CommandType.PRIMARY_ENTRY_POINT:
        yield from _description(entry.doc, entry.path, entry.data, "entry point command",
                                required=False)


def check_option(option: OptionEntry) -> Iterator[Finding]:
    kind = option.type
    what = _OPTION_KINDS.get(kind, "option") if kind is not None else "option"
    yield from _description(option.entry.doc, option.path, option.data, what, required=True)


def _description(doc: Document, path: Path, data: dict[str, Any], what: str,
                 *, required: bool) -> Iterator[Finding]:
    if "description" not in data and required:
        yield Finding(doc, path, f"description is required for {_label(data, what)}: add one "
                                 f"of 1-{MAX_LENGTH} characters")
    for at, locale, value in localized(data, "description", path):
        if not isinstance(value, str):
            continue
        if not value and (required or locale):
            yield Finding(doc, at, f"description{where(locale)} of {_label(data, what)} is "
                                   f"empty: write 1-{MAX_LENGTH} characters")
        elif len(value) > MAX_LENGTH:
            yield Finding(doc, at,
                          f"description{where(locale)} of {_label(data, what)} is "
                          f"{len(value)} characters long; the limit is {MAX_LENGTH}: shorten "
                          f"it by {len(value) - MAX_LENGTH}")


def _label(data: dict[str, Any], what: str) -> str:
    """``"option 'user'"``: what a message names."""
    name = data.get("name")
    return f"{what} {name!r}" if isinstance(name, str) else what
