"""A manifest file as read: its data, its problems, and where its nodes are written.

A :class:`Document` is what :func:`cmdsync.manifest.loader.load_file` returns.
A path into its data is a tuple of keys and indexes; :meth:`Document.locate`
turns one into a :class:`~cmdsync.manifest.diagnostics.Location`: the file,
the 1-based line and column of the node (or of its nearest ancestor that the
file holds), and the path as a JSON pointer (RFC 6901,
https://www.rfc-editor.org/rfc/rfc6901). A file read the careful way carries
the positions of every node; one read without them (JSON, YAML read the fast
way) finds those of the paths its diagnostics name in one pass over its text
(:mod:`cmdsync.manifest.positions`), else composes the text once
(:func:`cmdsync.manifest.yaml_careful.yaml_positions`).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.manifest.diagnostics import Diagnostic, Location, pointer
from cmdsync.manifest.positions import Unwalkable, find_positions
from cmdsync.manifest.yaml_careful import (
    ALIAS_EXPANSION_FLOOR,
    MAX_DEPTH,
    loader_for,
    yaml_positions,
)

Path = tuple[str | int, ...]
Position = tuple[int, int]

PACK_AT_LEAST = 1024 * 1024  # characters of a text Document.pack compresses


@dataclass
class Document:
    """One manifest file as read: its data, node positions and load problems.

    ``data`` is None when the file could not be parsed. ``positions`` maps a
    path (tuple of keys and indexes) to the 1-based (line, column) of the
    value there; ``key_positions`` to that of its mapping key.
    """

    file: str
    kind: str  # "yaml" or "json"
    data: Any = None
    text: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    positions: dict[Path, Position] | None = None
    key_positions: dict[Path, Position] = field(default_factory=dict)
    unreadable: bool = False  # could not be read as text at all (exit code 2)
    # offline validate: an unset ${VAR} is a placeholder (a note), not an error
    placeholders: bool = False
    # the reference (discord.py:MODULE:ATTR) of a document read from bot code;
    # ``file`` is then the handler's source file
    source: str | None = None
    # the ${VAR} values a YAML file read the fast way was interpolated with,
    # for computing its positions later (never shown: it holds the environment)
    env: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    # ``text`` compressed by :meth:`pack` (then ``text`` is ""): see :meth:`source_text`
    packed: bytes | None = field(default=None, repr=False, compare=False)
    # while ``positions`` is None: those of the paths :meth:`position` searched for
    found: _Found | None = field(default=None, repr=False, compare=False)

    def source_text(self) -> str:
        """The file's text as read, whether or not :meth:`pack` put it away."""
        if self.packed is not None:
            return zlib.decompress(self.packed).decode("utf-8", "surrogatepass")
        return self.text

    def pack(self, *, at_least: int = PACK_AT_LEAST) -> None:
        """Keep a text of ``at_least`` characters or more compressed (``zlib``), once
        read: a plan keeps its manifests while it waits on Discord, and a large one's
        text is most of its memory. :meth:`source_text` gives it back."""
        if self.packed is None and len(self.text) >= at_least:
            self.packed = zlib.compress(self.text.encode("utf-8", "surrogatepass"), 1)
            self.text = ""

    def locate(self, path: Path, *, key: bool = False) -> Location:
        """The :class:`Location` of ``path``, or of its nearest located ancestor.

        Without positions (JSON, YAML read the fast way), the position of every
        node is computed on the first call, unless :meth:`position` searched for
        ``path`` already."""
        values, keys = self._tables(path)
        table = keys if key else values
        probe = path
        while True:
            if probe in table:
                line, column = table[probe]
                return Location(self.file, line, column, pointer(path))
            if not probe:
                return Location(self.file, 1, 1, pointer(path))
            if key and probe in values:
                line, column = values[probe]
                return Location(self.file, line, column, pointer(path))
            probe = probe[:-1]

    def position(self, paths: Iterable[Path]) -> None:
        """Find the positions of ``paths`` and their ancestors now, in one pass over
        the text that keeps no other (:mod:`cmdsync.manifest.positions`), so that
        :meth:`locate` answers for them without the positions of every node: a
        file's diagnostics are few (a hundred schema errors at most), its nodes
        may be millions. Nothing to do when the positions are known already."""
        if self.positions is not None:
            return
        found = self.found or _Found()
        wanted = {path[:n] for path in paths for n in range(len(path) + 1)} - found.searched
        if not wanted:
            return
        text = self.source_text()
        env = None if self.kind == "json" else self.env
        try:
            values, keys = find_positions(
                text if env is not None else text.replace("\t", " "), wanted,
                loader=loader_for(text), env=env, max_depth=MAX_DEPTH,
                max_replayed=ALIAS_EXPANSION_FLOOR)
        except Unwalkable:  # what only composing reads right: every node's, as before
            self.positions, self.key_positions = yaml_positions(text, env=env)
            return
        found.values.update(values)
        found.keys.update(keys)
        found.searched |= wanted
        self.found = found

    def _tables(self, path: Path) -> tuple[dict[Path, Position], dict[Path, Position]]:
        """Where :meth:`locate` looks ``path`` up: the positions :meth:`position` found
        when it searched for it, else those of every node (computed once)."""
        if self.positions is None:
            if self.found is not None and path in self.found.searched:
                return self.found.values, self.found.keys
            self.positions, self.key_positions = yaml_positions(
                self.source_text(), env=None if self.kind == "json" else self.env)
            self.found = None
        return self.positions, self.key_positions


@dataclass
class _Found:
    """Positions of some paths only: those :meth:`Document.position` searched for (and
    their ancestors), of their nodes and keys."""

    searched: set[Path] = field(default_factory=set)
    values: dict[Path, Position] = field(default_factory=dict)
    keys: dict[Path, Position] = field(default_factory=dict)
