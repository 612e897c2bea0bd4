"""``cmdsync export``: commands defined in bot code, written as a YAML manifest.

For a team moving from a discord.py ``CommandTree`` to YAML: the manifest
holds what ``tree.sync()`` would send, written as ``pull`` writes live
commands (enum names, Discord's defaults left out), global commands first,
then each guild's. ``cmdsync plan`` of the result and of the code plan alike.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cmdsync.manifest.code import load_tree, tree_commands
from cmdsync.model import GLOBAL
from cmdsync.state.as_manifest import to_command, to_yaml


@contextmanager
def code_environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """While the bot code is imported, the variables of ``env`` (an environment's:
    ``--env``) that the process environment lacks are set in it, as the bot reads
    them (``os.environ["DEV_GUILD_ID"]``); afterwards they are unset again."""
    added = {name: value for name, value in (env or {}).items() if name not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def export_code(reference: str, *, env: Mapping[str, str] | None = None) -> str:
    """The YAML manifest of a ``discord.py:MODULE:ATTR`` reference; the code is imported
    with ``env``'s variables set (:func:`code_environment`).

    Raises :class:`~cmdsync.errors.UsageError` naming the module when it
    cannot be imported or is not a tree.
    """
    manifest: dict[str, Any] = {}
    with code_environment(env):
        tree = load_tree(reference)
    for item in tree_commands(tree):
        body = to_command(item.payload, scope=item.scope)
        if item.scope == GLOBAL:
            manifest.setdefault("commands", []).append(body)
        else:
            guild = manifest.setdefault("guilds", {}).setdefault(item.scope, {"commands": []})
            guild["commands"].append(body)
    header = (f"# Written by cmdsync export from {reference}: what its tree.sync() would send.\n"
              "# `cmdsync plan` on this file and on the code shows the same plan.\n")
    return to_yaml(manifest, header=header)
