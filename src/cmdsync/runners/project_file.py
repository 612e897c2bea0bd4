"""Finding and reading the project configuration: ``cmdsync.toml``, or ``[tool.cmdsync]``
in ``pyproject.toml``; and :func:`select`, what a command acts on.

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

A bad file is a :class:`~cmdsync.errors.UsageError` naming the file, the line
and the key. What the values mean, and how an environment resolves, is
:mod:`cmdsync.runners.project`.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from cmdsync.errors import UsageError
from cmdsync.runners.project import (
    CONFIG_FILE,
    PYPROJECT,
    Environment,
    Project,
    Selection,
    environment_for,
    resolve_paths,
)
from cmdsync.runners.toml_lines import did_you_mean, key_line

_ENVIRONMENT_KEYS = {"application_id", "api_url", "guilds", "copy_global_to", "manifests",
                     "timeout"}


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


def select(paths: list[str] | None, name: str | None, env: Mapping[str, str], *,
           need_paths: bool = True, start: str | None = None,
           chosen_by: str | None = None) -> Selection:
    """The :class:`Selection` of a command given ``paths`` (else the environment's
    manifests, when ``need_paths``) and ``--env name`` (else the default environment;
    ``chosen_by`` says who named it when ``--env`` did not: a saved plan). Raises
    :class:`~cmdsync.errors.UsageError` as :func:`~cmdsync.runners.project.resolve_paths`
    and :func:`~cmdsync.runners.project.environment_for` do."""
    project = find_config(start)
    environment = project.environment(name) if project is not None else None
    merged = environment_for(project, name, env, chosen_by=chosen_by)
    found = resolve_paths(paths, project, environment) if need_paths else list(paths or [])
    return Selection(found, merged, project.root if project is not None else None, project,
                     environment)

