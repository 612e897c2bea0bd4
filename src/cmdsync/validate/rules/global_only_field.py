"""``contexts``, ``integration_types`` and ``dm_permission`` do nothing on a guild command.

These three fields apply to global commands only (Discord's "Application Commands" documentation: "`contexts`, `integration_types`, `dm_permission`: global commands
only"); on a guild command Discord accepts and ignores them, so the manifest
promises a restriction that is not there. This is a warning. ``null`` is
not reported (it is the default). ``contexts`` that list BOT_DM are CS306's
(an error), so they are not reported again here. CS015 separately warns
that ``dm_permission`` is deprecated.

Failing::

    guilds:
      "333333333333333333":
        commands:
          - name: ping
            description: Check the bot is alive
            contexts: [guild]
            integration_types: [guild_install]

Passing::

    commands:
      - name: ping
        description: Check the bot is alive
        contexts: [guild]
        integration_types: [guild_install]
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import GLOBAL
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import bot_dm_indexes

ID = "CS305"
NAME = "global-only-field"
TITLE = "No global-only fields (contexts, integration_types, dm_permission) on guild commands"
SEVERITY = Severity.WARNING

FIELDS = ("contexts", "integration_types", "dm_permission")


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        if entry.scope == GLOBAL:
            continue
        for field in FIELDS:
            if entry.data.get(field) is None:
                continue
            if field == "contexts" and bot_dm_indexes(entry.data[field]):
                continue
            yield Finding(entry.doc, entry.path + (field,),
                          f"{field!r} on guild command {entry.name or '(unnamed)'!r} is ignored "
                          "(Discord applies it to global commands only): remove it, or make the "
                          "command global", key=True)
