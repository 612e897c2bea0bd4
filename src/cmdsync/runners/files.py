"""The files the runners read and write for the user: saved plans, and the key that signs
them where the credential cannot (:func:`local_plan_key`).

Reading and writing live here, so :mod:`cmdsync.plan.planfile` stays pure
(text in, :class:`~cmdsync.plan.Plan` out, and back).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import stat
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import read_bounded, work_directory, write_file
from cmdsync.plan.changes import Plan
from cmdsync.plan.planfile import Key, SavedPlan, dumps, load_saved
from cmdsync.state import LiveState

if TYPE_CHECKING:
    from cmdsync.manifest.entries import ManifestSet

MAX_PLAN_BYTES = 256 * 1024 * 1024
PLAN_KEY = "plan.key"  # in .cmdsync/: the random key of saved plans made with --local


def local_plan_key(cwd: str, *, create: bool = False) -> bytes | None:
    """The random key that signs saved plans where the credential is one anyone has
    (``--local``, the emulator's published tokens): 32 bytes kept as hex in
    ``cwd/.cmdsync/plan.key``, readable and writable by its owner only (0600).

    Made when ``create`` and absent (written whole under another name, then
    linked: a reader never sees half a key); otherwise None when absent. Raises
    :class:`~cmdsync.errors.CmdsyncError` naming the file when it is not a
    regular file of the current user's, when others may read or write it (its
    mode, and the ``chmod`` that fixes it), or when it holds no key.
    """
    path = os.path.join(work_directory(cwd, create=create), PLAN_KEY)
    if create and not os.path.lexists(path):
        _make_key(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CmdsyncError(f"cannot read the saved-plan key {path}: {exc.strerror or exc} "
                           "(a symbolic link is never followed): delete it and plan "
                           "again") from exc
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise CmdsyncError(f"the saved-plan key {path} is not a regular file: delete it "
                               "and plan again")
        if os.name == "posix" and (info.st_mode & 0o077 or info.st_uid != os.getuid()):
            raise CmdsyncError(
                f"the saved-plan key {path} has mode {stat.S_IMODE(info.st_mode):04o} or "
                "another owner: whoever can read it can sign a plan that apply trusts. Run "
                f"`chmod 600 {shlex.quote(path)}` as its owner, or delete it and plan again")
        text = file.read(65).strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != 32:
        raise CmdsyncError(f"the saved-plan key {path} holds no key: delete it and plan "
                           "again")
    return key


def _make_key(path: str) -> None:
    temporary = f"{path}.{secrets.token_hex(8)}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                 | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(secrets.token_bytes(32).hex().encode("ascii") + b"\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another plan made it meanwhile: that one is the key
    except OSError as exc:
        raise CmdsyncError(f"cannot write the saved-plan key {path}: "
                           f"{exc.strerror or exc}") from exc
    finally:
        os.unlink(temporary)


def save_plan(plan: Plan, path: str, *, api_url: str | None = None,
              prior: LiveState | None = None, key: bytes | None = None,
              manifest: ManifestSet | None = None, cwd: str | None = None,
              environment: Mapping[str, Any] | None = None) -> None:
    """Write the plan to ``path`` (:func:`cmdsync.manifest.files.write_file`: atomic,
    a regular file only, secrets redacted), with the live state it was made
    from (``prior``, see :func:`cmdsync.plan.planfile.to_document`) and, with
    ``key`` (:func:`cmdsync.runners.session.saved_plan_key`), its ``plan_hmac``;
    with ``manifest`` (the manifests it was made from), the digest of each one's
    text (``manifest_sha256``, :func:`cmdsync.state.desired.manifest_sources`); with
    ``cwd`` and ``api_url``, the apply serial of each of its scopes there
    (:mod:`cmdsync.apply.history`), so that apply refuses it once replayed; with
    ``environment`` (``{"name", "copy_global_to"}``), the environment of the project
    configuration it was made in, which ``apply`` then applies it to.

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
    write_file(path, dumps(plan, api_url=api_url, prior=prior, key=key, serials=serials,
                           environment=environment),
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


def recorded_environment(path: str) -> str | None:
    """The name of the environment a saved plan records (``environment.name``), read
    before the plan is loaded and checked, to choose the environment it is applied in
    (:func:`cmdsync.runners.apply_saved.apply_saved` holds it against the plan once checked);
    None when it records none or cannot be read (loading it says why).

    cmdsync writes it on the plan's fourth line, so that only the start of a large
    plan is read here; a plan laid out otherwise is read whole."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8192).decode("utf-8", "replace")
    except OSError:
        return None
    data: Any = None
    for line in head.splitlines()[1:6]:
        if line.startswith('  "environment": '):
            try:
                data = {"environment": json.loads(line.split(": ", 1)[1].rstrip(","))}
            except ValueError:
                pass
    if data is None and not head.startswith('{\n  "format_version":'):
        try:
            data = json.loads(read_bounded(path, MAX_PLAN_BYTES).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
    recorded = data.get("environment") if isinstance(data, dict) else None
    name = recorded.get("name") if isinstance(recorded, dict) else None
    return name if isinstance(name, str) else None
