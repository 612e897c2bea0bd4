"""A command may have at most 100 permission overwrites in one guild.

Setting a command's permissions replaces all its overwrites in that guild
with a list of at most 100 (Discord's "Application Commands" documentation (endpoints): PUT
``.../commands/{cmd}/permissions``, "at most 100"); Discord rejects a
longer list. The application-wide entry ``"*"`` is one such list
too. Rather than listing many users, allow or deny a role or a channel.

Failing::

    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive}
        permissions:
          ping:   # 101 overwrites
            - {type: user, id: "100000000000000001", permission: true}
            # ... 99 more
            - {type: user, id: "100000000000000101", permission: true}

Passing::

    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive}
        permissions:
          ping:
            - {type: role, id: "200000000000000001", permission: true}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet, PermissionEntry
from cmdsync.model import MAX_OVERWRITES
from cmdsync.validate.rules.base import Finding

ID = "CS401"
NAME = "overwrite-count"
TITLE = "At most 100 permission overwrites per command per guild"
SEVERITY = Severity.ERROR


def target_label(entry: PermissionEntry) -> str:
    """``"command 'ping'"`` or ``"the application-wide entry '*'"``, for messages."""
    return "the application-wide entry '*'" if entry.key == "*" else f"command {entry.key!r}"


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.permissions:
        count = len(entry.overwrites)
        if count > MAX_OVERWRITES:
            yield Finding(entry.doc, entry.path + (MAX_OVERWRITES,),
                          f"{target_label(entry)} has {count} permission overwrites in guild "
                          f"{entry.guild_id}; Discord allows at most {MAX_OVERWRITES}: remove "
                          f"{count - MAX_OVERWRITES} (allow or deny a role instead of many users)")
