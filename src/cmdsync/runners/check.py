"""``cmdsync check``: discord.py handlers against the manifests, or against live commands.

Loads the tree (:mod:`cmdsync.manifest.code`) and the manifests (validated
first: their own problems come back instead), builds both sides in API form
and compares them (:mod:`cmdsync.validate.handlers`). With ``--live`` the
other side is the application's live commands (read like ``pull``):
diagnostics then point at ``live:<scope>``, with the handler's line as the
related location.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from cmdsync.manifest.code import load_tree, tree_commands
from cmdsync.manifest.diagnostics import Location, Severity
from cmdsync.model import GLOBAL
from cmdsync.runners.session import Connection
from cmdsync.state.normalize import request_body
from cmdsync.validate import ValidationResult, validate_paths
from cmdsync.validate.handlers import Side, compare


def check_handlers(reference: str, manifests: list[str], *, connection: Connection | None = None,
                   application_id: str | None = None, env: Mapping[str, str] | None = None,
                   cwd: str | None = None) -> ValidationResult:
    """The disagreements between handlers and manifests (or live commands), as a result.

    ``env``: the variables the manifests read (an unset ``${VAR}`` is a placeholder,
    a note, as offline ``validate`` has it), the application and API URL of
    ``--live``, and what the bot code sees while it is imported.

    Raises :class:`~cmdsync.errors.UsageError` for an unusable reference and,
    with ``connection``, :class:`~cmdsync.errors.CmdsyncError` for
    credentials or API failures.
    """
    from cmdsync.runners.export import code_environment

    env = os.environ if env is None else env
    with code_environment(env):
        tree = load_tree(reference)
    code = [Side(c.scope, c.payload, _handler(c.file, c.line)) for c in tree_commands(tree)]
    if connection is not None:
        live = _live_sides(connection, code, application_id=application_id, env=env, cwd=cwd)
        result = ValidationResult(files=[reference])
        result.diagnostics = compare(live, code, source=reference)
        return result
    result = validate_paths(manifests, env=env, placeholders=True)
    if result.errors or result.manifest is None:
        return result
    # A guild named by an unset ${VAR} is a note (as offline validate has it): its
    # commands, and the code's of guilds the manifests do not name, are not compared.
    unresolved = {e.scope for e in result.manifest.commands if "${" in e.scope}
    named = {e.scope for e in result.manifest.commands}
    declared = [Side(e.scope, request_body(e.data), _entry_locator(e))
                for e in result.manifest.commands if e.scope not in unresolved]
    if unresolved:
        code = [c for c in code if c.scope == GLOBAL or c.scope in named]
    result.diagnostics = sorted(
        [d for d in result.diagnostics if d.severity is not Severity.ERROR]
        + compare(declared, code, source=reference), key=lambda d: d.sort_key())
    return result


def _handler(file: str, line: int) -> Any:
    return lambda path: Location(file, line, 1)


def _entry_locator(entry: Any) -> Any:
    return lambda path: entry.doc.locate(entry.path + tuple(path))


def _live_sides(connection: Connection, code: list[Side], *, application_id: str | None,
                env: Mapping[str, str], cwd: str | None) -> list[Side]:
    from cmdsync.runners import aio
    from cmdsync.runners.fetch import fetch_scopes
    from cmdsync.runners.plan import resolve_application_id
    from cmdsync.runners.session import local_application_id, open_session

    app = resolve_application_id(manifest=None, flag=application_id, env=env,
                                 local_default=local_application_id() if connection.local
                                 else None)
    scopes = sorted({c.scope for c in code} | {"global"})

    async def run() -> list[Side]:
        guilds = [s for s in scopes if s != "global"]
        async with open_session(connection, env=env, cwd=cwd, guilds=guilds) as session:
            live = await fetch_scopes(session.client, app, scopes, need_permissions=[])
        return [Side(scope, command, lambda path, s=scope: Location(f"live:{s}"))
                for scope in scopes for command in live.scope(scope).commands]

    return aio.run(run())
