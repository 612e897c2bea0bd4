"""CHAT_INPUT command names and every option name must match Discord's pattern.

Discord's name rule (Discord's "Application Commands" documentation): 1-32 characters from
``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` (letters and digits of any
script, ``-``, ``_`` and ``'``; no spaces), and lowercase wherever the letter
has a lowercase form. Localized names follow the same rule. The service
rejects other names with 50035 ``APPLICATION_COMMAND_INVALID_NAME``.
Entry-point commands (PRIMARY_ENTRY_POINT) are not: Discord itself creates
the default one as "Launch" (Discord's "Application Commands" documentation (endpoints)); CS102 checks their length.

Failing::

    - name: Ping Pong
      description: Check the bot is alive
      options:
        - {type: string, name: IGN, description: In-game name}

Passing::

    - name: ping-pong
      description: Check the bot is alive
      options:
        - {type: string, name: ign, description: In-game name}
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import regex

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, OptionEntry
from cmdsync.manifest.loader import Document, Path
from cmdsync.model import CommandType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import localized, where

ID = "CS101"
NAME = "chat-input-name"
TITLE = "Slash command and option names match Discord's pattern"
SEVERITY = Severity.ERROR
PER_COMMAND = True

PATTERN = regex.compile(r"^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$")


@functools.lru_cache(maxsize=4096)  # names repeat across guilds: each judged once
def problem(name: str) -> str | None:
    """Why ``name`` is not a valid slash-command or option name, or None."""
    if not 1 <= len(name) <= 32:
        return f"is {len(name)} characters long; names are 1-32 characters"
    if not PATTERN.match(name):
        bad = sorted({ch for ch in name if not PATTERN.match(ch)})
        shown = ", ".join(repr(ch) for ch in bad[:5])
        return f"contains {shown}: use letters, digits, '-', '_' or \"'\" (no spaces)"
    if name != name.lower():
        return f"has upper-case letters: write {name.lower()!r}"
    return None


def check_command(entry: CommandEntry) -> Iterator[Finding]:
    if entry.type == CommandType.CHAT_INPUT:
        yield from _names(entry.doc, entry.data, entry.path, "command name")


def check_option(option: OptionEntry) -> Iterator[Finding]:
    yield from _names(option.entry.doc, option.data, option.path, "option name")


def _names(doc: Document, data: dict[str, object], path: Path, what: str
           ) -> Iterator[Finding]:
    for at, locale, value in localized(data, "name", path):
        if isinstance(value, str):
            why = problem(value)
            if why:
                yield Finding(doc, at, f"{what}{where(locale)} {value!r} {why}")
