"""Plan: what apply would change in Discord. Pure: no I/O.

- :mod:`cmdsync.plan.changes`: the value (:class:`Plan`, :class:`ScopePlan`,
  :class:`CommandChange`, :class:`PermissionChange`, :class:`Action`);
- :mod:`cmdsync.plan.diff`: ``diff(desired, live) -> Plan``;
- :mod:`cmdsync.plan.fields` and :mod:`cmdsync.plan.permissions`: the
  field-level and permission-overwrite parts of the diff;
- :mod:`cmdsync.plan.planfile`: the plan as a JSON document
  (``schemas/plan.schema.json``), for ``plan --format json`` and saved plans.
"""

from __future__ import annotations

from cmdsync.plan.changes import (
    DAILY_CREATE_LIMIT,
    Action,
    BodyWithId,
    CommandChange,
    FieldChange,
    LiveCommand,
    PermissionChange,
    Plan,
    ScopePlan,
)
from cmdsync.plan.diff import Differ, diff

__all__ = ["DAILY_CREATE_LIMIT", "Action", "BodyWithId", "CommandChange", "Differ", "FieldChange",
           "LiveCommand", "PermissionChange", "Plan", "ScopePlan", "diff"]
