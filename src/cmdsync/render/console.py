"""The terminal: the one place cmdsync's output is written, and when to colour it.

:func:`out` (standard output: results, plans, JSON documents) and :func:`err`
(standard error: diagnostics beside a result, warnings, errors) are what the
CLI writes through; prompts and progress bars are in :mod:`cmdsync.render.apply`.
The rich console is imported only when colour is used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, Any


def use_colour(stream: IO[str]) -> bool:
    """Colour only on a terminal, never with ``NO_COLOR`` set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def rich_console(stream: IO[str] | None = None) -> Any:
    """A rich Console writing to ``stream`` (stdout by default)."""
    from rich.console import Console  # deferred: rich costs ~50 ms to import

    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True)


def out(text: str) -> None:
    """Write ``text`` to standard output, as it is (no newline added)."""
    sys.stdout.write(text)


def err(text: str) -> None:
    """Write ``text`` to standard error, as it is (no newline added)."""
    sys.stderr.write(text)


def warn(message: str) -> None:
    """``warning: <message>`` on standard error."""
    err(f"warning: {message}\n")


def text_or_rich(plain: str, styled: Callable[[], Any]) -> None:
    """Write ``plain`` to standard output, or ``styled()`` through rich when colouring."""
    if use_colour(sys.stdout):
        rich_console().print(styled(), end="")
    else:
        out(plain)
