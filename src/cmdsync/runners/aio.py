"""``asyncio.run`` for coroutines whose result is large (a plan, a live state).

On its way out, ``asyncio.run`` puts back the SIGINT handler it installed
through ``signal.getsignal`` and ``signal.signal``. Both try to turn the
handler into a ``signal.Handlers`` member, and the failed lookup formats
``repr(handler)``: a partial holding the main task, whose repr includes
``repr(result)``. With a plan over a few hundred guilds that repr took
longer than the plan itself (CPython 3.11 and 3.12). :func:`run` hands the
result back outside the task, so the task's repr stays short.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion in a new event loop and return its result."""
    results: list[T] = []

    async def keep() -> None:
        results.append(await main)

    asyncio.run(keep())
    return results[0]
