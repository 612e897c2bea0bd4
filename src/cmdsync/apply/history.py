"""The apply history: which saved plan was applied last to each scope, and when.

A saved plan replayed (applied a second time, or after another apply to the
same scope) would write the state it was made for over what was applied
since: with ``--no-refresh`` nothing reads live state to notice. As
Terraform's state carries a ``serial`` that a saved plan must match, apply
keeps one per scope in ``.cmdsync/applied.json`` under the working
directory, and ``plan --out`` writes the serials it saw into the plan
(``serials``, signed with it)::

    {"format_version": 1,
     "applies": {"<api url>": {"<application id>": {"<scope>": {
         "serial": 3, "plan": "sha256:...", "at": "2026-11-25T03:50:00Z"}}}}}

Every apply that writes to a scope adds one to its serial and records the
plan's ``plan_digest`` (null for an apply of manifests) and the UTC time.
A saved plan is refused when a scope it changes has a serial above the one
it was made with: it was applied already, or another apply came since. Like
the create ledger, this only knows what was applied from this directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import write_file
from cmdsync.model import scope_label

HISTORY_PATH = os.path.join(".cmdsync", "applied.json")
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Applied:
    """The last apply to one scope: its serial, the saved plan's digest (None: an apply
    of manifests) and when (ISO 8601, UTC)."""

    serial: int
    plan: str | None
    at: str


def load(cwd: str, api_url: str, application_id: str) -> dict[str, Applied]:
    """The last apply to each scope of ``application_id`` at ``api_url``; {} when none.

    Raises :class:`~cmdsync.errors.CmdsyncError` naming the file when it is
    not an apply history (delete it to start again).
    """
    table = _read(os.path.join(cwd, HISTORY_PATH))
    scopes = table.get(api_url, {}).get(application_id, {})
    return {scope: Applied(int(entry["serial"]), entry.get("plan"), str(entry.get("at", "")))
            for scope, entry in scopes.items()}


def serials(cwd: str, api_url: str, application_id: str, scopes: Iterable[str]
            ) -> dict[str, int]:
    """The serial of each of ``scopes`` now (0 for one never applied from here): what
    ``plan --out`` writes into a saved plan."""
    applied = load(cwd, api_url, application_id)
    return {scope: applied[scope].serial if scope in applied else 0 for scope in scopes}


def replay_reasons(applied: Mapping[str, Applied], planned: Mapping[str, int] | None,
                   digest: str | None, scopes: Iterable[str]) -> list[str]:
    """Why a saved plan changing ``scopes`` is a replay; [] when it is not.

    ``planned`` is the plan's ``serials`` (None for a plan saved without them, by an
    older cmdsync or by code: nothing is known of it then), ``digest`` its
    ``plan_digest``.
    """
    return [f"{scope_label(scope)}: this plan was already applied there ({last.at})"
            if again else
            f"{scope_label(scope)}: applied again since the plan was made (last at "
            f"{last.at}): the plan would write older state over it"
            for scope, last, again in _replays(applied, planned, digest, scopes)]


def replay_heading(path: str, applied: Mapping[str, Applied],
                   planned: Mapping[str, int] | None, digest: str | None,
                   scopes: Iterable[str]) -> str:
    """The headline of the refusal :func:`replay_reasons` explains, worded as the reasons
    are: this very plan applied already, other applies since, or both ("" when it is
    not a replay)."""
    found = [again for _, _, again in _replays(applied, planned, digest, scopes)]
    fix = ("nothing was changed. Plan again (`cmdsync plan --out FILE`), or pass --force to "
           "apply it anyway (live state is then read and backed up):")
    if not found:
        return ""
    if all(found):
        return (f"the saved plan {path} was already applied to the scopes it changes "
                f"({HISTORY_PATH}); nothing was changed. Plan again (`cmdsync plan --out "
                "FILE`) for new changes, or pass --force to apply it again (live state is "
                "then read and backed up):")
    if not any(found):
        return (f"the saved plan {path} was made before the last apply to the scopes it "
                f"changes ({HISTORY_PATH}): applying it would write its older state over "
                f"what was applied since; {fix}")
    return (f"the saved plan {path} was already applied to some scopes it changes, and the "
            f"others were applied again since it was made ({HISTORY_PATH}): applying it "
            f"would write its older state over what was applied since; {fix}")


def _replays(applied: Mapping[str, Applied], planned: Mapping[str, int] | None,
             digest: str | None, scopes: Iterable[str]) -> list[tuple[str, Applied, bool]]:
    """Each scope applied since the plan was made: its last apply, and whether that
    apply was this very plan."""
    if planned is None:
        return []
    found = []
    for scope in scopes:
        last = applied.get(scope)
        if last is None or last.serial <= planned.get(scope, 0):
            continue
        found.append((scope, last, digest is not None and last.plan == digest))
    return found


def record(cwd: str, *, api_url: str, application_id: str, scopes: Iterable[str],
           digest: str | None, now: float) -> None:
    """Add one to the serial of each of ``scopes`` (written to by an apply at ``now``,
    epoch seconds) and record ``digest``, under a file lock (``applied.json.lock``,
    the ``filelock`` library), the write atomic.

    Raises :class:`~cmdsync.errors.CmdsyncError` as :func:`load` does, or when
    the lock cannot be taken within 60 seconds.
    """
    scopes = list(scopes)
    if not scopes:
        return
    from filelock import FileLock, Timeout

    path = os.path.join(cwd, HISTORY_PATH)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    at = datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        with FileLock(path + ".lock", timeout=60):
            table = _read(path)
            entries = table.setdefault(api_url, {}).setdefault(application_id, {})
            for scope in scopes:
                serial = int(entries.get(scope, {}).get("serial", 0)) + 1
                entries[scope] = {"serial": serial, "plan": digest, "at": at}
            write_file(path, json.dumps({"format_version": FORMAT_VERSION, "applies": table},
                                        indent=2, sort_keys=True) + "\n",
                       what="the apply history")
    except Timeout as exc:
        raise CmdsyncError(f"the apply history {path} stayed locked for 60 s (another cmdsync "
                           "apply?): this apply is not recorded there") from exc


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CmdsyncError(f"cannot read the apply history {path}: {exc}: delete it to start "
                           "a new one") from exc
    if not _well_formed(data):
        raise CmdsyncError(f"{path} is not a cmdsync apply history (expected format_version "
                           f"{FORMAT_VERSION} and serials per scope): delete it to start a "
                           "new one")
    applies: dict[str, Any] = data["applies"]
    return applies


def _well_formed(data: Any) -> bool:
    if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION \
            or not isinstance(data.get("applies"), dict):
        return False
    for apps in data["applies"].values():
        if not isinstance(apps, dict):
            return False
        for scopes in apps.values():
            if not isinstance(scopes, dict):
                return False
            for entry in scopes.values():
                serial = entry.get("serial") if isinstance(entry, dict) else None
                if isinstance(serial, bool) or not isinstance(serial, int) or serial < 0:
                    return False
    return True
