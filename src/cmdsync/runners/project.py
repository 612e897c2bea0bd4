"""The project configuration: ``cmdsync.toml``, or ``[tool.cmdsync]`` in ``pyproject.toml``.

As ruff finds its settings, :func:`find_config` looks in the working
directory and then each parent for ``cmdsync.toml`` (first) or a
``pyproject.toml`` with a ``[tool.cmdsync]`` table; the first found is the
project's. Its shape::

    manifests = ["discord/"]              # files, directories or globs, relative to the file
    default_environment = "dev"           # optional: used without --env
    timeout = 30                          # optional: seconds to wait for each request

    [environments.production]
    application_id = "${DISCORD_APPLICATION_ID}"   # an id, or ${VAR} from the environment
    api_url = "https://discord.com/api/v10"       # optional

    [environments.dev]
    application_id = "123456789012345678"
    guilds = { DEV_GUILD_ID = "876543210987654321" }   # ${DEV_GUILD_ID} in the manifests
    copy_global_to = "${DEV_GUILD_ID}"    # optional: the global commands go to this guild
    manifests = ["discord/", "dev/"]      # optional: replaces the top-level list
    timeout = 60                          # optional: replaces the top-level timeout

With it, ``validate``, ``plan``, ``apply``, ``check`` and ``pull`` take no
paths, and ``--env NAME`` selects an environment. Precedence, as Terraform
and ruff: a flag beats the environment, which beats the file. An
environment's values reach the manifests as variables: ``application_id``
as ``DISCORD_APPLICATION_ID``, ``api_url`` as ``CMDSYNC_API_URL``, each
``guilds`` entry under its own name, each only where the process
environment does not set it. ``copy_global_to`` (:func:`copy_target`) makes
plan and apply treat the manifests' global commands as that guild's, as
discord.py's ``tree.copy_global_to(guild=...)`` does: one manifest, a
development guild in one environment, global in another.
"""

from __future__ import annotations

import glob
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.errors import UsageError
from cmdsync.manifest.interpolate import interpolate
from cmdsync.runners.toml_lines import did_you_mean, key_line, quoted_header, quoted_line

CONFIG_FILE = "cmdsync.toml"
PYPROJECT = "pyproject.toml"
_ENVIRONMENT_KEYS = {"application_id", "api_url", "guilds", "copy_global_to", "manifests",
                     "timeout"}
# what an environment's keys set, by the variable that carries them
_TARGET_VARIABLES = {"DISCORD_APPLICATION_ID": "application_id", "CMDSYNC_API_URL": "api_url"}


@dataclass(frozen=True)
class Environment:
    """One named environment: the variables it gives the manifests and the session, the
    guild its global commands go to (``copy_global_to`` as written: an id or
    ``${VAR}``), and its own manifest patterns (None: the top-level list)."""

    name: str
    variables: Mapping[str, str] = field(default_factory=dict)
    copy_global_to: str | None = None
    manifests: tuple[str, ...] | None = None
    timeout: float | None = None


@dataclass(frozen=True)
class CopyTarget:
    """Where an environment's ``copy_global_to`` sends the global commands: the guild,
    the environment's name, and where the key is written (``cmdsync.toml:9``)."""

    guild: str
    environment: str
    where: str

    @property
    def heading(self) -> str:
        """The line plan and apply show above the plan."""
        return (f"global commands -> guild {self.guild} (copy_global_to, environment "
                f"{self.environment})")


@dataclass(frozen=True)
class Project:
    """A configuration file read: where it is, its manifest patterns and environments."""

    path: str
    manifests: tuple[str, ...] = ()
    environments: Mapping[str, Environment] = field(default_factory=dict)
    default_environment: str | None = None
    timeout: float | None = None

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) or "."

    def timeout_for(self, environment: Environment | None) -> float | None:
        """The seconds to wait for each request: ``environment``'s ``timeout``, else the
        top-level one (None: neither is set)."""
        if environment is not None and environment.timeout is not None:
            return environment.timeout
        return self.timeout

    def patterns(self, environment: Environment | None) -> tuple[str, ...]:
        """The manifest patterns ``environment`` reads: its own ``manifests``, else the
        top-level list."""
        if environment is not None and environment.manifests is not None:
            return environment.manifests
        return self.manifests

    def manifest_paths(self, patterns: tuple[str, ...] | None = None) -> list[str]:
        """The manifest patterns (default: the top-level list) expanded (globs), relative
        to the working directory when they are below it, in the order written; a
        pattern matching nothing stays as written (validate reports it as missing)."""
        found: list[str] = []
        for pattern in self.manifests if patterns is None else patterns:
            full = os.path.join(self.root, pattern)
            matches = self._glob(pattern) if glob.has_magic(pattern) else [full]
            found += [relative_path(path) for path in matches] or [relative_path(full)]
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

    def line(self, *keys: str) -> int | None:
        """The line of the key ``keys`` in the configuration (None when not found); with
        no keys, the line of the ``[tool.cmdsync]`` header (None in ``cmdsync.toml``)."""
        if keys:
            return key_line(self.path, keys, _prefix(self))
        return quoted_header(self.path, _prefix(self)) if _prefix(self) else None

    def where(self, *keys: str) -> str:
        """``cmdsync.toml:9`` (or ``pyproject.toml:12 [tool.cmdsync]``): the file and the
        line of the key ``keys``, for messages."""
        line = self.line(*keys)
        table = _prefix(self)
        return f"{relative_path(self.path)}{f':{line}' if line else ''}{f' [{table}]' if table else ''}"

    def manifest_sets(self) -> list[tuple[Environment | None, tuple[str, ...]]]:
        """Every environment with the manifest patterns it reads, and the top-level list
        with no environment when one is written and some run reads it without an
        environment (no ``default_environment``, or no environment at all), or no
        environment reads it: what ``validate`` with no paths checks, each set with its
        environment's variables. Sets without patterns are left out."""
        sets: list[tuple[Environment | None, tuple[str, ...]]] = [
            (environment, self.patterns(environment))
            for environment in self.environments.values()]
        if self.manifests and (self.default_environment is None or all(
                environment.manifests is not None
                for environment in self.environments.values())):
            sets.insert(0, (None, self.manifests))
        return [(environment, patterns) for environment, patterns in sets if patterns]


def relative_path(path: str) -> str:
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


_TOP_KEYS = ("manifests", "environments", "default_environment", "timeout")


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
    return Project(path, tuple(manifests), environments, default,
                   _timeout(table, lambda: where("timeout")))


def _timeout(table: Mapping[str, Any], where: Callable[[], str]) -> float | None:
    """The table's ``timeout`` (None when not set); UsageError at ``where()`` unless it
    is a number of seconds above 0."""
    value = table.get("timeout")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{where()}: timeout must be a number of seconds above 0 (to wait "
                         "for each request), such as timeout = 30")
    return float(value)


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
    copy = values.get("copy_global_to")
    if copy is not None and not (isinstance(copy, str) and copy.strip()):
        raise UsageError(f"{at('copy_global_to')}: copy_global_to must be a guild id (a quoted "
                         "string of digits) or \"${VAR}\" naming one, such as "
                         "copy_global_to = \"${DEV_GUILD_ID}\"")
    manifests = values.get("manifests")
    if isinstance(manifests, str):
        manifests = [manifests]
    if manifests is not None and (not isinstance(manifests, list)
                                  or not all(isinstance(m, str) for m in manifests)):
        raise UsageError(f"{at('manifests')}: manifests must be a list of paths or globs "
                         "(relative to the configuration), such as manifests = [\"discord/\"]")
    return Environment(name, variables, copy,
                       tuple(manifests) if manifests is not None else None,
                       _timeout(values, lambda: at("timeout")))


def environment_for(project: Project | None, name: str | None,
                    env: Mapping[str, str], *, explicit: bool | None = None,
                    chosen_by: str | None = None) -> dict[str, str]:
    """``env`` with the selected environment's variables where ``env`` lacks them
    (``${VAR}`` in the file's values expands from ``env``).

    An environment chosen by name (``--env NAME``) whose ``application_id`` or
    ``api_url`` differs from the process environment's
    ``DISCORD_APPLICATION_ID`` or ``CMDSYNC_API_URL`` is a
    :class:`~cmdsync.errors.UsageError`: the explicit choice must not write
    to another application. (The default environment yields to the
    process environment, as documented; so does one named with ``explicit``
    False: ``validate`` checking every environment's manifests.) ``chosen_by``
    says who named it, in that error (default ``--env NAME``)."""
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
        chosen_by_name = (name is not None if explicit is None else explicit) \
            and variable in _TARGET_VARIABLES
        if not merged.get(variable) or chosen_by_name:
            expanded, missing = interpolate(value, env)
            if missing:
                continue
            if merged.get(variable) and merged[variable].rstrip("/") != expanded.rstrip("/"):
                raise UsageError(
                    f"{chosen_by or f'--env {chosen.name}'} sets "
                    f"{_TARGET_VARIABLES[variable]} {expanded!r} "
                    f"({project.path}), but {variable} is {merged[variable]!r} in the "
                    f"environment: unset {variable}"
                    f"{', or drop --env to use it' if chosen_by is None else ''}")
            if variable == "DISCORD_APPLICATION_ID" and not expanded.isdigit():
                raise UsageError(f"{project.path}: environments.{chosen.name}: application_id "
                                 f"{expanded!r} is not a snowflake (a string of digits)")
            merged[variable] = expanded
    return merged


def resolve_paths(paths: list[str] | None, project: Project | None,
                  environment: Environment | None = None) -> list[str]:
    """The paths given, else the manifests ``environment`` reads (its own ``manifests``,
    else the project's); UsageError when there are none, and naming the configuration
    file and line when one of those patterns matches nothing."""
    if paths:
        return paths
    patterns = project.patterns(environment) if project is not None else ()
    if project is not None and patterns:
        own = environment is not None and environment.manifests is not None
        key = f"environments.{environment.name}.manifests" if own and environment else \
            "manifests"
        for pattern in patterns:
            if not (project._glob(pattern) if glob.has_magic(pattern)
                    else os.path.lexists(os.path.join(project.root, pattern))):
                line = quoted_line(project.path, pattern) or key_line(
                    project.path, tuple(key.split(".")), _prefix(project))
                raise UsageError(
                    f"{project.path}{f':{line}' if line else ''}: {key}: {pattern!r} "
                    f"matches no file or directory (paths are relative to "
                    f"{project.root}): fix it there, or give the manifests' paths")
        return project.manifest_paths(patterns)
    if project is not None:
        where = (f"under `environments.{environment.name}.manifests` or `manifests`"
                 if environment is not None else "under `manifests`")
        raise UsageError(f"no manifests: give their paths, or list them {where} in "
                         f"{project.path}")
    raise UsageError("no manifests: give their paths, or list them in cmdsync.toml "
                     "(`cmdsync init` writes one)")


def copy_target(project: Project | None, environment: Environment | None,
                env: Mapping[str, str], *, strict: bool = True) -> CopyTarget | None:
    """Where ``environment``'s ``copy_global_to`` sends the global commands, its
    ``${VAR}`` expanded from ``env`` (the process environment with the environment's
    variables: :func:`environment_for`); None when it sets none.

    ``strict`` (plan, apply): a :class:`~cmdsync.errors.UsageError` naming the file,
    the line and the key for an unset variable; else (offline validate) None then.
    A value that is not a snowflake is a UsageError either way."""
    if project is None or environment is None or environment.copy_global_to is None:
        return None
    name, written = environment.name, environment.copy_global_to
    where = project.where("environments", name, "copy_global_to")
    expanded, missing = interpolate(written, env)
    if missing:
        if not strict:
            return None
        raise UsageError(f"{where}: environments.{name}.copy_global_to {written!r}: "
                         f"{missing[0]} is not set: set it in the environment, or under "
                         f"environments.{name}.guilds ({missing[0]} = \"GUILD_ID\")")
    if not expanded.strip().isdigit():
        raise UsageError(f"{where}: environments.{name}.copy_global_to {expanded!r} is not a "
                         "guild id (a snowflake: a quoted string of digits)")
    return CopyTarget(expanded.strip(), name, where)


@dataclass(frozen=True)
class Selection:
    """What a command acts on: its manifest paths, the environment mapping with the
    selected environment's variables (flag > environment > file), where ``.cmdsync/``
    lives (the project's root; None without a configuration: the working directory),
    the configuration and the environment selected (named, else the default)."""

    paths: list[str]
    env: dict[str, str]
    root: str | None = None
    project: Project | None = None
    environment: Environment | None = None

    def copy_target(self, *, strict: bool = True) -> CopyTarget | None:
        """The selected environment's ``copy_global_to`` (:func:`copy_target`)."""
        return copy_target(self.project, self.environment, self.env, strict=strict)


def select(paths: list[str] | None, name: str | None, env: Mapping[str, str], *,
           need_paths: bool = True, start: str | None = None,
           chosen_by: str | None = None) -> Selection:
    """The :class:`Selection` of a command given ``paths`` (else the environment's
    manifests, when ``need_paths``) and ``--env name`` (else the default environment;
    ``chosen_by`` says who named it when ``--env`` did not: a saved plan). Raises
    :class:`~cmdsync.errors.UsageError` as :func:`resolve_paths` and
    :func:`environment_for` do."""
    project = find_config(start)
    environment = project.environment(name) if project is not None else None
    merged = environment_for(project, name, env, chosen_by=chosen_by)
    found = resolve_paths(paths, project, environment) if need_paths else list(paths or [])
    return Selection(found, merged, project.root if project is not None else None, project,
                     environment)


def _prefix(project: Project) -> str:
    return "tool.cmdsync" if os.path.basename(project.path) == PYPROJECT else ""
