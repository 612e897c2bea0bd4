"""Discord's 50035 Invalid Form Body errors mapped back to manifest lines.

A 50035 answer nests its errors by key and array index of the request body
(Discord's "Error Messages" docs, "Array Error" and "Object Error"); request
bodies keep the manifest's keys and option order, so each leaf maps to the
file, line and JSON pointer that caused it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cmdsync.errors import ApiError, flatten_form_errors
from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity, pointer

if TYPE_CHECKING:
    from cmdsync.manifest.entries import CommandEntry

INVALID_FORM_BODY = 50035


def form_error_diagnostics(error: ApiError, entries: Sequence[CommandEntry | None], *,
                           single: bool = False) -> list[Diagnostic]:
    """A 50035 error's leaves as diagnostics at the manifest lines that caused them.

    ``entries[i]`` is the manifest command sent as item ``i`` of the body (a
    bulk overwrite), or None for an item the manifest did not write (a kept
    live command); with ``single`` the body was one command, ``entries[0]``.
    Keys and indexes map one to one because request bodies keep the
    manifest's keys and option order. Leaves that map nowhere point at the
    first entry's file, or at ``<request>``.
    """
    found = []
    for dotted, code, message in flatten_form_errors(error.errors or {}):
        parts: list[str | int] = [int(p) if p.isdigit() else p for p in dotted.split(".")
                                  if p != ""]
        entry = entries[0] if single and entries else None
        if not single and parts and isinstance(parts[0], int) and parts[0] < len(entries):
            entry = entries[parts[0]]
            parts = parts[1:]
        text = f"Discord rejected the request: {code}: {message}"
        if entry is None:
            fallback = next((e for e in entries if e is not None), None)
            file = fallback.doc.file if fallback is not None else "<request>"
            location = Location(file, 0, 0, pointer(tuple(parts)))
        else:
            location = entry.doc.locate(entry.path + tuple(parts))
        found.append(Diagnostic(f"D{error.code or 0}", Severity.ERROR, text, location))
    return found
