"""JSON as Discord reads it: no ``NaN`` or infinities, bounded nesting.

Python's :mod:`json` takes ``NaN``, ``Infinity`` and ``1e400`` (an infinite
float), which no JSON encoder may send back (starlette's refuses, and the
request then answers 500), and nests as deep as the recursion limit.

Bodies are parsed with orjson (twice as fast as :mod:`json`; it refuses ``NaN``,
the infinities and numbers past a float's range itself). orjson reads an integer
past 64 bits as a float: a body where it found a float that large is read again by
:mod:`json`, so that such an integer keeps its exact value.
"""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import orjson

MAX_DEPTH = 64  # levels of arrays and objects
_BIG = float(2**63)  # orjson reads an integer this large or larger as a float


def loads(raw: bytes | str) -> Any:
    """The value of ``raw``; :class:`ValueError` when it is not JSON, holds ``NaN``,
    an infinity or a number past a float's range, or nests deeper than
    :data:`MAX_DEPTH` levels."""
    data = raw.encode() if isinstance(raw, str) else raw
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:  # refused, or only stricter than json: json's answer
        return _shallow(_careful(data))
    shape = _shape(value)
    if shape is _Shape.TOO_DEEP:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    if shape is _Shape.BIG_FLOAT:  # perhaps an integer past 64 bits: json's value
        return _shallow(_careful(data))
    return value


def _shallow(value: Any) -> Any:
    if too_deep(value):
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    return value


class _Shape(enum.Enum):
    FINE = 0
    TOO_DEEP = 1
    BIG_FLOAT = 2


def _shape(value: Any) -> _Shape:
    """Whether ``value`` nests past :data:`MAX_DEPTH` or holds a float of 2**63 or more
    (which orjson may have made of an integer), in one walk."""
    if type(value) is float:
        return _Shape.BIG_FLOAT if abs(value) >= _BIG else _Shape.FINE
    if type(value) is not dict and type(value) is not list:
        return _Shape.FINE
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return _Shape.TOO_DEEP
        for child in (item.values() if type(item) is dict else item):
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is float and abs(child) >= _BIG:
                return _Shape.BIG_FLOAT
    return _Shape.FINE


def _careful(data: bytes) -> Any:
    """What orjson refused, read by :mod:`json`: its error (and message) where the text is
    not JSON; its value where orjson is only stricter (a lone surrogate escape, UTF-16,
    more than 1,024 levels, which the depth check then refuses)."""
    try:
        return json.loads(data, parse_constant=_refuse, parse_float=_finite)
    except RecursionError as exc:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from exc


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def too_deep(value: Any) -> bool:
    """Whether arrays and objects nest more than :data:`MAX_DEPTH` levels."""
    if type(value) is not dict and type(value) is not list:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for child in (item.values() if type(item) is dict else item):
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False
