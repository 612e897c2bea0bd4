"""An apply's result as text or JSON, and the terminal side of apply: plan, prompt, progress.

Text lists, per scope, every change with its outcome (``created``,
``updated``, ``deleted``, ``permissions set``, ``FAILED``, ``UNKNOWN``, ``not
applied``), the error that stopped a scope, where the backup is, and one
summary line with counts, write requests and duration. JSON
(:func:`to_json`) holds the same, plus every request made (method, path,
status, outcome).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from cmdsync.apply.backup import restore_command
from cmdsync.apply.result import (
    ApplyResult,
    ChangeKind,
    ChangeResult,
    ChangeStatus,
    ScopeResult,
    ScopeStatus,
)
from cmdsync.manifest.diagnostics import Location
from cmdsync.model import CommandType, scope_label
from cmdsync.plan import Action, Plan
from cmdsync.render.diagnostics import annotation
from cmdsync.render.escape import fenced, markup, printable, printable_lines

FORMAT_VERSION = 1
NOTHING_TO_APPLY = "Nothing to apply: no write requests were made."
CANCELLED = "Apply cancelled: nothing was changed."
_DONE = {(Action.CREATE, ChangeKind.COMMAND): "created",
         (Action.UPDATE, ChangeKind.COMMAND): "updated",
         (Action.DELETE, ChangeKind.COMMAND): "deleted",
         (Action.DELETE, ChangeKind.PERMISSIONS): "cleared"}


def to_text(result: ApplyResult) -> str:
    """The whole text of a result; see the module docstring."""
    if not result.scopes:
        return NOTHING_TO_APPLY + "\n"
    out = []
    if result.saved_plan:  # no plan was shown: say where it acts
        name = result.application_name
        label = f"{name} ({result.application_id})" if name else result.application_id
        out += [f"Applying the saved plan to application {printable(label)}.", ""]
    if result.backup:
        what = "the live state of the changed scopes" if result.refreshed else \
            "the live state the saved plan was made from"
        out += [f"Backed up {what} to {result.backup}",
                (f"(restore it with `{restore_command(result.backup, result.api_url)}`; "
                 "without a terminal, add --auto-approve)."), ""]
    for scope in result.scopes:
        out += [_heading(scope, result), *(_change(c) for c in scope.changes)]
        if scope.error:  # Discord's words quoted: escaped, its lines kept
            out += [f"  Error: {line}" if i == 0 else f"  {line}"
                    for i, line in enumerate(printable_lines(scope.error).splitlines())]
        out += [f"  {_address(d)}: {d.rule} {printable(d.message)}" for d in scope.diagnostics]
        out.append("")
    out.append(summary(result))
    return "\n".join(out) + "\n"


def summary(result: ApplyResult) -> str:
    """The last line: what was applied, what was not, write requests and seconds."""
    applied = (f"{result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.CREATE)} created, "
               f"{result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.UPDATE)} updated, "
               f"{result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.DELETE)} deleted, "
               f"{_sets(result.count(ChangeStatus.APPLIED, kind=ChangeKind.PERMISSIONS))} changed")
    writes = f"{result.writes} write request{'s' if result.writes != 1 else ''} in " \
             f"{result.duration:.2f} s"
    if result.ok:
        return f"Apply complete: {applied}; {writes}."
    missed = _missed(result)
    unknown = result.count(ChangeStatus.UNKNOWN)
    unsure = (f"{unknown} unknown (no answer came: `cmdsync plan` shows whether "
              f"{'it was' if unknown == 1 else 'they were'} made); ") if unknown else ""
    how = f"interrupted by {result.interrupted}" if result.interrupted else "failed"
    again = ("Plan again (`cmdsync plan --out FILE`) and apply the new plan for what is "
             "left." if result.saved_plan else "Run apply again to apply what is left.")
    return (f"Apply {how}: {applied}; {missed} change{'s' if missed != 1 else ''} not "
            f"applied; {unsure}{writes}. {again}")


def _missed(result: ApplyResult) -> int:
    """Changes not made: failed, or not tried (unknown ones are counted apart)."""
    return sum(1 for s in result.scopes for c in s.changes
               if c.status not in (ChangeStatus.APPLIED, ChangeStatus.UNKNOWN))


def _sets(count: int) -> str:
    return f"{count} permission set{'s' if count != 1 else ''}"


def _heading(scope: ScopeResult, result: ApplyResult) -> str:
    where = scope_label(scope.scope)
    how = {"bulk": "bulk overwrite", "per-command": "per command", None: "overwrites only"}
    if scope.status is ScopeStatus.SKIPPED and result.interrupted:
        return f"{where}: skipped ({result.interrupted} came before it started)"
    if scope.status is ScopeStatus.SKIPPED:
        return f"{where}: skipped (an earlier scope failed, and --on-error is stop)"
    return f"{where}: {scope.status} ({how[scope.strategy]})"


def _change(change: ChangeResult) -> str:
    kind = CommandType(change.type).name.lower() if change.type else ""
    if change.kind is ChangeKind.PERMISSIONS:
        subject = f"permissions of {_quoted(change.name)}"
    else:
        subject = f"{kind} {_quoted(change.name)}"
    details = [f"id {printable(change.id)}"] if change.id else []
    if change.renamed_from is not None:
        details.append(f"renamed from {_quoted(change.renamed_from)}")
    if details:
        subject += f" ({', '.join(details)})"
    if change.status is ChangeStatus.APPLIED:
        status = _DONE.get((change.action, change.kind), "permissions set")
    elif change.status is ChangeStatus.UNKNOWN:
        status = "UNKNOWN (no answer: it may have been made)"
    else:
        status = "FAILED" if change.status is ChangeStatus.FAILED else "not applied"
    return f"  {change.action.value} {subject}: {status}"


def _quoted(name: str) -> str:
    """A command name as JSON, what JSON leaves raw escaped (:func:`printable`)."""
    return printable(json.dumps(name, ensure_ascii=False))


def _address(diagnostic: Any) -> str:
    loc = diagnostic.location
    file = printable(loc.file)
    return f"{file}:{loc.line}:{loc.column}" if loc.line else file


def to_document(result: ApplyResult, *, status: str | None = None) -> dict[str, Any]:
    """The JSON document of a result (``--format json``)."""
    def change(c: ChangeResult) -> dict[str, Any]:
        return {"kind": c.kind, "action": c.action.word, "type": c.type, "name": c.name,
                "id": c.id, "renamed_from": c.renamed_from, "status": c.status}

    return {
        "format_version": FORMAT_VERSION, "application_id": result.application_id,
        "api_url": result.api_url,
        "status": status or ("no changes" if not result.scopes
                             else "applied" if result.ok
                             else "interrupted" if result.interrupted else "failed"),
        "interrupted": result.interrupted,
        "backup": result.backup, "duration_seconds": round(result.duration, 3),
        "summary": {
            "created": result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.CREATE),
            "updated": result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.UPDATE),
            "deleted": result.count(ChangeStatus.APPLIED, kind=ChangeKind.COMMAND, action=Action.DELETE),
            "permission_sets": result.count(ChangeStatus.APPLIED, kind=ChangeKind.PERMISSIONS),
            "not_applied": _missed(result), "unknown": result.count(ChangeStatus.UNKNOWN),
            "requests": len(result.requests),
            "writes": result.writes, "creates": result.creates},
        "scopes": [{"scope": s.scope, "strategy": s.strategy, "status": s.status,
                    "error": s.error, "changes": [change(c) for c in s.changes],
                    "diagnostics": [{"file": d.location.file, "line": d.location.line,
                                     "column": d.location.column, "rule": d.rule,
                                     "message": d.message} for d in s.diagnostics]}
                   for s in result.scopes],
        "requests": [{"method": r.method, "path": r.path, "status": r.status,
                      "outcome": r.outcome, "scope": r.scope} for r in result.requests],
    }


def to_json(result: ApplyResult) -> str:
    """:func:`to_document` as indented JSON, ending with a newline."""
    return json.dumps(to_document(result), indent=2, ensure_ascii=False) + "\n"


class TerminalHooks:
    """Shows the plan (stdout; at the prompt on stderr when stdout carries JSON),
    asks, and draws progress.

    ``progress``: a rich progress display per scope on stderr, used when
    more than one scope changes; only pass True on a terminal.
    """

    def __init__(self, *, json_output: bool, progress: bool) -> None:
        self.json_output = json_output
        self.progress = progress
        self._display: Any = None
        self._tasks: dict[str, Any] = {}

    def show_plan(self, plan: Plan) -> None:
        if not self.json_output:  # with JSON, stdout carries only the result
            _draw(plan, sys.stdout)

    def confirm(self, plan: Plan) -> bool:
        from cmdsync.render.prompts import confirm

        if self.json_output:
            _draw(plan, sys.stderr)
        return confirm("\nApply these changes to Discord?", err=self.json_output)

    def apply_started(self, scopes: Sequence[tuple[str, int]]) -> None:
        if not self.progress or len(scopes) < 2:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._display = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), console=Console(stderr=True),
                                 transient=True)
        for scope, requests in scopes:
            label = markup(scope_label(scope))  # TextColumn reads rich markup
            self._tasks[scope] = self._display.add_task(label, total=requests, start=False)
        self._display.start()

    def scope_started(self, scope: str, requests: int) -> None:
        if self._display is not None:
            self._display.start_task(self._tasks[scope])

    def step_done(self, scope: str) -> None:
        if self._display is not None:
            self._display.advance(self._tasks[scope])

    def scope_finished(self, result: ScopeResult) -> None:
        if self._display is not None:
            label = self._display.tasks[self._tasks[result.scope]].description
            self._display.update(self._tasks[result.scope],
                                 description=f"{label}: {result.status}")

    def apply_finished(self) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None


def _draw(plan: Plan, stream: IO[str]) -> None:
    from cmdsync.render import console
    from cmdsync.render import plan as render_plan

    if console.use_colour(stream):
        console.rich(render_plan.to_rich(plan), stream)
    else:
        console.write(stream, render_plan.to_text(plan))


def to_github(result: ApplyResult,
              locations: Mapping[tuple[str, int, str], Location]) -> str:
    """GitHub Actions annotations for what did not go through: an ``error`` per scope
    that failed (its 50035 diagnostics at their manifest lines) and per change that
    failed, a ``warning`` per change whose outcome is unknown."""
    out = []
    for scope in result.scopes:
        where = scope_label(scope.scope)
        if scope.error:
            out.append(annotation("error", f"{where}: {scope.error}", title="cmdsync apply"))
        out += [annotation("error", d.message, d.location, d.rule) for d in scope.diagnostics]
        for change in scope.changes:
            if change.status not in (ChangeStatus.FAILED, ChangeStatus.UNKNOWN):
                continue
            level = "error" if change.status is ChangeStatus.FAILED else "warning"
            location = locations.get((scope.scope, change.type or 1, change.name))
            out.append(annotation(level, f"{change.kind} {_quoted(change.name)} "
                                         f"({where}): {change.status}", location,
                                  "cmdsync apply"))
    return "".join(line + "\n" for line in out)


def to_markdown(result: ApplyResult) -> str:
    """The result for the job summary: a heading, the summary line and the text (in a
    fence longer than any backtick run in it: names cannot close it)."""
    return f"### cmdsync apply\n\n**{summary(result)}**\n\n{fenced(to_text(result))}"
