"""Errors of the HTTP client, and 50035 errors mapped back to manifest lines.

Exception tree (all are :class:`~cmdsync.errors.CmdsyncError`: a clean
message, exit 1)::

    ClientError            a request could not be completed
    ├── ApiError           Discord answered with an error (4xx/5xx, or 429 after retries)
    └── NetworkError       no usable answer after every retry (timeouts, resets)

Messages name the method, path, status and Discord's own ``code`` and
``message`` (FACTS.md "Errors"); they never hold a token, because requests
carry the ``Authorization`` header only on the wire.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cmdsync.diagnostics import Diagnostic, Location, Severity, pointer
from cmdsync.errors import CmdsyncError
from cmdsync.manifest.model import CommandEntry

INVALID_FORM_BODY = 50035


class ClientError(CmdsyncError):
    """A request to Discord failed; ``method`` and ``path`` say which."""

    def __init__(self, message: str, *, method: str, path: str) -> None:
        super().__init__(message)
        self.method = method
        self.path = path


class ApiError(ClientError):
    """Discord's error response: HTTP ``status``, its ``code``, ``message`` and ``errors``.

    ``errors`` is the nested 50035 object (None otherwise). ``retry_after``
    is in seconds, for 429s. ``hint`` says what to do, when Discord's
    message does not (a 401, codes 20001 and 10063).
    """

    def __init__(self, *, method: str, path: str, status: int, code: int | None,
                 message: str, errors: Mapping[str, Any] | None = None,
                 retry_after: float | None = None, hint: str | None = None) -> None:
        text = f"{method} {path}: HTTP {status}: {message}"
        if code is not None:
            text += f" (code {code})"
        if hint:
            text += f": {hint}"
        for field, leaf_code, leaf_message in flatten_form_errors(errors or {}):
            text += f"\n  {field or '(request)'}: {leaf_code}: {leaf_message}"
        super().__init__(text, method=method, path=path)
        self.status = status
        self.code = code
        self.discord_message = message
        self.errors = dict(errors) if errors else None
        self.retry_after = retry_after


class NetworkError(ClientError):
    """No usable response after every retry (connection refused, reset, timeout)."""


def flatten_form_errors(errors: Mapping[str, Any], prefix: tuple[str, ...] = ()
                        ) -> Iterator[tuple[str, str, str]]:
    """``(dotted path, code, message)`` for every ``_errors`` leaf of a 50035 body.

    Paths are keys and array indexes joined with dots (``0.options.1.name``),
    as Discord nests them; ``""`` is the whole request.
    """
    for key, value in errors.items():
        if key == "_errors" and isinstance(value, list):
            for leaf in value:
                if isinstance(leaf, dict):
                    yield (".".join(prefix), str(leaf.get("code", "")),
                           str(leaf.get("message", "")))
        elif isinstance(value, dict):
            yield from flatten_form_errors(value, prefix + (str(key),))


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
