"""Read YAML and JSON files into data plus the line and column of every node.

:func:`load_file` never raises on bad input: every problem (unreadable file,
invalid UTF-8, syntax error, duplicate key, alias bomb, missing environment
variable) becomes a :class:`~cmdsync.manifest.diagnostics.Diagnostic` on the returned
:class:`Document`, which then carries ``data=None`` if nothing usable was read.

YAML is read in one of two ways that give the same data. The fast way
(:func:`_parse_fast`) parses with ``yaml-rs`` (Rust, YAML 1.2) and keeps no
positions; it is taken only for text in which YAML 1.2 and the YAML 1.1
that PyYAML reads cannot differ (see :data:`_DIVERGENT`), and it gives up,
leaving the file to the careful way, on anything it cannot decide: a
duplicate key, an alias that expands too far, a parse error, a missing
environment variable, a key that is not a string or an integer. The careful
way composes with PyYAML (libyaml when available) and converts the nodes
here, recording the line and column of every node; a document read the
fast way computes them the careful way, once, when a diagnostic needs one.
The careful way keeps keys strings (``no:`` is the Norwegian locale, not ``False``;
``222222222222222222:`` is a guild id, not an int), duplicate keys are
reported rather than silently overwritten, and alias expansion is bounded.
JSON values come from :mod:`json` (strict, exact numbers and escapes); their
positions come from composing the same text with PyYAML, once, only when a
diagnostic needs one.
"""

from __future__ import annotations

import json
import marshal
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
import yaml_rs

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity, pointer
from cmdsync.manifest.files import MAX_MANIFEST_BYTES, NotARegularFile, TooLarge, read_bounded
from cmdsync.manifest.interpolate import interpolate
from cmdsync.manifest.positions import Unwalkable, find_duplicates, find_positions

Path = tuple[str | int, ...]
Position = tuple[int, int]

MAX_BYTES = MAX_MANIFEST_BYTES
PACK_AT_LEAST = 1024 * 1024  # characters of a text Document.pack compresses
MAX_DEPTH = 64
# A billion-laughs file has few distinct nodes and exponentially many
# expansions; honest anchors (a shared option block) expand a few times over.
ALIAS_EXPANSION_FACTOR = 10
ALIAS_EXPANSION_FLOOR = 100_000
# Fields whose unquoted YAML integers are snowflakes and become strings.
SNOWFLAKE_KEYS = frozenset({"id", "application_id", "guild_id"})

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


def _loader_for(text: str) -> Any:
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
# Text where YAML 1.1 (PyYAML, the careful way) and YAML 1.2 (yaml-rs) may
# read differently, or that yaml-rs reads differently from a manifest. Each
# pattern starts with a literal, so that a search skips ahead as fast as
# str.find, and looks within one line, so that each distinct line is searched
# once; together they err on the side of the careful way (found by
# tests/validate/test_fast_yaml.py, which compares both ways on random text).
_DIVERGENT_TEXT = ("\t", "\x85", "\u2028", "\u2029",  # tabs, 1.1's extra line breaks
                   "<<",  # merge keys (yaml-rs keeps "<<" as a key)
                   "\n%", "\n...", "\n---",  # directives, document markers
                   "\ufeff")  # a byte order mark, which libyaml skips and yaml-rs keeps
# What PyYAML refuses as "unacceptable" (its Reader's printable set), and yaml-rs reads.
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                            "\U00010000-\U0010FFFF]")
_DIVERGENT = tuple(re.compile(pattern, re.MULTILINE) for pattern in (
    r"!(?<![^\s\[{,]!)",  # a tag (yaml-rs ignores tags)
    # Indicators where a node starts that libyaml refuses and yaml-rs reads as text:
    r"&(?<![^\s\[{,]&)(?![\w-]+(?:[\s,\]}]|\Z))",  # an anchor named with odd characters
    r"\*(?<![^\s\[{,]\*)(?![\w-]+(?:[\s,\]}]|\Z))",  # an alias likewise
    *(rf"{indicator}(?:(?<![^\s\[{{,]{indicator})(?![-+1-9]{{0,2}}(?: +#.*)? *$)"  # not a block
      rf"|(?<=[\[{{,]{indicator})|(?<=[\[{{,]\s{indicator}))"  # scalar header; in a flow
      for indicator in ("\\|", ">")),
    r"\?(?:(?<=[\[{,]\?)|(?<=[\[{,]\s\?)|(?<![^\s]\?))",  # ? starting a node
    # a colon starting or ending a flow scalar; 1:30, an integer in 1.1
    r":(?:(?<=[\[{,]:)|(?<=[\[{,]\s:)|(?<=\s:)(?!\s)|(?=[\]},?])|(?<=[0-9]:)[0-9])",
    r"@(?<![^\s\[{,]@)", r"`(?<![^\s\[{,]`)",  # reserved indicators
    r"=(?<![^\s\[{,:]=)(?![^\s,\]}])",  # 1.1's "=" value key
    r"\+[0-9.]",  # a signed number: a snowflake field keeps its text
    r"-0(?![.\d])(?<![\w.]-0)",  # -0, whose text a snowflake field keeps
    r"0(?<![\w.]0)[0-9xXoObB_]",  # leading zeros (octal in 1.1), base prefixes
    r"_(?:(?<=[0-9]_)|(?<![A-Za-z]_)[0-9.])",  # 1_000, _3 (an integer to yaml-rs)
    r"e(?<=[0-9.]e)[-+_]*[0-9]", r"E(?<=[0-9.]E)[-+_]*[0-9]",  # 1e5, a string in 1.1
    r"\.(?:(?<=[-+]\.)[0-9]|(?<![^\s\[{,:+-]\.)[iInN])",  # -.5, .Inf: 1.1 reads them apart
))
# A block scalar header ending a line, which a flow collection may not hold.
_BLOCK_HEADERS = (re.compile(r"\|(?=[-+1-9]{0,2}(?: +#.*)? *$)", re.MULTILINE),
                  re.compile(r">(?=[-+1-9]{0,2}(?: +#.*)? *$)", re.MULTILINE))
# A YAML text at least this long is read with its repeated pieces parsed once
# (_RepeatedPieces); shorter ones gain nothing from it.
REPEATED_PIECES_MIN_CHARS = 256 * 1024
REPEATED_PIECES_MIN_RATIO = 2  # pieces cut per distinct piece, at least
REPEATED_PIECES_MAX_SHARE = 4  # a piece is at most this part of the text (1/4)
# A fast read replays at most this many events for aliases, else the careful
# way counts the expansion exactly (ALIAS_EXPANSION_* below).
_FAST_ALIAS_EVENTS = 100_000
# An empty block scalar ends the file: yaml-rs reads "\n", PyYAML "".
_EMPTY_LAST_BLOCK = re.compile(r"[|>][-+1-9]{0,2}(?: +#[^\n]*)?\s*\Z")


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
                loader=_loader_for(text), env=env, max_depth=MAX_DEPTH,
                max_replayed=ALIAS_EXPANSION_FLOOR)
        except Unwalkable:  # what only composing reads right: every node's, as before
            self.positions, self.key_positions = _yaml_positions(text, env=env)
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
            self.positions, self.key_positions = _yaml_positions(
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


def load_file(path: str, *, env: Mapping[str, str] | None = None,
              placeholders: bool = False, shared: SharedBodies | None = None) -> Document:
    """Read and parse one ``.yaml``/``.yml``/``.json`` file.

    ``env`` supplies ``${VAR}`` values (default: ``os.environ``); JSON files
    are not interpolated, since deploy scripts send them verbatim. With
    ``placeholders`` (offline validate, as ``terraform validate`` needs no
    variable values) an unset ``${VAR}`` is a note (CS004) and stays as
    written; without, it is an error. With ``shared``, equal command objects
    of this file and of the others read with it are one object
    (:class:`SharedBodies`).
    """
    kind = "json" if path.lower().endswith(".json") else "yaml"
    doc = Document(file=path, kind=kind, placeholders=placeholders)
    text = _read_text(path, doc)
    if text is None:
        doc.unreadable = True
        return doc
    doc.text = text
    if kind == "json":
        _parse_json(doc)
    elif _parse_fast(doc, os.environ if env is None else env, shared):
        return doc  # shared while it was read
    else:
        _parse_careful(doc, os.environ if env is None else env)
    if shared is not None and doc.data is not None:
        _share_commands(doc.data, shared.converted)
    return doc


def load_text(text: str, *, file: str, kind: str, env: Mapping[str, str] | None = None,
              interpolate: bool = True) -> Document:
    """Parse ``text`` as if it were the file ``file`` (for tests, stdin and other YAML
    files, such as the emulator's seeds, which pass ``interpolate=False``: ``${VAR}``
    stays as written), with the same bounds on aliases and nesting."""
    doc = Document(file=file, kind=kind, text=text)
    if kind == "json":
        _parse_json(doc)
    else:
        _parse_yaml(doc, (os.environ if env is None else env) if interpolate else None)
    return doc


def _problem(doc: Document, rule: str, message: str, line: int = 1, column: int = 1,
             ptr: str = "") -> None:
    doc.diagnostics.append(
        Diagnostic(rule, Severity.ERROR, message, Location(doc.file, line, column, ptr))
    )


def _read_text(path: str, doc: Document) -> str | None:
    try:
        raw = read_bounded(path, MAX_BYTES)
    except TooLarge as exc:
        _problem(doc, "CS001", f"file is {exc.size:,} bytes; manifests are limited to "
                 f"{MAX_BYTES:,} bytes: split it into several files", 0, 0)
        return None
    except NotARegularFile as exc:
        _problem(doc, "CS001", f"cannot read file: {exc}; give a manifest file", 0, 0)
        return None
    except OSError as exc:
        _problem(doc, "CS001", f"cannot read file: {exc.strerror or exc}", 0, 0)
        return None
    if b"\x00" in raw:
        _problem(doc, "CS001", "file is binary (it contains NUL bytes), not YAML or JSON", 0, 0)
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        _problem(doc, "CS001", f"invalid UTF-8 (byte 0x{raw[exc.start]:02x}): save the file "
                 "as UTF-8", line, column)
        return None


def _parse_json(doc: Document) -> None:
    duplicates: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                duplicates.append(key)
            result[key] = value
        return result

    if not doc.text.strip():
        _problem(doc, "CS001", "file is empty: expected a JSON array of commands or a "
                 "manifest object")
        return
    try:
        doc.data = json.loads(doc.text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        _problem(doc, "CS001", f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
    except RecursionError:
        _problem(doc, "CS001", "JSON is nested too deeply to be a manifest")
    else:
        if duplicates:
            _report_json_duplicates(doc, duplicates)
        match = next((m for m in _LONE_SURROGATE_ESCAPE.finditer(doc.text)
                      if _escapes(doc.text, m.start())), None)
        if match is not None and _holds_lone_surrogate(doc.data):
            line = doc.text.count("\n", 0, match.start()) + 1
            column = match.start() - (doc.text.rfind("\n", 0, match.start()) + 1) + 1
            _problem(doc, "CS001", f"invalid JSON string: {match.group(0)} is half of a "
                     "surrogate pair, not a character (YAML refuses it too); write the "
                     "character itself, or both halves", line, column)
            doc.data = None


# A \uD800-\uDFFF escape not part of a pair: json.loads keeps it as a lone surrogate,
# which is no character, cannot be written as UTF-8, and Discord refuses.
_LONE_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})")


def _escapes(text: str, index: int) -> bool:
    """Whether the backslash at ``index`` starts an escape (is not itself escaped)."""
    start = index
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (index - start) % 2 == 0


def _holds_lone_surrogate(data: Any) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if any("\ud800" <= ch <= "\udfff" for ch in value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _report_json_duplicates(doc: Document, keys: list[str]) -> None:
    # json keeps the last value silently; find each duplicate again in the text's events
    # (composing the text would hold every node of it at once).
    text = doc.text.replace("\t", " ")
    try:
        found = find_duplicates(text, loader=_loader_for(text),
                                max_replayed=ALIAS_EXPANSION_FLOOR)
    except Unwalkable:
        doc.positions, doc.key_positions = _yaml_positions(doc.text, duplicates=doc)
        found = []
    for duplicate in found:
        key = duplicate.path[-1]
        _problem(doc, "CS002", f"duplicate key {key!r} (first at line {duplicate.before}): "
                 "the last value would win silently; remove one", duplicate.line,
                 duplicate.column, pointer(duplicate.path))
    if not any(d.rule == "CS002" for d in doc.diagnostics):
        for key in sorted(set(keys)):
            _problem(doc, "CS002", f"duplicate key {key!r}: the last value wins silently; "
                     "remove one")


def _yaml_positions(text: str, duplicates: Document | None = None, *,
                    env: Mapping[str, str] | None = None
                    ) -> tuple[dict[Path, Position], dict[Path, Position]]:
    """Positions of every node, from PyYAML's composer.

    Without ``env``, of a JSON text (tabs read as spaces, nothing
    interpolated); with it, of a YAML text read the fast way (it parsed, so
    this does), its keys interpolated as they were then.
    """
    try:
        text = text if env is not None else text.replace("\t", " ")
        node = yaml.compose(text, Loader=_loader_for(text))
    except (yaml.YAMLError, RecursionError):
        return {}, {}
    converter = _Converter(duplicates, env=env or {}, interpolate_strings=env is not None)
    if node is not None:
        try:
            converter.convert(node, ())
        except _Abort:
            pass
    return converter.positions, converter.key_positions


def _parse_yaml(doc: Document, env: Mapping[str, str] | None) -> None:
    """``env`` None: nothing is interpolated."""
    if not _parse_fast(doc, env, None):
        _parse_careful(doc, env)


def _parse_careful(doc: Document, env: Mapping[str, str] | None) -> None:
    try:
        node = yaml.compose(doc.text, Loader=_loader_for(doc.text))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        _problem(doc, "CS001", f"invalid YAML: {_yaml_message(exc, doc.text)}", line, column)
        return
    except yaml.YAMLError as exc:
        _problem(doc, "CS001", f"invalid YAML: {exc}")
        return
    except RecursionError:
        _problem(doc, "CS001", "YAML is nested too deeply to be a manifest")
        return
    if node is None:
        _problem(doc, "CS001", "file is empty: expected a manifest mapping or a list of "
                 "commands")
        return
    converter = _Converter(doc, env=env or {}, interpolate_strings=env is not None)
    try:
        doc.data = converter.convert(node, ())
    except _Abort:
        doc.data = None
    doc.positions, doc.key_positions = converter.positions, converter.key_positions


def _parse_fast(doc: Document, env: Mapping[str, str] | None,
                shared: SharedBodies | None) -> bool:
    """Read ``doc.text`` with yaml-rs, without positions; False to read it the careful way.

    True only when the data is exactly what :class:`_Converter` would build
    and reading it raised no diagnostic (tests/validate/test_fast_yaml.py
    holds the two ways equal).
    """
    text = doc.text
    if text.startswith(("%", "...")) or _EMPTY_LAST_BLOCK.search(text[-256:]):
        return False
    interpolating = env if "$" in text else None
    if len(text) >= REPEATED_PIECES_MIN_CHARS and "&" not in text and "\r" not in text:
        pieces = _RepeatedPieces(text)
        for values in (True, False):  # guild blocks and entries, else entries alone
            reduced = pieces.reduce(values=values)
            if reduced is None:
                continue
            if _divergent(reduced.lines()):
                return False  # the lines of the whole text, each once
            if any(pattern.search(reduced.lines()) for pattern in _BLOCK_HEADERS):
                break  # a block scalar: read the text whole
            try:
                data = reduced.read(interpolating, shared)
            except _Abort:
                return False
            if data is not None:
                doc.data = data
                doc.env = env
                return True
    # Each line once: every pattern looks within a line, and manifests repeat theirs.
    if _divergent(_distinct_lines(text.split("\n"))) \
            or _block_header_in_flow(text) or ("&" in text and _duplicate_anchor(text)):
        return False
    try:
        data = yaml_rs.loads(text, parse_datetime=False, alias_limits=yaml_rs.AliasLimits(
            max_total_replayed_events=_FAST_ALIAS_EVENTS))
    except (ValueError, RecursionError, OverflowError, TypeError):  # YAMLDecodeError is a
        return False  # ValueError; TypeError: a key that is a collection ({[1]: x})
    if not isinstance(data, (dict, list)):
        return False  # empty, or a lone scalar: the careful way says what is wrong
    try:
        if "&" in text and "*" in text:  # aliases: yaml-rs may share objects, so copy
            doc.data = _FastWalk(interpolating).value(data, None, 0)
        else:
            doc.data = data
            _FastWalk(interpolating, shared.read if shared else None).in_place(data, 0)
    except _Abort:
        return False
    doc.env = env
    return True


def _distinct_lines(lines: list[str], *more: list[str]) -> str:
    """The first of ``lines``, then each other line of ``lines`` and ``more`` once
    (a line such as ``---`` may stand first and again later)."""
    distinct = dict.fromkeys(lines[1:])
    for other in more:
        distinct.update(dict.fromkeys(other))
    return "\n".join([lines[0], *distinct])


def _divergent(lines: str) -> bool:
    """Whether ``lines`` (the distinct lines of a text, joined by line breaks, its
    first line first) hold a spelling of :data:`_DIVERGENT_TEXT` or :data:`_DIVERGENT`."""
    return any(marker in lines for marker in _DIVERGENT_TEXT) \
        or any(pattern.search(lines) for pattern in _DIVERGENT) \
        or _NON_PRINTABLE.search(lines) is not None or _flow_spans_lines(lines)


def _flow_spans_lines(lines: str) -> bool:
    """Whether a flow collection (``[...]``, ``{...}``) goes on past the end of a line
    (or a bracket in a scalar looks so): a key may then span lines, which
    libyaml refuses and yaml-rs reads."""
    if "[" not in lines and "{" not in lines:
        return False
    for line in lines.split("\n"):
        opens = line.count("[") + line.count("{")
        if opens and (opens > line.count("]") + line.count("}") or max(
                line.rfind("["), line.rfind("{")) > max(line.rfind("]"), line.rfind("}"))):
            return True
    return False


class _RepeatedPieces:
    """A large YAML text cut into pieces, so that each distinct piece is parsed once.

    Hundreds of guilds usually repeat the same commands word for word. A
    piece is an outermost block node written on lines of its own, at most a
    quarter of the text: a block sequence entry (a line ``- ...`` at column
    *n* and the lines after it indented deeper, with comments and blank
    lines between), or with ``values`` also the block value of a simple key
    (``"123":`` or ``name:`` ending its line, and the deeper lines after it).
    Each piece is replaced by a token (an entry ``- TOKEN``, a value ``key:
    TOKEN``); the reduced text and each distinct piece are parsed with
    yaml-rs, and each token is replaced by its piece's value, converted once
    and shared by every occurrence (as :class:`SharedBodies` shares them). A
    piece parses alone as it does in place: its indentation fixes its extent,
    in a text without anchors, tags, block scalars, directives or flow
    collections over several lines (the caller checks all its lines: no
    piece can then start inside a flow collection). The reading is checked: every token must come back whole, an
    entry token as a sequence entry and a value token as a mapping value,
    never inside a scalar (a ``- `` line within a multi-line quoted or plain
    scalar), and every piece must be a mapping or a sequence; else
    :meth:`_Reduced.read` returns None and the text is read whole.
    """

    _START = re.compile(r'^( *)(?:- |(?:[A-Za-z0-9_][\w.-]*|"[\w .-]*"):[ ]*\n(?=\1 ))',
                        re.MULTILINE)

    def __init__(self, text: str) -> None:
        self.text = text
        prefix = "_cmdsync_piece_"
        while prefix in text:
            prefix += "_"
        self.prefix = prefix
        self._ends: dict[int, re.Pattern[str]] = {}

    def reduce(self, *, values: bool) -> _Reduced | None:
        """The text cut into pieces; None when too few repeat to gain anything."""
        text, prefix = self.text, self.prefix
        largest = len(text) // REPEATED_PIECES_MAX_SHARE
        numbers: dict[tuple[bool, str], int] = {}  # (is an entry, text) -> its number
        parts: list[str] = []
        position = scan = count = 0
        while True:
            match = self._START.search(text, scan)
            if match is None:
                break
            start, indent = match.start(), len(match.group(1))
            entry = not match.group().endswith("\n")
            if not entry and not values:
                scan = match.end()
                continue
            end_pattern = self._ends.get(indent)
            if end_pattern is None:  # the next line at this indentation or less
                end_pattern = self._ends[indent] = re.compile(rf"\n(?= {{0,{indent}}}[^ \n#])")
            end = end_pattern.search(text, match.end())
            stop = end.end() if end is not None else len(text)
            if stop - start > largest:
                scan = match.end()  # too large to repeat: look inside it
                continue
            piece = text[start if entry else match.end():stop]
            if not piece.endswith("\n"):
                piece += "\n"
            number = numbers.setdefault((entry, piece), len(numbers))
            parts.append(text[position:start])
            if entry:
                parts.append(f"{match.group(1)}- {prefix}{number}\n")
            else:  # the key line, its value a token
                parts.append(f"{text[start:match.end() - 1]} {prefix}{number}\n")
            position = scan = stop
            count += 1
        if count < max(REPEATED_PIECES_MIN_RATIO * len(numbers), 1):
            return None
        parts.append(text[position:])
        return _Reduced(prefix, "".join(parts), list(numbers), count)


@dataclass
class _Reduced:
    """A text cut by :meth:`_RepeatedPieces.reduce`: ``text`` holds a token for each
    of ``count`` pieces; ``pieces`` are (is an entry, text), a token's number
    indexing them."""

    prefix: str
    text: str
    pieces: list[tuple[bool, str]]
    count: int
    _lines: str | None = None

    def lines(self) -> str:
        """The distinct lines of the reduced text and of the pieces: every line of
        the text cut (key lines with a token added), each once."""
        if self._lines is None:
            self._lines = _distinct_lines(self.text.split("\n"),
                                          *(piece.split("\n") for _, piece in self.pieces))
        return self._lines

    def read(self, env: Mapping[str, str] | None, shared: SharedBodies | None) -> Any:
        """The data, converted as :meth:`_FastWalk.in_place` converts it (``env``: the
        ``${VAR}`` values, None when the text has none); None when the text does not
        read this way (then it is read whole)."""
        try:
            data: Any = yaml_rs.loads(self.text, parse_datetime=False)
            values: list[Any] = []
            for entry, piece in self.pieces:
                value = _loads_any("_:\n" + piece)["_"]
                if entry:
                    if type(value) is not list or len(value) != 1:
                        return None
                    value = value[0]
                if type(value) not in (dict, list):
                    return None  # a scalar: its conversion depends on where it is
                values.append(value)
        except (ValueError, RecursionError, OverflowError, TypeError, KeyError):
            return None
        if not isinstance(data, (dict, list)):
            return None
        # Tokens are plain strings, kept as they are; the reduced text's own commands are
        # not memoized (they hold tokens), the pieces' are (equal commands kept once).
        _FastWalk(env).in_place(data, 0)
        walk = _FastWalk(env, shared.read if shared else {})
        depths: dict[int, int] = {}  # piece number -> the depth of its occurrences
        if self._count(data, depths, 0) != self.count:
            return None
        for number, depth in depths.items():  # each distinct piece converted once
            value = values[number]
            key = None
            if shared is not None:  # keyed as _FastWalk.in_place keys it: by the parent
                key = (depth - 1, marshal.dumps(value))
                known = shared.read.get(key)
                if known is not None:
                    values[number] = known
                    continue
            walk.in_place(value, depth, commands=type(value) is list)  # sharing is unseen
            if shared is not None and key is not None:
                shared.read[key] = value  # once converted: an abort leaves nothing behind
        self._substitute(data, values)
        return data

    def _count(self, node: Any, depths: dict[int, int], depth: int) -> int:
        """How many tokens ``node`` holds where they were put (entry tokens as
        entries, value tokens as values); -1 when a token is anywhere else, or
        a piece occurs at two depths."""
        prefix, found = self.prefix, 0
        in_list = type(node) is list
        pairs: Any = enumerate(node) if in_list else node.items()
        for key, value in pairs:
            if not in_list and prefix in key:
                return -1
            kind = type(value)
            if kind is str:
                if prefix not in value:
                    continue
                number = value[len(prefix):]
                if not value.startswith(prefix) or not number.isdigit() \
                        or int(number) >= len(self.pieces) \
                        or self.pieces[int(number)][0] is not in_list \
                        or depths.setdefault(int(number), depth + 1) != depth + 1:
                    return -1
                found += 1
            elif kind is dict or kind is list:
                inner = self._count(value, depths, depth + 1)
                if inner < 0:
                    return -1
                found += inner
        return found

    def _substitute(self, node: Any, values: list[Any]) -> None:
        """Replace every token in ``node`` by its piece's (converted, shared) value."""
        prefix = self.prefix
        pairs: Any = enumerate(node) if type(node) is list else list(node.items())
        for key, value in pairs:
            if type(value) is str and value.startswith(prefix):
                node[key] = values[int(value[len(prefix):])]
            elif type(value) in (dict, list):
                self._substitute(value, values)


_ANCHOR = re.compile(r"&(?<![^\s\[{,]&)([\w-]+)")


def _duplicate_anchor(text: str) -> bool:
    """Whether an anchor name is defined twice: YAML 1.2 (yaml-rs) allows it, PyYAML
    refuses it (a diagnostic only the careful way gives)."""
    names = _ANCHOR.findall(text)
    return len(names) != len(set(names))


def _loads_any(text: str) -> Any:
    return yaml_rs.loads(text, parse_datetime=False)


def _block_header_in_flow(text: str) -> bool:
    """Whether a block scalar header (``|``, ``>``) stands inside a flow collection
    (more ``[{`` than ``]}`` before it): libyaml refuses it, yaml-rs reads text."""
    headers = sorted(m.start() for pattern in _BLOCK_HEADERS for m in pattern.finditer(text))
    depth = start = 0
    for position in headers:
        depth += (text.count("{", start, position) + text.count("[", start, position)
                  - text.count("}", start, position) - text.count("]", start, position))
        if depth > 0:
            return True
        start = position
    return False


def _all_strings(mapping: dict[Any, Any]) -> bool:
    try:
        "".join(mapping)  # in C: fails on the first key that is not a string
    except TypeError:
        return False
    return True


@dataclass
class SharedBodies:
    """Equal command objects of the files of one run, kept once.

    Hundreds of guilds usually carry the same command bodies: keeping one
    object for each saves memory, and lets per-command work run once per
    distinct body (:class:`cmdsync.validate.rules.base.PerCommand`,
    :func:`cmdsync.state.desired.desired_state`). Equal means equal data,
    types and key order (``marshal`` bytes). ``read`` holds the commands read
    the fast way, by what yaml-rs gave and their depth (converted once,
    their copies never walked); ``converted`` the others, by their data.
    Nothing changes manifest data after loading, so sharing is invisible.
    """

    read: dict[tuple[int, bytes], Any] = field(default_factory=dict)
    converted: dict[bytes, Any] = field(default_factory=dict)


def _share_commands(data: Any, bodies: dict[bytes, Any]) -> None:
    """Replace each command object of ``data`` by the equal one in ``bodies``, if any."""
    lists: list[Any] = [data] if isinstance(data, list) else []
    if isinstance(data, dict):
        lists.append(data.get("commands"))
        guilds = data.get("guilds")
        if isinstance(guilds, dict):
            lists += [g.get("commands") for g in guilds.values() if isinstance(g, dict)]
    for items in lists:
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if isinstance(item, dict):
                try:
                    key = marshal.dumps(item)
                except ValueError:  # not plain data
                    continue
                items[index] = bodies.setdefault(key, item)


class _FastWalk:
    """What :class:`_Converter` does to values, on data yaml-rs built: keys to strings,
    unquoted snowflakes to strings, ``${VAR}`` interpolated, depth bounded.

    :meth:`value` builds new containers (for a file with aliases, whose
    objects yaml-rs may share); :meth:`in_place` changes yaml-rs's own, and
    costs a third as much. Both raise :class:`_Abort` for what only the
    careful way can report or decide.
    """

    def __init__(self, env: Mapping[str, str] | None,
                 read: dict[tuple[int, bytes], Any] | None = None) -> None:
        self.env = env
        self.read = read  # SharedBodies.read: commands converted so far, by what yaml-rs gave

    def in_place(self, container: dict[Any, Any] | list[Any], depth: int,
                 commands: bool = False) -> None:
        if depth >= MAX_DEPTH:
            raise _Abort
        env = self.env
        if type(container) is list:
            for index, item in enumerate(container):
                kind = type(item)
                if kind is dict and commands and self.read is not None:
                    key = (depth, marshal.dumps(item))  # before converting: the same result
                    known = self.read.get(key)
                    if known is None:
                        self.in_place(item, depth + 1)
                        self.read[key] = item
                    else:
                        container[index] = known
                elif kind is dict or kind is list:
                    self.in_place(item, depth + 1)
                elif kind is str and env is not None and "$" in item:
                    container[index] = self._string(item)
            return
        assert isinstance(container, dict)
        if env is not None or not _all_strings(container):
            converted = {self._key(key): item for key, item in container.items()}
            if len(converted) != len(container):
                raise _Abort  # two keys written differently, the same after conversion
            container.clear()
            container.update(converted)
        for key, item in container.items():
            kind = type(item)
            if kind is dict or kind is list:
                self.in_place(item, depth + 1, key == "commands")
            elif kind is str:
                if env is not None and "$" in item:
                    container[key] = self._string(item)
            elif kind is int and key in SNOWFLAKE_KEYS:
                container[key] = str(item)

    def _key(self, key: Any) -> str:
        if type(key) is str:
            return self._string(key) if self.env is not None else key
        if type(key) is int:
            return str(key)  # its text: _DIVERGENT ruled out other spellings
        raise _Abort  # true:, null:, 1.5:, a complex key: the careful way

    def value(self, value: Any, key: str | int | None, depth: int) -> Any:
        kind = type(value)
        if kind is str:
            return self._string(value) if self.env is not None else value
        if kind is dict:
            if depth >= MAX_DEPTH:
                raise _Abort
            result: dict[str, Any] = {}
            for item_key, item in value.items():
                name = self._key(item_key)
                if name in result:
                    raise _Abort  # two keys written differently, the same after conversion
                result[name] = self.value(item, name, depth + 1)
            return result
        if kind is list:
            if depth >= MAX_DEPTH:
                raise _Abort
            return [self.value(item, index, depth + 1) for index, item in enumerate(value)]
        if kind is int and key in SNOWFLAKE_KEYS:
            return str(value)
        if value is None:
            raise _Abort  # maybe an alias inside its own anchor (a: &a [*a]), which yaml-rs
        return value    # reads as null: the careful way reports it

    def _string(self, value: str) -> str:
        if "$" not in value:
            return value
        assert self.env is not None
        result, missing = interpolate(value, self.env)
        if missing:
            raise _Abort  # the careful way reports it where it is written
        return result


def _yaml_message(exc: yaml.MarkedYAMLError, text: str) -> str:
    """The parser's message, with where the construct began and a hint for tabs."""
    message = exc.problem or str(exc)
    mark, start = exc.problem_mark, exc.context_mark
    if mark and "tab" not in message and text[mark.index:mark.index + 1] == "\t":
        message += " (a tab: indent YAML with spaces)"
    if exc.context and start and mark and start.line != mark.line:
        return f"{exc.context} from line {start.line + 1}, column {start.column + 1}: {message}"
    return f"{exc.context}: {message}" if exc.context else message


class _Abort(Exception):
    """Stop converting: a diagnostic explaining why was already recorded."""


class _Converter:
    """Turns a composed YAML node tree into JSON-like data, recording positions."""

    def __init__(self, doc: Document | None, *, env: Mapping[str, str],
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
            _problem(self.doc, "CS003", "aliases expand to more than "
                     f"{self.budget:,} nodes (a billion-laughs file?): use fewer or "
                     "smaller anchors", line, column, pointer(origin))
        raise _Abort

    def _fail(self, message: str, mark: Any, path: Path) -> None:
        if self.doc is not None:
            _problem(self.doc, "CS003", message, mark.line + 1, mark.column + 1, pointer(path))
        raise _Abort

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
                _problem(self.doc, "CS002", f"duplicate key {key!r} (first at line "
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
                _problem(self.doc, "CS001", f"unsupported YAML tag {node.tag!r}: manifests "
                         "hold plain values; remove the tag",
                         node.start_mark.line + 1, node.start_mark.column + 1, pointer(path))
            raise _Abort from None
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
                self.doc.diagnostics.append(Diagnostic(
                    "CS004", Severity.NOTE if self.doc.placeholders else Severity.ERROR,
                    f"environment variable {name} is not set: a placeholder here, but plan "
                    f"and apply need it (export it, or write ${{{name}:-default}})"
                    if self.doc.placeholders else
                    f"environment variable {name} is not set: export it, or write "
                    f"${{{name}:-default}} to give a default",
                    Location(self.doc.file, node.start_mark.line + 1,
                             node.start_mark.column + 1, pointer(path)),
                ))
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
