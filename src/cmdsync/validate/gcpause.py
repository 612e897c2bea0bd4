"""Pause Python's cyclic garbage collector while building large acyclic data.

Loading and checking a manifest allocates a tree of small objects (YAML
nodes, dicts, diagnostics) that holds no reference cycles: reference
counting frees all of it. The cyclic collector still rescans the growing
tree every few hundred allocations; on a 10,000-command manifest that was
a third of ``validate``'s time. :func:`paused` turns it off for a block and
back on after (only if it was on), so a long-running emulator keeps it.

On the way out it also freezes what is alive (``gc.freeze``): a plan then
keeps the manifest while it waits on Discord, and without that every
collection while it waits would walk all of it again (a second or more
for 25,000 commands). Frozen objects are still freed by reference
counting when their last reference goes.

:func:`trim_heap` gives the C heap's free memory back to the system, where
large texts read and freed leave it (Python's own allocator does not reuse it).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def trim_heap() -> None:
    """Return the C heap's free memory to the system: glibc's ``malloc_trim(0)`` on
    Linux, nothing elsewhere (musl has none). A large manifest's text, read and freed
    (or compressed), would otherwise stay in a plan's resident memory while Python's
    allocator takes new memory for the live state read next."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
