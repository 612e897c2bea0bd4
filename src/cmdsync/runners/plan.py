"""``plan`` end to end, without printing: validate, read live state, diff.

:func:`plan_paths` validates the manifests first and stops there, before any
request, if they have errors. Otherwise it opens a session (Discord or the
local emulator), fetches the live state of the manifest's scopes and
returns the :class:`~cmdsync.plan.Plan`. It reads the application once
(``GET /applications/@me``), before the scopes, and runs the rules that
need it (CS601, CS602): their errors stop the run there, as offline
validation errors do; its installation contexts are the default
``integration_types`` of global commands. API failures raise
:class:`~cmdsync.errors.ApiError` with Discord's own code and
message.

Against Discord or a served emulator (not ``--local``, nor bot code, nor
an in-process transport unless its connection says ``pipelined``), the
reads do not wait for the validation (:func:`planning`): the application is
read at once, the scopes the manifests' text names
(:mod:`cmdsync.manifest.outline`) as soon as each file's outline is in,
while a worker thread reads and validates the manifests and builds the
desired state; the reads wait on Discord's rate limit, not on the CPU. Once
the desired state is known, each scope read is compared as it arrives, and
a scope the outline missed is read then. Everything else happens as in
order: validation errors stop the run and are reported as they would be
(no write was made; reads started are cancelled), and so do the errors of
the application id, the credentials, the application, its rules and the
reads, in that order; the plan is the same.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cmdsync.errors import CmdsyncError, UsageError
from cmdsync.manifest.files import is_code_source
from cmdsync.model import GLOBAL
from cmdsync.runners import aio
from cmdsync.runners.fetch import EarlyReads, fetch_live, read_application
from cmdsync.runners.session import (
    Connection,
    Session,
    local_application_id,
    needs_user_token,
    open_session,
)

if TYPE_CHECKING:  # imported where used: a plan's first request goes before they load
    from cmdsync.client.http import DiscordClient
    from cmdsync.manifest.diagnostics import Location
    from cmdsync.plan import Plan
    from cmdsync.runners.project import CopyTarget
    from cmdsync.state import DesiredState, LiveState
    from cmdsync.state.application import AppInfo
    from cmdsync.validate import ValidationResult


@dataclass(frozen=True)
class PlanRun:
    """The validation result, and the plan when validation passed.

    ``api_url`` is where live state was read (``local:<path>`` for the
    emulator). ``application`` is the application read (None when
    validation failed before any request).
    """

    validation: ValidationResult
    plan: Plan | None = None
    api_url: str | None = None
    application: AppInfo | None = None
    # where each (scope, type, name) is written, for --format github annotations
    locations: Mapping[tuple[str, int, str], Location] = field(default_factory=dict)
    # the live state the plan was made from (kept in a saved plan)
    live: LiveState | None = field(default=None, repr=False)


def resolve_application_id(*, manifest: str | None, flag: str | None,
                           env: Mapping[str, str], local_default: str | None) -> str:
    """The application id: ``--application-id``, else the manifest's, else the environment.

    Under ``--local`` (``local_default`` set) the emulator's own application
    is planned, the only one it knows: the manifest's id then is a plan
    warning (:func:`plan_session`), and another ``--application-id`` a
    :class:`~cmdsync.errors.UsageError` saying so. Raises
    :class:`~cmdsync.errors.UsageError` when the flag contradicts the
    manifest or the id is not a snowflake, and
    :class:`~cmdsync.errors.CmdsyncError` when there is none.
    """
    if local_default is not None:
        if flag and flag != local_default:
            raise UsageError(f"--local has only the local emulator's application "
                             f"{local_default}: drop --application-id {flag} (or serve an "
                             "emulator seeded with it, `cmdsync emulator --seed FILE`, and "
                             "pass its --api-url)")
        chosen = local_default
    elif flag and manifest and flag != manifest:
        raise UsageError(f"--application-id {flag} differs from the manifest's application_id "
                         f"{manifest}")
    else:
        chosen = flag or manifest or env.get("DISCORD_APPLICATION_ID", "").strip() or ""
    if not chosen:
        raise CmdsyncError("no application id: set application_id in the manifest, pass "
                           "--application-id, or set DISCORD_APPLICATION_ID")
    if not chosen.isdigit():
        raise UsageError(f"application id {chosen!r} is not a snowflake (a string of digits)")
    return chosen


def prepare(paths: list[str], *, connection: Connection, application_id: str | None,
            env: Mapping[str, str], copy_global_to: CopyTarget | None = None
            ) -> tuple[ValidationResult, DesiredState | None]:
    """Validate ``paths`` and build their desired state (None when validation failed);
    with ``copy_global_to`` (an environment's), its global commands are that guild's
    (:func:`cmdsync.state.desired.desired_state`), and what the copy meets is
    validated too (:func:`cmdsync.runners.validate.with_copy`).

    Raises :class:`~cmdsync.errors.CmdsyncError` as
    :func:`resolve_application_id` does.
    """
    from cmdsync.runners.validate import with_copy
    from cmdsync.state import desired_state, manifest_application_id
    from cmdsync.validate.check import validate_paths

    # Kept while the reads go on: a large file's text compressed as soon as it is read.
    validation = with_copy(validate_paths(paths, env=env, pack_texts=True), copy_global_to)
    if validation.errors or validation.unreadable or validation.manifest is None:
        return validation, None
    manifest = validation.manifest
    local_default = local_application_id() if connection.local else None
    own = None if connection.local else manifest_application_id(manifest)
    app = resolve_application_id(manifest=own, flag=application_id, env=env,
                                 local_default=local_default)
    return validation, desired_state(manifest, application_id=app, copy_global_to=(
        copy_global_to.guild if copy_global_to is not None else None))


async def plan_live(client: DiscordClient, desired: DesiredState, *, prune: bool,
                    application: AppInfo | None = None, early: EarlyReads | None = None
                    ) -> tuple[Plan, LiveState]:
    """Read the live state ``desired`` needs and diff: the plan, and the state it saw.

    ``plan`` and ``apply`` both plan through here, so they plan alike.
    ``application`` (:func:`~cmdsync.runners.fetch.read_application`, read once per
    run) gives global commands their default ``integration_types`` and makes
    the application rules (CS601, CS602) plan errors, which apply refuses
    before any write; without it, an unset ``integration_types`` compares
    with the live value and those rules do not run. Reads started ``early``
    are taken from it (:class:`~cmdsync.runners.fetch.EarlyReads`).
    """
    from cmdsync.plan import Differ

    differ = Differ(desired, prune=prune, application=application)
    live = await fetch_live(client, str(desired.application_id), desired,
                            application=application,
                            on_scope=lambda scope: differ.add(scope.scope, scope.commands),
                            early=early)
    plan = differ.plan(live)
    return (with_unknowns(plan, application) if application else plan), live


async def plan_session(client: DiscordClient, desired: DesiredState,
                       validation: ValidationResult, *, prune: bool,
                       early: EarlyReads | None = None
                       ) -> tuple[ValidationResult, Plan | None, LiveState | None, AppInfo]:
    """Read the application, run the rules that need it, then :func:`plan_live`.

    Returns the validation with those rules' diagnostics, the plan and the
    live state it saw (both None when those rules found errors: no command
    is read, beyond reads started ``early``), and the application. ``plan``
    and ``apply`` both start here.
    """
    from cmdsync.validate.check import with_application

    named = _named_application(validation)
    info = await read_application(client, str(desired.application_id), named=named,
                                  early=early)
    checked = with_application(validation, info)
    if checked.errors:  # before reading, let alone writing, any command
        return checked, None, None, info
    plan, live = await plan_live(client, desired, prune=prune, application=info,
                                 early=early)
    if named is not None and named != desired.application_id:  # only --local plans another
        note = (f"the manifests name application {named}, which the local emulator does "
                f"not know: --local plans its application {desired.application_id} instead")
        plan = replace(plan, warnings=(*plan.warnings, note))
    return checked, replace(plan, application_name=info.name,
                            user_token=client.auth.permissions is not None), live, info


def _named_application(validation: ValidationResult) -> str | None:
    """The ``application_id`` the manifests name (None: none, or several: prepare says so
    where it matters)."""
    from cmdsync.state import manifest_application_id

    try:
        return manifest_application_id(validation.manifest) if validation.manifest else None
    except CmdsyncError:
        return None


def with_unknowns(plan: Plan, application: AppInfo) -> Plan:
    """``plan`` with a warning for each application field that could not be read.

    Client credentials read the partial application of ``GET /oauth2/@me``,
    which may lack ``integration_types_config`` or ``flags``.
    """
    notes = []
    if application.integration_types is None:
        notes.append(f"application {application.id}: its installation contexts are unknown "
                     "(no integration_types_config): commands without integration_types are "
                     "compared with their live value, and CS601 was not checked")
    if application.flags is None:
        notes.append(f"application {application.id}: its flags are unknown: CS602 (entry "
                     "points need an Activity) was not checked")
    return replace(plan, warnings=plan.warnings + tuple(notes)) if notes else plan


def plan_paths(paths: list[str], *, connection: Connection, application_id: str | None = None,
               prune: bool = True, env: Mapping[str, str] | None = None,
               cwd: str | None = None, copy_global_to: CopyTarget | None = None) -> PlanRun:
    """Validate ``paths``, then plan them against the live state; see the module docstring.

    ``copy_global_to``: the environment's guild the global commands go to (then the
    global scope is neither read nor written).

    The plan warns when the create ledger (:mod:`cmdsync.apply.ledger`, under
    ``cwd``) shows today's create budget running low.
    """
    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd

    async def run() -> Planned:
        async with planning(paths, connection=connection, application_id=application_id,
                            prune=prune, env=env, cwd=cwd,
                            copy_global_to=copy_global_to) as planned:
            return planned

    planned = aio.run(run())
    if planned.desired is None or planned.session is None or planned.application is None:
        return PlanRun(planned.validation)
    checked, plan, api_url = planned.validation, planned.plan, planned.session.api_url
    if plan is None:
        return PlanRun(checked, api_url=api_url, application=planned.application)
    from cmdsync.apply.guardrails import with_budget_warnings
    from cmdsync.apply.ledger import load as load_ledger

    plan = with_budget_warnings(plan, ledger=load_ledger(cwd), api_url=api_url, now=time.time())
    located = planned.desired.locations()
    return PlanRun(checked, plan, api_url, planned.application, located, planned.live)


@dataclass(frozen=True)
class Planned:
    """What :func:`planning` found: the validation (with the application rules' diagnostics
    once the application was read), the desired state (None when validation failed:
    then nothing else is set), the open session, the plan and the live state it saw
    (None when the application rules found errors), and the application."""

    validation: ValidationResult
    desired: DesiredState | None = None
    session: Session | None = None
    plan: Plan | None = None
    live: LiveState | None = None
    application: AppInfo | None = None
    # every read started before the desired state was known, in order (see EarlyReads)
    early: tuple[str, ...] = ()


@asynccontextmanager
async def planning(paths: list[str], *, connection: Connection, application_id: str | None,
                   prune: bool, env: Mapping[str, str], cwd: str,
                   before_requests: Callable[[], None] | None = None,
                   pipelined: bool = True, copy_global_to: CopyTarget | None = None
                   ) -> AsyncIterator[Planned]:
    """Validate ``paths``, open a session, read live state and plan; the session stays
    open inside the block (``apply`` writes through it).

    With ``pipelined`` (and a remote connection whose ``pipelined`` is not
    False, by default one over the network whose client paces its requests
    (``global_limit`` above 0); manifest files only) reads start at once,
    while a worker thread validates (see the module docstring); else in
    order: validation, then the session and the reads. ``copy_global_to``: as
    :func:`prepare`'s.
    ``before_requests`` is called once validation has passed, before the
    session opens (it may raise to stop the run; pipelined, requests have
    started by then: pass ``pipelined=False`` when it may raise). Raises as
    :func:`prepare`, :func:`~cmdsync.runners.session.open_session` and
    :func:`plan_session` do, in that order.
    """
    # By default over the network, and only where the client paces its requests: with
    # no limit the reads wait on nothing, and the worker thread would only slow them.
    limited = connection.config is None or connection.config.global_limit > 0
    overlap = connection.pipelined if connection.pipelined is not None \
        else connection.transport is None and limited
    if pipelined and overlap and not connection.local \
            and not any(is_code_source(p) for p in paths):
        async with _pipelined(paths, connection=connection, application_id=application_id,
                              prune=prune, env=env, cwd=cwd,
                              before_requests=before_requests,
                              copy_global_to=copy_global_to) as planned:
            yield planned
        return
    validation, desired = prepare(paths, connection=connection, application_id=application_id,
                                  env=env, copy_global_to=copy_global_to)
    if desired is None:
        yield Planned(validation)
        return
    if before_requests is not None:
        before_requests()
    guilds = [scope for scope in desired.scopes if scope != "global"]
    async with open_session(connection, env=env, cwd=cwd, guilds=guilds,
                            application_id=needs_user_token(desired)) as session:
        checked, plan, live, info = await plan_session(session.client, desired, validation,
                                                       prune=prune)
        yield Planned(checked, desired, session, plan, live, info)


@asynccontextmanager
async def _pipelined(paths: list[str], *, connection: Connection, application_id: str | None,
                     prune: bool, env: Mapping[str, str], cwd: str,
                     before_requests: Callable[[], None] | None,
                     copy_global_to: CopyTarget | None) -> AsyncIterator[Planned]:
    """:func:`planning` with the reads started before validation ends."""
    loop = asyncio.get_running_loop()
    outlined: asyncio.Queue[Any] = asyncio.Queue()
    async with AsyncExitStack() as stack:
        session: Session | None = None
        failure: BaseException | None = None
        try:  # credentials: a missing one is said after the manifests' problems
            session = await stack.enter_async_context(open_session(connection, env=env,
                                                                   cwd=cwd))
        except Exception as exc:  # noqa: BLE001 - raised again below, in its turn
            failure = exc
        early = EarlyReads(session.client) if session is not None else None
        if early is not None:
            stack.push_async_callback(early.close)
            first = early.application()
            await asyncio.wait([first], timeout=0.05)  # sent before the thread competes
        validating = loop.run_in_executor(None, _outline_then_prepare, paths, connection,
                                          application_id, env, loop, outlined, copy_global_to)
        copy = copy_global_to.guild if copy_global_to is not None else None
        reader = asyncio.ensure_future(_read_outlined(early, outlined, application_id, env,
                                                      copy)) \
            if early is not None else None
        try:
            validation, desired = await validating
        finally:
            if reader is not None:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
        if desired is None:
            yield Planned(validation, early=tuple(early.started) if early else ())
            return
        if before_requests is not None:
            before_requests()
        if session is None:
            raise failure if failure is not None else CmdsyncError("no session")
        if needs_user_token(desired) and session.client.auth.permissions is None:
            # the Bearer token `cmdsync login` stored: the session in order finds it
            await stack.aclose()
            async with planning(paths, connection=connection, application_id=application_id,
                                prune=prune, env=env, cwd=cwd, pipelined=False,
                                copy_global_to=copy_global_to) as planned:
                yield planned
            return
        checked, plan, live, info = await plan_session(session.client, desired, validation,
                                                       prune=prune, early=early)
        yield Planned(checked, desired, session, plan, live, info,
                      tuple(early.started) if early else ())


def _outline_then_prepare(paths: list[str], connection: Connection, application_id: str | None,
                          env: Mapping[str, str], loop: asyncio.AbstractEventLoop,
                          outlined: asyncio.Queue[Any], copy_global_to: CopyTarget | None
                          ) -> tuple[ValidationResult, DesiredState | None]:
    """In a worker thread: each file's outline, handed to the event loop as it comes
    (then None), then :func:`prepare`."""
    try:
        from cmdsync.manifest.outline import outlines
        from cmdsync.validate.check import expand_paths

        files, _ = expand_paths(paths)
        for part in outlines(files, env):
            loop.call_soon_threadsafe(outlined.put_nowait, part)
    except Exception:  # noqa: BLE001, S110 - an outline only decides when reads start
        pass
    finally:
        loop.call_soon_threadsafe(outlined.put_nowait, None)
    prepared = prepare(paths, connection=connection, application_id=application_id, env=env,
                       copy_global_to=copy_global_to)
    _load_output_modules()
    return prepared


def _load_output_modules() -> None:
    """Import, while the reads wait, the modules a plan needs once they are done (its
    budget warnings, and the modules ``cmdsync plan`` prints it with), rather than
    before the first request or after the last."""
    import importlib

    for name in ("cmdsync.apply.guardrails", "cmdsync.apply.ledger",
                 "cmdsync.render.diagnostics", "cmdsync.render.plan"):
        importlib.import_module(name)


async def _read_outlined(early: EarlyReads, outlined: asyncio.Queue[Any],
                         application_id: str | None, env: Mapping[str, str],
                         copy_global_to: str | None = None) -> None:
    """Start reading each scope the outlines name, once the application is known to be
    the one they name (else nothing: its error, or the other application's, is said in
    its turn); global commands copied to a guild (``copy_global_to``) are read there,
    and the global scope not at all."""
    from cmdsync.manifest.outline import Outline

    wanted: str | None = None
    while (part := await outlined.get()) is not None:
        assert isinstance(part, Outline)
        if wanted is None:
            named = application_id or (min(part.application_ids) if len(
                part.application_ids) == 1 else None) or \
                env.get("DISCORD_APPLICATION_ID", "").strip() or None
            if named is None:
                continue
            try:
                info = await asyncio.shield(early.application())
            except Exception:  # noqa: BLE001 - said when the application is read in turn
                return
            if str(info.get("id") if isinstance(info, dict) else "") != named:
                return
            wanted = named
        scopes = part.scopes if copy_global_to is None else tuple(dict.fromkeys(
            copy_global_to if scope == GLOBAL else scope for scope in part.scopes))
        early.scopes(wanted, scopes, permissions=part.permissions)
