"""A large YAML text read piece by piece, each distinct piece parsed once.

Hundreds of guilds usually repeat the same commands word for word. A long
text is cut into its outermost block nodes (guild blocks, sequence
entries), each replaced by a token; yaml-rs parses the reduced text and each
distinct piece once, and the pieces' converted values, shared, take the
tokens' places (:class:`RepeatedPieces`). That a piece parses alone as it
does in place follows from YAML 1.2's indentation rules
(https://yaml.org/spec/1.2.2/, 6.1 Indentation Spaces): its indentation
fixes its extent.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml_rs

from cmdsync.manifest.shared import SharedBodies
from cmdsync.manifest.yaml_versions import distinct_lines
from cmdsync.manifest.yaml_walk import FastWalk

REPEATED_PIECES_MIN_RATIO = 2  # pieces cut per distinct piece, at least
REPEATED_PIECES_MAX_SHARE = 4  # a piece is at most this part of the text (1/4)


class RepeatedPieces:
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
    """A text cut by :meth:`RepeatedPieces.reduce`: ``text`` holds a token for each
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
            self._lines = distinct_lines(self.text.split("\n"),
                                         *(piece.split("\n") for _, piece in self.pieces))
        return self._lines

    def read(self, env: Mapping[str, str] | None, shared: SharedBodies | None) -> Any:
        """The data, converted as :meth:`FastWalk.in_place` converts it (``env``: the
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
        FastWalk(env).in_place(data, 0)
        walk = FastWalk(env, shared.read if shared else {})
        depths: dict[int, int] = {}  # piece number -> the depth of its occurrences
        if self._count(data, depths, 0) != self.count:
            return None
        for number, depth in depths.items():  # each distinct piece converted once
            value = values[number]
            key = None
            if shared is not None:  # keyed as FastWalk.in_place keys it: by the parent
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


def _loads_any(text: str) -> Any:
    return yaml_rs.loads(text, parse_datetime=False)
