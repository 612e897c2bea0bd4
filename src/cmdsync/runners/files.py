"""The files the runners read and write for the user: saved plans.

Reading and writing live here, so :mod:`cmdsync.plan.planfile` stays pure
(text in, :class:`~cmdsync.plan.Plan` out, and back).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import read_bounded, write_file
from cmdsync.plan.changes import Plan
from cmdsync.plan.planfile import Key, SavedPlan, dumps, load_saved
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.manifest.entries import ManifestSet

MAX_PLAN_BYTES = 256 * 1024 * 1024


def save_plan(plan: Plan, path: str, *, api_url: str | None = None,
              prior: LiveState | None = None, key: bytes | None = None,
              manifest: ManifestSet | None = None, cwd: str | None = None) -> None:
    """Write the plan to ``path`` (:func:`cmdsync.manifest.files.write_file`: atomic,
    a regular file only, secrets redacted), with the live state it was made
    from (``prior``, see :func:`cmdsync.plan.planfile.to_document`) and, with
    ``key`` (:func:`cmdsync.runners.session.saved_plan_key`), its ``plan_hmac``;
    with ``manifest`` (the manifests it was made from), the digest of each one's
    text (``manifest_sha256``, :func:`cmdsync.state.desired.manifest_sources`); with
    ``cwd`` and ``api_url``, the apply serial of each of its scopes there
    (:mod:`cmdsync.apply.history`), so that apply refuses it once replayed.

    Raises :class:`~cmdsync.errors.UsageError` for a destination that is a
    symbolic link or not a regular file, :class:`~cmdsync.errors.CmdsyncError`
    when it cannot be written.
    """
    if manifest is not None:
        from cmdsync.state.desired import manifest_sources

        plan = replace(plan, manifest_sha256=manifest_sources(manifest))
    serials = None
    if cwd is not None and api_url is not None:
        from cmdsync.apply import history

        serials = history.serials(cwd, api_url, plan.application_id,
                                  [s.scope for s in plan.scopes])
    write_file(path, dumps(plan, api_url=api_url, prior=prior, key=key, serials=serials),
               what="the plan", data=True)


def load_plan(path: str) -> tuple[Plan, str | None]:
    """A saved plan and its ``api_url`` (where live state was read; None if not recorded).

    Raises :class:`~cmdsync.errors.CmdsyncError` for an unreadable file or
    one that is not a cmdsync plan (:func:`cmdsync.plan.planfile.load_saved`).
    """
    saved = load_saved_plan(path)
    return saved.plan, saved.api_url


def load_saved_plan(path: str, *, key: Key = None) -> SavedPlan:
    """A saved plan, its ``api_url``, the live state it was made from and, with ``key``,
    whether its ``plan_hmac`` proves it cmdsync's own; raises as :func:`load_plan` does."""
    try:
        text = read_bounded(path, MAX_PLAN_BYTES).decode("utf-8")
    except (OSError, ValueError) as exc:
        raise CmdsyncError(f"cannot read the saved plan {path}: {exc}") from exc
    return load_saved(text, path=path, key=key)
