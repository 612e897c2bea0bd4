"""jsonschema-rs decides, jsonschema words: the two must agree on every verdict.

``cmdsync.validate.schema.check_document`` skips jsonschema when
jsonschema-rs finds a document valid, so a document jsonschema would fault
and jsonschema-rs would pass would lose its diagnostics. These tests hold
jsonschema-rs to never pass what jsonschema faults, on every file of the
rule cases, the examples and the corpus, on random corruptions of valid
commands and on values JSON cannot hold; and to pass valid manifests (else
the fast verdict would save nothing). Where jsonschema-rs is stricter (NaN
and infinities, which JSON cannot hold) jsonschema has the last word.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmdsync.manifest.loader import load_file
from cmdsync.validate.schema import _lists_hold_only_commands, _validator, is_valid
from tests.support import paths
from tests.support.rule_cases import ENV

SETTINGS = settings(max_examples=200, deadline=None)
# JSON values of every kind, for putting in place of a field of a valid command.
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=8) | st.sampled_from(["STRING", "string", "3", "global"]),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
VALID = {"name": "ping", "type": 1, "description": "Pong", "nsfw": False,
         "default_member_permissions": "8", "contexts": [0], "integration_types": [0],
         "name_localizations": {"de": "ping"},
         "options": [{"type": 3, "name": "mode", "description": "How", "required": True,
                      "choices": [{"name": "a", "value": "a"}], "min_length": 1},
                     {"type": 4, "name": "n", "description": "N", "min_value": 1},
                     {"type": 1, "name": "sub", "description": "Sub", "options": []}]}
FIELDS = [(), ("options", 0), ("options", 0, "choices", 0), ("options", 1), ("options", 2),
          ("name_localizations",)]


@st.composite
def corruptions(draw: st.DrawFn) -> dict[str, Any]:
    """A valid command with one field (at some depth) replaced, added or removed."""
    command = json.loads(json.dumps(VALID))
    target: Any = command
    for part in draw(st.sampled_from(FIELDS)):
        target = target[part]
    key = draw(st.sampled_from([*target, "unknown", "type", "name"]))
    if draw(st.booleans()) and key in target:
        del target[key]
    else:
        target[key] = draw(JSON)
    return command


def manifest_of(commands: list[dict[str, Any]]) -> dict[str, Any]:
    return {"application_id": "111111111111111111", "commands": commands,
            "guilds": {"222222222222222222": {"commands": commands}}}

ROOT = Path(__file__).resolve().parents[2]
CORPUS = paths.CORPUS


def _kind(data: Any) -> str | None:
    return "manifest" if isinstance(data, dict) else "array" if isinstance(data, list) else None


def _jsonschema_valid(data: Any, kind: str) -> bool:
    return next(iter(_validator(kind).iter_errors(data)), None) is None


def _agree(data: Any, *, both_ways: bool = False) -> None:
    """jsonschema-rs passes ``data`` only if jsonschema does (and, both ways, vice versa)."""
    kind = _kind(data)
    if kind is not None:
        fast, careful = is_valid(data, kind), _jsonschema_valid(data, kind)
        assert careful or not fast, json.dumps(data, default=str)[:300]
        if both_ways:
            assert fast == careful, json.dumps(data, default=str)[:300]


def _files() -> list[Path]:
    roots = [ROOT / "tests" / "data", ROOT / "examples", CORPUS]
    return sorted(p for root in roots if root.exists() for p in root.rglob("*")
                  if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
                  and p.parent != paths.OPENAPI.parent)


@pytest.mark.parametrize("path", _files(), ids=paths.label)
def test_both_engines_agree_on_every_file(path: Path) -> None:
    doc = load_file(str(path), env=ENV)
    if doc.data is None:
        pytest.skip("not parsed: no schema verdict to compare")
    _agree(doc.data, both_ways=not re.search(r"(?i)\.(?:inf|nan)\b", doc.text))
    # and on each command alone, wrapped as a raw array (the request-body check)
    commands = doc.data.get("commands") if isinstance(doc.data, dict) else doc.data
    if isinstance(commands, list):
        for command in commands:
            _agree([command])


@SETTINGS
@given(corruptions())
def test_both_engines_agree_on_corrupted_commands(command: dict[str, Any]) -> None:
    _agree(manifest_of([command]))
    _agree([command])


def test_both_engines_pass_a_valid_manifest() -> None:
    _agree(manifest_of([VALID]), both_ways=True)
    assert is_valid(manifest_of([VALID]), "manifest")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10**30, -(10**30), 2**64,
                                   1.0, True, "123\n", "", None])
def test_values_json_cannot_hold_or_engines_may_read_differently(value: Any) -> None:
    command = {"name": "ping", "description": "Pong", "options": [
        {"type": 4, "name": "n", "description": "N", "min_value": value}]}
    _agree({"application_id": value, "commands": [command]})
    _agree({"application_id": "1", "guilds": {"1": {"commands": [command]}}})


@pytest.mark.parametrize("data", [
    {"commands": "ping"}, {"commands": [1, "x", None]}, {"guilds": []},
    {"guilds": {"1": []}}, {"guilds": {"1": {"commands": {}}}},
    {"guilds": {"1": {"commands": [VALID], "extra": 1}}}, {"commands": [VALID], "extra": 1},
    {"guilds": {"1": {"commands": [VALID, {**VALID, "name": "BAD NAME"}]}}},
    {"application_id": "1", "guilds": {"1": {"commands": [VALID]}, "2": {"commands": []}}},
    [VALID, VALID], [VALID, {}], [],
])
def test_each_distinct_command_checked_once_gives_the_whole_verdict(data: Any) -> None:
    """is_valid checks each distinct command object once, then the document with its
    command lists emptied: the verdict is jsonschema's on the whole document."""
    assert _lists_hold_only_commands()  # the manifest schema allows checking it so
    _agree(data, both_ways=True)
    shared = [VALID] * 3  # one object, three places
    _agree({"commands": shared, "guilds": {"1": {"commands": shared}}}, both_ways=True)
