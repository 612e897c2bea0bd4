"""What the pre-commit hook validates (``cmdsync validate --pre-commit FILES``).

pre-commit passes the files being committed that the hook's ``files:``
pattern takes (YAML and JSON, and ``cmdsync.toml``). :func:`hook_sets`
turns them into the sets of manifests to validate, each with the
environment whose variables it reads: the checks across files (a command
declared twice, two application ids) hold on partial commits, and no
manifest is skipped in silence.
"""

from __future__ import annotations

import os

from cmdsync.errors import UsageError
from cmdsync.runners.project import Project
from cmdsync.runners.validate import FileSet

HOOK_SUFFIXES = (".yaml", ".yml", ".json")


def hook_sets(changed: list[str], project: Project | None) -> list[FileSet]:
    """The manifest sets to validate when ``changed`` files are committed.

    With a configuration: every environment's manifests (:meth:`Project.manifest_sets`),
    each set with its environment, whenever one of their files or the configuration
    itself changed; and, on their own (with the default environment's variables),
    the committed files that are manifests by content (``is_manifest``) but that no
    environment lists. Without one: every file that is a manifest by content, when
    one of the committed files is. Either way only files git tracks or that are being
    committed are read (never untracked scratch files), other YAML and JSON files
    are never read as manifests, and a configured pattern that matches nothing yet
    is left to ``cmdsync validate`` to report.
    """
    from cmdsync.manifest.sniff import is_manifest
    from cmdsync.validate.check import expand_paths

    if project is None or not project.manifest_sets():
        documents = [path for path in changed if path.lower().endswith(HOOK_SUFFIXES)]
        if not any(is_manifest(path) for path in documents if os.path.isfile(path)):
            return []
        candidates = dict.fromkeys([*_tracked(), *documents])
        found = [path for path in candidates if os.path.isfile(path) and is_manifest(path)]
        return [FileSet(tuple(found), project.environment(None) if project else None)]
    committed = {os.path.realpath(path) for path in changed}
    known = committed | {os.path.realpath(path) for path in _tracked()}
    sets = []
    members: set[str] = set()
    for environment, patterns in project.manifest_sets():
        files = [f for f in expand_paths(project.manifest_paths(patterns))[0]
                 if os.path.realpath(f) in known]  # never untracked files
        members.update(os.path.realpath(f) for f in files)
        if files:
            sets.append(FileSet(tuple(files), environment))
    configured = os.path.realpath(project.path) in committed or bool(members & committed)
    extra = [path for path in changed if os.path.realpath(path) not in members
             and os.path.isfile(path) and path.lower().endswith(HOOK_SUFFIXES)
             and is_manifest(path)]
    return (sets if configured else []) + (
        [FileSet(tuple(extra), project.environment(None))] if extra else [])


def _tracked() -> list[str]:
    """The YAML and JSON files git tracks (staged ones included), relative paths."""
    import subprocess  # only the pre-commit hook asks git

    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *(f"*{s}" for s in
                                                                 HOOK_SUFFIXES)],
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"--pre-commit lists the repository's files with git: {exc}") from exc
    # Names as the file system has them: bytes that are not UTF-8 (b"b\xff.yaml") decode
    # as surrogate escapes, so open() finds the file and messages show \xff.
    return [os.fsdecode(name) for name in listed.split(b"\0") if name]
