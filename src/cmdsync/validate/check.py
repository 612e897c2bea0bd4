"""``validate``: files in, diagnostics out. Pure of any printing.

:func:`validate_paths` expands directories, loads every manifest file,
checks it against the JSON Schemas, merges all files into one desired state
and runs every rule over it. Problems come back as values; nothing raises
for bad input.

Rules that need the application (CS6xx: its installation contexts, its
EMBEDDED flag) run only when ``application`` is given: ``validate --online``
reads it first; ``plan`` adds them with :func:`with_application` once it has
read it. Offline validation never imports the HTTP client.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cmdsync.manifest.code import code_documents
from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet, collect
from cmdsync.manifest.files import is_code_source
from cmdsync.manifest.loader import Document, SharedBodies, load_file
from cmdsync.manifest.sniff import is_manifest
from cmdsync.validate import gcpause
from cmdsync.validate.rules import all_rules
from cmdsync.validate.rules.base import PerCommand
from cmdsync.validate.schema import check_document

if TYPE_CHECKING:
    from cmdsync.state.application import AppInfo

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
CONFIG_FILE = "cmdsync.toml"  # cmdsync.runners.project's, which reads it


@dataclass
class ValidationResult:
    """Files read and the diagnostics found, sorted by file, line and column."""

    files: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    manifest: ManifestSet | None = None
    unreadable: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[Diagnostic]]:
    """Files named directly, plus every manifest file below named directories.

    Directories are walked recursively in sorted order, skipping hidden
    entries, JSON Schemas (``*.schema.json``, such as the editor schema
    written beside the manifests) and YAML and JSON files that are not
    manifests by their content (:func:`cmdsync.manifest.sniff.is_manifest`:
    a docker-compose file, ``package.json``, a saved plan); a path that does
    not exist becomes a CS001 diagnostic, and so does the project
    configuration (``cmdsync.toml``) given as a manifest, saying so.
    """
    files: list[str] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files.extend(os.path.join(root, name) for name in sorted(names)
                             if name.lower().endswith(MANIFEST_SUFFIXES)
                             and not name.startswith(".")
                             and not name.lower().endswith(".schema.json")
                             and is_manifest(os.path.join(root, name)))
        elif os.path.basename(path) == CONFIG_FILE or path.lower().endswith(".toml"):
            problems.append(Diagnostic("CS001", Severity.ERROR, (
                f"{os.path.basename(path)} is the project configuration, not a manifest: run "
                "the command without paths to read the manifests it lists (its `manifests`)"
                if os.path.basename(path) == CONFIG_FILE else
                "a TOML file is not a manifest: give the YAML or JSON manifests (a "
                "cmdsync.toml beside them lists them, so that no paths are needed)"),
                Location(path)))
        elif os.path.exists(path):
            files.append(path)
        else:
            problems.append(Diagnostic("CS001", Severity.ERROR, "no such file or directory",
                                       Location(path)))
    return list(dict.fromkeys(files)), problems


def validate_documents(documents: list[Document], *,
                       select: Collection[str] = (),
                       ignore: Collection[str] = (),
                       application: AppInfo | None = None) -> ValidationResult:
    """Schema and rule diagnostics for already-loaded documents."""
    diagnostics: list[Diagnostic] = []
    for doc in documents:
        diagnostics.extend(doc.diagnostics)
        if doc.data is not None:
            diagnostics.extend(check_document(doc))
    manifest = collect([doc for doc in documents if doc.data is not None])
    diagnostics.extend(run_rules(manifest, select=select, ignore=ignore,
                                 application=application))
    diagnostics = [d for d in diagnostics if wanted(d.rule, select, ignore)]
    diagnostics = sorted(set(diagnostics), key=Diagnostic.sort_key)
    return ValidationResult([doc.file for doc in documents], diagnostics, manifest)


def run_rules(manifest: ManifestSet, *, select: Collection[str] = (),
              ignore: Collection[str] = (), application: AppInfo | None = None,
              only_application: bool = False, per_command: ManifestSet | None = None
              ) -> list[Diagnostic]:
    """Diagnostics of every selected rule that has a Python check.

    Rules that need the application run only when ``application`` is given;
    ``only_application`` runs those alone. ``per_command``: the commands the
    rules that read one command alone run on (default: ``manifest``'s).
    """
    found: list[Diagnostic] = []
    alone: PerCommand | None = None
    for rule in all_rules():
        if not wanted(rule.id, select, ignore):
            continue
        if rule.check is not None and not only_application:
            if rule.per_command:
                alone = alone or PerCommand(manifest if per_command is None else per_command)
                findings = alone.findings(rule)
            else:
                findings = rule.check(manifest)
            found.extend(rule.diagnostic(finding) for finding in findings)
        elif rule.app_check is not None and application is not None:
            found.extend(rule.diagnostic(finding)
                         for finding in rule.app_check(manifest, application))
    return found


def with_application(result: ValidationResult, application: AppInfo
                     ) -> ValidationResult:
    """``result`` plus the diagnostics of the rules that need the application.

    For a result validated offline (``plan`` reads the application after
    validating); a new value, ``result`` is not changed.
    """
    if result.manifest is None:
        return result
    extra = run_rules(result.manifest, application=application, only_application=True)
    merged = sorted(set(result.diagnostics) | set(extra), key=Diagnostic.sort_key)
    return replace(result, diagnostics=merged)


def application_errors(entries: Iterable[CommandEntry], application: AppInfo) -> list[str]:
    """The application rules' errors for these commands, as plan errors.

    ``"file:line:column: CS601 message"`` each, in file order; for a plan
    whose manifests were validated without the application.
    """
    entries = list(entries)
    documents = list({id(e.doc): e.doc for e in entries}.values())
    found = run_rules(ManifestSet(documents, entries), application=application,
                      only_application=True)
    return [f"{d.location.file}:{d.location.line}:{d.location.column}: {d.rule} {d.message}"
            for d in sorted(found, key=Diagnostic.sort_key) if d.severity is Severity.ERROR]


def validate_api_commands(items: Any, *, scope: str, ignore: Collection[str] = (),
                          known: Collection[int] = ()) -> list[Diagnostic]:
    """Diagnostics for a request body of commands in Discord's wire format.

    ``items`` is the parsed JSON array (a bulk overwrite, or one command
    wrapped in a list); ``scope`` is ``"global"`` or the guild id. Enum names
    are errors here (CS016), as they are for Discord. Pointers are
    ``/<index>/...``; there are no line numbers. ``known``: indexes of items
    already found to have no per-command finding (the emulator's items seen
    before): the rules that read one command alone skip them; the schema
    and the rules across commands (duplicates, counts) see every item.
    """
    doc = Document(file="<request>", kind="json", data=items, positions={})
    found = [d for d in check_document(doc) if wanted(d.rule, (), ignore)]
    if isinstance(items, list):
        entries = [CommandEntry(doc, (i,), item, scope, raw=True)
                   for i, item in enumerate(items) if isinstance(item, dict)]
        alone = ManifestSet([doc], [e for e in entries if e.path[0] not in known]) \
            if known else None
        found += run_rules(ManifestSet([doc], entries), ignore=ignore, per_command=alone)
    return sorted(set(found), key=Diagnostic.sort_key)


def validate_paths(paths: Collection[str], *, select: Collection[str] = (),
                   ignore: Collection[str] = (),
                   env: Mapping[str, str] | None = None,
                   application: AppInfo | None = None,
                   placeholders: bool = False, pack_texts: bool = False) -> ValidationResult:
    """Validate manifest files and directories (see :func:`expand_paths`), and bot code.

    A ``discord.py:MODULE:ATTR`` path is a discord.py command tree
    (:mod:`cmdsync.manifest.code`, imported only then).

    With ``application``, the rules that need it run too. ``placeholders``:
    unset ``${VAR}`` are notes, not errors (offline validate; see
    :func:`cmdsync.manifest.loader.load_file`). ``pack_texts``: each large
    file's text is compressed once read (:meth:`~cmdsync.manifest.loader.Document.pack`)
    and the C heap trimmed (:func:`~cmdsync.validate.gcpause.trim_heap`), for a
    plan, which keeps the manifests while it waits on Discord.
    """
    code = [p for p in paths if is_code_source(p)]
    files, problems = expand_paths([p for p in paths if not is_code_source(p)])
    with gcpause.paused():
        # One file at a time: reading two at once (yaml-rs parses without the GIL)
        # saved about a tenth of a large plan's time for half as much memory again.
        shared = SharedBodies()
        documents = []
        for path in files:
            documents.append(load_file(path, env=env, placeholders=placeholders,
                                       shared=shared))
            if pack_texts:
                documents[-1].pack()
                gcpause.trim_heap()
        for reference in code:
            found, unusable = code_documents(reference)
            documents += found
            problems += unusable
        result = validate_documents(documents, select=select, ignore=ignore,
                                    application=application)
    result.diagnostics = sorted(problems + result.diagnostics, key=Diagnostic.sort_key)
    result.unreadable = [d.location.file for d in problems]
    result.unreadable += [doc.file for doc in documents if doc.unreadable]
    return result


def wanted(rule_id: str, select: Collection[str], ignore: Collection[str]) -> bool:
    """Whether ``--select`` and ``--ignore`` keep the diagnostics of ``rule_id``."""
    if select and not any(rule_id.startswith(s) for s in select):
        return False
    return not any(rule_id.startswith(i) for i in ignore)
