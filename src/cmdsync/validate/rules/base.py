"""What a rule is: a stable id, a title, a severity, documentation and a check.

A rule module defines ``ID``, ``NAME``, ``TITLE``, ``SEVERITY``, a module
docstring (its documentation, with a failing and a passing example) and
``check(manifest) -> Iterator[Finding]``. Rules enforced by the JSON Schema
set ``CHECKED_BY = "schema"`` and have no ``check``. Rules that need to know
the application (its flags, its installation contexts) set
``NEEDS_APPLICATION = True`` and define ``check(manifest, application)``
instead: they run only when an :class:`~cmdsync.state.application.AppInfo` is
given (``validate --online``, ``plan``). :class:`Rule` wraps a module; the
registry in :mod:`cmdsync.validate.rules` lists them all.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.manifest.entries import ManifestSet
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
        )

    def diagnostic(self, finding: Finding) -> Diagnostic:
        related = tuple(doc.locate(path) for doc, path in finding.related)
        location: Location = finding.doc.locate(finding.path, key=finding.key)
        return Diagnostic(self.id, finding.severity or self.severity, finding.message,
                          location, related)
