"""A yes/no check of a document against our JSON Schemas, compiled to closures.

``validate`` runs on every commit, and jsonschema walks a schema keyword by
keyword for every value (about half of a large manifest's validation time,
plus its import). Almost every document is valid, and for those only the
verdict matters. :func:`compile_schema` turns a schema into nested Python
closures that answer exactly what jsonschema's Draft 2020-12 validator
answers for ``is_valid``; :mod:`cmdsync.schemas` asks jsonschema only when
the answer is no, for its errors and their paths.

Only the keywords our schemas use are compiled: ``type``, ``enum``,
``required``, ``properties``, ``patternProperties``,
``additionalProperties``, ``propertyNames``, ``items``, ``uniqueItems``,
``anyOf``, ``pattern`` and ``$ref`` (to ``#/...`` in the same file, or to
another schema file by name), with annotations ignored. Any other keyword
raises :class:`Unsupported`, and the caller falls back to jsonschema
alone, so a schema change can never make this check weaker than
jsonschema. Equality follows JSON Schema as jsonschema implements it:
``1 == 1.0``, but ``true`` is neither ``1`` nor equal to it in ``enum`` or
``uniqueItems``; ``integer`` accepts ``1.0``. ``tests/test_compiled_schema.py``
holds the two to the same verdicts.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]
ANNOTATIONS = frozenset({"$schema", "$defs", "$comment", "title", "description",
                         "examples", "default", "deprecated"})
_TYPES: Mapping[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, numbers.Number) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
}


class Unsupported(Exception):
    """The schema uses a keyword (or a $ref) this compiler does not implement."""


def compile_schema(name: str, schemas: Mapping[str, Any]) -> Check:
    """The check for ``schemas[name]``; ``$ref`` may name any file in ``schemas``.

    Raises :class:`Unsupported` for anything jsonschema alone must judge.
    """
    return _Compiler(schemas).compile(schemas[name], name)


class _Compiler:
    def __init__(self, schemas: Mapping[str, Any]) -> None:
        self.schemas = schemas
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any, base: str) -> Check:
        if schema is True or schema == {}:
            return lambda value: True
        if schema is False:
            return lambda value: False
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        found = [self.keyword(key, value, schema, base) for key, value in schema.items()
                 if key not in ANNOTATIONS]
        checks = [c for c in found if c is not None]
        if len(checks) == 1:
            return checks[0]
        return lambda value: all(check(value) for check in checks)

    def keyword(self, key: str, value: Any, schema: dict[str, Any], base: str) -> Check | None:
        if key == "type":
            return _type(value)
        if key == "enum":
            return _enum(value)
        if key == "required":
            required = list(value)
            return lambda v: not isinstance(v, dict) or all(n in v for n in required)
        if key in ("properties", "patternProperties", "additionalProperties"):
            return self.object(schema, base) if key == _first_object_key(schema) else None
        if key == "propertyNames":
            names = self.compile(value, base)
            return lambda v: not isinstance(v, dict) or all(names(k) for k in v)
        if key == "items":
            item = self.compile(value, base)
            return lambda v: not isinstance(v, list) or all(item(i) for i in v)
        if key == "uniqueItems":
            return _unique if value is True else None
        if key == "anyOf":
            branches = [self.compile(s, base) for s in value]
            return lambda v: any(branch(v) for branch in branches)
        if key == "pattern":
            search = re.compile(value).search
            return lambda v: not isinstance(v, str) or search(v) is not None
        if key == "$ref":
            return self.ref(value, base)
        raise Unsupported(f"keyword {key!r}")

    def object(self, schema: dict[str, Any], base: str) -> Check:
        """``properties``, ``patternProperties`` and ``additionalProperties`` together."""
        known = {k: self.compile(s, base) for k, s in schema.get("properties", {}).items()}
        patterns = [(re.compile(p).search, self.compile(s, base))
                    for p, s in schema.get("patternProperties", {}).items()]
        extra = self.compile(schema.get("additionalProperties", True), base)

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key, item in value.items():
                matched = False
                if key in known:
                    matched = True
                    if not known[key](item):
                        return False
                for search, sub in patterns:
                    if search(key) is not None:
                        matched = True
                        if not sub(item):
                            return False
                if not matched and not extra(item):
                    return False
            return True

        return check

    def ref(self, reference: str, base: str) -> Check:
        """``#/pointer`` in ``base``, or ``file.json`` / ``file.json#/pointer``; lazily, for
        recursive schemas."""
        target, _, fragment = reference.partition("#")
        document = target or base
        if document not in self.schemas or (fragment and not fragment.startswith("/")):
            raise Unsupported(f"$ref {reference!r}")
        key = f"{document}#{fragment}"
        if key not in self.refs:
            self.refs[key] = _unresolved
            schema = self.schemas[document]
            for part in fragment.split("/")[1:]:
                schema = schema[part.replace("~1", "/").replace("~0", "~")]
            self.refs[key] = self.compile(schema, document)
        refs = self.refs
        return lambda v: refs[key](v)


def _unresolved(value: Any) -> bool:
    raise AssertionError("a $ref was called while it was being compiled")


def _first_object_key(schema: dict[str, Any]) -> str:
    return next(k for k in schema if k in (
        "properties", "patternProperties", "additionalProperties"))


def _type(value: Any) -> Check:
    names = [value] if isinstance(value, str) else list(value)
    if any(n not in _TYPES for n in names):
        raise Unsupported(f"type {value!r}")
    checks = [_TYPES[n] for n in names]
    return lambda v: any(check(v) for check in checks)


def _enum(values: list[Any]) -> Check:
    if not all(v is None or isinstance(v, (str, int, float)) for v in values):
        raise Unsupported("enum of arrays or objects")
    allowed = {_key(v) for v in values}
    return lambda v: _scalar(v) and _key(v) in allowed


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float))


def _key(value: Any) -> tuple[str, Any]:
    """A hashable stand-in with JSON Schema's equality: booleans apart from numbers."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return (type(value).__name__, value)


def _unique(value: Any) -> bool:
    if not isinstance(value, list):
        return True
    if all(_scalar(v) for v in value):
        return len({_key(v) for v in value}) == len(value)
    return all(not _equal(a, b) for i, a in enumerate(value) for b in value[i + 1:])


def _equal(one: Any, two: Any) -> bool:
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two))
    if _scalar(one) and _scalar(two):
        return _key(one) == _key(two)
    return False
