"""The JSON Schemas in ``schemas/`` and the mapping of their errors to diagnostics.

Schema errors become diagnostics of four rules, by the keyword that failed:
``additionalProperties`` -> CS010 unknown key, ``type``/``anyOf`` -> CS011
wrong type, ``required`` -> CS012 missing key, ``enum``/``uniqueItems`` ->
CS013 invalid value. Each schema is loaded and compiled once per process.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from cmdsync.diagnostics import Diagnostic, Severity
from cmdsync.manifest.loader import Document, Path

MANIFEST_SCHEMA = "manifest.schema.json"
COMMAND_SCHEMA = "application-command.schema.json"
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean",
               int: "integer", float: "number", type(None): "null"}


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file ``name`` shipped in ``cmdsync/schemas/``."""
    text = resources.files("cmdsync").joinpath("schemas", name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator(kind: str) -> Draft202012Validator:
    command = load_schema(COMMAND_SCHEMA)
    manifest = load_schema(MANIFEST_SCHEMA)
    # The schemas carry no $id, so that editors and check-jsonschema resolve
    # their relative $ref against the file; here the names are the URIs.
    registry: Registry[Any] = Registry().with_resources([
        (COMMAND_SCHEMA, Resource.from_contents(command)),
        (MANIFEST_SCHEMA, Resource.from_contents(manifest)),
    ])
    if kind == "manifest":
        return Draft202012Validator(manifest, registry=registry)
    array = {"$schema": manifest["$schema"], "type": "array",
             "items": {"$ref": COMMAND_SCHEMA}}
    return Draft202012Validator(array, registry=registry)


def check_document(doc: Document) -> list[Diagnostic]:
    """Validate a parsed document against the manifest or command-array schema."""
    data = doc.data
    if isinstance(data, dict):
        validator = _validator("manifest")
    elif isinstance(data, list):
        validator = _validator("array")
    else:
        return [Diagnostic("CS011", Severity.ERROR,
                           f"the file holds {_article(_json_type(data))}; expected a manifest "
                           "mapping (application_id, commands, guilds) or a list of commands",
                           doc.locate(()))]
    found: list[Diagnostic] = []
    for error in validator.iter_errors(data):
        found.extend(_diagnostics(doc, error))
    return found


def _diagnostics(doc: Document, error: ValidationError) -> Iterator[Diagnostic]:
    path: Path = tuple(error.absolute_path)
    kind = error.validator
    if kind == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in allowed:
                yield Diagnostic("CS010", Severity.ERROR, _unknown_key(path, key, allowed),
                                 doc.locate(path + (key,), key=True))
    elif kind == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        for key in missing:
            yield Diagnostic("CS012", Severity.ERROR,
                             f"{_thing(path)} is missing the required key {key!r}",
                             doc.locate(path))
    elif kind in ("enum", "uniqueItems"):
        yield Diagnostic("CS013", Severity.ERROR, _bad_value(path, error), doc.locate(path))
    elif kind == "anyOf":
        deeper = [c for c in error.context if len(c.absolute_path) > len(error.absolute_path)]
        if deeper:
            yield from _diagnostics(doc, deeper[0])
        else:
            yield Diagnostic("CS011", Severity.ERROR,
                             f"{_field(path)} has the wrong type: "
                             f"{error.schema.get('description', '')}".rstrip(": "),
                             doc.locate(path))
    elif kind == "type":
        expected = error.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        yield Diagnostic("CS011", Severity.ERROR,
                         f"{_field(path)} must be {_article(wanted)}, not "
                         f"{_article(_json_type(error.instance))} ({_short(error.instance)})",
                         doc.locate(path))
    else:
        yield Diagnostic("CS011", Severity.ERROR, f"{_field(path)}: {error.message}",
                         doc.locate(path))


def _unknown_key(path: Path, key: str, allowed: list[str]) -> str:
    message = f"unknown key {key!r} in {_thing(path)}: Discord ignores it silently"
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    if close:
        return f"{message}; did you mean {close[0]!r}?"
    return f"{message}; remove it (known keys: {', '.join(sorted(allowed))})"


def _bad_value(path: Path, error: ValidationError) -> str:
    if error.validator == "uniqueItems":
        return f"{_field(path)} lists the same value twice: remove the duplicate"
    options = [v for v in error.validator_value]
    names = [v for v in options if isinstance(v, str)]
    message = f"{_short(error.instance)} is not a valid {_field(path)}"
    if isinstance(error.instance, str):
        close = difflib.get_close_matches(error.instance.lower(), names, n=1, cutoff=0.6)
        if close:
            return f"{message}; did you mean {close[0]!r}?"
    description = error.schema.get("description", "")
    hint = description.split("One of ", 1)[-1] if "One of " in description else ", ".join(
        map(str, options))
    return f"{message}: use one of {hint.rstrip('.')}"


def _thing(path: Path) -> str:
    """What the object at ``path`` is, for messages: 'option', 'guild 123'..."""
    for part in reversed(path):
        if isinstance(part, int):
            continue
        if part == "options":
            return "option"
        if part == "choices":
            return "choice"
        if part == "commands":
            return "command"
        break
    if len(path) >= 4 and path[0] == "guilds" and path[2] == "permissions":
        return "permission overwrite"
    if len(path) == 2 and path[0] == "guilds":
        return f"guild {path[1]}"
    if len(path) == 1 and isinstance(path[0], int):
        return "command"
    return "manifest" if not path else f"{path[-1]!r}"


def _field(path: Path) -> str:
    names = [p for p in path if isinstance(p, str)]
    if not names:
        return "value"
    if isinstance(path[-1], int):
        return f"item of {names[-1]!r}"
    return repr(names[-1])


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _article(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
