"""Localization keys must be Discord locales.

``name_localizations`` and ``description_localizations`` (on commands,
options and choices) are keyed by one of Discord's 32 locales, written
exactly as Discord spells them: ``fr``, ``en-US``, ``pt-BR``, ``es-419``...
(Discord's "Application Commands" documentation (its enums), "Locales"). Discord rejects other keys with 50035, and
the codes are case-sensitive (``en-us`` is not a locale). Discord's OpenAPI
also lists ``ar`` and ``he``, which its documentation does not: that is
unsettled, so those two are a warning, not an error.

Failing::

    - name: ping
      description: Check the bot is alive
      description_localizations:
        en-us: Check the bot is alive
        pt: Verifique se o bot está vivo

Passing::

    - name: ping
      description: Check the bot is alive
      description_localizations:
        en-US: Check the bot is alive
        pt-BR: Verifique se o bot está vivo
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, OptionEntry, choices
from cmdsync.manifest.loader import Document, Path
from cmdsync.model import LOCALES, UNSETTLED_LOCALES
from cmdsync.validate.rules.base import Finding

ID = "CS105"
NAME = "locale"
TITLE = "Localization keys are Discord locales"
SEVERITY = Severity.ERROR
PER_COMMAND = True

_FIELDS = ("name_localizations", "description_localizations")


def check_command(entry: CommandEntry) -> Iterator[Finding]:
    yield from _tables(entry.doc, entry.path, entry.data)


def check_option(option: OptionEntry) -> Iterator[Finding]:
    doc = option.entry.doc
    yield from _tables(doc, option.path, option.data)
    for path, choice in choices(option):
        yield from _tables(doc, path, choice)


def suggestions(key: str) -> list[str]:
    """The Discord locales ``key`` was probably meant to be, best first."""
    folded = key.replace("_", "-").lower()
    by_case = {locale.lower(): locale for locale in LOCALES}
    if folded in by_case:
        return [by_case[folded]]
    language = folded.split("-", 1)[0]
    same = sorted(locale for locale in LOCALES if locale.lower().split("-", 1)[0] == language)
    return same or difflib.get_close_matches(key, sorted(LOCALES), n=1, cutoff=0.75)


def message(key: str) -> tuple[str, Severity | None]:
    """The message and severity override for the non-Discord locale ``key``."""
    if key in UNSETTLED_LOCALES:
        text = (f"locale {key!r} is in Discord's OpenAPI but not in its documented locales: "
                "Discord may reject it; remove it if a sync fails")
        return text, Severity.WARNING
    head = f"{key!r} is not a Discord locale"
    guesses = suggestions(key)
    if len(guesses) == 1 and guesses[0].lower() == key.replace("_", "-").lower():
        return f"{head}: write {guesses[0]!r} (locale codes are case-sensitive)", None
    if guesses:
        return f"{head}; did you mean {' or '.join(map(repr, guesses))}?", None
    return f"{head}: use one of {', '.join(sorted(LOCALES))}", None


def _tables(doc: Document, path: Path, data: dict[str, Any]) -> Iterator[Finding]:
    for field in _FIELDS:
        table = data.get(field)
        if not isinstance(table, dict):
            continue
        for key in table:
            if key not in LOCALES:
                text, severity = message(key)
                yield Finding(doc, path + (field, key), text, key=True, severity=severity)
