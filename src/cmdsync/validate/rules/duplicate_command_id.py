"""A command ``id`` may be given to only one command.

An ``id`` on a command names the live command it manages: a bulk overwrite
updates the command with that id in place (Discord's "Application Commands" documentation (endpoints): "An item
may carry `id`"). Two commands with one id would both claim the same live
command; one would overwrite the other. The check spans all files and
scopes (ids are unique across Discord). The error is on the second command,
with the first as the related location. Ids that are not snowflakes (CS501)
or still hold a ``${VAR}`` placeholder (CS004) are skipped.

Failing::

    commands:
      - {id: "123456789012345678", name: ping, description: Check the bot is alive}
      - {id: "123456789012345678", name: pong, description: Check the bot is alive}

Passing::

    commands:
      - {id: "123456789012345678", name: ping, description: Check the bot is alive}
      - {id: "123456789012345679", name: pong, description: Check the bot is alive}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import is_snowflake, judgeable, scope_phrase

ID = "CS503"
NAME = "duplicate-command-id"
TITLE = "Command ids are unique across all files"
SEVERITY = Severity.ERROR


def check(manifest: ManifestSet) -> Iterator[Finding]:
    first: dict[str, CommandEntry] = {}
    for entry in manifest.commands:
        value = entry.data.get("id")
        if not judgeable(value) or not is_snowflake(value):
            continue
        seen = first.setdefault(value, entry)
        if seen is not entry:
            yield Finding(entry.doc, entry.path + ("id",),
                          f"command {_label(entry)} has the id {value!r} of command "
                          f"{_label(seen)}; one id names one live command: correct it, or "
                          "remove it from one of them",
                          related=((seen.doc, seen.path + ("id",)),))


def _label(entry: CommandEntry) -> str:
    return f"{entry.name or '(unnamed)'!r} in {scope_phrase(entry.scope)}"
