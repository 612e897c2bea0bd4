"""Execute a plan's write requests and return what happened: an :class:`ApplyResult`.

:func:`execute` sends the :class:`~cmdsync.apply.strategy.ScopeSteps` of
the global scope first (so guild overwrites can name a global command
created just before), then the guild scopes concurrently (at most
:data:`PARALLEL_SCOPES` at once), each scope's steps one after another in
order. The client's rate limiter and semaphore pace the requests of all of
them together. Rate limits and 5xx are retried by the client
(:mod:`cmdsync.client.http`). On an error the scope stops there: its
remaining changes are ``not applied``; ``on_error`` ``stop`` (the default)
starts no scope after that (the results report them ``skipped``; scopes
already writing finish), ``continue`` goes on with them. Each scope's result lists
its changes in the plan's order (:func:`~cmdsync.apply.result.in_plan_order`), not
in the order they were made. Nothing is printed: :mod:`cmdsync.render.apply` draws
the result.

Overwrites of a command this apply created are put on the id Discord
returned (a bulk overwrite's response, or the POST's). Every create Discord
confirms (201, or a new id in a bulk response) is passed to
``record_creates`` for the ledger.

A signal (:class:`Interrupt`, set by the runner's SIGINT and SIGTERM
handlers) lets the request in flight finish, then stops: the rest is ``not
applied`` and the scope ``interrupted``, later scopes ``skipped``. A second
signal abandons the request in flight; its changes are then ``unknown``.

A request that got no answer, or a 5xx, may have been carried out all the
same; the client sends it again. So a create answered 200 after such an
attempt was made by that attempt (it counts as a create), and a delete
answered 404 code 10063 (unknown command) after one was done by it. When a
step fails after such an attempt, its changes are ``unknown``, not
``failed``: the report never says "not made" of something Discord may have
made.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cmdsync.apply.form_errors import INVALID_FORM_BODY, form_error_diagnostics
from cmdsync.apply.result import (
    ChangeKind,
    ChangeResult,
    ChangeStatus,
    RequestRecord,
    ScopeResult,
    ScopeStatus,
    in_plan_order,
)
from cmdsync.apply.strategy import ScopeSteps, Step, StepKind
from cmdsync.client import endpoints
from cmdsync.client.http import STEP, DiscordClient, Exchange
from cmdsync.errors import ApiError, CmdsyncError
from cmdsync.manifest.diagnostics import Diagnostic
from cmdsync.model import GLOBAL
from cmdsync.plan import Action

if TYPE_CHECKING:
    from cmdsync.manifest.entries import CommandEntry

UNKNOWN_COMMAND = 10063
PARALLEL_SCOPES = 16  # guild scopes written at once; the client paces their requests
_STEPS = itertools.count(1)
CommandKey = tuple[str, int, str]  # (scope, type, name)


class Observer(Protocol):
    """Progress: the scopes and their request counts, then each scope's start,
    requests and end, then the end of the apply."""

    def apply_started(self, scopes: Sequence[tuple[str, int]]) -> None: ...

    def apply_finished(self) -> None: ...

    def scope_started(self, scope: str, requests: int) -> None: ...

    def step_done(self, scope: str) -> None: ...

    def scope_finished(self, result: ScopeResult) -> None: ...


class NoProgress:
    """An :class:`Observer` that shows nothing."""

    def apply_started(self, scopes: Sequence[tuple[str, int]]) -> None:
        pass

    def apply_finished(self) -> None:
        pass

    def scope_started(self, scope: str, requests: int) -> None:
        pass

    def step_done(self, scope: str) -> None:
        pass

    def scope_finished(self, result: ScopeResult) -> None:
        pass


class Interrupt:
    """A stop asked for by a signal: :meth:`request` once to stop after the request in
    flight, twice to abandon it."""

    def __init__(self) -> None:
        self.signal: str | None = None
        self.in_flight: set[asyncio.Task[str]] = set()

    def request(self, name: str) -> None:
        """Called from a signal handler with the signal's name (``SIGINT``)."""
        if self.signal is not None:
            for task in self.in_flight:
                task.cancel()
        self.signal = self.signal or name


@dataclass
class Context:
    """What :func:`execute` needs besides the steps.

    ``live_ids`` are each scope's command ids before apply (to tell which
    ids a bulk overwrite created); ``entries`` the manifest command of each
    ``(scope, type, name)`` (empty for a saved plan); ``record_creates(scope,
    count)`` feeds the ledger. Filled in while executing: ``ids`` after
    apply, ``creates`` confirmed, and ``outcomes``, which maps indexes of
    ``client.exchanges`` to the outcome and scope of write requests.
    """

    client: DiscordClient
    application_id: str
    live_ids: Mapping[str, set[str]]
    entries: Mapping[CommandKey, CommandEntry] = field(default_factory=dict)
    record_creates: Callable[[str, int], None] = lambda scope, count: None
    observer: Observer = field(default_factory=NoProgress)
    ids: dict[CommandKey, str] = field(default_factory=dict)
    creates: int = 0
    interrupt: Interrupt = field(default_factory=Interrupt)
    outcomes: dict[int, tuple[str, str]] = field(default_factory=dict)


async def execute(context: Context, scheduled: Sequence[ScopeSteps], *, on_error: str
                  ) -> tuple[ScopeResult, ...]:
    """Send every step; see the module docstring. ``on_error`` is ``stop`` or ``continue``."""
    results: dict[int, ScopeResult] = {}
    failed = False
    context.observer.apply_started([(s.scope, len(s.steps)) for s in scheduled])

    async def one(index: int) -> None:
        nonlocal failed
        scope = scheduled[index]
        if (failed and on_error == "stop") or context.interrupt.signal:
            results[index] = ScopeResult(
                scope.scope, _strategy(scope), ScopeStatus.SKIPPED,
                in_plan_order(r for s in scope.steps
                              for r in _changes(s, ChangeStatus.NOT_APPLIED, context)))
            return
        context.observer.scope_started(scope.scope, len(scope.steps))
        result = await _run_scope(context, scope)
        context.observer.scope_finished(result)
        failed = failed or result.status is ScopeStatus.FAILED
        results[index] = result

    slots = asyncio.Semaphore(PARALLEL_SCOPES)

    async def guild(index: int) -> None:
        async with slots:
            await one(index)

    try:
        for index, scope in enumerate(scheduled):
            if scope.scope == GLOBAL:
                await one(index)
        await asyncio.gather(*(guild(i) for i, s in enumerate(scheduled) if s.scope != GLOBAL))
    finally:
        context.observer.apply_finished()
    return tuple(results[i] for i in range(len(scheduled)))


async def _run_scope(context: Context, scope: ScopeSteps) -> ScopeResult:
    done: list[ChangeResult] = []
    for index, step in enumerate(scope.steps):
        if context.interrupt.signal:
            rest = [r for s in scope.steps[index:]
                    for r in _changes(s, ChangeStatus.NOT_APPLIED, context)]
            return ScopeResult(scope.scope, _strategy(scope), ScopeStatus.INTERRUPTED,
                               in_plan_order(done + rest))
        tag = next(_STEPS)
        marker = STEP.set(tag)  # the task below copies it: its exchanges carry the tag
        try:
            task = asyncio.ensure_future(_send(context, step, tag))
        finally:
            STEP.reset(marker)
        context.interrupt.in_flight.add(task)
        try:
            outcome = await task
        except asyncio.CancelledError:
            if not context.interrupt.signal:
                raise
            _claim(context, tag, "abandoned", scope.scope)
            rest = [r for s in scope.steps[index:] for r in _changes(
                s, ChangeStatus.UNKNOWN if s is step else ChangeStatus.NOT_APPLIED, context)]
            return ScopeResult(scope.scope, _strategy(scope), ScopeStatus.INTERRUPTED,
                               in_plan_order(done + rest))
        except CmdsyncError as exc:
            _claim(context, tag, "failed", scope.scope)
            status = ChangeStatus.UNKNOWN if _ambiguous(_sent(context, tag)) \
                else ChangeStatus.FAILED
            rest = [r for s in scope.steps[index:] for r in _changes(
                s, status if s is step else ChangeStatus.NOT_APPLIED, context)]
            return ScopeResult(scope.scope, _strategy(scope), ScopeStatus.FAILED,
                               in_plan_order(done + rest), str(exc),
                               tuple(_diagnostics(context, step, exc)))
        finally:
            context.interrupt.in_flight.discard(task)
        _claim(context, tag, outcome, scope.scope)
        done.extend(_changes(step, ChangeStatus.APPLIED, context))
        context.observer.step_done(scope.scope)
    return ScopeResult(scope.scope, _strategy(scope), ScopeStatus.APPLIED, in_plan_order(done))


async def _send(context: Context, step: Step, tag: int) -> str:
    """Make one request; return its outcome word. Raises ClientError / CmdsyncError."""
    client, app, scope = context.client, context.application_id, step.scope
    if step.kind is StepKind.BULK:
        saved = await endpoints.bulk_overwrite(client, app, scope, step.body)
        context.ids.update({(scope, int(c["type"]), str(c["name"])): str(c["id"])
                            for c in saved})
        _created(context, scope, sum(1 for c in saved
                                     if str(c["id"]) not in context.live_ids.get(scope, set())))
        return "replaced"
    if step.kind is StepKind.PERMISSIONS:
        assert step.permission is not None
        await endpoints.put_permissions(client, app, scope, _target(context, step), step.body)
        return "permissions set"
    (change,) = step.commands
    if step.kind is StepKind.DELETE:
        try:
            await endpoints.delete_command(client, app, scope, str(change.id))
        except ApiError as exc:
            if exc.code != UNKNOWN_COMMAND or not _ambiguous(_sent(context, tag)[:-1]):
                raise
        return "deleted"
    if step.kind is StepKind.UPDATE:
        saved_one = await endpoints.edit_command(client, app, scope, str(change.id), step.body)
        outcome = "updated"
    else:
        saved_one = await endpoints.create_command(client, app, scope, step.body)
        sent = _sent(context, tag)
        created = sent[-1].status == 201 or _ambiguous(sent[:-1])
        _created(context, scope, int(created))
        outcome = "created" if created else "overwrote"
    context.ids[(scope, change.type, change.name)] = str(saved_one["id"])
    return outcome


def _sent(context: Context, tag: int) -> list[Exchange]:
    """The exchanges of one step (its request and retries), in order."""
    return [e for e in context.client.exchanges if e.step == tag]


def _ambiguous(exchanges: Sequence[Exchange]) -> bool:
    """Whether Discord may have acted on one of these requests without saying so."""
    return any(e.ambiguous for e in exchanges)


def _created(context: Context, scope: str, count: int) -> None:
    if count:
        context.creates += count
        context.record_creates(scope, count)


def _target(context: Context, step: Step) -> str:
    change = step.permission
    assert change is not None
    if change.target_id is not None:
        return change.target_id
    key = (str(change.command_scope), int(change.command_type or 1), str(change.command_name))
    found = context.ids.get(key)
    if found is None:
        raise CmdsyncError(f"the command {change.command_name!r} was not created, so its "
                           "overwrites cannot be put")
    return found


def _changes(step: Step, status: ChangeStatus, context: Context) -> list[ChangeResult]:
    if step.permission is not None:
        change = step.permission
        target = change.target_id
        if target is None and change.command_name is not None:
            target = context.ids.get((str(change.command_scope), int(change.command_type or 1),
                                      change.command_name))
        return [ChangeResult(step.scope, ChangeKind.PERMISSIONS, change.action, change.key,
                             change.command_type, target, status)]
    return [ChangeResult(step.scope, ChangeKind.COMMAND, c.action, c.name, c.type,
                         context.ids.get((step.scope, c.type, c.name), c.id)
                         if c.action is not Action.DELETE else c.id, status, c.renamed_from)
            for c in step.commands]


def _claim(context: Context, tag: int, outcome: str, scope: str) -> None:
    """Name the outcome of a step's requests: the last one's, earlier ones were retried."""
    sent = [i for i, e in enumerate(context.client.exchanges) if e.step == tag]
    for index in sent:
        context.outcomes[index] = (outcome if index == sent[-1] else "retried", scope)


def _diagnostics(context: Context, step: Step, error: Exception) -> list[Diagnostic]:
    if not isinstance(error, ApiError) or error.code != INVALID_FORM_BODY:
        return []
    if step.kind is StepKind.BULK:
        keys = [(step.scope, int(body.get("type", 1)), str(body.get("name")))
                for body in step.body]
        return form_error_diagnostics(error, [context.entries.get(k) for k in keys])
    entries = [context.entries.get((step.scope, c.type, c.name)) for c in step.commands]
    return form_error_diagnostics(error, entries, single=True)


def _strategy(scope: ScopeSteps) -> str | None:
    return scope.strategy.value if scope.strategy is not None else None


def request_records(exchanges: Sequence[Exchange],
                    outcomes: Mapping[int, tuple[str, str]]) -> tuple[RequestRecord, ...]:
    """Every exchange as a record: writes with their step's outcome, reads as ``read``."""
    records = []
    for index, exchange in enumerate(exchanges):
        outcome, scope = outcomes.get(index, (_read_outcome(exchanges, index), None))
        records.append(RequestRecord(exchange.method, exchange.path, exchange.status, outcome,
                                     scope))
    return tuple(records)


def _read_outcome(exchanges: Sequence[Exchange], index: int) -> str:
    exchange = exchanges[index]
    if exchange.status is not None and exchange.status < 400:
        return "read"
    later = exchanges[index + 1:]
    again = any(e.method == exchange.method and e.path == exchange.path for e in later)
    return "retried" if again else "failed"
