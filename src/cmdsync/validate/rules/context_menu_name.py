"""USER, MESSAGE and PRIMARY_ENTRY_POINT command names must be 1-32 characters long.

Context-menu commands (USER and MESSAGE) are named as they appear in the
right-click menu: any case and spaces are allowed, but the name must be 1-32
characters, and so must every localized name (Discord's "Application Commands" documentation).
The service rejects other lengths with 50035 ``BASE_TYPE_BAD_LENGTH``.
Entry points (PRIMARY_ENTRY_POINT) are held to the same rule: Discord
creates the default one as "Launch", upper case, so the slash-command
pattern does not apply to them (Discord's "Application Commands" documentation (endpoints)).
Slash-command names are checked by CS101.

Failing::

    - type: user
      name: Show this member's complete profile card
    - type: message
      name: Report
      name_localizations: {fr: ""}

Passing::

    - type: user
      name: Show Profile
    - type: message
      name: Report
      name_localizations: {fr: Signaler}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import CommandType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import localized, where

ID = "CS102"
NAME = "context-menu-name"
TITLE = "User, message and entry-point command names are 1-32 characters"
SEVERITY = Severity.ERROR
PER_COMMAND = True

MAX_LENGTH = 32
_KINDS: dict[int, str] = {CommandType.USER: "user", CommandType.MESSAGE: "message",
                          CommandType.PRIMARY_ENTRY_POINT: "entry-point"}


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        kind = _KINDS.get(entry.type) if entry.type is not None else None
        if kind is None:
            continue
        for at, locale, value in localized(entry.data, "name", entry.path):
            if not isinstance(value, str):
                continue
            what = f"{kind} command name{where(locale)}"
            if not value:
                yield Finding(entry.doc, at, f"{what} is empty: write 1-{MAX_LENGTH} characters")
            elif len(value) > MAX_LENGTH:
                yield Finding(entry.doc, at,
                              f"{what} {value!r} is {len(value)} characters long; the limit is "
                              f"{MAX_LENGTH}: shorten it by {len(value) - MAX_LENGTH}")
