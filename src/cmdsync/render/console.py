"""When to colour, and the rich console that does it (imported only then)."""

from __future__ import annotations

import os
import sys
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
