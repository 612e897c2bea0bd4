"""The JSON Schemas in ``schemas/`` and the mapping of their errors to diagnostics.

Schema errors become diagnostics of four rules, by the keyword that failed:
``additionalProperties`` -> CS010 unknown key, ``type``/``anyOf``/``pattern``
-> CS011 wrong type, ``required`` -> CS012 missing key, ``enum``/``uniqueItems``
-> CS013 invalid value. In a raw ``.json`` array of commands an enum name in
any case (``"STRING"``) is left to CS016, which names the integer to write.
The verdict comes first from ``jsonschema-rs`` (Rust, about a hundredth of
jsonschema's time on a large manifest): a document it finds valid has no
schema diagnostic. Only a document it refuses is walked by jsonschema, whose
errors (keyword, instance, schema path, context) word every diagnostic; so
the messages and JSON pointers are jsonschema's whichever engine decides.
Each schema is loaded and compiled once per process, by each library
(imported on first use, so commands that validate nothing do not pay for it).
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from cmdsync.manifest.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

    from cmdsync.manifest.loader import Document, Path

MANIFEST_SCHEMA = "manifest.schema.json"
COMMAND_SCHEMA = "application-command.schema.json"
# Fields whose enum names CS016 reports in raw .json arrays.
_RAW_ENUM_KEYS = frozenset({"type", "handler", "contexts", "integration_types", "channel_types"})
_PATTERNS = {"^[0-9]+$": "a string of decimal digits"}
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean",
               int: "integer", float: "number", type(None): "null"}


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file ``name`` shipped in ``cmdsync/schemas/``."""
    text = resources.files("cmdsync").joinpath("schemas", name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _schemas() -> dict[str, dict[str, Any]]:
    """Our schema files by name, and ``"array"``: a raw .json list of commands."""
    manifest = load_schema(MANIFEST_SCHEMA)
    array = {"$schema": manifest["$schema"], "type": "array",
             "items": {"$ref": COMMAND_SCHEMA}}
    return {MANIFEST_SCHEMA: manifest, COMMAND_SCHEMA: load_schema(COMMAND_SCHEMA),
            "array": array}


@functools.cache
def _validator(kind: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = _schemas()
    # The schemas carry no $id, so that editors and check-jsonschema resolve
    # their relative $ref against the file; here the names are the URIs.
    registry: Registry[Any] = Registry().with_resources([
        (name, Resource.from_contents(schemas[name])) for name in (COMMAND_SCHEMA,
                                                                     MANIFEST_SCHEMA)])
    root = schemas[MANIFEST_SCHEMA if kind == "manifest" else "array"]
    return Draft202012Validator(root, registry=registry)


@functools.cache
def _verdict(kind: str) -> Callable[[Any], bool]:
    """jsonschema-rs's ``is_valid`` for the schema of ``kind`` ("manifest", "array"
    or "command")."""
    import jsonschema_rs

    schemas = _schemas()
    registry = jsonschema_rs.Registry([(name, schemas[name])
                                       for name in (COMMAND_SCHEMA, MANIFEST_SCHEMA)])
    root = schemas[{"manifest": MANIFEST_SCHEMA, "command": COMMAND_SCHEMA}.get(kind, "array")]
    is_valid: Callable[[Any], bool] = jsonschema_rs.Draft202012Validator(
        root, registry=registry).is_valid
    return is_valid


# A list of commands, as the manifest schema declares each: it constrains the
# items alone, so a manifest is valid when each distinct command is and the
# manifest with its command lists emptied is (see _command_lists).
_COMMAND_LIST = {"type": "array", "items": {"$ref": COMMAND_SCHEMA}}


@functools.cache
def _lists_hold_only_commands() -> bool:
    """Whether every command list of the manifest schema is :data:`_COMMAND_LIST`
    (with a description), so that :func:`is_valid` may check each command once."""
    manifest = _schemas()[MANIFEST_SCHEMA]
    lists = [manifest["properties"]["commands"],
             manifest["$defs"]["guild"]["properties"]["commands"]]
    return manifest["properties"]["guilds"].get("additionalProperties") == {
        "$ref": "#/$defs/guild"} and all(
        {k: v for k, v in schema.items() if k != "description"} == _COMMAND_LIST
        for schema in lists)


def _command_lists(data: Any, kind: str) -> tuple[Any, list[Any]]:
    """``data`` with its command lists emptied (copies; ``data`` is unchanged), and
    the commands they held."""
    if kind == "array":
        return [], data
    commands: list[Any] = []
    skeleton = dict(data)
    if isinstance(skeleton.get("commands"), list):
        commands += skeleton["commands"]
        skeleton["commands"] = []
    guilds = skeleton.get("guilds")
    if isinstance(guilds, dict):
        skeleton["guilds"] = emptied = {}
        for guild, scope in guilds.items():
            if isinstance(scope, dict) and isinstance(scope.get("commands"), list):
                commands += scope["commands"]
                scope = {**scope, "commands": []}
            emptied[guild] = scope
    return skeleton, commands


def is_valid(data: Any, kind: str) -> bool:
    """Whether ``data`` is valid, as jsonschema-rs decides; False when it cannot decide.

    Each distinct command object is checked once (hundreds of guilds usually
    share their command objects: :class:`~cmdsync.manifest.loader.SharedBodies`),
    then the document around them. It cannot take what JSON cannot hold
    (NaN, integers beyond 64 bits, nesting past its limit): those go to
    jsonschema, whose verdict stands. tests/validate/test_schema_verdict.py
    holds the two engines, and both ways of checking, to the same verdict.
    """
    try:
        if not _lists_hold_only_commands():
            return _verdict(kind)(data)
        skeleton, commands = _command_lists(data, kind)
        command_is_valid = _verdict("command")
        checked: set[int] = set()
        for command in commands:
            if id(command) not in checked:
                if not command_is_valid(command):
                    return False
                checked.add(id(command))
        return _verdict(kind)(skeleton)
    except (ValueError, TypeError, OverflowError, RecursionError):
        return False


MAX_SCHEMA_DIAGNOSTICS = 100  # per file; then one CS003 says the rest was not checked


@dataclass(frozen=True)
class _Problem:
    """A schema diagnostic before its address: rule, message, and the path it points at
    (``key``: at that path's mapping key)."""

    rule: str
    message: str
    path: Path
    key: bool = False


def check_document(doc: Document) -> list[Diagnostic]:
    """Validate a parsed document against the manifest or command-array schema.

    At most :data:`MAX_SCHEMA_DIAGNOSTICS` schema diagnostics, then one CS003
    saying the rest of the file was not checked: a file of a million bad
    items is refused as fast, and in as little memory, as a file of a hundred.
    The problems are found first, then their lines and columns, together
    (:meth:`~cmdsync.manifest.loader.Document.position`): only the nodes they
    point at are located, never all of a file's million.
    """
    data = doc.data
    if isinstance(data, dict):
        kind = "manifest"
    elif isinstance(data, list):
        kind = "array"
    else:
        return [Diagnostic("CS011", Severity.ERROR,
                           f"the file holds {_article(_json_type(data))}; expected a manifest "
                           "mapping (application_id, commands, guilds) or a list of commands",
                           doc.locate(()))]
    # A .json array is sent to Discord as is: enum names there are CS016's.
    raw = doc.kind == "json" and isinstance(data, list)
    if is_valid(data, kind):
        return []
    problems: list[_Problem] = []
    for error in _validator(kind).iter_errors(data):
        problems.extend(itertools.islice(_problems(error, raw=raw),
                                         MAX_SCHEMA_DIAGNOSTICS - len(problems)))
        if len(problems) >= MAX_SCHEMA_DIAGNOSTICS:  # as compilers stop: the rest is noise
            break
    doc.position([problem.path for problem in problems] + [()])
    found = [Diagnostic(p.rule, Severity.ERROR, p.message, doc.locate(p.path, key=p.key))
             for p in problems]
    if len(problems) >= MAX_SCHEMA_DIAGNOSTICS:
        found.append(Diagnostic(
            "CS003", Severity.ERROR,
            f"more than {MAX_SCHEMA_DIAGNOSTICS} schema errors in this file: the first "
            f"{MAX_SCHEMA_DIAGNOSTICS} are shown and the rest was not checked; fix "
            "these and validate again", doc.locate(())))
    return found


def _problems(error: ValidationError, *, raw: bool = False) -> Iterator[_Problem]:
    path: Path = tuple(error.absolute_path)
    kind = error.validator
    instance: Any = error.instance
    if kind == "additionalProperties":
        allowed = list(_schema(error).get("properties", {}))
        patterns = [re.compile(p) for p in _schema(error).get("patternProperties", {})]
        for key in instance:
            if key not in allowed and not any(p.search(key) for p in patterns):
                yield _Problem("CS010", _unknown_key(path, key, allowed), path + (key,),
                               key=True)
    elif kind == "required":
        missing = [k for k in _expected(error) if k not in instance]
        for key in missing:
            yield _Problem("CS012", f"{_thing(path)} is missing the required key {key!r}",
                           path)
    elif kind in ("enum", "uniqueItems"):
        if not (raw and kind == "enum" and _is_name(path, error)):
            yield _Problem("CS013", _bad_value(path, error), path)
    elif kind == "anyOf":
        # The branch whose type fits the value says what is wrong with it.
        # Report every error of that branch: each bad item of a list, not the first.
        fitting = [c for c in error.context if c.validator != "type"]
        if fitting:
            branch = fitting[0].relative_schema_path[0]
            for suberror in fitting:
                if suberror.relative_schema_path[0] == branch:
                    yield from _problems(suberror, raw=raw)
        else:
            types = [_expected(c) for c in error.context]
            yield _Problem("CS011", f"{_field(path)} must be {_one_of(types)}, not "
                           f"{_article(_json_type(error.instance))} ({_short(error.instance)})",
                           path)
    elif kind == "pattern":
        what = _PATTERNS.get(_expected(error), f"a string matching {_expected(error)}")
        yield _Problem("CS011", f"{_field(path)} must be {what}, not {_short(error.instance)}",
                       path)
    elif kind == "type":
        expected = _expected(error)
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        hint = ": write true or false" if wanted == "boolean" \
            and isinstance(error.instance, str) else ""
        yield _Problem("CS011", f"{_field(path)} must be {_article(wanted)}, not "
                       f"{_article(_json_type(error.instance))} ({_short(error.instance)})"
                       + hint, path)
    else:
        yield _Problem("CS011", f"{_field(path)}: {error.message}", path)


def _schema(error: ValidationError) -> dict[str, Any]:
    """The (sub)schema that failed; ours are always objects."""
    return error.schema if isinstance(error.schema, dict) else {}


def _expected(error: ValidationError) -> Any:
    """The failed keyword's value in the schema (a type, the enum's values...)."""
    return error.validator_value


def _is_name(path: Path, error: ValidationError) -> bool:
    """Whether an enum error is CS016's: a Discord enum's name, in any case."""
    keys = [part for part in path if isinstance(part, str)]
    names = {v for v in _expected(error) if isinstance(v, str)}
    return (bool(keys) and keys[-1] in _RAW_ENUM_KEYS and isinstance(error.instance, str)
            and error.instance.lower() in names)


def _one_of(types: list[Any]) -> str:
    """``"null, a string or an array"`` from the types of anyOf branches."""
    words = [t if t == "null" else _article(t) for t in types if isinstance(t, str)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _unknown_key(path: Path, key: str, allowed: list[str]) -> str:
    thing = _thing(path)
    consequence = ("Discord ignores it silently" if thing in ("command", "option", "choice")
                   else "cmdsync does not know it")
    message = f"unknown key {key!r} in {thing}: {consequence}"
    if thing == "manifest":
        allowed = [*allowed, "x-..."]
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    if close:
        return f"{message}; did you mean {close[0]!r}?"
    return f"{message}; remove it (known keys: {', '.join(sorted(allowed))})"


_MAX_LISTED = 16  # longer enums (permission names) are not spelled out in a message


def _bad_value(path: Path, error: ValidationError) -> str:
    if error.validator == "uniqueItems":
        return f"{_field(path)} lists the same value twice: remove the duplicate"
    options = [v for v in _expected(error)]
    names = [v for v in options if isinstance(v, str)]
    message = f"{_short(error.instance)} is not a valid {_field(path)}"
    if isinstance(error.instance, str):
        close = difflib.get_close_matches(error.instance.lower(), names, n=1, cutoff=0.6)
        if close:
            return f"{message}; did you mean {close[0]!r}?"
    description = _schema(error).get("description", "")
    if "One of " in description:  # "... One of a (1), b (2). Defaults to a."
        hint = description.split("One of ", 1)[1].split(". ", 1)[0].rstrip(".")
    else:
        hint = ", ".join(map(str, options))
    if hint.count(", ") >= _MAX_LISTED:
        shown = ", ".join(hint.split(", ")[:3])
        return (f"{message}: use one of the {hint.count(', ') + 1} names the schema lists, "
                f"such as {shown}")
    return f"{message}: use one of {hint}"


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
