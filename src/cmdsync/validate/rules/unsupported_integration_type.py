"""A global command's ``integration_types`` must be installation contexts the application supports.

Discord refuses a command whose ``integration_types`` the application does
not support, with the message "A command's integration_types must already be
supported at application level" (Discord's "Application Commands" documentation: "Command
`integration_types` must be supported by the app"). The application supports
the contexts its Developer Portal "Installation" page enables: the keys of
``integration_types_config`` in ``GET /applications/@me`` (openapi.json
``PrivateApplicationResponse``). A user-installable command
(``user_install``) needs an application with user install on.

This rule needs the application, so only ``cmdsync validate --online`` and
``cmdsync plan`` run it (before any write). Guild commands are not checked:
Discord ignores ``integration_types`` there (CS305). A command that leaves
``integration_types`` out gets the application's own, which always passes.

Failing (for an application with guild install only)::

    commands:
      - name: ping
        description: Check the bot is alive
        integration_types: [guild_install, user_install]

Passing::

    commands:
      - name: ping
        description: Check the bot is alive
        integration_types: [guild_install]
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import GLOBAL, IntegrationType, enum_value
from cmdsync.state.application import AppInfo
from cmdsync.validate.rules.base import Finding

ID = "CS601"
NAME = "unsupported-integration-type"
TITLE = "A command's integration_types are supported by the application"
SEVERITY = Severity.ERROR
NEEDS_APPLICATION = True
MESSAGE = "A command's integration_types must already be supported at application level"


def check(manifest: ManifestSet, application: AppInfo) -> Iterator[Finding]:
    supported = application.integration_types
    if supported is None:
        return
    for entry in manifest.commands:
        types = entry.data.get("integration_types")
        if entry.scope != GLOBAL or not isinstance(types, list):
            continue
        for index, value in enumerate(types):
            number = enum_value(IntegrationType, value)
            if number is None or number in supported:
                continue
            yield Finding(entry.doc, entry.path + ("integration_types", index),
                          f"{MESSAGE}: command {entry.name or '(unnamed)'!r} lists "
                          f"{IntegrationType(number).name.lower()}, and application "
                          f"{application.id} supports {application.describe_types()} only: "
                          "enable it on the application (Developer Portal, Installation) or "
                          "remove it")
