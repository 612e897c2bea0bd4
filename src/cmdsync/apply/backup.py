"""Backups: the live state of every scope apply changes, written as a manifest first.

Before its first write apply saves ``.cmdsync/backups/<UTC
timestamp>-<application id>.yaml``: a manifest (as ``cmdsync pull`` writes
one, ids kept) holding only the scopes the apply changes; for a guild whose
commands change, its commands and (when readable) its overwrites; for a
guild whose overwrites alone change, only those. ``cmdsync apply <backup>``
restores them: renamed commands get their names back under the same ids,
deleted ones are created again (with new ids), created ones are deleted,
overwrites are put back. The file holds no credential.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from datetime import datetime, timezone
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import write_file
from cmdsync.state import LiveState
from cmdsync.state.as_manifest import to_manifest

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
    if "global" not in commands:
        del manifest["commands"]
    for guild, entry in manifest.get("guilds", {}).items():
        if guild not in commands:
            del entry["commands"]
        if guild in readable or guild in permissions:
            entry.setdefault("permissions", {})
    return manifest


def write_backup(manifest: dict[str, Any], *, cwd: str, application_id: str, now: float
                 ) -> str:
    """Write ``manifest`` and return its path relative to ``cwd``.

    ``now`` is epoch seconds; the name is ``<YYYYmmddTHHMMSSZ>-<application
    id>.yaml``, with ``-2``, ``-3``... when one exists already. Raises
    :class:`~cmdsync.errors.CmdsyncError` when it cannot be written (then
    apply makes no write).
    """
    import yaml

    stamp = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    directory = os.path.join(cwd, BACKUP_DIR)
    for suffix in _suffixes():
        relative = os.path.join(BACKUP_DIR, f"{stamp}-{application_id}{suffix}.yaml")
        header = (f"# Written by cmdsync apply before changing application {application_id}:"
                  "\n# the live state of every scope it changed. Restore it with\n"
                  f"#   cmdsync apply {relative}\n")
        text = header + yaml.dump(manifest, Dumper=_dumper(), sort_keys=False, allow_unicode=True,
                                       default_flow_style=False, width=100)
        target = os.path.join(cwd, relative)
        if os.path.lexists(target):
            continue
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise CmdsyncError(f"cannot write the backup {relative}: {exc.strerror or exc}; "
                               "nothing was changed") from exc
        try:
            write_file(target, text, what="the backup", overwrite=False)
        except CmdsyncError as exc:
            raise CmdsyncError(f"{exc}; nothing was changed") from exc
        return relative
    raise AssertionError("unreachable")


def _dumper() -> Any:
    """libyaml's emitter when PyYAML has it: about 5x faster on large backups. Its text
    differs (emoji escaped) but loads to the same data, so a backup restores exactly."""
    import yaml

    return getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _suffixes() -> Iterable[str]:
    yield ""
    number = 2
    while True:
        yield f"-{number}"
        number += 1
