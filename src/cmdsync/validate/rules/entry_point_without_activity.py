"""Entry points and ``handler`` need an application with an Activity (flag EMBEDDED).

A PRIMARY_ENTRY_POINT command launches the application's Activity, so
Discord accepts one, and its ``handler``, only from an application with the
EMBEDDED flag (``1 << 17``; Discord's "Application Commands" documentation: "`handler` only on
PRIMARY_ENTRY_POINT, only for apps with EMBEDDED"; "Enums"). Whether the
application has it is in ``flags`` of ``GET /applications/@me``: it is set
by enabling Activities in the Developer Portal, which also creates the
default "Launch" entry point.

This rule needs the application, so only ``cmdsync validate --online`` and
``cmdsync plan`` run it (before any write). It reports each entry point,
and each ``handler`` on another command type (which CS304 also reports).

Failing (for an application without Activities)::

    commands:
      - {type: primary_entry_point, name: launch, handler: discord_launch_activity}

Passing::

    commands:
      - {name: ping, description: Check the bot is alive}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import CommandType
from cmdsync.state.application import AppInfo
from cmdsync.validate.rules.base import Finding

ID = "CS602"
NAME = "entry-point-without-activity"
TITLE = "PRIMARY_ENTRY_POINT commands and handler only for applications with an Activity"
SEVERITY = Severity.ERROR
NEEDS_APPLICATION = True


def check(manifest: ManifestSet, application: AppInfo) -> Iterator[Finding]:
    if application.embedded is not False:
        return
    why = (f"application {application.id} has no Activity (flag EMBEDDED): enable Activities "
           "in the Developer Portal, or remove")
    for entry in manifest.commands:
        name = repr(entry.name or "(unnamed)")
        if entry.type == CommandType.PRIMARY_ENTRY_POINT:
            yield Finding(entry.doc, entry.path + ("type",),
                          f"entry point {name} needs an application with an Activity; {why} "
                          "the entry point")
        elif "handler" in entry.data:
            yield Finding(entry.doc, entry.path + ("handler",),
                          f"'handler' on command {name} needs an application with an "
                          f"Activity; {why} 'handler'", key=True)
