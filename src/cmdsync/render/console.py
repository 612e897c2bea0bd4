"""The terminal: the one place cmdsync's output is written, and when to colour it.

:func:`out` (standard output: results, plans, JSON documents) and :func:`err`
(standard error: diagnostics beside a result, warnings, errors) are what the
CLI writes through; prompts and progress bars are in :mod:`cmdsync.render.apply`.
Everything written here passes :func:`cmdsync.client.redact.redact` first, so a
secret that reached a message (an error body that echoes the
``Authorization`` header, say) is never printed, whichever command met it;
then, unless rich styled it, :func:`cmdsync.render.escape.controls`, so no
escape sequence reaches the terminal (renderers escape outside text with
:func:`cmdsync.render.escape.printable` before that).
The rich console is imported only when colour is used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, Any

from cmdsync.client.redact import redact
from cmdsync.render.escape import controls, printable


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
    """Write ``text`` to standard output, secrets redacted (no newline added)."""
    write(sys.stdout, text)


def err(text: str) -> None:
    """Write ``text`` to standard error, secrets redacted (no newline added)."""
    write(sys.stderr, text)


def write(stream: IO[str], text: str, *, styled: bool = False) -> None:
    """Write ``text`` to ``stream`` (a prompt's), secrets redacted, control characters
    other than line breaks and tabs escaped unless ``styled`` (rich's own colour codes);
    characters the stream's encoding lacks (an ASCII terminal, ``LC_ALL=C``) as ``\\u``
    escapes."""
    text = redact(text)
    stream.write(_encodable(stream, text if styled else controls(text)))


def _encodable(stream: IO[str], text: str) -> str:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # an encoding Python does not know: leave it to the stream
        pass
    return text


def rich(renderable: Any, stream: IO[str] | None = None) -> None:
    """Print a rich renderable in colour to ``stream`` (stdout), secrets redacted.

    The renderable is drawn into a string first, so redaction sees the text
    exactly as it would reach the terminal.
    """
    console = rich_console(stream)
    with console.capture() as captured:
        console.print(renderable, end="")
    write(stream or sys.stdout, captured.get(), styled=True)


QUIET = False  # --quiet: results and problems only (set by the CLI)


def info(text: str) -> None:
    """Write ``text`` to standard error unless ``--quiet``: what was written where, what to
    do next; never a result, a warning or an error."""
    if not QUIET:
        err(text)


def warn(message: str) -> None:
    """``warning: <message>`` on standard error, as one line (the message may quote
    outside text: :func:`~cmdsync.render.escape.printable`)."""
    err(f"warning: {printable(message)}\n")


def text_or_rich(plain: str, styled: Callable[[], Any]) -> None:
    """Write ``plain`` to standard output, or ``styled()`` through rich when colouring."""
    if use_colour(sys.stdout):
        rich(styled())
    else:
        out(plain)
