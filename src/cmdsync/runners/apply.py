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
import codecs
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
    manifest_reasons,
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
from cmdsync.manifest.files import (
    MAX_MANIFEST_BYTES,
    bytes_digest,
    is_code_source,
    read_bounded,
)
from cmdsync.manifest.interpolate import may_interpolate
from cmdsync.model import scope_label
from cmdsync.plan import Action, Plan
from cmdsync.runners import aio
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
    from cmdsync.plan.planfile import SavedPlan
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
        missing = _prior_gaps(plan, saved.prior)
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
    _check_environment(path, saved, environment, copy_global_to)
    chosen = env.get("DISCORD_APPLICATION_ID")
    if environment and chosen and chosen != plan.application_id:
        raise UsageError(f"--env {environment} is application {chosen}, but the saved plan "
                         f"{path} was made for application {plan.application_id}: apply it "
                         f"without --env, or plan again with `cmdsync plan --env {environment} "
                         "--out FILE`")
    replayed = _replay_reasons(path, saved, cwd=cwd, force=options.force)
    checked = _check_manifests(path, plan, cwd=cwd, env=env, authentic=saved.authentic,
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


def _check_environment(path: str, saved: SavedPlan, environment: str | None,
                       copy: CopyTarget | None) -> None:
    """Refuse a saved plan applied to another environment than the one it records, or
    whose copy of the global commands (``copy_global_to``) the configuration no longer
    makes: :class:`~cmdsync.errors.UsageError` naming both."""
    recorded = saved.environment or {}
    name, guild = recorded.get("name"), recorded.get("copy_global_to")
    if name is not None and environment is not None and name != environment:
        raise UsageError(f"--env {environment}, but the saved plan {path} was made for "
                         f"environment {name}: apply it without --env (it applies to {name}), "
                         f"or plan again with `cmdsync plan --env {environment} --out FILE`")
    now = copy.guild if copy is not None else None
    if guild != now:
        made = f"copies the global commands to guild {guild}" if guild is not None else \
            "leaves the global commands global"
        said = f"copies them to guild {now} ({copy.where})" if copy is not None else \
            "does not copy them (no copy_global_to)"
        raise UsageError(f"the saved plan {path} {made}, but environment "
                         f"{environment or name} {said}: plan again with `cmdsync plan "
                         f"--env {environment or name} --out FILE`")


def _replay_reasons(path: str, saved: SavedPlan, *, cwd: str, force: bool) -> list[str]:
    """Why applying ``saved`` would replay it (:mod:`cmdsync.apply.history`); [] when it
    is not a replay. Raises :class:`~cmdsync.errors.UnsafePlanError` for a replay
    unless ``force``."""
    if saved.api_url is None or saved.serials is None:
        return []
    plan = saved.plan
    applied = history.load(cwd, saved.api_url, plan.application_id)
    changed = [s.scope for s in plan.scopes if s.has_changes]
    reasons = history.replay_reasons(applied, saved.serials, saved.digest, changed)
    if reasons and not force:
        raise UnsafePlanError(reasons, heading=history.replay_heading(
            path, applied, saved.serials, saved.digest, changed))
    return reasons


def _prior_gaps(plan: Plan, prior: LiveState) -> list[str]:
    """Scopes a saved plan changes whose prior state lacks what their backup needs:
    every live command the plan saw, or (prior state marked partial) every one it
    updates or deletes, and then no create and no overwrite change."""
    gaps = []
    for scope in plan.scopes:
        if not scope.has_changes:
            continue
        if scope.scope not in prior.scopes:
            gaps.append(f"{scope_label(scope.scope)}: no prior state")
            continue
        live = prior.scope(scope.scope)
        held = {str(c.get("id")) for c in live.commands}
        needed = [ref.id for ref in scope.live] if live.commands_complete else [
            c.id for c in scope.commands if c.action in (Action.UPDATE, Action.DELETE)]
        lacking = [ident for ident in needed if ident not in held]
        if lacking:
            gaps.append(f"{scope_label(scope.scope)}: {len(lacking)} live command(s) missing "
                        "from its prior state")
        elif not live.commands_complete and (scope.permissions or any(
                c.action is Action.CREATE for c in scope.commands)):
            gaps.append(f"{scope_label(scope.scope)}: its prior state holds only some "
                        "commands, but the plan creates commands or changes overwrites there")
    return gaps


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


def _check_manifests(path: str, plan: Plan, *, cwd: str, env: Mapping[str, str],
                     authentic: bool = False, copy_global_to: CopyTarget | None = None
                     ) -> tuple[ValidationResult, DesiredState] | None:
    """Refuse a saved plan whose manifests now give other bodies or overwrites, and one
    that nothing vouches for.

    In a CI checkout the manifests a plan was made from are beside it; a plan
    edited by hand (or made from other files) must not be applied. An
    ``authentic`` plan (its ``plan_hmac`` matches the credential at hand:
    cmdsync wrote it) is applied alone when its manifests are not here, and
    without reading them again when they have the texts it was made from
    (``manifest_sha256``; none that may interpolate). Any other plan is held
    against its manifests (bot code read again by its reference), and
    refused when they are not all here: its ``plan_digest`` proves nothing,
    since anyone can compute it again after an edit. No bot code
    (``discord.py:MODULE:ATTR``) is imported for a plan that is not authentic.
    The manifests are read with the environment's variables (``env``) and its
    copy of the global commands (``copy_global_to``).
    Returns the validation and desired state when the manifests were read
    (always for a plan that is not authentic), else None. Raises
    :class:`~cmdsync.errors.UnsafePlanError` before any request.
    """
    files = [f if is_code_source(f) else os.path.join(cwd, f) for f in plan.manifests]
    if not files or not all(is_code_source(f) or os.path.isfile(f) for f in files):
        if authentic:
            return None  # the plan alone was kept: its plan_hmac vouches for it
        missing = [f for f in plan.manifests if not is_code_source(f)
                   and not os.path.isfile(os.path.join(cwd, f))]
        raise UnsafePlanError(
            [f"{f}: not found" for f in missing] or ["the plan names no manifest"],
            heading=f"the saved plan {path} is not signed with the credential at hand (its "
            "plan_hmac) and the manifests it was made from are not all here, so nothing "
            "vouches for what it would send; nothing was changed. Apply it beside its "
            "manifests, or plan again (`cmdsync plan --out FILE`):")
    code = [f for f in plan.manifests if is_code_source(f)]
    if code and not authentic:
        raise UnsafePlanError([f"{f}: bot code, which apply would import and run" for f in code],
                              heading=(
            f"the saved plan {path} is not signed with the credential at hand (its "
            "plan_hmac), so no code it names is imported; nothing was changed. Plan again "
            "with this credential (`cmdsync plan --out FILE`):"))
    if code:  # authentic: its plan_hmac alone vouches for what the code gave
        changed = _changed_texts(files, plan.manifest_sha256)
        if changed:
            raise UnsafePlanError([f"{f}: changed since the plan was made" for f in changed],
                                  heading=(
                f"the saved plan {path} does not match the manifests it was made from, and "
                "apply never imports the bot code a saved plan names to hold it against "
                "them; nothing was changed. Plan again (`cmdsync plan --out FILE`):"))
        return None
    if authentic and _same_texts(files, plan.manifest_sha256):
        return None
    from cmdsync.runners.validate import with_copy
    from cmdsync.state import desired_state
    from cmdsync.validate import validate_paths

    validation = with_copy(validate_paths(files, env=env), copy_global_to)
    heading = (f"the saved plan {path} does not match the manifests it was made from "
               f"({', '.join(plan.manifests)}); nothing was changed. Plan again "
               "(`cmdsync plan --out FILE`):")
    if validation.errors or validation.manifest is None:
        raise UnsafePlanError(["the manifests no longer validate: run `cmdsync validate`"],
                              heading=heading)
    desired = desired_state(validation.manifest, application_id=plan.application_id,
                            copy_global_to=copy_global_to.guild if copy_global_to else None)
    reasons = manifest_reasons(plan, desired)
    if reasons:
        raise UnsafePlanError(reasons, heading=heading)
    return validation, desired


def _same_texts(files: Sequence[str], digests: Sequence[str | None]) -> bool:
    """Whether each of ``files`` has the text whose digest the plan holds
    (:func:`cmdsync.manifest.files.text_digest`); False if one has none (its
    bodies depend on the environment) or cannot be read.

    The bytes are hashed as read, a byte order mark dropped: for UTF-8 they
    are the text's encoding, and bytes that are not UTF-8 match no digest.
    """
    if len(digests) != len(files) or None in digests:
        return False
    for file, digest in zip(files, digests):
        raw = _text(file)
        if raw is None or may_interpolate(raw) or bytes_digest(raw) != digest:
            return False
    return True


def _text(file: str) -> bytes | None:
    """A manifest's bytes as read, a byte order mark dropped; None when unreadable."""
    try:
        raw = read_bounded(file, MAX_MANIFEST_BYTES)
    except OSError:
        return None
    return raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw


def _changed_texts(files: Sequence[str], digests: Sequence[str | None]) -> list[str]:
    """The manifest files (not bot code) whose text differs from the digest the plan
    holds for it, or that cannot be read; one with no digest (its bodies depend on the
    environment) is not held against it."""
    if len(digests) != len(files):
        return [f for f in files if not is_code_source(f)]
    changed = []
    for file, digest in zip(files, digests):
        if is_code_source(file) or digest is None:
            continue
        raw = _text(file)
        if raw is None or bytes_digest(raw) != digest:
            changed.append(file)
    return changed


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
