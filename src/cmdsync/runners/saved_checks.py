"""What a saved plan must pass before apply reads or writes anything: no code it names
imported, its manifests beside it (or its ``plan_hmac`` vouching for it), the
environment it records, no replay, and prior state enough for a backup.

Each check raises :class:`~cmdsync.errors.UnsafePlanError` (or
:class:`~cmdsync.errors.UsageError` for flags that contradict the plan) naming what
differs; :func:`cmdsync.runners.apply_saved.apply_saved` runs them in order.
:func:`environment_to_apply` comes first, before the plan is loaded: the
environment the plan records is the one ``apply`` selects.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cmdsync.apply import history
from cmdsync.apply.guardrails import manifest_reasons
from cmdsync.errors import UnsafePlanError, UsageError
from cmdsync.manifest.files import (
    MAX_MANIFEST_BYTES,
    bytes_digest,
    is_code_source,
    read_bounded,
)
from cmdsync.manifest.interpolate import may_interpolate
from cmdsync.model import scope_label
from cmdsync.plan import Action, Plan
from cmdsync.runners.files import recorded_environment
from cmdsync.runners.project_file import find_config
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.plan.planfile import SavedPlan
    from cmdsync.runners.project import CopyTarget
    from cmdsync.state.desired import DesiredState
    from cmdsync.validate import ValidationResult


def check_environment(path: str, saved: SavedPlan, environment: str | None,
                       copy: CopyTarget | None) -> None:
    """Refuse a saved plan applied to another environment than the one it records, or
    whose copy of the global commands (``copy_global_to``) the configuration no longer
    makes: :class:`~cmdsync.errors.UsageError` naming both."""
    recorded = saved.environment or {}
    name, guild = recorded.get("name"), recorded.get("copy_global_to")
    if name is not None and environment is not None and name != environment:
        raise _other_environment(path, name, environment)
    now = copy.guild if copy is not None else None
    if guild != now:
        made = f"copies the global commands to guild {guild}" if guild is not None else \
            "leaves the global commands global"
        said = f"copies them to guild {now} ({copy.where})" if copy is not None else \
            "does not copy them (no copy_global_to)"
        raise UsageError(f"the saved plan {path} {made}, but environment "
                         f"{environment or name} {said}: plan again with `cmdsync plan "
                         f"--env {environment or name} --out FILE`")


def environment_to_apply(path: str, requested: str | None) -> str | None:
    """The environment the saved plan at ``path`` records
    (:func:`~cmdsync.runners.files.recorded_environment`), which it is applied to; None
    when it records none. A :class:`~cmdsync.errors.UsageError` when ``requested``
    (``--env``) names another, or when the project configuration that defines it is
    not here (the working directory or above)."""
    recorded = recorded_environment(path)
    if recorded is None:
        return None
    if requested is not None and requested != recorded:
        raise _other_environment(path, recorded, requested)
    project = find_config()
    if project is None or recorded not in project.environments:
        where = "no cmdsync.toml (or [tool.cmdsync] in pyproject.toml) here or above" \
            if project is None else f"{project.path} defines no environment {recorded!r}"
        raise UsageError(f"the saved plan {path} was made for environment {recorded} of "
                         f"the project configuration, but {where}: apply it in the project "
                         "it was made in")
    return recorded


def _other_environment(path: str, recorded: str, requested: str) -> UsageError:
    return UsageError(f"--env {requested}, but the saved plan {path} was made for "
                      f"environment {recorded}: apply it without --env (it applies to "
                      f"{recorded}), or plan again with `cmdsync plan --env {requested} "
                      "--out FILE`")


def replay_reasons(path: str, saved: SavedPlan, *, cwd: str, force: bool) -> list[str]:
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


def prior_gaps(plan: Plan, prior: LiveState) -> list[str]:
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


def check_manifests(path: str, plan: Plan, *, cwd: str, env: Mapping[str, str],
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
        changed = changed_texts(files, plan.manifest_sha256)
        if changed:
            raise UnsafePlanError([f"{f}: changed since the plan was made" for f in changed],
                                  heading=(
                f"the saved plan {path} does not match the manifests it was made from, and "
                "apply never imports the bot code a saved plan names to hold it against "
                "them; nothing was changed. Plan again (`cmdsync plan --out FILE`):"))
        return None
    if authentic and same_texts(files, plan.manifest_sha256):
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


def same_texts(files: Sequence[str], digests: Sequence[str | None]) -> bool:
    """Whether each of ``files`` has the text whose digest the plan holds
    (:func:`cmdsync.manifest.files.text_digest`); False if one has none (its
    bodies depend on the environment) or cannot be read.

    The bytes are hashed as read, a byte order mark dropped: for UTF-8 they
    are the text's encoding, and bytes that are not UTF-8 match no digest.
    """
    if len(digests) != len(files) or None in digests:
        return False
    for file, digest in zip(files, digests):
        raw = text(file)
        if raw is None or may_interpolate(raw) or bytes_digest(raw) != digest:
            return False
    return True


def text(file: str) -> bytes | None:
    """A manifest's bytes as read, a byte order mark dropped; None when unreadable."""
    try:
        raw = read_bounded(file, MAX_MANIFEST_BYTES)
    except OSError:
        return None
    return raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw


def changed_texts(files: Sequence[str], digests: Sequence[str | None]) -> list[str]:
    """The manifest files (not bot code) whose text differs from the digest the plan
    holds for it, or that cannot be read; one with no digest (its bodies depend on the
    environment) is not held against it."""
    if len(digests) != len(files):
        return [f for f in files if not is_code_source(f)]
    changed = []
    for file, digest in zip(files, digests):
        if is_code_source(file) or digest is None:
            continue
        raw = text(file)
        if raw is None or bytes_digest(raw) != digest:
            changed.append(file)
    return changed
