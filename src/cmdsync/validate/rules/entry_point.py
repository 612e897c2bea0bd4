"""An application has at most one entry point, declared globally; only it has a ``handler``.

Discord allows one PRIMARY_ENTRY_POINT command per application, global only
(Discord's "Application Commands" documentation: "1 PRIMARY_ENTRY_POINT (global only)"), and
``handler`` only on PRIMARY_ENTRY_POINT commands ("`handler` only on
PRIMARY_ENTRY_POINT, only for apps with EMBEDDED"); the service rejects the
others. This rule owns the entry-point cap, so CS302 does not
count entry points and CS303 does not compare their names: every entry point
after the first (in any file of the run) is an error here, with the first
as the related location. Whether the application has an Activity (the
EMBEDDED flag) cannot be known offline: CS602 checks it once the application
is read (``validate --online``, ``plan``).

Failing::

    commands:
      - {type: primary_entry_point, name: launch, handler: discord_launch_activity}
      - {type: primary_entry_point, name: play, handler: app_handler}
      - {name: ping, description: Check the bot is alive, handler: app_handler}

Passing::

    commands:
      - {type: primary_entry_point, name: launch, handler: discord_launch_activity}
      - {name: ping, description: Check the bot is alive}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.model import GLOBAL, CommandType
from cmdsync.validate.rules.base import Finding

ID = "CS304"
NAME = "entry-point"
TITLE = "At most one entry point, global only; handler only on entry points"
SEVERITY = Severity.ERROR


def check(manifest: ManifestSet) -> Iterator[Finding]:
    first: CommandEntry | None = None
    for entry in manifest.commands:
        kind = entry.type
        if kind is None:
            continue
        if kind != CommandType.PRIMARY_ENTRY_POINT:
            if "handler" in entry.data:
                yield Finding(entry.doc, entry.path + ("handler",),
                              f"'handler' on {CommandType(kind).name} command "
                              f"{entry.name or '(unnamed)'!r}; only PRIMARY_ENTRY_POINT commands "
                              "have a handler: remove it", key=True)
            continue
        name = repr(entry.name or "(unnamed)")
        if entry.scope != GLOBAL:
            yield Finding(entry.doc, entry.path + ("type",),
                          f"entry point {name} is declared in guild {entry.scope}; "
                          "PRIMARY_ENTRY_POINT commands are global only: move it to the "
                          "global commands")
        elif first is None:
            first = entry
        else:
            yield Finding(entry.doc, entry.path + ("type",),
                          f"entry point {name} is a second PRIMARY_ENTRY_POINT command; an "
                          f"application has at most one (the first is "
                          f"{first.name or '(unnamed)'!r}): remove one",
                          related=((first.doc, first.path + ("type",)),))
