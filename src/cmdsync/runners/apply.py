"""``apply`` end to end, without printing: plan (or load a saved plan), check, back up, write.

:func:`apply_paths` validates and plans the manifests in one session, shows
the plan through ``hooks`` and, when ``interactive``, asks; after a "yes" it
reads live state again and refuses if it changed meanwhile.
:func:`apply_saved` loads a ``plan --out`` file and refuses it when live
state no longer matches the ids and versions (and the overwrites) it was
computed from. Then both, before the first write:

1. refuse an unsafe plan (:func:`cmdsync.apply.guardrails.raise_if_unsafe`:
   plan errors, per-type caps, the daily create budget, a missing Bearer
   token), then prove the Bearer token has its scope with one read;
2. write the backup (:mod:`cmdsync.apply.backup`);
3. execute (:mod:`cmdsync.apply.execute`), recording creates in the ledger.

A plan without changes makes no write request, and no backup.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from cmdsync.apply import history, ledger
from cmdsync.apply.backup import backup_manifest, write_backup
from cmdsync.apply.execute import Context, Interrupt, Observer, execute, request_records
from cmdsync.apply.guardrails import (
    raise_if_unsafe,
    stale_reasons,
    unsafe_reasons,
    with_budget_warnings,
)
from cmdsync.apply.replay import ALREADY_APPLIED, already_applied
from cmdsync.apply.result import ApplyResult, ChangeStatus
from cmdsync.apply.strategy import ScopeSteps, StepKind, Strategy, schedule
from cmdsync.client import endpoints
from cmdsync.client.http import DEFAULT_API_URL
from cmdsync.errors import ApiError, CmdsyncError, UnsafePlanError, UsageError
from cmdsync.manifest.diagnostics import Location
from cmdsync.plan import Plan
from cmdsync.runners import aio
from cmdsync.runners.saved_checks import (
    check_environment,
    check_manifests,
    prior_gaps,
    replay_reasons,
)
from cmdsync.runners.session import (
    LOCAL_STATE,
    Connection,
    Session,
    fetch_scopes,
    open_session,
    saved_plan_key,
)
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.manifest.entries import CommandEntry
    from cmdsync.runners.project import CopyTarget
    from cmdsync.state.desired import DesiredState
    from cmdsync.validate import ValidationResult

Clock = Callable[[], float]  # epoch seconds
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
    cleanly (:func:`_signals_stop`).
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
        done = await _apply(session, plan, live, read=read, hooks=hooks, options=options,
                            cwd=cwd, clock=clock, entries=state.entries(),
                            confirm=interactive, signals=signals)
        return replace(done, validation=checked, locations=located)


def apply_saved(path: str, *, connection: Connection, options: ApplyOptions, hooks: Hooks,
                env: Mapping[str, str] | None = None, cwd: str | None = None,
                clock: Clock = time.time, refresh: bool = True,
                environment: str | None = None,
                copy_global_to: CopyTarget | None = None) -> ApplyRun:
    """Apply a saved plan without asking, if live state still matches it.

    Without ``refresh`` (``--no-refresh``, Terraform's ``-refresh=false``)
    live state is not read again: the plan's prior state (the live commands
    and overwrites it was made from) is backed up and the plan is written
    by its ids as it stands, command by command (``auto`` never chooses a
    bulk overwrite then, which would delete a command created since). A
    command changed since is overwritten as planned; one deleted since fails
    its scope (404), reported.

    ``environment`` is the environment applied to (``--env``, else the one the
    plan records): its application must be the plan's, and it must be the one the
    plan records, if any. ``copy_global_to`` is that environment's copy of the
    global commands, as the configuration says now: it must be the plan's (its
    ``environment``), and its manifests are read again with it.

    Raises :class:`~cmdsync.errors.UsageError` for flags that contradict the
    plan (``--env`` or ``--application-id`` of another application included), and :class:`~cmdsync.errors.UnsafePlanError` naming what
    changed when the plan is stale, what differs from its manifests
    (:func:`_check_manifests`), or, without ``refresh``, when it is not
    signed with the credential at hand (its ``plan_hmac``).
    """
    from cmdsync.runners.files import load_saved_plan

    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd

    def key(planned_at: str | None) -> bytes | None:  # of the credential it is applied with
        try:
            return saved_plan_key(_connection_for(path, connection, planned_at, env), env,
                                  cwd=cwd)
        except UsageError:
            return None  # applied elsewhere than planned: refused just below

    saved = load_saved_plan(path, key=key)
    plan, planned_at = saved.plan, saved.api_url
    if not refresh and saved.prior is None:
        raise UsageError(f"{path} holds no prior state (it was not saved by `cmdsync plan "
                         "--out`, or by an older cmdsync): apply it without --no-refresh, or "
                         "plan again with `cmdsync plan --out FILE`")
    if not refresh and options.strategy is Strategy.BULK:
        raise UsageError("--no-refresh writes command by command: a bulk overwrite without "
                         "reading live state again would delete commands created since the "
                         "plan; drop --strategy bulk")
    if not refresh and not saved.authentic:
        raise UnsafePlanError(["its plan_hmac is missing or was made with another credential"],
                              heading=(
            f"--no-refresh applies only a plan cmdsync saved with the credential at hand: "
            f"the backup comes from the live state {path} holds, which nothing else "
            "vouches for; nothing was changed. Apply it without --no-refresh, or plan "
            "again (`cmdsync plan --out FILE`):"))
    if not refresh and saved.prior is not None:
        missing = prior_gaps(plan, saved.prior)
        if missing:
            raise UnsafePlanError(missing, heading=(
                f"the saved plan {path} does not hold the live state of every command it "
                "changes, so it cannot be backed up without reading; nothing was changed. "
                "Plan again (`cmdsync plan --out FILE`):"))
    if not options.prune:
        raise UsageError("--no-prune does not apply to a saved plan: plan again with "
                         "`cmdsync plan --no-prune --out FILE`")
    if options.application_id and options.application_id != plan.application_id:
        raise UsageError(f"--application-id {options.application_id} differs from the saved "
                         f"plan's application {plan.application_id}")
    check_environment(path, saved, environment, copy_global_to)
    chosen = env.get("DISCORD_APPLICATION_ID")
    if environment and chosen and chosen != plan.application_id:
        raise UsageError(f"--env {environment} is application {chosen}, but the saved plan "
                         f"{path} was made for application {plan.application_id}: apply it "
                         f"without --env, or plan again with `cmdsync plan --env {environment} "
                         "--out FILE`")
    replayed = replay_reasons(path, saved, cwd=cwd, force=options.force)
    checked = check_manifests(path, plan, cwd=cwd, env=env, authentic=saved.authentic,
                               copy_global_to=copy_global_to)
    connection = _connection_for(path, connection, planned_at, env)
    needed = [s.scope for s in plan.scopes if s.permissions]
    copied = (saved.environment or {}).get("copy_global_to") is not None
    # global commands are read for the keys that name them, unless they were copied to a
    # guild (copy_global_to): then the global scope is left alone
    scopes = [s.scope for s in plan.scopes] + (["global"] if needed and not copied else [])

    if not refresh and options.strategy is Strategy.AUTO:
        options = replace(options, strategy=Strategy.PER_COMMAND)

    async def run() -> ApplyRun:
        guilds = [s.scope for s in plan.scopes if s.scope != "global"]
        async with open_session(connection, env=env, cwd=cwd, guilds=guilds,
                                application_id=plan.application_id if needed else None
                                ) as session:
            async def read() -> LiveState:
                return await fetch_scopes(session.client, plan.application_id,
                                          list(dict.fromkeys(scopes)), need_permissions=needed,
                                          only_needed=True)

            if not saved.authentic:
                # Nothing vouches for the plan's content: plan again from its manifests
                # and apply that, if it is the same plan (every scope, action and body).
                assert checked is not None  # _check_manifests validated them
                validation, desired = checked
                return await _apply_unsigned(session, path, plan, validation, desired,
                                             hooks=hooks, options=options, cwd=cwd,
                                             clock=clock, digest=saved.digest)
            if saved.prior is not None and not refresh and not replayed:
                live = saved.prior
            elif not refresh:  # a replay, forced: back up what is live, not the plan's past
                live = await read()
            else:
                live = await read()
                stale = stale_reasons(plan, live)
                if stale and already_applied(plan, live):  # applied from elsewhere
                    raise CmdsyncError(ALREADY_APPLIED.format(path=path))
                if stale:
                    raise UnsafePlanError(stale, heading=(
                        f"the saved plan {path} is stale: live state changed since it was "
                        "computed; nothing was changed. Plan again (`cmdsync plan --out "
                        "FILE`):"))
            return await _apply(session, plan, live, read=read, hooks=hooks, options=options,
                                cwd=cwd, clock=clock, entries={}, confirm=False, signals=True,
                                saved=True, refreshed=refresh or bool(replayed),
                                digest=saved.digest)

    return aio.run(run())


async def _apply_unsigned(session: Session, path: str, plan: Plan,
                          validation: ValidationResult, desired: DesiredState, *,
                          hooks: Hooks, options: ApplyOptions, cwd: str, clock: Clock,
                          digest: str | None) -> ApplyRun:
    """Apply a saved plan that is not signed with the credential at hand, if planning
    its manifests again against live state now gives the same plan.

    Its ``plan_digest`` proves nothing (anyone can compute it again after an
    edit), so every scope it names, every action (deletes and no-ops
    included, which a bulk overwrite sends) and every overwrite change is held
    against the plan made afresh; what is applied is that fresh plan.
    Raises :class:`~cmdsync.errors.UnsafePlanError` before any write: live
    state changed (stale) or the plan differs from its manifests.
    """
    from cmdsync.apply.guardrails import plan_differences
    from cmdsync.plan.diff import Differ
    from cmdsync.runners.plan import plan_session, with_unknowns

    checked, fresh, live, info = await plan_session(session.client, desired, validation,
                                                    prune=True)
    if checked.errors or fresh is None or live is None:
        reason = "the manifests do not validate against the application: run `cmdsync plan`"
        raise UnsafePlanError([reason], heading=(
            f"the saved plan {path} does not match the manifests it was made from; nothing "
            "was changed. Plan again (`cmdsync plan --out FILE`):"))
    stale = stale_reasons(plan, live)
    differences = plan_differences(plan, fresh)
    if differences:  # made with --no-prune?
        kept = with_unknowns(Differ(desired, prune=False, application=info).plan(live), info)
        if not plan_differences(plan, kept):
            fresh, differences = kept, []
    foreign = {s.scope for s in plan.scopes} - {s.scope for s in fresh.scopes}
    if stale and not foreign and already_applied(plan, live):
        raise CmdsyncError(ALREADY_APPLIED.format(path=path))
    if stale and not foreign:  # live state of a scope the manifests never name is not read
        raise UnsafePlanError(stale, heading=(
            f"the saved plan {path} is stale: live state changed since it was computed; "
            "nothing was changed. Plan again (`cmdsync plan --out FILE`):"))
    if differences:
        raise UnsafePlanError(differences, heading=(
            f"the saved plan {path} is not signed with the credential at hand (its "
            "plan_hmac) and differs from what its manifests give against live state now; "
            "nothing was changed. Plan again (`cmdsync plan --out FILE`):"))
    fresh = replace(fresh, manifests=plan.manifests, manifest_sha256=plan.manifest_sha256)

    async def read() -> LiveState:  # not called: nothing is confirmed at a prompt
        return live

    return await _apply(session, fresh, live, read=read, hooks=hooks, options=options,
                        cwd=cwd, clock=clock, entries={}, confirm=False, signals=True,
                        saved=True, refreshed=True, digest=digest)


async def _apply(session: Session, plan: Plan, live: LiveState, *,
                 read: Callable[[], Awaitable[LiveState]], hooks: Hooks, options: ApplyOptions,
                 cwd: str, clock: Clock, entries: Mapping[tuple[str, int, str], CommandEntry],
                 confirm: bool, signals: bool, saved: bool = False,
                 refreshed: bool = True, digest: str | None = None) -> ApplyRun:
    client, app = session.client, plan.application_id
    if not plan.has_changes:
        return ApplyRun(plan=plan, result=ApplyResult(
            app, session.api_url, requests=request_records(client.exchanges, {})))
    scheduled, problems = schedule(plan, options.strategy)
    raise_if_unsafe(unsafe_reasons(plan, scheduled, problems, ledger=ledger.load(cwd),
                                   api_url=session.api_url, now=clock(),
                                   has_user_token=client.auth.permissions is not None))
    await _check_user_token(session, app, scheduled)
    if confirm:
        if not hooks.confirm(plan):
            return ApplyRun(plan=plan, declined=True)
        live = await read()
        stale = stale_reasons(plan, live)
        if stale:
            raise UnsafePlanError(stale, heading="live state changed while the plan was "
                                  "reviewed; nothing was changed. Run apply again:")
    started = time.monotonic()
    try:
        backup = _backup(plan, live, scheduled, cwd=cwd, now=clock(), api_url=session.api_url)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if refreshed:
            raise
        raise CmdsyncError(f"cannot back up the live state the saved plan holds, which is "
                           f"malformed ({exc!r}); nothing was changed. Plan again (`cmdsync "
                           "plan --out FILE`)") from exc

    def record(scope: str, count: int) -> None:
        ledger.record(cwd, api_url=session.api_url, application_id=app, scope=scope,
                      count=count, now=clock())

    live_ids = {s: {str(c["id"]) for c in live.scope(s).commands} for s in live.scopes}
    for scope_plan in plan.scopes:  # all of them, where live state holds only some
        live_ids.setdefault(scope_plan.scope, set()).update(r.id for r in scope_plan.live)
    context = Context(client, app, live_ids, entries, record, hooks)
    with _signals_stop(context.interrupt) if signals else nullcontext():
        scopes = await execute(context, scheduled, on_error=options.on_error)
    history.record(cwd, api_url=session.api_url, application_id=app, digest=digest,
                   now=clock(), scopes=[s.scope for s in scopes if any(
                       c.status in (ChangeStatus.APPLIED, ChangeStatus.UNKNOWN)
                       for c in s.changes)])
    return ApplyRun(plan=plan, result=ApplyResult(
        app, session.api_url, scopes, request_records(client.exchanges, context.outcomes),
        backup, time.monotonic() - started, context.creates, context.interrupt.signal,
        saved, refreshed, plan.application_name))


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


def _connection_for(path: str, connection: Connection, planned_at: str | None,
                    env: Mapping[str, str]) -> Connection:
    """The connection for a saved plan: where it was planned, unless flags say otherwise."""
    if planned_at is None:
        return connection
    if planned_at.startswith("local:") and not connection.local and not connection.api_url:
        return replace(connection, local=True)
    target = "local:" + LOCAL_STATE if connection.local else (
        connection.api_url or env.get("CMDSYNC_API_URL") or DEFAULT_API_URL)
    if target.rstrip("/") != planned_at.rstrip("/"):
        where = "--local" if planned_at.startswith("local:") else f"--api-url {planned_at}"
        raise UsageError(f"{path} was planned against {planned_at}, not {target}: apply it "
                         f"there ({where})")
    return connection


def saved_plan_path(paths: Sequence[str]) -> str | None:
    """``paths[0]`` when it is the only path and a saved plan (a JSON object with
    ``format_version``), else None: then the paths are manifests."""
    import json

    if len(paths) != 1 or not os.path.isfile(paths[0]):
        return None
    try:
        with open(paths[0], encoding="utf-8") as handle:
            head = handle.read(4096)
            if head.lstrip().startswith('{\n  "format_version":'):
                return paths[0]  # as cmdsync writes one: read whole once, by apply_saved
            data = json.loads(head + handle.read()) if head.lstrip().startswith("{") else None
    except (OSError, ValueError):
        return None
    return paths[0] if isinstance(data, dict) and "format_version" in data else None
