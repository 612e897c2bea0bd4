"""Walking a JSON Schema: every subschema with its location.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")


_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")


_SCHEMA_ONE = ("items", "additionalProperties", "propertyNames", "contains", "not", "if", "then",
               "else", "unevaluatedProperties", "unevaluatedItems")


def walk(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema of ``node`` (including ``$defs``) with its location."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key in _SCHEMA_MAPS:
        for name, sub in (node.get(key) or {}).items():
            yield from walk(sub, f"{path}/{key}/{name}")
    for key in _SCHEMA_LISTS:
        for index, sub in enumerate(node.get(key) or []):
            yield from walk(sub, f"{path}/{key}/{index}")
    for key in _SCHEMA_ONE:
        if key in node:
            yield from walk(node[key], f"{path}/{key}")
