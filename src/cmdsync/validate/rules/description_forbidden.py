"""USER and MESSAGE commands must not have a description.

Discord does not allow a description when creating a context-menu command
(USER or MESSAGE) and reads it back as ``""`` (Discord's "Application Commands" documentation,
"What a GET returns"). A non-empty ``description``, or a
``description_localizations`` with any entry, is rejected with 50035;
``description: ""`` (what a GET returns) and empty or null localizations
are fine.

Failing::

    - type: user
      name: Show Profile
      description: Show a member's profile

Passing::

    - type: user
      name: Show Profile
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import CommandType
from cmdsync.validate.rules.base import Finding

ID = "CS104"
NAME = "description-forbidden"
TITLE = "User and message commands have no description"
SEVERITY = Severity.ERROR
PER_COMMAND = True

_KINDS: dict[int, str] = {CommandType.USER: "user", CommandType.MESSAGE: "message"}


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        kind = _KINDS.get(entry.type) if entry.type is not None else None
        if kind is None:
            continue
        name = f"{kind} command {entry.name!r}" if entry.name is not None else f"{kind} command"
        why = f"Discord rejects descriptions on {kind.upper()} commands"
        description = entry.data.get("description")
        if isinstance(description, str) and description:
            yield Finding(entry.doc, entry.path + ("description",),
                          f"{name} has a description; {why}: remove it")
        table = entry.data.get("description_localizations")
        if isinstance(table, dict) and any(v is not None for v in table.values()):
            yield Finding(entry.doc, entry.path + ("description_localizations",),
                          f"{name} has description_localizations; {why}: remove them",
                          key=True)
