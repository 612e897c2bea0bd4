"""The create ledger: commands cmdsync created, per API, application, scope and UTC day.

Discord allows 200 command creates per guild per day (Discord's "Rate Limits" documentation) and answers 30034 past it, possibly halfway through an apply. apply
records every create it makes in ``.cmdsync/ledger.json`` under the working
directory, so that apply can refuse a plan that would go over before its
first write, and plan can warn as the budget runs low. The file holds only
counts, never a credential::

    {"format_version": 1,
     "creates": {"<api url>": {"<application id>": {"<scope>": {"2025-01-31": 12}}}}}

``<scope>`` is ``global`` or a guild id (the global scope gets the same
budget, which the emulator enforces too). Days older than yesterday are
dropped on write. The ledger only knows what cmdsync created from this
directory: creates made elsewhere (another checkout, another tool, a CI
runner whose ``.cmdsync/`` was not kept) are not in it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import work_directory, write_file

LEDGER_PATH = os.path.join(".cmdsync", "ledger.json")
FORMAT_VERSION = 1


def utc_day(now: float) -> str:
    """``YYYY-MM-DD`` of ``now`` (epoch seconds) in UTC."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%d")


def seconds_to_midnight(now: float) -> float:
    """Seconds from ``now`` (epoch seconds) to the next UTC midnight, when the budget resets."""
    moment = datetime.fromtimestamp(now, timezone.utc)
    midnight = datetime(moment.year, moment.month, moment.day, tzinfo=timezone.utc)
    return (midnight + timedelta(days=1) - moment).total_seconds()


@dataclass(frozen=True)
class Ledger:
    """Creates per ``(api url, application id, scope, UTC day)``; see the module docstring."""

    creates: Mapping[str, Mapping[str, Mapping[str, Mapping[str, int]]]] = field(
        default_factory=dict)

    def used(self, api_url: str, application_id: str, scope: str, day: str) -> int:
        """Creates recorded on ``day`` in ``scope`` (0 when none)."""
        return int(self.creates.get(api_url, {}).get(application_id, {}).get(scope, {})
                   .get(day, 0))


def load(cwd: str) -> Ledger:
    """The ledger under ``cwd``; empty when there is none.

    Raises :class:`~cmdsync.errors.CmdsyncError` naming the file when it is
    not a ledger (not JSON, another shape, a count that is not a whole
    number of 0 or more), rather than guess and let a budget check pass
    wrongly, and naming ``.cmdsync`` when that is not a directory
    (:func:`cmdsync.manifest.files.work_directory`).
    """
    path = os.path.join(work_directory(cwd, create=False), "ledger.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle, parse_constant=_refuse_constant)
    except FileNotFoundError:
        return Ledger()
    except (OSError, ValueError) as exc:
        raise CmdsyncError(f"cannot read the create ledger {path}: {exc}: delete it to start "
                           "a new one") from exc
    problem = _shape_problem(data)
    if problem:
        raise CmdsyncError(f"{path} is not a cmdsync create ledger ({problem}): delete it to "
                           "start a new one")
    return Ledger(data["creates"])


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a ledger holds")


def _shape_problem(data: Any) -> str | None:
    """What is wrong with a ledger document, or None."""
    if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION:
        return f"expected an object with format_version {FORMAT_VERSION}"
    creates = data.get("creates")
    if not isinstance(creates, dict):
        return "creates must be an object"
    for api, apps in creates.items():
        for app, scopes in (apps.items() if isinstance(apps, dict) else [(None, None)]):
            for scope, days in (scopes.items() if isinstance(scopes, dict) else [(None, None)]):
                if not isinstance(days, dict):
                    return f"creates/{api}/{app}/{scope} must be an object of days"
                for day, count in days.items():
                    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                        return (f"creates/{api}/{app}/{scope}/{day} is {count!r}, not a "
                                "count of 0 or more")
    return None


def record(cwd: str, *, api_url: str, application_id: str, scope: str, count: int,
           now: float) -> None:
    """Add ``count`` creates to today's entry (``now`` in epoch seconds).

    Read, changed and written under a file lock (``ledger.json.lock``, the
    ``filelock`` library), the write atomic: two applies in one directory at
    once lose no create. Raises :class:`~cmdsync.errors.CmdsyncError` as
    :func:`load` does, or when the lock cannot be taken within 60 seconds.
    """
    if count <= 0:
        return
    from filelock import FileLock, Timeout  # only where creates are recorded

    path = os.path.join(work_directory(cwd), "ledger.json")
    try:
        with FileLock(path + ".lock", timeout=60):
            ledger = load(cwd)
            keep = {utc_day(now), utc_day(now - 86400)}
            table: dict[str, Any] = json.loads(json.dumps(ledger.creates))
            for apps in table.values():
                for scopes in apps.values():
                    for scope_id in list(scopes):
                        scopes[scope_id] = {d: n for d, n in scopes[scope_id].items()
                                            if d in keep}
            days = table.setdefault(api_url, {}).setdefault(application_id, {}) \
                .setdefault(scope, {})
            days[utc_day(now)] = int(days.get(utc_day(now), 0)) + count
            _write(path, {"format_version": FORMAT_VERSION, "creates": table})
    except Timeout as exc:
        raise CmdsyncError(f"the create ledger {path} stayed locked for 60 s (another "
                           "cmdsync apply?): the creates it made are not counted") from exc


def _write(path: str, data: Mapping[str, Any]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_file(path, json.dumps(data, indent=2, sort_keys=True) + "\n",
               what="the create ledger")
