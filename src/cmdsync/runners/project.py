"""The project configuration as values, and what its environments resolve to.

:class:`Project` is a configuration read (:mod:`cmdsync.runners.project_file`
finds and reads ``cmdsync.toml``, or ``[tool.cmdsync]`` in ``pyproject.toml``):
its manifest patterns, its :class:`Environment` tables, its default environment
and timeout. With it, ``validate``, ``plan``, ``apply``, ``check`` and ``pull``
take no paths (:func:`resolve_paths`), and ``--env NAME`` selects an
environment. Precedence, as Terraform and ruff: a flag beats the environment,
which beats the file. An environment's values reach the manifests as variables
(:func:`environment_for`): ``application_id`` as ``DISCORD_APPLICATION_ID``,
``api_url`` as ``CMDSYNC_API_URL``, each ``guilds`` entry under its own name,
each only where the process environment does not set it. ``copy_global_to``
(:func:`copy_target`) makes plan and apply treat the manifests' global commands
as that guild's, as discord.py's ``tree.copy_global_to(guild=...)`` does: one
manifest, a development guild in one environment, global in another.
:class:`Selection` is all of that for one command
(:func:`cmdsync.runners.project_file.select`).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from cmdsync.errors import UsageError
from cmdsync.manifest.interpolate import interpolate
from cmdsync.runners.toml_lines import did_you_mean, key_line, quoted_header, quoted_line

CONFIG_FILE = "cmdsync.toml"
PYPROJECT = "pyproject.toml"
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
    the configuration and the environment selected (named, else the default):
    :func:`cmdsync.runners.project_file.select`."""

    paths: list[str]
    env: dict[str, str]
    root: str | None = None
    project: Project | None = None
    environment: Environment | None = None

    def copy_target(self, *, strict: bool = True) -> CopyTarget | None:
        """The selected environment's ``copy_global_to`` (:func:`copy_target`)."""
        return copy_target(self.project, self.environment, self.env, strict=strict)


def _prefix(project: Project) -> str:
    return "tool.cmdsync" if os.path.basename(project.path) == PYPROJECT else ""
