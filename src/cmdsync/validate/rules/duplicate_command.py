"""A command name may be declared only once per command type in each scope.

Discord keeps command names unique per type per scope (Discord's "Application Commands" documentation: "Names unique per type per scope"); a bulk overwrite with two
commands of one name and type fails with 50035
``APPLICATION_COMMANDS_DUPLICATE_NAME``, and a single create overwrites the
existing command (upsert by name and type). The scope is global or one
guild, so the same name may be used as a CHAT_INPUT and a USER command, in
two guilds, or globally and in a guild. All files of one run are one desired
state: the check spans files. The error is on the second declaration, with
the first as the related location. Names are compared exactly as written.
Entry points (PRIMARY_ENTRY_POINT) are left to CS304, which allows only one.

Failing::

    commands:
      - {name: ping, description: Check the bot is alive}
      - {name: ping, description: Check the latency}

Passing::

    commands:
      - {name: ping, description: Check the bot is alive}
      - {type: user, name: ping}
    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the latency}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.model import CommandType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import scope_phrase

ID = "CS303"
NAME = "duplicate-command"
TITLE = "Command names are unique per type and scope, across all files"
SEVERITY = Severity.ERROR


def type_label(kind: int) -> str:
    """Discord's upper-case name of a command type: ``"CHAT_INPUT"``."""
    return CommandType(kind).name


def check(manifest: ManifestSet) -> Iterator[Finding]:
    first: dict[tuple[str, int, str], CommandEntry] = {}
    for entry in manifest.commands:
        kind, name = entry.type, entry.name
        if kind is None or name is None or kind == CommandType.PRIMARY_ENTRY_POINT:
            continue
        seen = first.setdefault((entry.scope, kind, name), entry)
        if seen is not entry:
            yield Finding(
                entry.doc, entry.path + ("name",),
                f"{type_label(kind)} command {name!r} is already declared in "
                f"{scope_phrase(entry.scope)}; names are unique per type and scope: rename or "
                "remove one", related=((seen.doc, seen.path + ("name",)),))
