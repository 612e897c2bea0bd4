"""Applying a saved plan (``cmdsync plan --out FILE``, then ``cmdsync apply FILE``).

:func:`saved_plan_path` tells a saved plan from manifests; :func:`apply_saved`
loads it, runs the checks it must pass before anything is read or written
(:mod:`cmdsync.runners.saved_checks`), opens a session where it was planned,
refuses it when live state no longer matches it (unless ``--no-refresh``), and
applies it through :func:`cmdsync.runners.apply.apply_plan`. A plan not signed
with the credential at hand is planned again from its manifests, and the fresh
plan applied if it is the same (:func:`_apply_unsigned`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from cmdsync.apply.guardrails import stale_reasons
from cmdsync.apply.replay import ALREADY_APPLIED, already_applied
from cmdsync.apply.strategy import Strategy
from cmdsync.client.http import DEFAULT_API_URL
from cmdsync.errors import CmdsyncError, UnsafePlanError, UsageError
from cmdsync.plan import Plan
from cmdsync.runners import aio
from cmdsync.runners.apply import ApplyOptions, ApplyRun, Hooks, apply_plan
from cmdsync.runners.apply_writes import Clock
from cmdsync.runners.fetch import fetch_scopes
from cmdsync.runners.saved_checks import (
    check_environment,
    check_manifests,
    prior_gaps,
    replay_reasons,
)
from cmdsync.runners.session import LOCAL_STATE, Connection, Session, open_session, saved_plan_key
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.runners.project import CopyTarget
    from cmdsync.state.desired import DesiredState
    from cmdsync.validate import ValidationResult


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
    plan (``--env`` or ``--application-id`` of another application included), and
    :class:`~cmdsync.errors.UnsafePlanError` naming what changed when the plan is
    stale, what differs from its manifests
    (:func:`~cmdsync.runners.saved_checks.check_manifests`), or, without
    ``refresh``, when it is not signed with the credential at hand (its ``plan_hmac``).
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
                assert checked is not None  # check_manifests validated them
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
            return await apply_plan(session, plan, live, read=read, hooks=hooks,
                                    options=options, cwd=cwd, clock=clock, entries={},
                                    confirm=False, signals=True, saved=True,
                                    refreshed=refresh or bool(replayed), digest=saved.digest)

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

    return await apply_plan(session, fresh, live, read=read, hooks=hooks, options=options,
                            cwd=cwd, clock=clock, entries={}, confirm=False, signals=True,
                            saved=True, refreshed=True, digest=digest)


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
