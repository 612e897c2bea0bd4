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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.state import manifest_application_id
from cmdsync.state.application import AppInfo, app_info
from cmdsync.validate import ValidationResult, validate_paths
from cmdsync.validate.check import wanted

if TYPE_CHECKING:
    from cmdsync.manifest.entries import ManifestSet
    from cmdsync.runners.project import CopyTarget, Environment, Project
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


@dataclass(frozen=True)
class FileSet:
    """Manifests validated together, with an environment's variables (None: the
    process environment alone) and, when it sets ``copy_global_to``, its copy."""

    paths: tuple[str, ...]
    environment: Environment | None = None
    # the manifests' variables, when the caller made them (`--env NAME`, which refuses
    # a process environment that contradicts it); else the environment's, yielding
    variables: Mapping[str, str] | None = None


def validate_sets(sets: list[FileSet], *, project: Project | None,
                  select: Collection[str] = (), ignore: Collection[str] = (),
                  connection: Connection | None = None, env: Mapping[str, str] | None = None,
                  cwd: str | None = None) -> ValidationRun:
    """Validate each set of manifests with its environment (as ``--env`` would, but
    without refusing a process environment that differs: the environment only gives
    the manifests their variables), and merge the results: each file once, each
    diagnostic once; one that only some environments' sets find says which
    (``(environment dev)``). Sets that would be read alike (the same files, variables
    and copy) are validated once. Online, the application is read once.

    An environment's ``copy_global_to`` whose ``${VAR}`` is unset is a note at its
    line in the configuration, as an unset variable of a manifest is offline.
    """
    from cmdsync.runners.project import copy_target, environment_for

    env = os.environ if env is None else env
    online = sets[0].variables if sets and sets[0].variables is not None else env
    application = read_current_application(connection, env=online, cwd=cwd) \
        if connection is not None else None  # the one environment's application and URL
    runs: dict[Any, tuple[list[str | None], ValidationResult]] = {}
    for group in sets:
        chosen = group.environment
        name = chosen.name if chosen is not None else None
        variables = group.variables if group.variables is not None else \
            environment_for(project, chosen.name, env, explicit=False) \
            if chosen is not None else dict(env)
        copy = copy_target(project, chosen, variables, strict=False)
        alike = (group.paths, tuple(sorted(variables.items())),
                 name if chosen is not None and chosen.copy_global_to is not None else None)
        if alike in runs:
            runs[alike][0].append(name)
            continue
        result = validate_paths(list(group.paths), select=select, ignore=ignore,
                                env=variables, placeholders=application is None,
                                application=application)
        result = with_copy(result, copy, select=select, ignore=ignore)
        if copy is None and chosen is not None and chosen.copy_global_to is not None \
                and project is not None and wanted("CS004", select, ignore):
            result.diagnostics = sorted([*result.diagnostics, _copy_unresolved(project, chosen)],
                                        key=Diagnostic.sort_key)
        runs[alike] = ([name], result)
    merged = merge_results(list(runs.values()))
    if application is None:
        return ValidationRun(merged)
    return ValidationRun(merged, application,
                         _notes(merged, application,
                                local=connection is not None and connection.local))


def _copy_unresolved(project: Project, environment: Environment) -> Diagnostic:
    from cmdsync.runners.project import relative_path

    line = project.line("environments", environment.name, "copy_global_to") or 0
    return Diagnostic("CS004", Severity.NOTE, (
        f"environments.{environment.name}.copy_global_to {environment.copy_global_to!r} "
        "names a variable that is not set here: the copy of the global commands to that "
        "guild was not checked"), Location(relative_path(project.path), line, 1 if line else 0))


def merge_results(runs: list[tuple[list[str | None], ValidationResult]]) -> ValidationResult:
    """One result of several sets' (each with the names of the environments it stands
    for): files and documents once, in order; diagnostics once, sorted, each found by
    only some named environments marked with their names."""
    if len(runs) == 1:
        return runs[0][1]
    from cmdsync.manifest.entries import ManifestSet

    found: dict[Diagnostic, list[str | None]] = {}
    for names, result in runs:
        for diagnostic in result.diagnostics:
            found.setdefault(diagnostic, []).extend(names)
    everywhere = sum(len(names) for names, _ in runs)
    diagnostics = []
    for diagnostic, names in found.items():
        named = sorted({n for n in names if n is not None})
        said = all(f"environment {n} " in diagnostic.message for n in named)
        if len(names) < everywhere and named and not said:
            label = "environment" if len(named) == 1 else "environments"
            diagnostic = replace(diagnostic, message=f"{diagnostic.message} ({label} "
                                                     f"{', '.join(named)})")
        diagnostics.append(diagnostic)
    manifest = ManifestSet()
    seen: set[str] = set()
    for _, result in runs:
        if result.manifest is not None:
            _add_documents(manifest, result.manifest, seen)
    files = list(dict.fromkeys(f for _, result in runs for f in result.files))
    unreadable = list(dict.fromkeys(f for _, result in runs for f in result.unreadable))
    return ValidationResult(files, sorted(set(diagnostics), key=Diagnostic.sort_key), manifest,
                            unreadable)


def _add_documents(into: ManifestSet, manifest: ManifestSet, seen: set[str]) -> None:
    """``manifest``'s documents (and their commands and overwrites) not yet ``seen``."""
    new = {id(doc) for doc in manifest.documents if doc.file not in seen}
    seen.update(doc.file for doc in manifest.documents)
    into.documents += [doc for doc in manifest.documents if id(doc) in new]
    into.commands += [entry for entry in manifest.commands if id(entry.doc) in new]
    into.permissions += [entry for entry in manifest.permissions if id(entry.doc) in new]


def with_copy(result: ValidationResult, copy: CopyTarget | None, *,
              select: Collection[str] = (), ignore: Collection[str] = ()) -> ValidationResult:
    """``result`` with the problems of copying its global commands to ``copy``'s guild
    (:func:`copy_diagnostics`), those ``--select`` and ``--ignore`` keep; ``result``
    itself when there is no copy or nothing to say."""
    if copy is None or result.manifest is None:
        return result
    extra = [d for d in copy_diagnostics(result.manifest, copy)
             if wanted(d.rule, select, ignore)]
    if not extra:
        return result
    return replace(result, diagnostics=sorted([*result.diagnostics, *extra],
                                              key=Diagnostic.sort_key))


def copy_diagnostics(manifest: ManifestSet, copy: CopyTarget) -> list[Diagnostic]:
    """What copying the global commands to a guild (an environment's ``copy_global_to``)
    meets: a name declared both globally and in that guild (CS303, an error at the
    guild's declaration, naming both files and lines), and a global entry point,
    which is not copied (CS304, a warning)."""
    from cmdsync.model import CommandType
    from cmdsync.state.desired import copy_collisions, uncopied_entry_points

    found = []
    guild = copy.guild
    for first, second in copy_collisions(manifest, guild):
        there = first.doc.locate(first.path + ("name",))
        here = second.doc.locate(second.path + ("name",))
        kind = CommandType(second.type).name if second.type is not None else "CHAT_INPUT"
        found.append(Diagnostic("CS303", Severity.ERROR, (
            f"{kind} command {second.name!r} is declared globally ({there.file}:{there.line}) "
            f"and in guild {guild} ({here.file}:{here.line}); environment {copy.environment} "
            f"copies the global commands to guild {guild} (copy_global_to, {copy.where}), "
            "where names are unique per type: rename or remove one of them"),
            here, (there,)))
    for entry in uncopied_entry_points(manifest):
        found.append(Diagnostic("CS304", Severity.WARNING, (
            f"entry point {entry.name or '(unnamed)'!r} is not copied to guild {guild} "
            f"(environment {copy.environment}, copy_global_to, {copy.where}): "
            "PRIMARY_ENTRY_POINT commands are global only, and the global commands are "
            "left alone in this environment"), entry.doc.locate(entry.path + ("type",))))
    return found


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
