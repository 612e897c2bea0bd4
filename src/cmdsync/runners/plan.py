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
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from cmdsync.apply.guardrails import with_budget_warnings
from cmdsync.apply.ledger import load as load_ledger
from cmdsync.client.http import DiscordClient
from cmdsync.errors import CmdsyncError, UsageError
from cmdsync.manifest.diagnostics import Location
from cmdsync.plan import Differ, Plan
from cmdsync.runners import aio
from cmdsync.runners.session import (
    Connection,
    fetch_live,
    local_application_id,
    needs_user_token,
    open_session,
    read_application,
)
from cmdsync.state import DesiredState, LiveState, desired_state, manifest_application_id
from cmdsync.state.application import AppInfo
from cmdsync.validate import ValidationResult, validate_paths, with_application


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
            env: Mapping[str, str]) -> tuple[ValidationResult, DesiredState | None]:
    """Validate ``paths`` and build their desired state (None when validation failed).

    Raises :class:`~cmdsync.errors.CmdsyncError` as
    :func:`resolve_application_id` does.
    """
    validation = validate_paths(paths, env=env)
    if validation.errors or validation.unreadable or validation.manifest is None:
        return validation, None
    manifest = validation.manifest
    local_default = local_application_id() if connection.local else None
    own = None if connection.local else manifest_application_id(manifest)
    app = resolve_application_id(manifest=own, flag=application_id, env=env,
                                 local_default=local_default)
    return validation, desired_state(manifest, application_id=app)


async def plan_live(client: DiscordClient, desired: DesiredState, *, prune: bool,
                    application: AppInfo | None = None) -> tuple[Plan, LiveState]:
    """Read the live state ``desired`` needs and diff: the plan, and the state it saw.

    ``plan`` and ``apply`` both plan through here, so they plan alike.
    ``application`` (:func:`~cmdsync.runners.session.read_application`, read once per
    run) gives global commands their default ``integration_types`` and makes
    the application rules (CS601, CS602) plan errors, which apply refuses
    before any write; without it, an unset ``integration_types`` compares
    with the live value and those rules do not run.
    """
    differ = Differ(desired, prune=prune, application=application)
    live = await fetch_live(client, str(desired.application_id), desired,
                            application=application,
                            on_scope=lambda scope: differ.add(scope.scope, scope.commands))
    plan = differ.plan(live)
    return (with_unknowns(plan, application) if application else plan), live


async def plan_session(client: DiscordClient, desired: DesiredState,
                       validation: ValidationResult, *, prune: bool
                       ) -> tuple[ValidationResult, Plan | None, LiveState | None, AppInfo]:
    """Read the application, run the rules that need it, then :func:`plan_live`.

    Returns the validation with those rules' diagnostics, the plan and the
    live state it saw (both None when those rules found errors: no command
    is read), and the application. ``plan`` and ``apply`` both start here.
    """
    named = _named_application(validation)
    info = await read_application(client, str(desired.application_id), named=named)
    checked = with_application(validation, info)
    if checked.errors:  # before reading, let alone writing, any command
        return checked, None, None, info
    plan, live = await plan_live(client, desired, prune=prune, application=info)
    if named is not None and named != desired.application_id:  # only --local plans another
        note = (f"the manifests name application {named}, which the local emulator does "
                f"not know: --local plans its application {desired.application_id} instead")
        plan = replace(plan, warnings=(*plan.warnings, note))
    return checked, replace(plan, application_name=info.name), live, info


def _named_application(validation: ValidationResult) -> str | None:
    """The ``application_id`` the manifests name (None: none, or several: prepare says so
    where it matters)."""
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
               cwd: str | None = None) -> PlanRun:
    """Validate ``paths``, then plan them against the live state; see the module docstring.

    The plan warns when the create ledger (:mod:`cmdsync.apply.ledger`, under
    ``cwd``) shows today's create budget running low.
    """
    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd
    validation, desired = prepare(paths, connection=connection, application_id=application_id,
                                  env=env)
    if desired is None:
        return PlanRun(validation)

    state: DesiredState = desired

    async def run() -> tuple[ValidationResult, Plan | None, LiveState | None, AppInfo, str]:
        guilds = [scope for scope in state.scopes if scope != "global"]
        async with open_session(connection, env=env, cwd=cwd, guilds=guilds,
                                application_id=needs_user_token(state)) as session:
            checked, plan, live, info = await plan_session(session.client, state, validation,
                                                           prune=prune)
            return checked, plan, live, info, session.api_url

    checked, plan, live, info, api_url = aio.run(run())
    if plan is None:
        return PlanRun(checked, api_url=api_url, application=info)
    plan = with_budget_warnings(plan, ledger=load_ledger(cwd), api_url=api_url, now=time.time())
    located = state.locations()
    return PlanRun(checked, plan, api_url, info, located, live)
