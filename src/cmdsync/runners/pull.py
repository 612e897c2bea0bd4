"""`cmdsync pull`: read the live commands and overwrites, and write them as a manifest.

:func:`pull_application` opens the session, fetches the global scope and
the guilds asked for, and returns the manifest YAML
(:mod:`cmdsync.state.as_manifest`) with its warnings; it prints nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from cmdsync.errors import UsageError
from cmdsync.runners import aio
from cmdsync.runners.plan import resolve_application_id
from cmdsync.runners.session import (
    Connection,
    fetch_scopes,
    local_application_id,
    open_session,
)
from cmdsync.state.as_manifest import to_manifest, to_yaml
from cmdsync.state.live import LiveState


def pull_application(connection: Connection, *, guilds: Sequence[str], application_id: str | None,
                     env: Mapping[str, str] | None = None, cwd: str | None = None
                     ) -> tuple[str, list[str]]:
    """Fetch the global scope and ``guilds`` and return ``(manifest YAML, warnings)``.

    The application id comes from ``application_id``, else ``DISCORD_APPLICATION_ID`` (the
    emulator's under ``--local``). Raises
    :class:`~cmdsync.errors.ApiError` as Discord reported it.
    """
    env = os.environ if env is None else env
    bad = [g for g in guilds if not g.isdigit()]
    if bad:
        raise UsageError(f"--guild {bad[0]!r} is not a guild id (a snowflake)")
    app = resolve_application_id(
        manifest=None, flag=application_id, env=env,
        local_default=local_application_id() if connection.local else None)

    async def run() -> LiveState:
        async with open_session(connection, env=env, cwd=cwd, guilds=guilds) as session:
            return await fetch_scopes(session.client, app, ["global", *guilds])

    live = aio.run(run())
    manifest, warnings = to_manifest(live, guilds=guilds)
    return to_yaml(manifest), warnings
