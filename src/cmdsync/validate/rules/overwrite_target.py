"""Each ``permissions`` key must name a command that exists, unambiguously and once.

Overwrites are set per command (Discord's "Application Commands" documentation (endpoints)): a key of a guild's
``permissions`` names a guild command of that guild, else a global command;
a guild command wins over a global one of the same name. When several types
share the name in that scope (a ``ping`` slash command and a ``ping`` user
command), a bare name is ambiguous: write ``type:name`` (``chat_input:ping``,
``user:ping``, ``message:Report message``, ``primary_entry_point:launch``).
``"*"`` is the application-wide entry, which holds the overwrites of every
command without its own (Discord's documentation: the entry whose id is the application
id). Global commands declared in another file of the same run count. Two
keys of one guild that name the same command (``ping`` and
``chat_input:ping``, or one key in two files) are an error at the second:
setting a command's permissions replaces all of them, so one list would
silently discard the other. A key naming no command has nothing to apply
to. A ``type:`` prefix only counts when it names a command type; a key
like ``Translate: French`` (or a ``type:name`` key that finds nothing) is
also tried as a whole name, since USER and MESSAGE names may contain ``:``.

Failing::

    commands:
      - {name: ping, description: Check the bot is alive}
      - {type: user, name: ping}
    guilds:
      "333333333333333333":
        permissions:
          ping: []          # ambiguous: chat_input:ping or user:ping
          pnig: []          # no such command

Passing::

    commands:
      - {name: ping, description: Check the bot is alive}
      - {type: user, name: ping}
    guilds:
      "333333333333333333":
        permissions:
          "chat_input:ping": []
          "user:ping": []
          "*": []
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet, PermissionEntry
from cmdsync.model import GLOBAL, CommandType, enum_value
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import scope_phrase

ID = "CS402"
NAME = "overwrite-target"
TITLE = "Permission keys name one existing command (type:name when ambiguous)"
SEVERITY = Severity.ERROR

APPLICATION_WIDE = "*"


@dataclass(frozen=True)
class Target:
    """The command a permissions key resolves to (type 0 for the ``"*"`` entry)."""

    scope: str
    type: int
    name: str


@dataclass(frozen=True)
class Resolution:
    """A key's target, or why it has none (``problem``)."""

    target: Target | None
    problem: str = ""


def spelling(kind: int, name: str) -> str:
    """The ``type:name`` key for a command: ``"chat_input:ping"``."""
    return f"{CommandType(kind).name.lower()}:{name}"


def known_commands(manifest: ManifestSet) -> dict[str, dict[str, set[int]]]:
    """Command types by scope and name, for every command with a valid type and name."""
    known: dict[str, dict[str, set[int]]] = {}
    for entry in manifest.commands:
        if entry.type is not None and entry.name is not None:
            known.setdefault(entry.scope, {}).setdefault(entry.name, set()).add(entry.type)
    return known


def resolve(known: dict[str, dict[str, set[int]]], guild_id: str, key: str) -> Resolution:
    """The command that the permissions ``key`` of guild ``guild_id`` names."""
    if key == APPLICATION_WIDE:
        return Resolution(Target(guild_id, 0, APPLICATION_WIDE))
    scopes = (guild_id, GLOBAL)
    prefix, _, rest = key.partition(":")
    kind = enum_value(CommandType, prefix) if rest else None
    if kind is not None:
        for scope in scopes:
            if kind in known.get(scope, {}).get(rest, set()):
                return Resolution(Target(scope, kind, rest))
    for scope in scopes:
        kinds = known.get(scope, {}).get(key)
        if not kinds:
            continue
        if len(kinds) == 1:
            return Resolution(Target(scope, next(iter(kinds)), key))
        choices = " or ".join(repr(spelling(k, key)) for k in sorted(kinds))
        return Resolution(None, f"permissions key {key!r} is ambiguous: {scope_phrase(scope)} "
                                f"has {len(kinds)} commands of that name: write {choices}")
    return Resolution(None, _unknown(known, scopes, key, kind, rest))


def _unknown(known: dict[str, dict[str, set[int]]], scopes: tuple[str, str], key: str,
             kind: int | None, name: str) -> str:
    if kind is None:
        name = key
        head = f"permissions key {key!r} matches no command of guild {scopes[0]} and no global one"
    else:
        head = (f"permissions key {key!r} matches no {CommandType(kind).name} command of guild "
                f"{scopes[0]} and no global one")
        others = sorted({k for s in scopes for k in known.get(s, {}).get(name, set())})
        if others:
            return f"{head}; did you mean {' or '.join(repr(spelling(k, name)) for k in others)}?"
    close = difflib.get_close_matches(name, sorted({n for s in scopes for n in known.get(s, {})}),
                                      n=1)
    if not close:
        return f"{head}: declare the command, or fix the key"
    kinds = next(known[s][close[0]] for s in scopes if close[0] in known.get(s, {}))
    guesses = [close[0]] if len(kinds) == 1 else [spelling(k, close[0]) for k in sorted(kinds)]
    return f"{head}; did you mean {' or '.join(repr(g) for g in guesses)}?"


def check(manifest: ManifestSet) -> Iterator[Finding]:
    if not manifest.permissions:
        return
    known = known_commands(manifest)
    first: dict[tuple[str, Target], PermissionEntry] = {}
    for entry in manifest.permissions:
        found = resolve(known, entry.guild_id, entry.key)
        if found.target is None:
            yield Finding(entry.doc, entry.path, found.problem, key=True)
            continue
        seen = first.setdefault((entry.guild_id, found.target), entry)
        if seen is not entry:
            yield Finding(entry.doc, entry.path, _twice(entry, seen), key=True,
                          related=((seen.doc, seen.path),))


def _twice(entry: PermissionEntry, seen: PermissionEntry) -> str:
    head = (f"permissions key {entry.key!r} is given twice in guild {entry.guild_id}"
            if entry.key == seen.key else
            f"permissions key {entry.key!r} names the same command as {seen.key!r}")
    return (f"{head}; setting permissions replaces them all, so one list would discard the other: "
            "merge them into one")
