"""What a rule is: a stable id, a title, a severity, documentation and a check.

A rule module defines ``ID``, ``NAME``, ``TITLE``, ``SEVERITY``, a module
docstring (its documentation, with a failing and a passing example) and
``check(manifest) -> Iterator[Finding]``. Rules enforced by the JSON Schema
set ``CHECKED_BY = "schema"`` and have no ``check``. Rules that need to know
the application (its flags, its installation contexts) set
``NEEDS_APPLICATION = True`` and define ``check(manifest, application)``
instead: they run only when an :class:`~cmdsync.state.application.AppInfo` is
given (``validate --online``, ``plan``). A rule whose findings depend on
nothing but one command's body (its data, whether it is raw, its file's kind)
sets ``PER_COMMAND = True``: it runs once per distinct body
(:class:`PerCommand`), and its findings are repeated at every place that
body is written. :class:`Rule` wraps a module; the registry in
:mod:`cmdsync.validate.rules` lists them all.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from types import ModuleType

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.manifest.loader import Document, Path
from cmdsync.state.application import AppInfo


@dataclass(frozen=True)
class Finding:
    """A problem a rule found: where (document and path) and what.

    ``key=True`` points at the mapping key of ``path`` rather than its value
    (an unknown key, a bad locale). ``severity`` overrides the rule's own.
    ``related`` are other places the message mentions.
    """

    doc: Document
    path: Path
    message: str
    key: bool = False
    severity: Severity | None = None
    related: tuple[tuple[Document, Path], ...] = ()


Check = Callable[[ManifestSet], Iterator[Finding]]
AppCheck = Callable[[ManifestSet, AppInfo], Iterator[Finding]]


@dataclass(frozen=True)
class Rule:
    """A validation rule as listed by ``cmdsync rules``."""

    id: str
    name: str
    title: str
    severity: Severity
    doc: str
    check: Check | None
    checked_by: str  # "rule" (Python check), "schema", "loader", or "application"
    app_check: AppCheck | None = None  # the check of a rule that needs the application
    per_command: bool = False  # its findings depend on one command's body alone

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        check = getattr(module, "check", None)
        needs_app = getattr(module, "NEEDS_APPLICATION", False)
        return cls(
            id=module.ID,
            name=module.NAME,
            title=module.TITLE,
            severity=module.SEVERITY,
            doc=inspect.cleandoc(module.__doc__ or ""),
            check=None if needs_app else check,
            checked_by="application" if needs_app else getattr(module, "CHECKED_BY", "rule"),
            app_check=check if needs_app else None,
            per_command=getattr(module, "PER_COMMAND", False),
        )

    def diagnostic(self, finding: Finding) -> Diagnostic:
        related = tuple(doc.locate(path) for doc, path in finding.related)
        location: Location = finding.doc.locate(finding.path, key=finding.key)
        return Diagnostic(self.id, finding.severity or self.severity, finding.message,
                          location, related)


class PerCommand:
    """Per-command rules run once per distinct command body, their findings spread.

    Commands are alike when they share one data object (see
    :class:`cmdsync.manifest.loader.SharedBodies`), are equally raw and come
    from the same kind of file. :attr:`representatives` holds the first
    command of each such group; :meth:`spread` gives each finding on a
    representative at every command of its group, with that command's file
    and path (and the same message).
    """

    def __init__(self, manifest: ManifestSet) -> None:
        groups: dict[tuple[int, bool, str], list[CommandEntry]] = {}
        for entry in manifest.commands:
            groups.setdefault((id(entry.data), entry.raw, entry.doc.kind), []).append(entry)
        self.representatives = ManifestSet(manifest.documents,
                                           [group[0] for group in groups.values()],
                                           manifest.permissions)
        self._groups = {(id(group[0].doc), group[0].path): group for group in groups.values()
                        if len(group) > 1}
        self._lengths = sorted({len(path) for _, path in self._groups})

    def spread(self, findings: Iterable[Finding]) -> Iterator[Finding]:
        for finding in findings:
            group = next((found for found in (
                self._groups.get((id(finding.doc), finding.path[:n])) for n in self._lengths)
                if found), None)
            if group is None:
                yield finding
                continue
            first = group[0]
            n = len(first.path)
            for entry in group:
                related = tuple(
                    (entry.doc, entry.path + path[n:])
                    if doc is first.doc and path[:n] == first.path else (doc, path)
                    for doc, path in finding.related)
                yield replace(finding, doc=entry.doc, path=entry.path + finding.path[n:],
                              related=related)
