"""``apply`` end to end, without printing: plan (or load a saved plan), check, back up, write.

:func:`apply_paths` validates and plans the manifests in one session, shows
the plan through ``hooks`` and, when ``interactive``, asks; after a "yes" it
reads live state again and refuses if it changed meanwhile.
:func:`cmdsync.runners.apply_saved.apply_saved` loads a ``plan --out`` file and
refuses it when live state no longer matches the ids and versions (and the
overwrites) it was computed from (:mod:`cmdsync.runners.saved_checks`). Then both
go through :func:`apply_plan`, before the first write:

1. refuse an unsafe plan (:func:`cmdsync.apply.guardrails.raise_if_unsafe`:
   plan errors, per-type caps, the daily create budget, a missing Bearer
   token), then prove the Bearer token has its scope with one read;
2. ask, when interactive, and read live state again after a "yes";
3. write the backup (:mod:`cmdsync.apply.backup`);
4. execute (:mod:`cmdsync.apply.execute`), recording creates in the ledger.

Steps 1, 3 and 4 are :mod:`cmdsync.runners.apply_writes`. A plan without
changes makes no write request, and no backup.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from cmdsync.apply import ledger
from cmdsync.apply.execute import Observer, request_records
from cmdsync.apply.guardrails import stale_reasons, with_budget_warnings
from cmdsync.apply.result import ApplyResult
from cmdsync.apply.strategy import Strategy, schedule
from cmdsync.errors import CmdsyncError, UnsafePlanError
from cmdsync.manifest.diagnostics import Location
from cmdsync.plan import Plan
from cmdsync.runners import aio
from cmdsync.runners.apply_writes import Clock, back_up, check_before_writes, write
from cmdsync.runners.session import Connection, Session
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.manifest.entries import CommandEntry
    from cmdsync.runners.project import CopyTarget
    from cmdsync.state.desired import DesiredState
    from cmdsync.validate import ValidationResult

NO_TERMINAL = ("refusing to apply without confirmation: standard input is not a terminal. "
               "Review the plan with `cmdsync plan`, then run `cmdsync apply --auto-approve`; "
               "or save it with `cmdsync plan --out plan.json` and run `cmdsync apply "
               "plan.json`")


@dataclass(frozen=True)
class ApplyOptions:
    """The flags of ``cmdsync apply``: strategy, ``on_error`` (stop|continue), prune, app id."""

    strategy: Strategy = Strategy.AUTO
    on_error: str = "stop"
    prune: bool = True
    application_id: str | None = None
    force: bool = False  # apply a saved plan that is a replay (cmdsync.apply.history)


class Hooks(Observer, Protocol):
    """The terminal side: show the plan, ask, and draw progress (:class:`Observer`)."""

    def show_plan(self, plan: Plan) -> None: ...

    def confirm(self, plan: Plan) -> bool: ...


@dataclass(frozen=True)
class ApplyRun:
    """What happened: validation (manifests only), the plan, and the result.

    ``result`` is None when validation failed or the user declined
    (``declined``); for a plan without changes it lists only reads.
    """

    validation: ValidationResult | None = None
    plan: Plan | None = None
    result: ApplyResult | None = None
    declined: bool = False
    # where each (scope, type, name) is written, for --format github annotations
    locations: Mapping[tuple[str, int, str], Location] = field(default_factory=dict)


def apply_paths(paths: list[str], *, connection: Connection, options: ApplyOptions,
                hooks: Hooks, interactive: bool, can_ask: bool = True,
                env: Mapping[str, str] | None = None, cwd: str | None = None,
                clock: Clock = time.time, copy_global_to: CopyTarget | None = None
                ) -> ApplyRun:
    """Plan ``paths`` and apply the plan; see the module docstring.

    ``copy_global_to``: the environment's guild the global commands go to
    (:func:`cmdsync.runners.plan.prepare`); the global scope is then left alone.

    ``interactive``: ask before writing (``hooks.confirm``); when it cannot
    (``can_ask`` False: no terminal), refuse once the manifests are valid,
    before any request. Raises :class:`~cmdsync.errors.UnsafePlanError`
    (nothing written) and :class:`~cmdsync.errors.CmdsyncError` for that
    refusal, credentials and API failures before the first write; failures
    while writing are in the result. SIGINT and SIGTERM stop the writes
    cleanly (:func:`cmdsync.runners.apply_writes.write`).
    """
    return aio.run(apply_async(paths, connection=connection, options=options, hooks=hooks,
                               interactive=interactive, can_ask=can_ask, env=env, cwd=cwd,
                               clock=clock, signals=True, copy_global_to=copy_global_to))


async def apply_async(paths: list[str], *, connection: Connection, options: ApplyOptions,
                      hooks: Hooks, interactive: bool = False, can_ask: bool = True,
                      env: Mapping[str, str] | None = None, cwd: str | None = None,
                      clock: Clock = time.time, signals: bool = False,
                      copy_global_to: CopyTarget | None = None) -> ApplyRun:
    """:func:`apply_paths` on the running event loop (a bot's ``setup_hook``, say).

    ``signals``: let SIGINT and SIGTERM stop the writes cleanly; only for a
    process cmdsync owns (the CLI), never inside someone else's loop.
    """
    from cmdsync.runners.plan import plan_live, planning

    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd

    def refuse_without_terminal() -> None:
        if interactive and not can_ask:
            raise CmdsyncError(NO_TERMINAL)

    # Reads start while the manifests are validated, unless the run may refuse
    # before any request (no terminal to ask at).
    async with planning(paths, connection=connection, application_id=options.application_id,
                        prune=options.prune, env=env, cwd=cwd,
                        before_requests=refuse_without_terminal,
                        pipelined=not (interactive and not can_ask),
                        copy_global_to=copy_global_to) as found:
        if found.desired is None or found.session is None:
            return ApplyRun(found.validation)
        state: DesiredState = found.desired
        session = found.session
        checked, planned, live = found.validation, found.plan, found.live

        async def read() -> LiveState:
            return (await plan_live(session.client, state, prune=options.prune))[1]

        if planned is None or live is None:
            return ApplyRun(checked)
        plan = with_budget_warnings(planned, ledger=ledger.load(cwd),
                                    api_url=session.api_url, now=clock())
        hooks.show_plan(plan)
        located = state.locations()
        done = await apply_plan(session, plan, live, read=read, hooks=hooks, options=options,
                               cwd=cwd, clock=clock, entries=state.entries(),
                               confirm=interactive, signals=signals)
        return replace(done, validation=checked, locations=located)


async def apply_plan(session: Session, plan: Plan, live: LiveState, *,
                     read: Callable[[], Awaitable[LiveState]], hooks: Hooks,
                     options: ApplyOptions, cwd: str, clock: Clock,
                     entries: Mapping[tuple[str, int, str], CommandEntry], confirm: bool,
                     signals: bool, saved: bool = False, refreshed: bool = True,
                     digest: str | None = None) -> ApplyRun:
    """Apply ``plan``, made against ``live``: the steps of the module docstring.

    ``confirm``: ask (``hooks.confirm``), then ``read`` live state again and
    refuse if it changed. ``entries`` are the manifest commands (empty for a
    saved plan); ``saved``, ``refreshed`` and ``digest`` (the saved plan's) go
    into the result and the history of applies.
    """
    client, app = session.client, plan.application_id
    if not plan.has_changes:
        return ApplyRun(plan=plan, result=ApplyResult(
            app, session.api_url, requests=request_records(client.exchanges, {})))
    scheduled, problems = schedule(plan, options.strategy)
    await check_before_writes(session, plan, scheduled, problems, cwd=cwd, clock=clock)
    if confirm:
        if not hooks.confirm(plan):
            return ApplyRun(plan=plan, declined=True)
        live = await read()
        stale = stale_reasons(plan, live)
        if stale:
            raise UnsafePlanError(stale, heading="live state changed while the plan was "
                                  "reviewed; nothing was changed. Run apply again:")
    started = time.monotonic()
    backup = back_up(plan, live, scheduled, cwd=cwd, now=clock(), api_url=session.api_url,
                     refreshed=refreshed)
    scopes, context = await write(session, plan, live, scheduled, entries=entries,
                                  observer=hooks, on_error=options.on_error, cwd=cwd,
                                  clock=clock, signals=signals, digest=digest)
    return ApplyRun(plan=plan, result=ApplyResult(
        app, session.api_url, scopes, request_records(client.exchanges, context.outcomes),
        backup, time.monotonic() - started, context.creates, context.interrupt.signal,
        saved, refreshed, plan.application_name))
