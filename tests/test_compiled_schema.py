"""The compiled schema check gives jsonschema's verdict, document for document.

:mod:`cmdsync.compiled_schema` lets valid documents skip jsonschema, so it
must never call valid what jsonschema calls invalid (nor the reverse).
Checked on every manifest file the tests, the examples and the shared
corpus hold, on random mutations of valid commands (hypothesis), and on
random JSON values; a keyword it does not implement is refused, so the
caller falls back to jsonschema.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties_validate import SETTINGS, chat_input, context_menu

from cmdsync.compiled_schema import Unsupported, compile_schema
from cmdsync.manifest.loader import load_file
from cmdsync.schemas import _quick, _validator

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FILES = sorted(p for folder in (ROOT / "tests" / "data", ROOT / "examples", CORPUS)
               if folder.is_dir() for p in folder.rglob("*")
               if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


def same_verdict(data: Any) -> None:
    kind = "manifest" if isinstance(data, dict) else "array"
    quick = _quick(kind)
    assert quick is not None, "our schemas compile"
    assert quick(data) == _validator(kind).is_valid(data), data


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(p.parents[2])) for p in FILES])
def test_files_get_jsonschemas_verdict(path: Path) -> None:
    data = load_file(str(path), env={}).data
    if isinstance(data, (dict, list)):
        same_verdict(data)


def test_there_are_both_valid_and_invalid_files() -> None:
    verdicts = set()
    for path in FILES:
        data = load_file(str(path), env={}).data
        if isinstance(data, (dict, list)):
            verdicts.add(_validator("manifest" if isinstance(data, dict) else "array")
                         .is_valid(data))
    assert verdicts == {True, False}


# Values that sit on the edges of JSON Schema's equality and types.
EDGES = st.sampled_from([None, True, False, 0, 1, 1.0, 1.5, 2, 3, -1, "", "1", "string",
                         "chat_input", "STRING", "guild", "ban_members", "123", "x-1", [],
                         {}, [1, 1], [1, True], [0, False], ["guild", "guild"], [0, 0.0],
                         {"name": "x"}, [{"a": 1}, {"a": 1.0}], [[1], [True]]])
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=8) | EDGES,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8) | st.sampled_from(
                        ["name", "type", "options", "choices", "value", "required",
                         "contexts", "x-anchor"]), inner, max_size=4),
                    max_leaves=12)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, path + (index,))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid command (or manifest) with one value replaced, removed or added."""
    command = draw(st.one_of(chat_input(), context_menu))
    document: Any = draw(st.sampled_from(["manifest", "array"]))
    document = ({"application_id": "1", "commands": [command]} if document == "manifest"
                else [command])
    document = copy.deepcopy(document)
    path = draw(st.sampled_from(_paths(document)[1:]))
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    how = draw(st.sampled_from(["replace", "remove", "add"]))
    if how == "replace":
        parent[path[-1]] = draw(EDGES | JSON)
    elif how == "remove":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["name", "type", "x-extra", "nsfw", "handler",
                                     "unknown"]))] = draw(EDGES)
    else:
        parent.append(draw(EDGES | JSON))
    return document


@SETTINGS
@given(mutated())
def test_mutations_get_jsonschemas_verdict(document: Any) -> None:
    same_verdict(document)


@SETTINGS
@given(st.lists(JSON, max_size=3) | st.dictionaries(
    st.sampled_from(["application_id", "commands", "guilds", "prune", "x-a", "other"]),
    JSON, max_size=4))
def test_random_json_gets_jsonschemas_verdict(document: Any) -> None:
    same_verdict(document)


@pytest.mark.parametrize("schema", [
    {"type": "integer", "minimum": 1},
    {"prefixItems": [{"type": "string"}]},
    {"$id": "https://example.com/s.json", "type": "object"},
    {"$ref": "https://example.com/other.json"},
    {"enum": [[1, 2]]},
    {"type": "decimal"},
])
def test_unknown_keywords_are_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(Unsupported):
        compile_schema("s", {"s": schema})


def test_recursive_refs_compile() -> None:
    schemas = {"s": {"$defs": {"node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}}
    check = compile_schema("s", schemas)
    assert check({"children": [{"children": []}]})
    assert not check({"children": [{"children": 1}]})
