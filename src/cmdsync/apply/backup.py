"""Backups: the live state of every scope apply changes, written as a manifest first.

Before its first write apply saves ``.cmdsync/backups/<UTC
timestamp>-<application id>.json``: a manifest (the data ``cmdsync pull``
writes, ids kept, in JSON: written in a tenth of a second for thousands of
commands, read back exactly, and never interpolated) holding only the scopes
the apply changes; for a guild whose
commands change, its commands and (when readable) its overwrites; for a
guild whose overwrites alone change, only those (and then the global
commands, not pruned, which those overwrites may name). Where live state
holds only the commands apply updates or deletes (``apply --no-refresh``
of a saved plan's prior state), the backup holds those, not pruned. ``cmdsync apply <backup>``
restores them: renamed commands get their names back under the same ids,
deleted ones are created again (with new ids), created ones are deleted,
overwrites are put back. The file holds no credential.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from datetime import datetime, timezone
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import write_file
from cmdsync.model import GLOBAL
from cmdsync.state import LiveState
from cmdsync.state.as_manifest import to_manifest
from cmdsync.state.targets import Target, resolve

BACKUP_DIR = os.path.join(".cmdsync", "backups")


def backup_manifest(live: LiveState, *, commands: Collection[str],
                    permissions: Collection[str], readable: Collection[str]
                    ) -> dict[str, Any]:
    """Manifest data for the scopes about to change.

    ``commands`` are the scopes whose commands change, ``permissions`` the
    guilds whose overwrites change, ``readable`` the guilds whose overwrites
    were read (elsewhere they are unknown and left out, so a restore does
    not touch them).
    """
    guilds = sorted({s for s in [*commands, *permissions] if s != "global"},
                    key=lambda g: int(g) if g.isdigit() else 0)
    manifest, _ = to_manifest(live, guilds=guilds)
    for guild, entry in manifest.get("guilds", {}).items():
        if guild not in commands:
            del entry["commands"]
        if guild in readable or guild in permissions:
            entry.setdefault("permissions", {})
    # Where live state holds only the commands apply changes (a saved plan's
    # prior state), a restore must leave the others: not pruned.
    pruned = "global" not in commands or live.scope("global").commands_complete
    if "global" not in commands:
        if manifest["commands"] and any(_names_global(live, guild, entry.get("permissions"))
                                        for guild, entry in manifest.get("guilds", {}).items()):
            # Overwrites may name global commands, which must be declared for the
            # backup to validate: keep them, not pruned (a restore deletes none).
            pruned = False
        else:
            del manifest["commands"]
    for guild, entry in manifest.get("guilds", {}).items():
        complete = live.scope(guild).commands_complete
        if "commands" in entry and (not complete or not pruned):
            entry["prune"] = complete
    if pruned:
        return manifest
    return {"application_id": manifest["application_id"], "prune": False,
            **{k: v for k, v in manifest.items() if k != "application_id"}}


def _names_global(live: LiveState, guild: str, keys: Iterable[str] | None) -> bool:
    """Whether a permissions key of ``guild`` names a global command (as the plan
    resolves keys: :func:`cmdsync.state.targets.resolve`)."""
    targets = [Target(scope, kind if isinstance(kind := c.get("type", 1), int) else 1,
                      str(c.get("name")), str(c.get("id")))
               for scope in (guild, GLOBAL) for c in live.scope(scope).commands]
    return any(found is not None and found.scope == GLOBAL
               for found in (resolve(key, targets, live.application_id) for key in keys or ()))


def write_backup(manifest: dict[str, Any], *, cwd: str, application_id: str, now: float
                 ) -> str:
    """Write ``manifest`` and return its path relative to ``cwd``.

    ``now`` is epoch seconds; the name is ``<YYYYmmddTHHMMSSZ>-<application
    id>.json``, with ``-2``, ``-3``... when one exists already. Raises
    :class:`~cmdsync.errors.CmdsyncError` when it cannot be written (then
    apply makes no write).
    """
    stamp = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    directory = os.path.join(cwd, BACKUP_DIR)
    for suffix in _suffixes():
        relative = os.path.join(BACKUP_DIR, f"{stamp}-{application_id}{suffix}.json")
        note = (f"Written by cmdsync apply before changing application {application_id}: "
                f"the live state of every scope it changed (where prune is false, only the "
                f"commands it changed or its overwrites name). Restore it with "
                f"`cmdsync apply {relative}`")
        text = _json_text({"x-cmdsync-backup": note, **manifest})
        target = os.path.join(cwd, relative)
        if os.path.lexists(target):
            continue
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise CmdsyncError(f"cannot write the backup {relative}: {exc.strerror or exc}; "
                               "nothing was changed") from exc
        try:
            write_file(target, text, what="the backup", overwrite=False, data=True)
        except CmdsyncError as exc:
            raise CmdsyncError(f"{exc}; nothing was changed") from exc
        return relative
    raise AssertionError("unreachable")


def _json_text(manifest: dict[str, Any]) -> str:
    """The manifest as JSON, one global command or one guild a line (each in one call
    of the C encoder), so that a large backup is quick to write and still to read."""
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in manifest.items():
        if key == "commands" and isinstance(value, list) and value:
            items = ",\n".join(f"    {one(c)}" for c in value)
            lines.append(f"  {one(key)}: [\n{items}\n  ]")
        elif key == "guilds" and isinstance(value, dict) and value:
            items = ",\n".join(f"    {one(g)}: {one(v)}" for g, v in value.items())
            lines.append(f"  {one(key)}: {{\n{items}\n  }}")
        else:
            lines.append(f"  {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _suffixes() -> Iterable[str]:
    yield ""
    number = 2
    while True:
        yield f"-{number}"
        number += 1
