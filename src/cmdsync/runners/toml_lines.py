"""Where a problem is in a TOML file, for messages: a key's line, a string's line, and
the known name closest to a misspelt one.

``tomllib`` keeps no positions, so :func:`key_line` finds a key by reading
the lines as TOML writes them (``key =``, ``[table]``, dotted keys): an aid
for messages (``cmdsync.toml:3: ...``), not a parser; None when unsure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def quoted_line(path: str, value: str) -> int | None:
    """The first line of ``path`` holding ``value`` quoted (a TOML string), or None."""
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if f'"{value}"' in text or f"'{value}'" in text:
                    return number
    except (OSError, UnicodeDecodeError):
        pass
    return None


def quoted_header(path: str, table: str) -> int | None:
    """The line of the ``[table]`` header (``[tool.cmdsync]``) in ``path``, or None."""
    pattern = re.compile(r"\s*\[\s*" + r"\s*\.\s*".join(map(re.escape, table.split(".")))
                         + r"\s*\]")
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if pattern.match(text):
                    return number
    except (OSError, UnicodeDecodeError):
        pass
    return None


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """``: did you mean 'x'?`` for the known name closest to ``given`` (a typo, or the
    start of a name), else ``""``."""
    import difflib

    names = sorted(known)
    close = difflib.get_close_matches(given, names, n=1, cutoff=0.6) or [
        n for n in names if given and (n.startswith(given) or given.startswith(n))][:1]
    return f": did you mean {close[0]!r}?" if close else ""


def key_line(path: str, keys: Sequence[str], prefix: str = "") -> int | None:
    """The line (1-based) of the TOML key ``keys`` (a dotted path below the table
    ``prefix``) in the file ``path``: its ``key =`` line, else its table's header; None
    when it cannot be found (a messages' aid, not a TOML parser)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    full = [*(prefix.split(".") if prefix else []), *keys]
    table: list[str] = []
    best = None
    for number, text in enumerate(lines, 1):
        header = re.match(r"\s*\[\[?\s*([^\]]+?)\s*\]", text)
        if header:
            table = [part.strip().strip("\"'") for part in header.group(1).split(".")]
            if full[:len(table)] == table and (best is None or len(table) > best[0]):
                best = (len(table), number)
            continue
        assigned = re.match(r"\s*([\w\"'.-]+?)\s*=", text)
        if assigned:
            key = [*table, *(p.strip().strip("\"'") for p in assigned.group(1).split("."))]
            if (full[:len(key)] == key or key[:len(full)] == full) and (
                    best is None or len(key) >= best[0]):
                best = (len(key), number)
    return best[1] if best else None
