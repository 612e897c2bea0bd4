"""Diagnostics as text (``file:line:col: RULE message``), JSON or GitHub annotations.

Each function returns the whole output as a string; the CLI writes it.
"""

from __future__ import annotations

import json
from itertools import groupby
from typing import TYPE_CHECKING, Any

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.render.escape import fenced, printable

if TYPE_CHECKING:
    from cmdsync.validate import ValidationResult


def _address(loc: Location) -> str:
    """``file:line:col``, the file name escaped (it is outside text: a line break or
    escape sequence in a name must not reach the terminal or a CI log)."""
    file = printable(loc.file)
    return f"{file}:{loc.line}:{loc.column}" if loc.line else file


def text_lines(result: ValidationResult) -> list[tuple[str, Diagnostic | None]]:
    """Plain lines, each with the diagnostic it shows (None for blank and summary)."""
    lines: list[tuple[str, Diagnostic | None]] = []
    for _, group in groupby(result.diagnostics, key=lambda d: d.location.file):
        if lines:
            lines.append(("", None))
        for diag in group:
            prefix = "" if diag.severity is Severity.ERROR else f"{diag.severity.value}: "
            line = f"{_address(diag.location)}: {diag.rule} {prefix}{printable(diag.message)}"
            for other in diag.related:
                line += f"\n    see {_address(other)}"
            lines.append((line, diag))
    if lines:
        lines.append(("", None))
    lines.append((summary(result), None))
    return lines


def summary(result: ValidationResult) -> str:
    """The closing line: counts of errors, warnings and files."""
    files = len(set(result.files) | {d.location.file for d in result.diagnostics})
    checked = f"{files} file{'s' if files != 1 else ''}"
    commands = len(result.manifest.commands) if result.manifest else 0
    notes = sum(1 for d in result.diagnostics if d.severity is Severity.NOTE)
    if len(result.diagnostics) == notes:
        valid = f"All {checked} valid ({commands} command{'s' if commands != 1 else ''})"
        return f"{valid}; {notes} note{'s' if notes != 1 else ''}." if notes else f"{valid}."
    with_problems = len({d.location.file for d in result.diagnostics})
    parts = []
    if result.errors:
        parts.append(f"{result.errors} error{'s' if result.errors != 1 else ''}")
    if result.warnings:
        parts.append(f"{result.warnings} warning{'s' if result.warnings != 1 else ''}")
    return f"Found {' and '.join(parts)} in {with_problems} of {checked}."


def to_text(result: ValidationResult) -> str:
    return "\n".join(line for line, _ in text_lines(result)) + "\n"


def failure_markdown(verb: str, result: ValidationResult) -> str:
    """The job-summary section of a ``plan`` or ``apply`` (``verb``) that the manifests
    stopped: a heading, the summary line, the diagnostics as text in a fence no file
    name can close (:func:`~cmdsync.render.escape.fenced`)."""
    return (f"### cmdsync {verb}\n\n**Failed:** the manifests do not validate: "
            f"{summary(result)}\n\n{fenced(to_text(result))}")


def to_rich(result: ValidationResult) -> Any:
    """The same lines as :func:`to_text`, styled for a rich console."""
    from rich.text import Text

    out = Text()
    for line, diag in text_lines(result):
        if diag is None:
            style = "bold red" if result.errors else ("bold yellow" if result.warnings
                                                       else "bold green")
            out.append(line + "\n", style=style if line else None)
            continue
        colour = {Severity.ERROR: "red", Severity.WARNING: "yellow"}.get(diag.severity, "cyan")
        address, rest = line.split(f": {diag.rule} ", 1)
        out.append(address, style="bold")
        out.append(": ")
        out.append(diag.rule, style=f"bold {colour}")
        out.append(f" {rest}\n")
    return out


def _location_json(loc: Location) -> dict[str, Any]:
    return {"file": loc.file, "line": loc.line, "column": loc.column, "path": loc.pointer}


def failure_json(error: str | None, exit_code: int,
                 validation: ValidationResult | None = None) -> str:
    """The one JSON document of a ``--format json`` run that produced no result:
    ``{"ok": false, "exit_code", "error" (the message, or null when the diagnostics
    say it), "diagnostics": [...] (as in :func:`to_json`), "summary"}``."""
    diagnostics = json.loads(to_json(validation))["diagnostics"] if validation else []
    document = {"ok": False, "exit_code": exit_code, "error": error,
                "diagnostics": diagnostics,
                "summary": summary(validation) if validation else error}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_json(result: ValidationResult) -> str:
    """``{"files", "diagnostics", "summary"}``; ``path`` is a JSON pointer."""
    document = {
        "files": result.files,
        "diagnostics": [
            {**_location_json(d.location), "rule": d.rule, "severity": d.severity.value,
             "message": d.message, "related": [_location_json(r) for r in d.related]}
            for d in result.diagnostics
        ],
        "summary": {
            "files": len(result.files),
            "commands": len(result.manifest.commands) if result.manifest else 0,
            "errors": result.errors,
            "warnings": result.warnings,
            "valid": result.errors == 0,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, location: Location | None = None,
               title: str = "") -> str:
    """One GitHub Actions workflow command: ``::error file=F,line=L,col=C,title=T::msg``
    (``level`` error, warning or notice; the location and title optional)."""
    props = []
    if location is not None and location.file:
        props.append(f"file={_escape_property(location.file)}")
        if location.line:
            props += [f"line={location.line}", f"col={location.column}"]
    if title:
        props.append(f"title={_escape_property(title)}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{_escape_data(message)}"


def to_github(result: ValidationResult) -> str:
    """GitHub Actions workflow commands (``::error file=..,line=..,col=..,title=..::msg``)."""
    lines = []
    for diag in result.diagnostics:
        level = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(diag.severity,
                                                                           "notice")
        lines.append(annotation(level, diag.message, diag.location, diag.rule))
    lines.append(summary(result))
    return "\n".join(lines) + "\n"