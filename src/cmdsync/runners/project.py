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
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.errors import UsageError
from cmdsync.manifest.interpolate import interpolate

CONFIG_FILE = "cmdsync.toml"
PYPROJECT = "pyproject.toml"
_ENVIRONMENT_KEYS = {"application_id", "api_url", "guilds"}


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
            matches = sorted(glob.glob(full, recursive=True)) if glob.has_magic(full) \
                else [full]
            found += [_relative(path) for path in matches] or [_relative(full)]
        return list(dict.fromkeys(found))

    def environment(self, name: str | None) -> Environment | None:
        """The environment ``name`` (else the default one, else none); UsageError if
        it is not defined."""
        chosen = name or self.default_environment
        if chosen is None:
            return None
        if chosen not in self.environments:
            known = ", ".join(sorted(self.environments)) or "none"
            raise UsageError(f"no environment {chosen!r} in {self.path} (defined: {known})")
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
                return _project(pyproject, table, "[tool.cmdsync]")
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(path: str) -> Project:
    """Read ``cmdsync.toml``; :class:`UsageError` naming the key for a bad one."""
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


def _project(path: str, table: dict[str, Any], prefix: str) -> Project:
    where = f"{path}{' ' + prefix if prefix else ''}"
    unknown = sorted(set(table) - {"manifests", "environments", "default_environment"})
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} (known: manifests, "
                         "environments, default_environment)")
    manifests = table.get("manifests", [])
    if isinstance(manifests, str):
        manifests = [manifests]
    if not isinstance(manifests, list) or not all(isinstance(m, str) for m in manifests):
        raise UsageError(f"{where}: manifests must be a list of paths or globs")
    environments: dict[str, Environment] = {}
    tables = table.get("environments", {})
    if not isinstance(tables, dict):
        raise UsageError(f"{where}: environments must be a table of tables")
    for name, values in tables.items():
        environments[name] = _environment(f"{where}: environments.{name}", name, values)
    default = table.get("default_environment")
    if default is not None and default not in environments:
        raise UsageError(f"{where}: default_environment {default!r} is not one of the "
                         "environments")
    return Project(path, tuple(manifests), environments, default)


def _environment(where: str, name: str, values: Any) -> Environment:
    if not isinstance(values, dict):
        raise UsageError(f"{where} must be a table")
    unknown = sorted(set(values) - _ENVIRONMENT_KEYS)
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} (known: "
                         f"{', '.join(sorted(_ENVIRONMENT_KEYS))})")
    variables: dict[str, str] = {}
    for key, variable in (("application_id", "DISCORD_APPLICATION_ID"),
                          ("api_url", "CMDSYNC_API_URL")):
        if key in values:
            if not isinstance(values[key], str):
                raise UsageError(f"{where}: {key} must be a string")
            variables[variable] = values[key]
    guilds = values.get("guilds", {})
    if not isinstance(guilds, dict) or not all(
            isinstance(v, str) and v.isdigit() for v in guilds.values()):
        raise UsageError(f"{where}: guilds must map variable names to guild ids (quoted "
                         "strings of digits)")
    variables.update(guilds)
    return Environment(name, variables)


def environment_for(project: Project | None, name: str | None,
                    env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the selected environment's variables where ``env`` lacks them
    (``${VAR}`` in the file's values expands from ``env``)."""
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
        if not merged.get(variable):
            expanded, missing = interpolate(value, env)
            if missing:
                continue
            if variable == "DISCORD_APPLICATION_ID" and not expanded.isdigit():
                raise UsageError(f"{project.path}: environments.{chosen.name}: application_id "
                                 f"{expanded!r} is not a snowflake (a string of digits)")
            merged[variable] = expanded
    return merged


def resolve_paths(paths: list[str] | None, project: Project | None) -> list[str]:
    """The paths given, else the project's manifests; UsageError when there are none."""
    if paths:
        return paths
    if project is not None and project.manifests:
        return project.manifest_paths()
    if project is not None:
        raise UsageError(f"no manifests: give their paths, or list them under `manifests` in "
                         f"{project.path}")
    raise UsageError("no manifests: give their paths, or list them in cmdsync.toml "
                     "(`cmdsync init` writes one)")


STARTER_CONFIG = """\
# cmdsync's project configuration (https://github.com/cmdsync/cmdsync#configuration).
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


MODELINE = "# yaml-language-server: $schema="
HOOK_SUFFIXES = (".yaml", ".yml", ".json")


def is_manifest(path: str) -> bool:
    """Whether a file is a cmdsync manifest by its content: a mapping with top-level
    ``commands`` or ``guilds``, a JSON array of command objects, or a first line with
    the schema modeline naming cmdsync's schema. Anything else (a docker-compose
    file, a workflow, package.json) is not."""
    import yaml

    try:
        with open(path, "rb") as handle:
            text = handle.read(10 * 1024 * 1024).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if first.startswith(MODELINE) and ("cmdsync" in first or "manifest.schema" in first):
        return True
    try:
        data = json.loads(text) if path.lower().endswith(".json") else \
            yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (ValueError, yaml.YAMLError, RecursionError):
        lines = text.splitlines()
        return any(line.startswith(("commands:", "guilds:")) for line in lines)
    if isinstance(data, dict):
        return "commands" in data or "guilds" in data
    return isinstance(data, list) and bool(data) and all(
        isinstance(item, dict) and "name" in item and ("description" in item or "type" in item)
        for item in data)


def hook_paths(changed: list[str], project: Project | None) -> list[str]:
    """What the pre-commit hook validates when ``changed`` files are committed: the
    whole manifest set whenever one of its files changed (so checks across files hold
    on partial commits), else nothing. The set is the configuration's manifests, or
    without one every file that is a manifest by content (``is_manifest``); either way
    only files git tracks or that are being committed (never untracked scratch files),
    and other YAML and JSON files are never read as manifests."""
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
    return [name for name in listed.decode().split("\0") if name]
