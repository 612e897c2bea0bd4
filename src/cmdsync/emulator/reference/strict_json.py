"""JSON as Discord reads it: no ``NaN`` or infinities, bounded nesting.

Python's :mod:`json` takes ``NaN``, ``Infinity`` and ``1e400`` (an infinite
float), which no JSON encoder may send back (starlette's refuses, and the
request then answers 500), and nests as deep as the recursion limit.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64  # levels of arrays and objects


def loads(raw: bytes | str) -> Any:
    """The value of ``raw``; :class:`ValueError` when it is not JSON, holds ``NaN``,
    an infinity or a number past a float's range, or nests deeper than
    :data:`MAX_DEPTH` levels."""
    try:
        value = json.loads(raw, parse_constant=_refuse, parse_float=_finite)
    except RecursionError as exc:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from exc
    if too_deep(value):
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def too_deep(value: Any) -> bool:
    """Whether arrays and objects nest more than :data:`MAX_DEPTH` levels."""
    level, depth = [value], 0
    while level:
        containers = [item for item in level if isinstance(item, (dict, list))]
        depth += bool(containers)
        if depth > MAX_DEPTH:
            return True
        level = [child for item in containers
                 for child in (item.values() if isinstance(item, dict) else item)]
    return False
