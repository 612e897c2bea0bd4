"""The project configuration: ``cmdsync.toml``, or ``[tool.cmdsync]`` in ``pyproject.toml``.

As ruff finds its settings, :func:`find_config` looks in the working
directory and then each parent for ``cmdsync.toml`` (first) or a
``pyproject.toml`` with a ``[tool.cmdsync]`` table; the first found is the
project's. Its shape::

    manifests = ["discord/"]              # files, directories or globs, relative to the file
    default_environment = "dev"           # optional: used without --env

    [environments.production]
    application_id = "${DISCORD_APPLICATION_ID}"   # an id, or ${VAR} from the environment
    api_url = "https://discord.com/api/v10"       # optional

    [environments.dev]
    application_id = "123456789012345678"
    guilds = { DEV_GUILD_ID = "876543210987654321" }   # ${DEV_GUILD_ID} in the manifests

With it, ``validate``, ``plan``, ``apply`` and ``pull`` take no paths, and
``--env NAME`` selects an environment. Precedence, as Terraform and ruff:
a flag beats the environment, which beats the file. An environment's values
reach the manifests as variables: ``application_id`` as
``DISCORD_APPLICATION_ID``, ``api_url`` as ``CMDSYNC_API_URL``, each
``guilds`` entry under its own name, each only where the process environment
does not set it.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.errors import UsageError
from cmdsync.manifest.interpolate import interpolate
from cmdsync.runners.toml_lines import did_you_mean, key_line, quoted_line

CONFIG_FILE = "cmdsync.toml"
PYPROJECT = "pyproject.toml"
_ENVIRONMENT_KEYS = {"application_id", "api_url", "guilds"}
# what an environment's keys set, by the variable that carries them
_TARGET_VARIABLES = {"DISCORD_APPLICATION_ID": "application_id", "CMDSYNC_API_URL": "api_url"}


@dataclass(frozen=True)
class Environment:
    """One named environment: the variables it gives the manifests and the session."""

    name: str
    variables: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Project:
    """A configuration file read: where it is, its manifest patterns and environments."""

    path: str
    manifests: tuple[str, ...] = ()
    environments: Mapping[str, Environment] = field(default_factory=dict)
    default_environment: str | None = None

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) or "."

    def manifest_paths(self) -> list[str]:
        """The manifest patterns expanded (globs), relative to the working directory when
        they are below it, in the order written; a pattern matching nothing stays as
        written (validate reports it as missing)."""
        found: list[str] = []
        for pattern in self.manifests:
            full = os.path.join(self.root, pattern)
            matches = self._glob(pattern) if glob.has_magic(pattern) else [full]
            found += [_relative(path) for path in matches] or [_relative(full)]
        return list(dict.fromkeys(found))

    def _glob(self, pattern: str) -> list[str]:
        """The files a glob pattern of ``manifests`` matches under the project's root, each
        once: ``**`` does not follow symbolic links to directories (a link out of the
        project, or a loop, is not walked; the ``wcmatch`` library), and a match whose
        real path is outside the project is dropped. Raises
        :class:`~cmdsync.errors.UsageError` naming the configuration for a pattern
        that is absolute or climbs out of the project (``..``)."""
        from wcmatch import glob as wildcard

        parts = pattern.replace("\\", "/").split("/")
        if os.path.isabs(pattern) or ".." in parts:
            raise UsageError(f"{self.path}: manifests: {pattern!r} reaches outside the "
                             "project: write a pattern relative to the directory of "
                             f"{os.path.basename(self.path)}, such as \"discord/**/*.yaml\"")
        root = os.path.realpath(self.root)
        matches: dict[str, str] = {}
        for name in sorted(wildcard.glob(pattern, root_dir=self.root,
                                         flags=wildcard.GLOBSTAR | wildcard.BRACE)):
            path = os.path.join(self.root, name)
            real = os.path.realpath(path)
            if real == root or real.startswith(root + os.sep):
                matches.setdefault(real, path)
        return list(matches.values())

    def environment(self, name: str | None) -> Environment | None:
        """The environment ``name`` (else the default one, else none); UsageError if
        it is not defined."""
        chosen = name or self.default_environment
        if chosen is None:
            return None
        if chosen not in self.environments:
            known = ", ".join(sorted(self.environments)) or "none"
            raise UsageError(f"no environment {chosen!r} in {self.path}"
                             f"{did_you_mean(chosen, self.environments)} (defined: {known})")
        return self.environments[chosen]


def _relative(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def find_config(start: str | None = None) -> Project | None:
    """The project configuration of ``start`` (the working directory) or a parent."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        candidate = os.path.join(folder, CONFIG_FILE)
        if os.path.isfile(candidate):
            return load_config(candidate)
        pyproject = os.path.join(folder, PYPROJECT)
        if os.path.isfile(pyproject):
            table = _toml(pyproject).get("tool", {}).get("cmdsync")
            if isinstance(table, dict):
                return _project(pyproject, table, "tool.cmdsync")
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(path: str) -> Project:
    """Read ``cmdsync.toml``; :class:`UsageError` naming the file, the line and the key
    for a bad one (with the known key it is closest to)."""
    return _project(path, _toml(path), "")


def _toml(path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from exc


_TOP_KEYS = ("manifests", "environments", "default_environment")


def _project(path: str, table: dict[str, Any], prefix: str) -> Project:
    def where(*keys: str) -> str:  # "cmdsync.toml:3 [tool.cmdsync]", at the key's line
        line = key_line(path, keys, prefix)
        return f"{path}{f':{line}' if line else ''}{' [' + prefix + ']' if prefix else ''}"

    unknown = sorted(set(table) - set(_TOP_KEYS))
    if unknown:
        raise UsageError(f"{where(unknown[0])}: unknown key {unknown[0]!r}"
                         f"{did_you_mean(unknown[0], _TOP_KEYS)} (known: "
                         f"{', '.join(_TOP_KEYS)})")
    manifests = table.get("manifests", [])
    if isinstance(manifests, str):
        manifests = [manifests]
    if not isinstance(manifests, list) or not all(isinstance(m, str) for m in manifests):
        raise UsageError(f"{where('manifests')}: manifests must be a list of paths or globs")
    environments: dict[str, Environment] = {}
    tables = table.get("environments", {})
    if not isinstance(tables, dict):
        raise UsageError(f"{where('environments')}: environments must be a table of tables")
    for name, values in tables.items():
        environments[name] = _environment(where, name, values)
    default = table.get("default_environment")
    if default is not None and default not in environments:
        raise UsageError(f"{where('default_environment')}: default_environment {default!r} is "
                         f"not one of the environments{did_you_mean(default, environments)} "
                         f"(defined: {', '.join(sorted(environments)) or 'none'})")
    return Project(path, tuple(manifests), environments, default)


def _environment(where: Callable[..., str], name: str, values: Any) -> Environment:
    def at(*keys: str) -> str:
        return f"{where('environments', name, *keys)}: environments.{name}"

    if not isinstance(values, dict):
        raise UsageError(f"{at()} must be a table")
    unknown = sorted(set(values) - _ENVIRONMENT_KEYS)
    if unknown:
        raise UsageError(f"{at(unknown[0])}: unknown key {unknown[0]!r}"
                         f"{did_you_mean(unknown[0], _ENVIRONMENT_KEYS)} (known: "
                         f"{', '.join(sorted(_ENVIRONMENT_KEYS))})")
    variables: dict[str, str] = {}
    for key, variable in (("application_id", "DISCORD_APPLICATION_ID"),
                          ("api_url", "CMDSYNC_API_URL")):
        if key in values:
            if not isinstance(values[key], str):
                raise UsageError(f"{at(key)}: {key} must be a string")
            variables[variable] = values[key]
    guilds = values.get("guilds", {})
    if not isinstance(guilds, dict) or not all(
            isinstance(v, str) and v.isdigit() for v in guilds.values()):
        raise UsageError(f"{at('guilds')}: guilds must map variable names to guild ids "
                         "(quoted strings of digits)")
    variables.update(guilds)
    return Environment(name, variables)


def environment_for(project: Project | None, name: str | None,
                    env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the selected environment's variables where ``env`` lacks them
    (``${VAR}`` in the file's values expands from ``env``).

    An environment chosen by name (``--env NAME``) whose ``application_id`` or
    ``api_url`` differs from the process environment's
    ``DISCORD_APPLICATION_ID`` or ``CMDSYNC_API_URL`` is a
    :class:`~cmdsync.errors.UsageError`: the explicit choice must not write
    to another application. (The default environment yields to the
    process environment, as documented.)"""
    merged = dict(env)
    if project is None:
        if name:
            raise UsageError(f"--env {name}: no {CONFIG_FILE} (or [tool.cmdsync] in "
                             f"{PYPROJECT}) here or above: create one with `cmdsync init`")
        return merged
    chosen = project.environment(name)
    if chosen is None:
        return merged
    for variable, value in chosen.variables.items():
        explicit = name is not None and variable in _TARGET_VARIABLES
        if not merged.get(variable) or explicit:
            expanded, missing = interpolate(value, env)
            if missing:
                continue
            if merged.get(variable) and merged[variable].rstrip("/") != expanded.rstrip("/"):
                raise UsageError(
                    f"--env {chosen.name} sets {_TARGET_VARIABLES[variable]} {expanded!r} "
                    f"({project.path}), but {variable} is {merged[variable]!r} in the "
                    f"environment: unset {variable}, or drop --env to use it")
            if variable == "DISCORD_APPLICATION_ID" and not expanded.isdigit():
                raise UsageError(f"{project.path}: environments.{chosen.name}: application_id "
                                 f"{expanded!r} is not a snowflake (a string of digits)")
            merged[variable] = expanded
    return merged


def resolve_paths(paths: list[str] | None, project: Project | None) -> list[str]:
    """The paths given, else the project's manifests; UsageError when there are none,
    and naming the configuration file and line when one of its ``manifests`` matches
    nothing."""
    if paths:
        return paths
    if project is not None and project.manifests:
        found = project.manifest_paths()
        for pattern in project.manifests:
            if not (project._glob(pattern) if glob.has_magic(pattern)
                    else os.path.lexists(os.path.join(project.root, pattern))):
                line = quoted_line(project.path, pattern) or key_line(
                    project.path, ("manifests",), _prefix(project))
                raise UsageError(
                    f"{project.path}{f':{line}' if line else ''}: manifests: {pattern!r} "
                    f"matches no file or directory (paths are relative to "
                    f"{project.root}): fix it there, or give the manifests' paths")
        return found
    if project is not None:
        raise UsageError(f"no manifests: give their paths, or list them under `manifests` in "
                         f"{project.path}")
    raise UsageError("no manifests: give their paths, or list them in cmdsync.toml "
                     "(`cmdsync init` writes one)")


def _prefix(project: Project) -> str:
    return "tool.cmdsync" if os.path.basename(project.path) == PYPROJECT else ""


STARTER_CONFIG = """\
# cmdsync's project configuration (https://cmdsync.github.io/cmdsync/configuration/).
# `cmdsync validate`, `plan` and `apply` read the manifests below when given no paths.

# Manifest files, directories or globs, relative to this file.
manifests = ["discord/"]

# Used when no --env is given (remove it to need --env every time).
default_environment = "production"

# Each environment: the application (an id, or ${VAR} from the environment), the
# API URL, and guild ids the manifests use as ${NAME}. A flag beats an environment
# variable, which beats this file.
[environments.production]
application_id = "${DISCORD_APPLICATION_ID}"

# [environments.dev]
# application_id = "123456789012345678"
# guilds = { DEV_GUILD_ID = "876543210987654321" }
"""

STARTER_MANIFEST = """\
# yaml-language-server: $schema=../cmdsync.schema.json
# Your bot's application commands: `cmdsync plan` shows what `cmdsync apply` would change.
commands:
  - name: ping
    description: Check the bot is alive

# Commands and permission overwrites of one guild:
# guilds:
#   "${DEV_GUILD_ID}":
#     commands:
#       - name: debug
#         description: Developer tools
"""


def init_files() -> dict[str, str]:
    """What `cmdsync init` writes: path (relative to the project) -> text."""
    from cmdsync.validate.editor_schema import dumps

    return {CONFIG_FILE: STARTER_CONFIG,
            os.path.join("discord", "commands.yaml"): STARTER_MANIFEST,
            "cmdsync.schema.json": dumps()}


HOOK_SUFFIXES = (".yaml", ".yml", ".json")


def hook_paths(changed: list[str], project: Project | None) -> list[str]:
    """What the pre-commit hook validates when ``changed`` files are committed: the
    whole manifest set whenever one of its files changed (so checks across files hold
    on partial commits), else nothing. The set is the configuration's manifests, or
    without one every file that is a manifest by content (``is_manifest``); either way
    only files git tracks or that are being committed (never untracked scratch files),
    and other YAML and JSON files are never read as manifests."""
    from cmdsync.manifest.sniff import is_manifest
    from cmdsync.validate.check import expand_paths

    if project is not None and project.manifests:
        members = expand_paths(project.manifest_paths())[0]
        committed = {os.path.realpath(c) for c in changed}
        if not any(os.path.realpath(f) in committed for f in members):
            return []
        known = committed | {os.path.realpath(f) for f in _tracked()}
        return [f for f in members if os.path.realpath(f) in known]  # never untracked files
    if not any(is_manifest(path) for path in changed if os.path.isfile(path)):
        return []
    candidates = dict.fromkeys([*_tracked(), *changed])
    return [path for path in candidates if os.path.isfile(path) and is_manifest(path)]


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
