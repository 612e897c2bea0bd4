"""``validate``: offline, the validate stage alone; ``--online``, the application first.

Offline, :func:`validate` opens no session and imports no HTTP client (it
runs on every commit, through pre-commit). Offline it cannot know what the application allows; online it
reads the application of the credentials once (``GET /applications/@me``
with a bot token, the ``application`` of ``GET /oauth2/@me`` with client
credentials; see :func:`cmdsync.client.endpoints.get_application`), through
the same connection options as ``plan`` (``--api-url``, ``--local``,
``--token-file``, ``--client-secret-file``), and adds the application rules
(CS601, CS602) to every offline one. Nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cmdsync.state import manifest_application_id
from cmdsync.state.application import AppInfo, app_info
from cmdsync.validate import ValidationResult, validate_paths

if TYPE_CHECKING:
    from cmdsync.runners.session import Connection


@dataclass(frozen=True)
class ValidationRun:
    """The validation result; online, the application it was checked against, and notes.

    ``notes`` say what could not be checked (a partial application object)
    or that the manifest names another application than the credentials'.
    """

    validation: ValidationResult
    application: AppInfo | None = None
    notes: tuple[str, ...] = ()


def validate(paths: list[str], *, select: Collection[str] = (), ignore: Collection[str] = (),
             connection: Connection | None = None, env: Mapping[str, str] | None = None,
             cwd: str | None = None) -> ValidationRun:
    """Validate ``paths``: offline without ``connection``, else online (see the module docstring).

    Raises :class:`~cmdsync.errors.CmdsyncError` (online only) for missing
    credentials or a refused read of the application.
    """
    if connection is None:  # offline: an unset ${VAR} is a placeholder
        return ValidationRun(validate_paths(paths, select=select, ignore=ignore, env=env,
                                            placeholders=True))
    return validate_online(paths, connection=connection, select=select, ignore=ignore,
                           env=env, cwd=cwd)


def read_current_application(connection: Connection, *,
                             env: Mapping[str, str] | None = None,
                             cwd: str | None = None) -> AppInfo:
    """The credentials' application, read once.

    Raises :class:`~cmdsync.errors.CmdsyncError` for missing credentials and
    :class:`~cmdsync.errors.ApiError` when Discord refuses the read.
    """
    # The session brings httpx and asyncio: imported here, so offline validate never pays.
    from cmdsync.client import endpoints
    from cmdsync.runners import aio
    from cmdsync.runners.session import open_session

    async def run() -> AppInfo:
        async with open_session(connection, env=env, cwd=cwd) as session:
            return app_info(await endpoints.get_application(session.client))

    return aio.run(run())


def validate_online(paths: list[str], *, connection: Connection, select: Collection[str] = (),
                    ignore: Collection[str] = (), env: Mapping[str, str] | None = None,
                    cwd: str | None = None) -> ValidationRun:
    """Read the application, then validate ``paths`` with every rule; see the module docstring."""
    env = os.environ if env is None else env
    application = read_current_application(connection, env=env, cwd=cwd)
    result = validate_paths(paths, select=select, ignore=ignore, env=env,
                            application=application)
    return ValidationRun(result, application, _notes(result, application,
                                                        local=connection.local))


def _notes(result: ValidationResult, application: AppInfo, *, local: bool) -> tuple[str, ...]:
    notes = []
    if application.integration_types is None:
        notes.append(f"application {application.id}: installation contexts unknown (no "
                     "integration_types_config in its application object): CS601 not checked")
    if application.flags is None:
        notes.append(f"application {application.id}: flags unknown: CS602 not checked")
    if result.manifest is not None and not local and not result.errors:
        named = manifest_application_id(result.manifest)
        if named is not None and named != application.id:
            notes.append(f"the manifests name application {named}, but the credentials "
                         f"belong to application {application.id}: checked against "
                         f"{application.id}")
    return tuple(notes)
