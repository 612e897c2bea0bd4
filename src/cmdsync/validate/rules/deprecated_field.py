"""Deprecated command fields should be replaced by their successors.

``default_permission`` was replaced by ``default_member_permissions`` with
permissions v2; Discord no longer returns it (Discord's application command object (checked against real responses)), so a plan can never show whether it took effect. ``dm_permission``
is deprecated in favour of ``contexts`` (Discord's "Application Commands" documentation (its enums): interaction
contexts GUILD 0, BOT_DM 1, PRIVATE_CHANNEL 2); Discord still returns it on
global commands, but ``contexts`` is what new clients honour. Both are
warnings: Discord still accepts them.

Failing::

    - name: ban
      description: Ban a member
      default_permission: false
      dm_permission: false

Passing::

    - name: ban
      description: Ban a member
      default_member_permissions: "0"
      contexts: [guild]
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.validate.rules.base import Finding

ID = "CS015"
NAME = "deprecated-field"
TITLE = "No deprecated command fields"
SEVERITY = Severity.WARNING
PER_COMMAND = True


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        for key in ("default_permission", "dm_permission"):
            if key in entry.data:
                yield Finding(entry.doc, entry.path + (key,),
                              message(key, entry.data[key]), key=True)


def message(key: str, value: object) -> str:
    """The warning for the deprecated ``key`` set to ``value``."""
    if key == "default_permission":
        head = ("'default_permission' is deprecated and Discord no longer returns it: "
                "use default_member_permissions")
        if value is False:
            return f'{head} ("0" hides the command from everyone but administrators)'
        return f"{head}, or remove it (everyone can use a command by default)"
    head = "'dm_permission' is deprecated: use contexts"
    if value is False:
        return f"{head} ([guild] keeps the command out of DMs)"
    if value is True:
        return f"{head} ([guild, bot_dm] also offers it in DMs with the app)"
    return f"{head}, or remove it"
