"""An apply's writes, on either side of the confirmation :func:`cmdsync.runners.apply.apply_plan`
asks for.

Before it, :func:`check_before_writes`: refuse an unsafe plan
(:func:`cmdsync.apply.guardrails.raise_if_unsafe`: plan errors, per-type caps, the
daily create budget, a missing Bearer token), then prove the Bearer token has its
scope with one read. After it, :func:`back_up` writes the backup
(:mod:`cmdsync.apply.backup`) and :func:`write` sends the write requests
(:mod:`cmdsync.apply.execute`), recording creates in the ledger and the scopes
applied in the history; SIGINT and SIGTERM stop the writes cleanly.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING

from cmdsync.apply import history, ledger
from cmdsync.apply.backup import backup_manifest, write_backup
from cmdsync.apply.execute import Context, Interrupt, Observer, execute
from cmdsync.apply.guardrails import raise_if_unsafe, unsafe_reasons
from cmdsync.apply.result import ChangeStatus, ScopeResult
from cmdsync.apply.strategy import ScopeSteps, StepKind
from cmdsync.client import endpoints
from cmdsync.errors import ApiError, CmdsyncError
from cmdsync.plan import Plan
from cmdsync.runners.session import Session
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.manifest.entries import CommandEntry

Clock = Callable[[], float]  # epoch seconds


async def check_before_writes(session: Session, plan: Plan, scheduled: Sequence[ScopeSteps],
                              problems: Sequence[str], *, cwd: str, clock: Clock) -> None:
    """Refuse an unsafe plan (:class:`~cmdsync.errors.UnsafePlanError`, nothing written),
    then, when overwrites change, check the Bearer token's scope with one read."""
    client = session.client
    raise_if_unsafe(unsafe_reasons(plan, scheduled, problems, ledger=ledger.load(cwd),
                                   api_url=session.api_url, now=clock(),
                                   has_user_token=client.auth.permissions is not None))
    await _check_user_token(session, plan.application_id, scheduled)


async def _check_user_token(session: Session, app: str, scheduled: Sequence[ScopeSteps]
                            ) -> None:
    """One read with the Bearer token, when overwrites change: its scope, before any write."""
    guild = next((s.scope for s in scheduled
                  if any(step.kind is StepKind.PERMISSIONS for step in s.steps)), None)
    if guild is None:
        return
    try:
        await endpoints.check_user_token(session.client, app, guild)
    except ApiError as exc:
        raise CmdsyncError(
            f"the Bearer token cannot edit permission overwrites ({exc}): it must be a user's "
            "token for this application with scope applications.commands.permissions.update; "
            "nothing was changed") from exc


def back_up(plan: Plan, live: LiveState, scheduled: Sequence[ScopeSteps], *, cwd: str,
            now: float, api_url: str, refreshed: bool) -> str:
    """Write the backup of what ``scheduled`` changes in ``live``; its path.

    Without ``refreshed`` the live state is a saved plan's prior state, which
    may be malformed: a :class:`~cmdsync.errors.CmdsyncError` then, before any write.
    """
    try:
        return _backup(plan, live, scheduled, cwd=cwd, now=now, api_url=api_url)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if refreshed:
            raise
        raise CmdsyncError(f"cannot back up the live state the saved plan holds, which is "
                           f"malformed ({exc!r}); nothing was changed. Plan again (`cmdsync "
                           "plan --out FILE`)") from exc


def _backup(plan: Plan, live: LiveState, scheduled: Sequence[ScopeSteps], *, cwd: str,
            now: float, api_url: str) -> str:
    commands = [s.scope for s in scheduled if s.strategy is not None]
    permissions = [s.scope for s in scheduled if any(p.kind is StepKind.PERMISSIONS for p in s.steps)]
    # Only overwrites that were read: unread ones are unknown, and a restore leaves them.
    guilds = [s.scope for s in live.scopes.values() if s.scope != "global" and s.permissions_read]
    manifest = backup_manifest(live, commands=commands, permissions=permissions,
                               readable=guilds)
    return write_backup(manifest, cwd=cwd, application_id=plan.application_id, now=now,
                        api_url=api_url)


async def write(session: Session, plan: Plan, live: LiveState,
                scheduled: Sequence[ScopeSteps], *,
                entries: Mapping[tuple[str, int, str], CommandEntry], observer: Observer,
                on_error: str, cwd: str, clock: Clock, signals: bool, digest: str | None
                ) -> tuple[tuple[ScopeResult, ...], Context]:
    """Send ``scheduled`` (:func:`cmdsync.apply.execute.execute`); each scope's result,
    and the context that saw the requests, the creates and any signal.

    Creates go to the daily ledger as they are confirmed, and the scopes written
    (or maybe written) to the history of applies (:mod:`cmdsync.apply.history`).
    ``signals``: SIGINT and SIGTERM stop the writes cleanly (:func:`_signals_stop`).
    """
    client, app = session.client, plan.application_id

    def record(scope: str, count: int) -> None:
        ledger.record(cwd, api_url=session.api_url, application_id=app, scope=scope,
                      count=count, now=clock())

    live_ids = {s: {str(c["id"]) for c in live.scope(s).commands} for s in live.scopes}
    for scope_plan in plan.scopes:  # all of them, where live state holds only some
        live_ids.setdefault(scope_plan.scope, set()).update(r.id for r in scope_plan.live)
    context = Context(client, app, live_ids, entries, record, observer)
    with _signals_stop(context.interrupt) if signals else nullcontext():
        scopes = await execute(context, scheduled, on_error=on_error)
    history.record(cwd, api_url=session.api_url, application_id=app, digest=digest,
                   now=clock(), scopes=[s.scope for s in scopes if any(
                       c.status in (ChangeStatus.APPLIED, ChangeStatus.UNKNOWN)
                       for c in s.changes)])
    return scopes, context


@contextmanager
def _signals_stop(interrupt: Interrupt) -> Iterator[None]:
    """While writing, SIGINT and SIGTERM (a CI cancel) stop apply cleanly instead of killing it.

    The request in flight finishes (a second signal abandons it) and apply
    returns its result, marked interrupted, so the report says what was
    applied and what was not. The previous handlers come back afterwards.
    """
    loop = asyncio.get_running_loop()
    installed = []
    for number in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(number)
        try:
            loop.add_signal_handler(number, interrupt.request, number.name)
        except (RuntimeError, NotImplementedError, ValueError):
            continue  # not the main thread, or no such support: signals act as before
        installed.append((number, previous))
    try:
        yield
    finally:
        for number, previous in installed:
            loop.remove_signal_handler(number)
            signal.signal(number, previous)
