"""The line and column of chosen nodes of a YAML or JSON text, in one streaming pass.

:meth:`cmdsync.manifest.document.Document.locate` of a file read without positions
(JSON, and YAML read the fast way) once composed the whole text with PyYAML
to record the position of every node: for a file of a million small nodes
(``[1, 2, 3, ...]``, 8 MB) that was 700 MB for a hundred diagnostics.
:func:`find_positions` reads PyYAML's events instead, keeping no node, and
records only the paths asked for and their ancestors: a diagnostic's
address costs what the text costs to parse, not what its tree costs to hold.

It gives what the composed tree gives for those paths: a node's position is
its first event's (an anchored node's is its anchor's, wherever an alias
repeats it, as composing shares the node), a key's its scalar's; keys are
interpolated as the loader interpolated them. What it cannot follow as the
composer would (a merge key, a key that is a collection or an alias, an
alias of a node still open, aliases replaying more than ``max_replayed``
events) raises :class:`Unwalkable`, and the caller composes the text as
before. A text PyYAML cannot parse has no positions (as composing finds none).

:func:`find_duplicates` walks a JSON text the same way for the keys written
twice, which :mod:`json` reads keeping the last value silently.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from cmdsync.manifest.interpolate import interpolate

Path = tuple[str | int, ...]
Position = tuple[int, int]
# Keys the composer's flatten_mapping rewrites (YAML 1.1's merge and value keys).
_FLATTEN_TAGS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")


class Unwalkable(Exception):
    """The text holds what only composing it reads as the loader does."""


@dataclass
class _Open:
    """A collection being read: its path, and the next index or the key read last."""

    path: Path
    mapping: bool
    index: int = 0
    key: str | None = None  # a mapping's key awaiting its value
    lines: dict[str, int] = field(default_factory=dict)  # key -> line last written on


@dataclass(frozen=True)
class Duplicate:
    """A mapping key written again: its path, its 1-based line and column, and the line
    the same key was written on before."""

    path: Path
    line: int
    column: int
    before: int


@dataclass
class _Walk:
    """One pass over a text's events: what it records, and where it is."""

    wanted: Collection[Path]
    env: Mapping[str, str] | None
    max_depth: int
    max_replayed: int
    values: dict[Path, Position] = field(default_factory=dict)
    keys: dict[Path, Position] = field(default_factory=dict)
    stack: list[_Open] = field(default_factory=list)
    anchors: dict[str, list[Any]] = field(default_factory=dict)
    # anchored nodes being read: their name, events so far, and the depth they close at
    capturing: list[tuple[str, list[Any], int]] = field(default_factory=list)
    replayed: int = 0
    documents: int = 0
    duplicates: list[Duplicate] | None = None  # None: not looking for them

    def event(self, event: Any, *, replaying: bool = False) -> None:
        if not replaying:
            for _, events, _ in self.capturing:
                events.append(event)
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.stack.pop()
            self._close_captures(replaying)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event)
        elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
            self._node(event, replaying)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:  # composing wants a single document
                raise yaml.YAMLError("expected a single document")

    def _node(self, event: Any, replaying: bool) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top.mapping and top.key is None:
            self._key(top, event)
            return
        path = self._slot(top)
        if len(path) > self.max_depth:
            raise _Stop  # where the loader stops converting (CS003)
        if path in self.wanted:
            self.values[path] = _at(event)
        if event.anchor is not None and not replaying:
            if event.anchor in self.anchors:  # composing refuses a duplicate anchor
                raise yaml.YAMLError(f"found duplicate anchor {event.anchor!r}")
            self.capturing.append((event.anchor, [event], len(self.stack)))
        if isinstance(event, yaml.CollectionStartEvent):
            self.stack.append(_Open(path, isinstance(event, yaml.MappingStartEvent)))
        else:
            self._close_captures(replaying)

    def _key(self, top: _Open, event: Any) -> None:
        if not isinstance(event, yaml.ScalarEvent) or event.tag in _FLATTEN_TAGS \
                or (event.implicit[0] and event.value in ("<<", "=")):  # merge, value keys
            raise Unwalkable
        key = event.value
        if self.env is not None and "$" in key:
            key = interpolate(key, self.env)[0]
        top.key = key
        child = top.path + (key,)
        line, column = _at(event)
        if child in self.wanted:
            self.keys[child] = (line, column)
        if self.duplicates is not None:
            if key in top.lines:
                self.duplicates.append(Duplicate(child, line, column, top.lines[key]))
            top.lines[key] = line
        if event.anchor is not None:
            raise Unwalkable  # an anchored key: an alias may use it as a value

    def _slot(self, top: _Open | None) -> Path:
        """The path of the node that starts now, taking its place in ``top``."""
        if top is None:
            return ()
        if top.mapping:
            assert top.key is not None
            path = top.path + (top.key,)
            top.key = None
            return path
        top.index += 1
        return top.path + (top.index - 1,)

    def _alias(self, event: Any) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top.mapping and top.key is None:
            raise Unwalkable  # an alias as a key
        events = self.anchors.get(event.anchor)
        if events is None:
            if any(name == event.anchor for name, _, _ in self.capturing):
                raise Unwalkable  # an alias inside its own anchor
            raise yaml.YAMLError(f"found undefined alias {event.anchor!r}")
        self.replayed += len(events)
        if self.replayed > self.max_replayed:
            raise Unwalkable
        for replayed in events:
            self.event(replayed, replaying=True)

    def _close_captures(self, replaying: bool) -> None:
        while not replaying and self.capturing and self.capturing[-1][2] == len(self.stack):
            name, events, _ = self.capturing.pop()
            self.anchors[name] = events


def _at(event: Any) -> Position:
    """Where ``event`` starts, 1-based, as the composer marks its node."""
    mark = event.start_mark
    return mark.line + 1, mark.column + 1


class _Stop(Exception):
    """Stop where the loader stops converting; what was found stands."""


def find_duplicates(text: str, *, loader: Any, max_replayed: int) -> list[Duplicate]:
    """The keys written twice in a mapping of ``text`` (a JSON text, which the
    :mod:`json` module reads keeping the last value silently), at any depth, in the
    order they are written; none when PyYAML cannot parse it. Raises
    :class:`Unwalkable` (see the module docstring)."""
    walk = _Walk((), None, sys.maxsize, max_replayed, duplicates=[])
    try:
        for event in yaml.parse(text, Loader=loader):
            walk.event(event)
    except (yaml.YAMLError, RecursionError):
        return []
    return walk.duplicates or []


def find_positions(text: str, wanted: Collection[Path], *, loader: Any,
                   env: Mapping[str, str] | None, max_depth: int, max_replayed: int
                   ) -> tuple[dict[Path, Position], dict[Path, Position]]:
    """The 1-based (line, column) of the nodes at ``wanted`` paths, and of their keys
    (a path ending in a key: that key's own), as far as the text holds them.

    ``loader`` parses (a PyYAML loader class); ``env``: the ``${VAR}`` values keys
    were interpolated with (None: none were); nodes deeper than ``max_depth`` end
    the search. Raises :class:`Unwalkable` (see the module docstring).
    """
    walk = _Walk(wanted, env, max_depth, max_replayed)
    try:
        for event in yaml.parse(text, Loader=loader):
            walk.event(event)
    except _Stop:
        pass
    except (yaml.YAMLError, RecursionError):
        return {}, {}
    return walk.values, walk.keys
