"""``contexts`` with PRIVATE_CHANNEL needs USER_INSTALL in ``integration_types``.

The PRIVATE_CHANNEL context (group DMs and DMs other than with the bot) only
means something for a user-installed app (Discord's "Application Commands" documentation:
"PRIVATE_CHANNEL only means something with USER_INSTALL"). A global command
whose ``integration_types`` is a list without USER_INSTALL (1,
``user_install``) will never appear there. Discord accepts it, so this is a
warning. When ``integration_types`` is missing or null it follows the app's
install settings, which cmdsync cannot see offline: not reported. Guild
commands ignore ``contexts`` altogether (CS305) and are not checked here.

Failing::

    - name: roll
      description: Roll a die
      contexts: [guild, private_channel]
      integration_types: [guild_install]

Passing::

    - name: roll
      description: Roll a die
      contexts: [guild, private_channel]
      integration_types: [guild_install, user_install]
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import GLOBAL, IntegrationType, InteractionContext, enum_value
from cmdsync.validate.rules.base import Finding

ID = "CS307"
NAME = "private-channel"
TITLE = "PRIVATE_CHANNEL context only with USER_INSTALL"
SEVERITY = Severity.WARNING


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        contexts = entry.data.get("contexts")
        installs = entry.data.get("integration_types")
        if entry.scope != GLOBAL or not isinstance(contexts, list) or not isinstance(
                installs, list):
            continue
        if any(enum_value(IntegrationType, item) == IntegrationType.USER_INSTALL
               for item in installs):
            continue
        for index, item in enumerate(contexts):
            if enum_value(InteractionContext, item) == InteractionContext.PRIVATE_CHANNEL:
                yield Finding(entry.doc, entry.path + ("contexts", index),
                              f"command {entry.name or '(unnamed)'!r} lists PRIVATE_CHANNEL in "
                              "contexts but integration_types has no USER_INSTALL, so it never "
                              "appears there: add user_install to integration_types, or remove "
                              "private_channel")
