"""The files the runners read and write for the user: saved plans.

Reading and writing live here, so :mod:`cmdsync.plan.planfile` stays pure
(text in, :class:`~cmdsync.plan.Plan` out, and back).
"""

from __future__ import annotations

import os
import tempfile

from cmdsync.errors import CmdsyncError
from cmdsync.plan.changes import Plan
from cmdsync.plan.planfile import dumps, loads


def save_plan(plan: Plan, path: str, *, api_url: str | None = None) -> None:
    """Write the plan to ``path`` atomically (a temporary file, then a rename).

    Raises :class:`~cmdsync.errors.CmdsyncError` when it cannot be written.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temp = tempfile.mkstemp(dir=directory, prefix=".cmdsync-plan-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(dumps(plan, api_url=api_url))
        os.replace(temp, path)
    except OSError as exc:
        raise CmdsyncError(f"cannot write the plan to {path}: {exc.strerror or exc}") from exc


def load_plan(path: str) -> tuple[Plan, str | None]:
    """A saved plan and its ``api_url`` (where live state was read; None if not recorded).

    Raises :class:`~cmdsync.errors.CmdsyncError` for an unreadable file or
    one that is not a cmdsync plan (:func:`cmdsync.plan.planfile.loads`).
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, ValueError) as exc:
        raise CmdsyncError(f"cannot read the saved plan {path}: {exc}") from exc
    return loads(text, path=path)
