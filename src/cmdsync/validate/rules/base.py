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
body is written.

Such a rule may be written in two parts instead of ``check``:
``check_command(entry)`` for the command's own fields, and
``check_option(option)`` for one option's own fields and choices. An option
part reads nothing but the option object without its child options, its
document's kind and whether its command is raw (not its path, depth,
siblings or command), and finds nothing outside the option; so it runs once
per distinct option (:class:`PerOption`: distinct commands often share most
of their options), and its findings are repeated at every place that option
sits. ``check`` is then both parts over every command, option by option.
:class:`Rule` wraps a module; the registry in :mod:`cmdsync.validate.rules`
lists them all.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from types import ModuleType

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.manifest.entries import (
    CommandEntry,
    ManifestSet,
    OptionEntry,
    option_keys,
    options,
)
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
CommandPart = Callable[[CommandEntry], Iterator[Finding]]
OptionPart = Callable[[OptionEntry], Iterator[Finding]]


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
    command_part: CommandPart | None = None  # of a rule written in parts: the command's
    option_part: OptionPart | None = None  # own fields, and one option's

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        command_part = getattr(module, "check_command", None)
        option_part = getattr(module, "check_option", None)
        check = getattr(module, "check", None)
        if check is None and (command_part or option_part):
            check = in_parts(command_part, option_part)
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
            command_part=command_part,
            option_part=option_part,
        )

    def diagnostic(self, finding: Finding) -> Diagnostic:
        related = tuple(doc.locate(path) for doc, path in finding.related)
        location: Location = finding.doc.locate(finding.path, key=finding.key)
        return Diagnostic(self.id, finding.severity or self.severity, finding.message,
                          location, related)


def in_parts(command_part: CommandPart | None, option_part: OptionPart | None) -> Check:
    """The ``check`` of a rule written in parts: each command's own fields, then each
    of its options, at every depth."""
    def check(manifest: ManifestSet) -> Iterator[Finding]:
        for entry in manifest.commands:
            if command_part is not None:
                yield from command_part(entry)
            if option_part is not None:
                for option in options(entry):
                    yield from option_part(option)
    return check


class PerCommand:
    """Per-command rules run once per distinct command body, their findings spread.

    Commands are alike when they share one data object (see
    :class:`cmdsync.manifest.loader.SharedBodies`), are equally raw and come
    from the same kind of file. :attr:`representatives` holds the first
    command of each such group; :meth:`spread` gives each finding on a
    representative at every command of its group, with that command's file
    and path (and the same message). :meth:`findings` runs a rule so, and the
    option part of a rule written in parts once per distinct option of the
    representatives (:class:`PerOption`).
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
        self._options: PerOption | None = None

    def findings(self, rule: Rule) -> Iterator[Finding]:
        """``rule``'s findings on every command, each part run once per distinct body."""
        if rule.option_part is None:
            assert rule.check is not None
            return self.spread(rule.check(self.representatives))
        self._options = self._options or PerOption(self.representatives)
        command_part = rule.command_part
        own = (finding for entry in self.representatives.commands
               for finding in command_part(entry)) if command_part is not None else ()
        return self.spread(itertools.chain(own, self._options.findings(rule.option_part)))

    def spread(self, findings: Iterable[Finding]) -> Iterator[Finding]:
        for finding in findings:
            group = next((found for found in (
                self._groups.get((id(finding.doc), finding.path[:n])) for n in self._lengths)
                if found), None)
            if group is None:
                yield finding
                continue
            first = group[0]
            for entry in group:
                yield _moved(finding, first.doc, first.path, entry.doc, entry.path)


class PerOption:
    """The option parts of rules, run once per distinct option, their findings spread.

    Options are alike when their own fields (all but their child options)
    are equal, data, types and key order (``marshal`` bytes, as
    :class:`~cmdsync.manifest.loader.SharedBodies` compares commands), and
    their commands are equally raw and from the same kind of file: what an
    option part may read (see the module docstring). Two commands that
    differ in a description usually share every option; an option part sees
    the first of each group, and each of its findings is given at every
    option of the group, with that option's file and path.
    """

    def __init__(self, manifest: ManifestSet) -> None:
        groups: dict[tuple[bytes | int, bool, str], list[OptionEntry]] = {}
        for entry in manifest.commands:
            for option, own in zip(options(entry), option_keys(entry)):
                groups.setdefault((id(option.data) if own is None else own, entry.raw,
                                   entry.doc.kind), []).append(option)
        self._groups = list(groups.values())

    def findings(self, option_part: OptionPart) -> Iterator[Finding]:
        for group in self._groups:
            first = group[0]
            for finding in option_part(first):
                if len(group) == 1:
                    yield finding
                    continue
                for option in group:
                    yield _moved(finding, first.entry.doc, first.path, option.entry.doc,
                                 option.path)


def _moved(finding: Finding, doc: Document, path: Path, to_doc: Document, to_path: Path
           ) -> Finding:
    """``finding``, made on the object at ``path`` of ``doc``, given for the equal object
    at ``to_path`` of ``to_doc`` (and so are the places it mentions within that object)."""
    if to_doc is doc and to_path == path:
        return finding
    n = len(path)
    related = tuple((to_doc, to_path + at[n:]) if where is doc and at[:n] == path
                    else (where, at) for where, at in finding.related)
    return replace(finding, doc=to_doc, path=to_path + finding.path[n:], related=related)
