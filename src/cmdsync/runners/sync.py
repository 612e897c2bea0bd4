"""``cmdsync.sync``: plan and apply from Python, for a bot at startup.

Call it from discord.py's ``setup_hook`` instead of ``tree.sync()``::

    class MyBot(commands.Bot):
        async def setup_hook(self) -> None:
            result = await cmdsync.sync_async(self.tree)
            print(f"commands: {result.writes} write requests")

It plans like ``cmdsync plan`` (reads only) and applies like ``cmdsync apply
--auto-approve``: with the same guardrails, daily create budget (the ledger
in ``cwd``), backups and strategy. When nothing changed it makes no write
request, so it is safe at every start; ``tree.sync()`` bulk-overwrites every
time. The source is manifest paths, a ``discord.py:MODULE:ATTR`` reference,
or a ``CommandTree`` object (or a list of these). Credentials come from the
environment as for the CLI (``DISCORD_BOT_TOKEN``, ``DISCORD_APPLICATION_ID``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from cmdsync.apply.execute import NoProgress
from cmdsync.apply.result import ApplyResult
from cmdsync.apply.strategy import Strategy
from cmdsync.errors import InvalidManifestError, UsageError
from cmdsync.manifest.code import reference_to
from cmdsync.plan import Plan
from cmdsync.runners import aio
from cmdsync.runners.apply import ApplyOptions, apply_async
from cmdsync.runners.session import Connection

Source = str | Any  # a path, a discord.py: reference, or a discord.py CommandTree


class _Quiet(NoProgress):
    """Shows nothing and asks nothing: the caller gets the result."""

    def show_plan(self, plan: Plan) -> None:
        pass

    def confirm(self, plan: Plan) -> bool:
        return True


async def sync_async(source: Source | Sequence[Source], *, application_id: str | None = None,
                     api_url: str | None = None, local: bool = False,
                     token_file: str | None = None, strategy: str = "auto",
                     prune: bool = True, env: Mapping[str, str] | None = None,
                     cwd: str | None = None) -> ApplyResult:
    """Make Discord match ``source`` and return what was done (see the module docstring).

    ``strategy`` is ``auto``, ``bulk`` or ``per-command`` (``apply
    --strategy``); ``prune`` False keeps live commands the source does not
    name. Raises :class:`~cmdsync.errors.InvalidManifestError` (its
    ``diagnostics`` list the problems) when the source does not validate,
    :class:`~cmdsync.errors.UnsafePlanError` when the plan is unsafe
    (nothing is written), and :class:`~cmdsync.errors.CmdsyncError` for
    credentials and API failures before the first write; failures while
    writing are in the result (``result.ok`` is False).
    """
    items = [source] if isinstance(source, str) or not isinstance(source, Sequence) \
        else list(source)
    paths = [item if isinstance(item, str) else reference_to(item) for item in items]
    connection = Connection(api_url=api_url, local=local, token_file=token_file)
    run = await apply_async(paths, connection=connection,
                            options=ApplyOptions(Strategy(strategy), "stop", prune,
                                                 application_id),
                            hooks=_Quiet(), env=env, cwd=cwd)
    if run.result is None:
        problems = tuple(d for d in (run.validation.diagnostics if run.validation else ())
                         if d.severity.value == "error")
        raise InvalidManifestError(problems)
    return run.result


def sync(source: Source | Sequence[Source], **options: Any) -> ApplyResult:
    """:func:`sync_async` from synchronous code (it runs its own event loop).

    Raises :class:`~cmdsync.errors.UsageError` when called where an event loop
    already runs (a bot's ``setup_hook``, an ``async def``): ``await
    cmdsync.sync_async(...)`` there.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # none: the usual case
        return aio.run(sync_async(source, **options))
    raise UsageError("cmdsync.sync() runs an event loop of its own, and one already runs "
                     "here (an async def, a bot's setup_hook): use "
                     "`await cmdsync.sync_async(...)`, which takes the same arguments")
