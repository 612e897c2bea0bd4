"""cmdsync: declarative Discord application commands (validate, plan, apply).

From Python: ``cmdsync.sync(source)`` and ``await cmdsync.sync_async(source)``
plan and apply in-process (:mod:`cmdsync.runners.sync`); imported on first
use, so ``import cmdsync`` stays light for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cmdsync.runners.sync import sync, sync_async

__version__ = "0.1.0"  # the one source: pyproject.toml reads it ([tool.setuptools.dynamic])
__all__ = ["__version__", "sync", "sync_async"]


def __getattr__(name: str) -> Any:
    if name in ("sync", "sync_async"):
        from cmdsync.runners import sync as runner

        return getattr(runner, name)
    raise AttributeError(f"module 'cmdsync' has no attribute {name!r}")
