"""Diagnostics: the values validation produces instead of raising.

Every problem cmdsync finds in a manifest is a :class:`Diagnostic` with an
address (file, 1-based line and column, RFC 6901 JSON pointer) and a stable
rule id. Nothing here prints; ``cmdsync.render`` turns diagnostics into text,
JSON or GitHub annotations. :func:`problem` records an error on a file being
read.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


class Severity(str, enum.Enum):
    """How bad a diagnostic is. Only ``ERROR`` makes ``validate`` exit 1; a ``NOTE``
    says what could not be checked (an unset ``${VAR}`` offline)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, order=True)
class Location:
    """Where a diagnostic points: a file, a 1-based line and column, a JSON pointer.

    ``line`` and ``column`` are 0 when the file could not be read at all.
    ``pointer`` is an RFC 6901 JSON pointer into the file's data (``""`` is
    the whole document, ``/commands/0/name`` a command's name, ``/0/name``
    the first command of a JSON array).
    """

    file: str
    line: int = 0
    column: int = 0
    pointer: str = ""


@dataclass(frozen=True)
class Diagnostic:
    """One problem: rule id, severity, message and where it is.

    ``related`` holds other places the message refers to (the first
    declaration of a duplicated command, for example).
    """

    rule: str
    severity: Severity
    message: str
    location: Location
    related: tuple[Location, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.rule, self.message)


def pointer(path: tuple[str | int, ...]) -> str:
    """Render a path of keys and indexes as an RFC 6901 JSON pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


class Recorder(Protocol):
    """What :func:`problem` records on: a file being read (a loader's ``Document``)."""

    file: str
    diagnostics: list[Diagnostic]


def problem(doc: Recorder, rule: str, message: str, line: int = 1, column: int = 1,
            ptr: str = "") -> None:
    """Record the error ``message`` (rule ``rule``) on ``doc`` at ``line``:``column``,
    the JSON pointer ``ptr``; a line and column of 0 mean the file was not read."""
    doc.diagnostics.append(
        Diagnostic(rule, Severity.ERROR, message, Location(doc.file, line, column, ptr))
    )
