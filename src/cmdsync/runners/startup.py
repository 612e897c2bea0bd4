"""How the ``cmdsync`` program starts: the garbage collector's thresholds.

Starting ``cmdsync`` makes a few hundred thousand objects that live as long
as the process (typer's, httpx's and asyncio's modules, classes and
functions). With CPython's default thresholds the cyclic garbage collector
walks them again and again: about 15 ms before a plan's first request, and
full collections of 20 ms later on. So, as mypy does for its runs, the
collector waits for 200,000 allocations (not 700) while the process starts
(:func:`begin`, the first thing the program does: :mod:`cmdsync.__main__`);
once it has (:func:`started`, called as a session opens, just before the
first request), what the start made is set aside for good (:func:`gc.freeze`)
and the default thresholds come back, so that the garbage of the run itself
(every response's) is collected as often as in any Python program. A
library user's process, which imports :mod:`cmdsync` without running the
program, keeps its own settings. (Validation pauses the collector on its
own while it builds a manifest's data: :mod:`cmdsync.validate.gcpause`.)
"""

from __future__ import annotations

import gc

STARTING_THRESHOLD = (200_000, 30, 30)  # allocations before a collection; gen1, gen2 as mypy
_default: tuple[int, int, int] | None = None  # the thresholds to restore; None: not starting


def begin() -> None:
    """The program starts: the collector waits for :data:`STARTING_THRESHOLD` allocations."""
    global _default
    if _default is None:
        _default = gc.get_threshold()
        gc.set_threshold(*STARTING_THRESHOLD)


def started() -> None:
    """The process has started: freeze what it made and restore the default thresholds.

    Called when a session opens (:func:`cmdsync.runners.session.open_session`);
    again, or in a process that did not :func:`begin` (a library
    user's, a test's), it does nothing.
    """
    global _default
    if _default is not None:
        gc.freeze()
        gc.set_threshold(*_default)
        _default = None
