"""What an apply did: every change's status, every request, the backup. Pure values.

Built by :mod:`cmdsync.apply.execute`, drawn by :mod:`cmdsync.render.apply`;
``cmdsync apply --format json`` prints it whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cmdsync.manifest.diagnostics import Diagnostic
from cmdsync.model import Word
from cmdsync.plan import Action
from cmdsync.plan.changes import natural


class ChangeStatus(Word):
    """Whether one planned change was made; the value is how JSON and text name it."""

    APPLIED = "applied"
    FAILED = "failed"  # Discord refused it
    UNKNOWN = "unknown"  # the request got no answer (or a 5xx): it may have been made
    NOT_APPLIED = "not applied"  # an earlier request of its scope failed


class ScopeStatus(Word):
    """A scope's outcome: every change made, one failed, or skipped after an earlier failure."""

    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"  # a signal stopped apply in this scope


class ChangeKind(Word):
    """What a change is about: a command, or one command's permission overwrites."""

    COMMAND = "command"
    PERMISSIONS = "permissions"


@dataclass(frozen=True)
class RequestRecord:
    """One HTTP request: method, path, status (None: no response) and outcome.

    ``outcome`` is ``read``, ``created``, ``overwrote`` (a POST that found
    the name taken: 200), ``updated``, ``deleted``, ``replaced`` (a bulk
    overwrite), ``permissions set``, ``retried`` (429, 5xx or no response,
    sent again) or ``failed``.
    """

    method: str
    path: str
    status: int | None
    outcome: str
    scope: str | None = None


@dataclass(frozen=True)
class ChangeResult:
    """One planned change and whether it was made.

    ``kind`` is ``command`` or ``permissions`` (``name`` is then the
    manifest's key); ``id`` is the command's id after apply (a create's new
    id; for overwrites, the target id). ``status`` is ``applied``,
    ``failed`` (Discord refused it), ``unknown`` (no answer came: it may
    have been made) or ``not applied``.
    """

    scope: str
    kind: ChangeKind
    action: Action
    name: str
    type: int | None
    id: str | None
    status: ChangeStatus
    renamed_from: str | None = None


def in_plan_order(changes: Iterable[ChangeResult]) -> tuple[ChangeResult, ...]:
    """``changes`` in the order the plan shows them, whatever order they were made in:
    commands by type, then name in natural order (``cmd3`` before ``cmd28``), then
    overwrite sets by key."""
    def key(change: ChangeResult) -> tuple[Any, ...]:
        if change.kind is ChangeKind.PERMISSIONS:
            return (1, 0, natural(change.name))
        return (0, change.type or 0, natural(change.name))

    return tuple(sorted(changes, key=key))


@dataclass(frozen=True)
class ScopeResult:
    """A scope's outcome: ``applied``, ``failed`` or ``skipped`` (an earlier scope failed).

    ``strategy`` is ``bulk``, ``per-command`` or None (overwrites only);
    ``changes`` are in the plan's order (:func:`in_plan_order`).
    ``error`` is the failed request's message; ``diagnostics`` map a 50035
    answer back to manifest lines when the manifest is known.
    """

    scope: str
    strategy: str | None
    status: ScopeStatus
    changes: tuple[ChangeResult, ...]
    error: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class ApplyResult:
    """Everything apply did: scopes, every request, the backup, duration (seconds), creates.

    ``creates`` counts the commands Discord confirmed as new (they count
    toward the daily limit of 200 per guild).
    """

    application_id: str
    api_url: str
    scopes: tuple[ScopeResult, ...] = ()
    requests: tuple[RequestRecord, ...] = ()
    backup: str | None = None
    duration: float = 0.0
    creates: int = 0
    interrupted: str | None = None  # "SIGINT" or "SIGTERM" when a signal stopped it
    saved_plan: bool = False  # applied a saved plan (a re-run repeats it: plan again)
    refreshed: bool = True  # False: --no-refresh, backed up from the plan's prior state
    application_name: str = ""  # as Discord gave it when planning ("" when not read)

    @property
    def ok(self) -> bool:
        return self.interrupted is None and all(s.status is ScopeStatus.APPLIED
                                                for s in self.scopes)

    def count(self, status: ChangeStatus, *, kind: ChangeKind | None = None,
              action: Action | None = None) -> int:
        """Changes with this status (and kind and action, when given)."""
        return sum(1 for s in self.scopes for c in s.changes if c.status is status
                   and (kind is None or c.kind is kind)
                   and (action is None or c.action is action))

    @property
    def writes(self) -> int:
        return sum(1 for r in self.requests if r.method != "GET")
