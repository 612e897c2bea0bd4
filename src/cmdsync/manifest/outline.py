"""The scopes manifests name, read from their text long before they are validated.

``plan`` and ``apply`` start reading live state while the manifests are
still being read and validated (:mod:`cmdsync.runners.plan`): the reads wait
on Discord's rate limit, not on the CPU. Which scopes to read follows from
the manifests' structure alone: :func:`outline` finds, in each file's text,
the top-level ``application_id``, the global ``commands`` and the keys of the
top-level ``guilds`` mapping (and which guilds set ``permissions``), written
in block style as manifests usually are, without parsing the file.

An outline is a guess, never a verdict: whatever it misses (a flow-style
mapping, a key it cannot read) or gets wrong is read or dropped once the
desired state is known, so it only decides when a read starts, never what
the plan says. Large JSON files are left out (none of their scopes guessed).
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from cmdsync.manifest.files import MAX_MANIFEST_BYTES, read_bounded
from cmdsync.model import GLOBAL

_JSON_READ_BYTES = 1024 * 1024  # a larger JSON file is not outlined
_SNOWFLAKE = re.compile(r"\d{1,20}")
# A top-level key (at column 0) of the three an outline reads.
_TOP_KEYS = re.compile(r"\n([\"']?)(application_id|commands|guilds)\1[ \t]*:")
_APPLICATION_VALUE = re.compile(r"[ \t]*[\"']?(\d{1,20})[\"']?[ \t]*(?:#[^\n]*)?(?=\n|$)")
_BLOCK_START = re.compile(r"[ \t]*(?:#[^\n]*)?\n")  # the key's value is a block
_TOP_LEVEL = re.compile(r"\n(?=[^\s#])")  # the next line at column 0
_INDENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*( +)\S")  # the first content line's indentation
_PERMISSIONS = re.compile(r"\n ++[\"']?permissions[\"']?[ \t]*:")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class Outline:
    """What the manifests' text says of their scopes.

    ``application_ids``: the top-level ``application_id`` values found (one,
    usually); ``scopes``: ``"global"`` when some file has global commands,
    then guild ids, each once, in the order found; ``permissions``: the
    guilds whose block sets ``permissions``.
    """

    application_ids: frozenset[str] = frozenset()
    scopes: tuple[str, ...] = ()
    permissions: frozenset[str] = frozenset()


def outline(files: Iterable[str], env: Mapping[str, str] | None = None) -> Outline:
    """The :class:`Outline` of manifest ``files`` (paths of files, not directories).

    ``${VAR}`` guild keys are read from ``env`` (default ``os.environ``).
    Never raises for a file it cannot read or make out: it says nothing of it.
    """
    applications: set[str] = set()
    scopes: dict[str, None] = {}
    permissions: set[str] = set()
    for part in outlines(files, env):
        applications |= part.application_ids
        scopes.update(dict.fromkeys(part.scopes))
        permissions |= part.permissions
    ordered = sorted(scopes, key=lambda s: (0, 0) if s == GLOBAL else (1, int(s)))
    return Outline(frozenset(applications), tuple(ordered), frozenset(permissions))


def outlines(files: Iterable[str], env: Mapping[str, str] | None = None
             ) -> Iterator[Outline]:
    """The :class:`Outline` of each of ``files`` in turn (see :func:`outline`), so that
    reads of a file's scopes may start before the next file is read."""
    env = os.environ if env is None else env
    for path in files:
        applications: set[str] = set()
        scopes: dict[str, None] = {}
        permissions: set[str] = set()
        try:
            raw = read_bounded(path, MAX_MANIFEST_BYTES)
            if path.lower().endswith(".json"):
                _outline_json(raw, applications, scopes, permissions)
            else:
                _outline_yaml(raw.decode("utf-8-sig"), env, applications, scopes, permissions)
        except (OSError, ValueError, RecursionError):
            pass
        yield Outline(frozenset(applications), tuple(scopes), frozenset(permissions))


def _outline_json(raw: bytes, applications: set[str], scopes: dict[str, None],
                  permissions: set[str]) -> None:
    if len(raw) > _JSON_READ_BYTES:
        return
    data = json.loads(raw)
    if isinstance(data, list):
        scopes[GLOBAL] = None
        return
    if not isinstance(data, dict):
        return
    if isinstance(data.get("application_id"), (str, int)):
        applications.add(str(data["application_id"]))
    if data.get("commands"):
        scopes[GLOBAL] = None
    guilds = data.get("guilds")
    if isinstance(guilds, dict):
        for key, guild in guilds.items():
            if isinstance(key, str) and _SNOWFLAKE.fullmatch(key):
                scopes[key] = None
                if isinstance(guild, dict) and guild.get("permissions"):
                    permissions.add(key)


def _outline_yaml(text: str, env: Mapping[str, str], applications: set[str],
                  scopes: dict[str, None], permissions: set[str]) -> None:
    text = "\n" + text  # every pattern starts at a line break: a literal, found fast
    if text.lstrip().startswith(("- ", "[")):
        scopes[GLOBAL] = None  # a list of commands
    start = -1
    for key in _TOP_KEYS.finditer(text):
        name = key.group(2)
        if name == "application_id":
            value = _APPLICATION_VALUE.match(text, key.end())
            if value:
                applications.add(value.group(1))
        elif name == "commands":
            scopes[GLOBAL] = None
        else:
            block = _BLOCK_START.match(text, key.end())
            start = block.end() if block else -1
    if start < 0:
        return
    end_match = _TOP_LEVEL.search(text, start)
    end = end_match.start() if end_match else len(text)
    indent = _INDENT.match(text, start)
    if indent is None:
        return
    spaces = indent.group(1)
    guild_key = re.compile(rf"\n{spaces}([\"']?)(\d{{1,20}}|\$\{{[^}}\n]*\}})\1[ \t]*:")
    positions: list[int] = []
    guilds: list[str] = []
    # from the line break ending "guilds:", which the block's first key follows
    for match in guild_key.finditer(text, start - 1, end):
        name = match.group(2)
        variable = _VARIABLE.fullmatch(name)
        if variable:  # ${VAR}, ${VAR:-default}: as cmdsync.manifest.interpolate reads it
            name = (env.get(variable.group(1)) or variable.group(2) or "").strip()
            if not _SNOWFLAKE.fullmatch(name):
                continue
        elif name.startswith("$"):
            continue
        positions.append(match.start())
        guilds.append(name)
        scopes[name] = None
    for match in _PERMISSIONS.finditer(text, start, end):
        index = bisect_right(positions, match.start()) - 1
        if index >= 0:
            permissions.add(guilds[index])
