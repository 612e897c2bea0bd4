"""``cmdsync export``: commands defined in bot code, written as a YAML manifest.

For a team moving from a discord.py ``CommandTree`` to YAML: the manifest
holds what ``tree.sync()`` would send, written as ``pull`` writes live
commands (enum names, Discord's defaults left out), global commands first,
then each guild's. ``cmdsync plan`` of the result and of the code plan alike.
"""

from __future__ import annotations

from typing import Any

from cmdsync.manifest.code import load_tree, tree_commands
from cmdsync.model import GLOBAL
from cmdsync.state.as_manifest import to_command, to_yaml


def export_code(reference: str) -> str:
    """The YAML manifest of a ``discord.py:MODULE:ATTR`` reference.

    Raises :class:`~cmdsync.errors.UsageError` naming the module when it
    cannot be imported or is not a tree.
    """
    manifest: dict[str, Any] = {}
    for item in tree_commands(load_tree(reference)):
        body = to_command(item.payload, scope=item.scope)
        if item.scope == GLOBAL:
            manifest.setdefault("commands", []).append(body)
        else:
            guild = manifest.setdefault("guilds", {}).setdefault(item.scope, {"commands": []})
            guild["commands"].append(body)
    header = (f"# Written by cmdsync export from {reference}: what its tree.sync() would send.\n"
              "# `cmdsync plan` on this file and on the code shows the same plan.\n")
    return to_yaml(manifest, header=header)
