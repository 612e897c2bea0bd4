"""Backups: the live state of every scope apply changes, written as a manifest first.

Before its first write apply saves ``.cmdsync/backups/<UTC
timestamp>-<application id>.json``: a manifest (the data ``cmdsync pull``
writes, ids kept, in JSON: written in a tenth of a second for thousands of
commands, read back exactly, and never interpolated) holding only the scopes
the apply changes; for a guild whose
commands change, its commands and (when readable) its overwrites; for a
guild whose overwrites alone change, only those and the commands they
name: the guild's own named ones (that guild not pruned) and, when they
name a global one, the global commands (not pruned). Where live state
holds only the commands apply updates or deletes (``apply --no-refresh``
of a saved plan's prior state), the backup holds those, not pruned. ``cmdsync apply <backup>``
restores them: renamed commands get their names back under the same ids,
deleted ones are created again (with new ids), created ones are deleted,
overwrites are put back. The ``x-cmdsync-backup`` note inside and the line
apply prints give the same command line (:func:`restore_command`: with
``--local`` or ``--api-url`` where it was taken). The file holds no credential.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from datetime import datetime, timezone
from typing import Any

from cmdsync.client.http import DEFAULT_API_URL
from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import FileExists, work_directory, write_file
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
    kept_named = set()
    for guild, entry in manifest.get("guilds", {}).items():
        if guild not in commands:
            # Its overwrites may name its own commands, which must be declared for
            # the backup to validate (CS402): keep those, not pruned.
            named = {t.id for t in _named(live, guild, entry.get("permissions"))
                     if t.scope == guild}
            entry["commands"] = [c for c in entry["commands"] if str(c.get("id")) in named]
            if entry["commands"]:
                kept_named.add(guild)
            else:
                del entry["commands"]
        if guild in readable or guild in permissions:
            entry.setdefault("permissions", {})
    # Where live state holds only the commands apply changes (a saved plan's
    # prior state), a restore must leave the others: not pruned.
    pruned = "global" not in commands or live.scope("global").commands_complete
    if "global" not in commands:
        if manifest["commands"] and any(t.scope == GLOBAL
                                        for guild, entry in manifest.get("guilds", {}).items()
                                        for t in _named(live, guild, entry.get("permissions"))):
            # Overwrites may name global commands, which must be declared for the
            # backup to validate: keep them, not pruned (a restore deletes none).
            pruned = False
        else:
            del manifest["commands"]
    for guild, entry in manifest.get("guilds", {}).items():
        complete = live.scope(guild).commands_complete
        if guild in kept_named:
            entry["prune"] = False  # a restore deletes none of its commands
        elif "commands" in entry and (not complete or not pruned):
            entry["prune"] = complete
    if pruned:
        return manifest
    return {"application_id": manifest["application_id"], "prune": False,
            **{k: v for k, v in manifest.items() if k != "application_id"}}


def _named(live: LiveState, guild: str, keys: Iterable[str] | None) -> list[Target]:
    """The commands (of ``guild``, or global) that permissions keys of ``guild`` name, as
    the plan resolves keys (:func:`cmdsync.state.targets.resolve`)."""
    targets = [Target(scope, kind if isinstance(kind := c.get("type", 1), int) else 1,
                      str(c.get("name")), str(c.get("id")))
               for scope in (guild, GLOBAL) for c in live.scope(scope).commands]
    found = (resolve(key, targets, live.application_id) for key in keys or ())
    return [t for t in found if t is not None and t.scope in (guild, GLOBAL)]


def write_backup(manifest: dict[str, Any], *, cwd: str, application_id: str, now: float,
                 api_url: str = "") -> str:
    """Write ``manifest`` and return its path relative to ``cwd``.

    ``now`` is epoch seconds; ``api_url`` where the live state was read (as
    :func:`restore_command` takes it). The name is ``<YYYYmmddTHHMMSSZ>-<application
    id>.json``, with ``-2``, ``-3``... when one exists already. The name is
    taken by exclusive creation, so applies that start in the same second
    (two processes, or threads) each get their own file. Raises
    :class:`~cmdsync.errors.CmdsyncError` when it cannot be written (then
    apply makes no write), naming ``.cmdsync`` when it is not a directory.
    """
    stamp = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        directory = work_directory(cwd)
        os.makedirs(os.path.join(directory, "backups"), exist_ok=True)
    except (CmdsyncError, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else exc
        raise CmdsyncError(f"cannot write the backup: {reason}; nothing was changed") from exc
    for suffix in _suffixes():
        relative = os.path.join(BACKUP_DIR, f"{stamp}-{application_id}{suffix}.json")
        text = _json_text({"x-cmdsync-backup": backup_note(relative, application_id,
                                                           api_url), **manifest})
        try:
            write_file(os.path.join(cwd, relative), text, what="the backup", overwrite=False,
                       data=True)
        except FileExists:
            continue  # another apply took this name: the next one
        except CmdsyncError as exc:
            raise CmdsyncError(f"{exc}; nothing was changed") from exc
        return relative
    raise AssertionError("unreachable")


def restore_command(path: str, api_url: str) -> str:
    """The command line that restores the backup ``path`` where it was taken: ``api_url``
    is the session's (``local:...`` for the emulator, else the API's base URL)."""
    if api_url.startswith("local:"):
        return f"cmdsync apply --local {path}"
    if api_url and api_url.rstrip("/") != DEFAULT_API_URL:
        return f"cmdsync apply --api-url {api_url} {path}"
    return f"cmdsync apply {path}"


def backup_note(path: str, application_id: str, api_url: str) -> str:
    """The ``x-cmdsync-backup`` note a backup starts with: what it holds and how to
    restore it (the same command line apply prints: :func:`restore_command`)."""
    return (f"Written by cmdsync apply before changing application {application_id}: the "
            "live state of every scope it changed (where prune is false, only the commands "
            "it changed or its overwrites name). Restore it with "
            f"`{restore_command(path, api_url)}`")


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
