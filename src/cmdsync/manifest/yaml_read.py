"""Read a YAML manifest into its Document: the fast way when it can, else the careful way.

The two ways give the same data. The fast way (:func:`parse_fast`) parses
with yaml-rs (Rust, YAML 1.2: https://yaml.org/spec/1.2.2/) and keeps no
positions; it is taken only for text in which YAML 1.2 and the YAML 1.1 that
PyYAML reads cannot differ (:mod:`cmdsync.manifest.yaml_versions`), reads a
large text piece by piece (:mod:`cmdsync.manifest.yaml_pieces`), converts
what yaml-rs gives (:mod:`cmdsync.manifest.yaml_walk`), and gives up,
leaving the file to the careful way, on anything it cannot decide: a
duplicate key, an alias that expands too far, a parse error, a missing
environment variable, a key that is not a string or an integer. The careful
way (:func:`parse_careful`) composes with PyYAML (YAML 1.1:
https://yaml.org/spec/1.1/) and converts the nodes
(:mod:`cmdsync.manifest.yaml_careful`), recording the line and column of
every node and reporting every problem; a document read the fast way
computes its positions when a diagnostic needs one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import yaml
import yaml_rs

from cmdsync.manifest.diagnostics import problem
from cmdsync.manifest.document import Document
from cmdsync.manifest.shared import SharedBodies
from cmdsync.manifest.yaml_careful import Abort, Converter, loader_for
from cmdsync.manifest.yaml_pieces import RepeatedPieces
from cmdsync.manifest.yaml_versions import (
    BLOCK_HEADERS,
    block_header_in_flow,
    distinct_lines,
    divergent,
    duplicate_anchor,
)
from cmdsync.manifest.yaml_walk import FastWalk

# A YAML text at least this long is read with its repeated pieces parsed once
# (yaml_pieces); shorter ones gain nothing from it.
REPEATED_PIECES_MIN_CHARS = 256 * 1024
# A fast read replays at most this many events for aliases, else the careful
# way counts the expansion exactly (yaml_careful.ALIAS_EXPANSION_*).
_FAST_ALIAS_EVENTS = 100_000
# An empty block scalar ends the file: yaml-rs reads "\n", PyYAML "".
_EMPTY_LAST_BLOCK = re.compile(r"[|>][-+1-9]{0,2}(?: +#[^\n]*)?\s*\Z")


def parse_yaml(doc: Document, env: Mapping[str, str] | None) -> None:
    """``env`` None: nothing is interpolated."""
    if not parse_fast(doc, env, None):
        parse_careful(doc, env)


def parse_careful(doc: Document, env: Mapping[str, str] | None) -> None:
    try:
        node = yaml.compose(doc.text, Loader=loader_for(doc.text))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem(doc, "CS001", f"invalid YAML: {_yaml_message(exc, doc.text)}", line, column)
        return
    except yaml.YAMLError as exc:
        problem(doc, "CS001", f"invalid YAML: {exc}")
        return
    except RecursionError:
        problem(doc, "CS001", "YAML is nested too deeply to be a manifest")
        return
    if node is None:
        problem(doc, "CS001", "file is empty: expected a manifest mapping or a list of "
                "commands")
        return
    converter = Converter(doc, env=env or {}, interpolate_strings=env is not None)
    try:
        doc.data = converter.convert(node, ())
    except Abort:
        doc.data = None
    doc.positions, doc.key_positions = converter.positions, converter.key_positions


def parse_fast(doc: Document, env: Mapping[str, str] | None,
               shared: SharedBodies | None) -> bool:
    """Read ``doc.text`` with yaml-rs, without positions; False to read it the careful way.

    True only when the data is exactly what
    :class:`~cmdsync.manifest.yaml_careful.Converter` would build and reading it
    raised no diagnostic (tests/validate/test_fast_yaml.py holds the two ways equal).
    """
    text = doc.text
    if text.startswith(("%", "...")) or _EMPTY_LAST_BLOCK.search(text[-256:]):
        return False
    interpolating = env if "$" in text else None
    if len(text) >= REPEATED_PIECES_MIN_CHARS and "&" not in text and "\r" not in text:
        pieces = RepeatedPieces(text)
        for values in (True, False):  # guild blocks and entries, else entries alone
            reduced = pieces.reduce(values=values)
            if reduced is None:
                continue
            if divergent(reduced.lines()):
                return False  # the lines of the whole text, each once
            if any(pattern.search(reduced.lines()) for pattern in BLOCK_HEADERS):
                break  # a block scalar: read the text whole
            try:
                data = reduced.read(interpolating, shared)
            except Abort:
                return False
            if data is not None:
                doc.data = data
                doc.env = env
                return True
    # Each line once: every pattern looks within a line, and manifests repeat theirs.
    if divergent(distinct_lines(text.split("\n"))) \
            or block_header_in_flow(text) or ("&" in text and duplicate_anchor(text)):
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
            doc.data = FastWalk(interpolating).value(data, None, 0)
        else:
            doc.data = data
            FastWalk(interpolating, shared.read if shared else None).in_place(data, 0)
    except Abort:
        return False
    doc.env = env
    return True


def _yaml_message(exc: yaml.MarkedYAMLError, text: str) -> str:
    """The parser's message, with where the construct began and a hint for tabs."""
    message = exc.problem or str(exc)
    mark, start = exc.problem_mark, exc.context_mark
    if mark and "tab" not in message and text[mark.index:mark.index + 1] == "\t":
        message += " (a tab: indent YAML with spaces)"
    if exc.context and start and mark and start.line != mark.line:
        return f"{exc.context} from line {start.line + 1}, column {start.column + 1}: {message}"
    return f"{exc.context}: {message}" if exc.context else message
