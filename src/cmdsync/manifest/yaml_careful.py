"""The careful way to read YAML: PyYAML composes the text, and its nodes become data.

PyYAML reads YAML 1.1 (https://yaml.org/spec/1.1/), with libyaml when it is
installed. :class:`Converter` turns the composed nodes into JSON-like data
and records the 1-based line and column of every node and key. It keeps keys
strings (``no:`` is the Norwegian locale, not ``False``;
``222222222222222222:`` is a guild id, not an int), reads ``yes``, ``no``,
``on`` and ``off`` as strings, as YAML 1.2's core schema does
(https://yaml.org/spec/1.2.2/, 10.3), makes unquoted snowflakes strings,
interpolates ``${VAR}``, reports keys written twice (CS002) rather than
keeping the last value, and bounds nesting and alias expansion (CS003).
:func:`yaml_positions` gives the positions of every node of a text read
without them (JSON, or YAML read the fast way).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import yaml

from cmdsync.manifest.diagnostics import Location, Recorder, pointer, problem
from cmdsync.manifest.interpolate import interpolate, unset_variable
from cmdsync.manifest.positions import Path, Position

MAX_DEPTH = 64
# A billion-laughs file has few distinct nodes and exponentially many
# expansions; honest anchors (a shared option block) expand a few times over.
ALIAS_EXPANSION_FACTOR = 10
ALIAS_EXPANSION_FLOOR = 100_000
# Fields whose unquoted YAML integers are snowflakes and become strings.
SNOWFLAKE_KEYS = frozenset({"id", "application_id", "guild_id"})


class _Reading(Recorder, Protocol):
    """The file a conversion reports its problems on: a
    :class:`~cmdsync.manifest.document.Document`, not named here because its
    module imports this one (for :func:`yaml_positions`)."""

    placeholders: bool


_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _KeepNelLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader, keeping U+0085 (NEL) as written.

    YAML 1.1 folds NEL, like a newline, into a space, while it keeps U+2028 and
    U+2029; PyYAML's dumper writes all three raw and expects them kept, so
    ``yaml.safe_dump({"v": "\x85"})`` reads back as ``" "``. Kept here like
    U+2028, a NEL in a choice value or description reads back as written. NEL
    still ends a line (line numbers are unchanged); only its folding differs.
    """

    def scan_line_break(self) -> str:
        if self.peek() == "\x85":
            self.forward()
            return "\x85"
        return str(super().scan_line_break())  # type: ignore[no-untyped-call]


def loader_for(text: str) -> Any:
    """The loader that composes ``text``: libyaml, unless it holds a NEL."""
    return _KeepNelLoader if "\x85" in text else _Loader


_INT_TAG = "tag:yaml.org,2002:int"
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_FLATTEN_TAGS = (_MERGE_TAG, "tag:yaml.org,2002:value")  # what flatten_mapping rewrites
# Constructors that keep no state, called directly (construct_object records
# every node it builds, for recursive structures that scalars cannot be).
_SIMPLE_SCALARS: dict[str, Any] = {
    tag: yaml.SafeLoader.yaml_constructors[tag]
    for tag in (_INT_TAG, "tag:yaml.org,2002:bool", "tag:yaml.org,2002:float",
                "tag:yaml.org,2002:null")}
_JSON_SCALARS = (str, int, float, bool, type(None))


class Abort(Exception):
    """Stop converting: a diagnostic explaining why was already recorded."""


def yaml_positions(text: str, duplicates: _Reading | None = None, *,
                   env: Mapping[str, str] | None = None
                   ) -> tuple[dict[Path, Position], dict[Path, Position]]:
    """Positions of every node, from PyYAML's composer.

    Without ``env``, of a JSON text (tabs read as spaces, nothing
    interpolated); with it, of a YAML text read the fast way (it parsed, so
    this does), its keys interpolated as they were then.
    """
    try:
        text = text if env is not None else text.replace("\t", " ")
        node = yaml.compose(text, Loader=loader_for(text))
    except (yaml.YAMLError, RecursionError):
        return {}, {}
    converter = Converter(duplicates, env=env or {}, interpolate_strings=env is not None)
    if node is not None:
        try:
            converter.convert(node, ())
        except Abort:
            pass
    return converter.positions, converter.key_positions


class Converter:
    """Turns a composed YAML node tree into JSON-like data, recording positions."""

    def __init__(self, doc: _Reading | None, *, env: Mapping[str, str],
                 interpolate_strings: bool) -> None:
        self.doc = doc
        self.env = env
        self.interpolate_strings = interpolate_strings
        self.loader = _Loader("")
        self.positions: dict[Path, Position] = {}
        self.key_positions: dict[Path, Position] = {}
        self.visits = 0
        self.budget: int | None = None
        self.root: yaml.Node | None = None
        self.seen: set[int] = set()
        # (path, first visit of its node?) from the root to the node being converted.
        self.trail: list[tuple[Path, bool]] = []

    def convert(self, node: yaml.Node, path: Path) -> Any:
        if self.root is None:
            self.root = node
        self.visits += 1
        mark = node.start_mark
        trail, seen = self.trail, self.seen
        del trail[len(path):]
        trail.append((path, id(node) not in seen))
        seen.add(id(node))
        # Without aliases every node is visited once; the exact budget (a walk
        # of the whole tree) is only needed once visits outrun distinct nodes.
        if self.visits > ALIAS_EXPANSION_FLOOR + ALIAS_EXPANSION_FACTOR * len(seen):
            if self.budget is None:
                self.budget = ALIAS_EXPANSION_FLOOR + ALIAS_EXPANSION_FACTOR * _distinct(self.root)
            if self.visits > self.budget:
                self._too_many_visits(mark)
        if len(path) > MAX_DEPTH:
            self._fail(f"data is nested more than {MAX_DEPTH} levels deep (a manifest needs "
                       "about 8): remove the extra nesting", mark, path)
        self.positions[path] = (mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        return [self.convert(child, path + (i,)) for i, child in enumerate(node.value)]

    def _too_many_visits(self, mark: Any) -> None:
        # An aliased node's mark is its anchor's: point at the innermost
        # place written out in the file, where the aliases are expanded.
        origin = next(p for p, first in reversed(self.trail) if first)
        line, column = self.positions.get(origin, (mark.line + 1, mark.column + 1))
        if self.doc is not None:
            problem(self.doc, "CS003", "aliases expand to more than "
                    f"{self.budget:,} nodes (a billion-laughs file?): use fewer or "
                    "smaller anchors", line, column, pointer(origin))
        raise Abort

    def _fail(self, message: str, mark: Any, path: Path) -> None:
        if self.doc is not None:
            problem(self.doc, "CS003", message, mark.line + 1, mark.column + 1, pointer(path))
        raise Abort

    def _mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        keys = self._duplicates(node, path)
        if any(key_node.tag in _FLATTEN_TAGS for key_node, _ in node.value):
            try:
                self.loader.flatten_mapping(node)
            except yaml.constructor.ConstructorError as exc:
                self._fail(f"bad merge key: {exc.problem}", node.start_mark, path)
            keys = [None] * len(node.value)  # merged in: read every key again
        result: dict[str, Any] = {}
        for (key_node, value_node), known in zip(node.value, keys):
            if not isinstance(key_node, yaml.ScalarNode):
                self._fail("mapping keys must be plain strings, not collections",
                           key_node.start_mark, path)
            key = self._key(key_node, path) if known is None else known
            child = path + (key,)
            self.key_positions[child] = (key_node.start_mark.line + 1,
                                         key_node.start_mark.column + 1)
            result[key] = self.convert(value_node, child)
        return result

    def _duplicates(self, node: yaml.MappingNode, path: Path) -> list[str | None]:
        """Report keys written twice (CS002); the key of each pair (None: not a plain key)."""
        seen: dict[str, yaml.Node] = {}
        keys: list[str | None] = []
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                keys.append(None)
                continue
            key = self._key(key_node, path)
            keys.append(key)
            if key in seen and self.doc is not None:
                first = seen[key].start_mark
                problem(self.doc, "CS002", f"duplicate key {key!r} (first at line "
                        f"{first.line + 1}): the last value would win silently; remove one",
                        key_node.start_mark.line + 1, key_node.start_mark.column + 1,
                        pointer(path + (key,)))
            seen[key] = key_node
        return keys

    def _key(self, node: yaml.ScalarNode, path: Path) -> str:
        key = str(node.value)
        return self._interpolate(key, node, path) if self.interpolate_strings else key

    def _scalar(self, node: yaml.ScalarNode, path: Path) -> Any:
        if node.tag == _STR_TAG:
            value = str(node.value)
            return self._interpolate(value, node, path) if self.interpolate_strings else value
        if node.tag == _INT_TAG and path and path[-1] in SNOWFLAKE_KEYS:
            return str(node.value).replace("_", "")
        if node.tag == _BOOL_TAG and str(node.value).lower() not in ("true", "false"):
            # YAML 1.2's core schema, as editors read it: yes, no, on, off are strings.
            value = str(node.value)
            return self._interpolate(value, node, path) if self.interpolate_strings else value
        simple = _SIMPLE_SCALARS.get(node.tag)
        try:
            value = simple(self.loader, node) if simple else self.loader.construct_object(node)
        except yaml.constructor.ConstructorError:
            if self.doc is not None:
                problem(self.doc, "CS001", f"unsupported YAML tag {node.tag!r}: manifests "
                        "hold plain values; remove the tag",
                        node.start_mark.line + 1, node.start_mark.column + 1, pointer(path))
            raise Abort from None
        except ValueError:  # "0b_" matches 1.1's integer pattern but holds no digits
            return str(node.value)
        if isinstance(value, _JSON_SCALARS):
            return value
        return str(node.value)  # timestamps, binary: keep the text as written

    def _interpolate(self, value: str, node: yaml.Node, path: Path) -> str:
        if "$" not in value:
            return value
        result, missing = interpolate(value, self.env)
        if self.doc is not None:
            for name in missing:
                self.doc.diagnostics.append(unset_variable(name, Location(
                    self.doc.file, node.start_mark.line + 1, node.start_mark.column + 1,
                    pointer(path)), placeholder=self.doc.placeholders))
        return result


def _distinct(root: yaml.Node) -> int:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return len(seen)
