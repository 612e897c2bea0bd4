"""`cmdsync pull`: read the live commands and overwrites, and write them as a manifest.

:func:`pull_application` opens the session, fetches the global scope and
the guilds asked for, and returns the manifest YAML
(:mod:`cmdsync.state.as_manifest`) with its warnings; it prints nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cmdsync.errors import UsageError
from cmdsync.runners import aio
from cmdsync.runners.fetch import fetch_scopes, read_application
from cmdsync.runners.plan import resolve_application_id
from cmdsync.runners.project_file import find_config
from cmdsync.runners.session import Connection, local_application_id, open_session
from cmdsync.state.application import AppInfo
from cmdsync.state.as_manifest import to_manifest, to_yaml
from cmdsync.state.live import LiveState

if TYPE_CHECKING:
    from cmdsync.runners.project import CopyTarget


def pull_application(connection: Connection, *, guilds: Sequence[str], application_id: str | None,
                     env: Mapping[str, str] | None = None, cwd: str | None = None,
                     output: str | None = None, as_json: bool = False,
                     copy_global_to: CopyTarget | None = None) -> tuple[str, list[str]]:
    """Fetch the global scope and ``guilds`` and return ``(manifest text, warnings)``.

    What a person would commit: values equal to Discord's defaults and to the
    application's (its ``integration_types``) left out, ``${DISCORD_APPLICATION_ID}``
    when that variable names the application, compact flow style for small leaf
    objects, and the editor modeline pointing at ``cmdsync.schema.json`` at the
    project's root (relative to ``output``, the file written; a warning says how
    to write the schema when it is not there). ``as_json``: the manifest as JSON.
    The application id comes from ``application_id``, else ``DISCORD_APPLICATION_ID``
    (the emulator's under ``--local``). With ``copy_global_to`` (the environment's),
    the global commands are where that environment keeps them: that guild's commands
    are written as the global ones (so that ``plan`` in that environment shows no
    changes), with a warning saying so, and the global scope is not read. Raises
    :class:`~cmdsync.errors.ApiError` as Discord reported it.
    """
    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd
    bad = [g for g in guilds if not g.isdigit()]
    if bad:
        raise UsageError(f"--guild {bad[0]!r} is not a guild id (a snowflake)")
    app = resolve_application_id(
        manifest=None, flag=application_id, env=env,
        local_default=local_application_id() if connection.local else None)

    copy = copy_global_to.guild if copy_global_to is not None else None
    read = [copy or "global", *(g for g in guilds if g != copy)]

    async def run() -> tuple[LiveState, AppInfo]:
        async with open_session(connection, env=env, cwd=cwd,
                                guilds=[g for g in read if g != "global"]) as session:
            info = await read_application(session.client, app)
            return await fetch_scopes(session.client, app, read), info

    live, info = aio.run(run())
    notes = []
    if copy_global_to is not None:
        live = _as_global(live, copy_global_to.guild)
        notes.append(f"{copy_global_to.heading}: guild {copy_global_to.guild}'s commands are "
                     "written as the global commands (the global scope was not read)")
    manifest, warnings = to_manifest(live, guilds=read[1:] + ([copy] if copy else []),
                                     default_integration_types=info.integration_types)
    if copy is not None:
        _drop_copied(manifest, copy)
    warnings = notes + warnings
    if not connection.local and env.get("DISCORD_APPLICATION_ID", "").strip() == app:
        manifest["application_id"] = "${DISCORD_APPLICATION_ID}"
    if as_json:
        return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", warnings
    schema, note = _schema_path(output, cwd)
    if note and output:  # written to a file, for an editor: say how to get the schema
        warnings.append(note)
    return to_yaml(manifest, schema=schema, application=app), warnings


def _schema_path(output: str | None, cwd: str) -> tuple[str, str | None]:
    """The modeline's path to the project's ``cmdsync.schema.json`` (at the configuration's
    folder, else the working directory), relative to the file written; and a note when
    the schema is not there yet."""
    project = find_config(cwd)
    root = project.root if project is not None else cwd
    schema = os.path.join(root, "cmdsync.schema.json")
    base = os.path.dirname(os.path.abspath(output)) if output else cwd
    relative = os.path.relpath(schema, base).replace(os.sep, "/")
    if os.path.exists(schema):
        return relative, None
    return relative, (f"the modeline points at {os.path.relpath(schema, cwd)}, which does not "
                      f"exist yet: write it with `cmdsync schema --output "
                      f"{os.path.relpath(schema, cwd)}` for your editor")


def _as_global(live: LiveState, guild: str) -> LiveState:
    """``live`` with ``guild``'s commands as the global scope's (where an environment
    that copies the global commands there keeps them), ``guild`` left with its
    overwrites alone."""
    from dataclasses import replace

    from cmdsync.state.live import LiveScope

    copied = live.scope(guild)
    scopes = dict(live.scopes)
    scopes["global"] = LiveScope("global", copied.commands)
    scopes[guild] = LiveScope(guild, (), copied.permissions, copied.permissions_read)
    return replace(live, scopes=scopes)


def _drop_copied(manifest: dict[str, object], guild: str) -> None:
    """The copy guild's entry without its (empty) ``commands``: its commands are the
    global ones; only its overwrites stay, and the entry goes when it has none."""
    guilds = manifest.get("guilds")
    if not isinstance(guilds, dict) or guild not in guilds:
        return
    guilds[guild].pop("commands", None)
    if not guilds[guild]:
        del guilds[guild]
    if not guilds:
        del manifest["guilds"]
