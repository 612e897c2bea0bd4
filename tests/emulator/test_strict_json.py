"""Request bodies as the emulator reads them (reference/strict_json): orjson where it
reads as :mod:`json` does, :mod:`json` where orjson would read otherwise, and the
same refusals either way (issue 34: the emulator at its web framework's floor)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cmdsync.emulator.reference.strict_json import MAX_DEPTH, loads

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@given(JSON_VALUES)
def test_a_body_reads_as_json_reads_it(value: Any) -> None:
    text = json.dumps(value)
    got = loads(text.encode())
    assert got == json.loads(text)
    assert json.dumps(got) == text  # the same types too: an int stays an int


@pytest.mark.parametrize(("body", "value"), [
    (b"12345678901234567890123", 12345678901234567890123),  # past 64 bits: still an int
    (b'{"min_value": -98765432109876543210}', {"min_value": -98765432109876543210}),
    (b'{"id": "1234567890123456789"}', {"id": "1234567890123456789"}),
    (b'{"a": 1, "a": 2}', {"a": 2}),  # the last of a repeated key, as json keeps it
    (b'"\\ud800"', "\ud800"),  # a lone surrogate escape: json reads it, orjson does not
    ('{"é": 1}'.encode("utf-16"), {"é": 1}),  # json detects UTF-16
])
def test_what_orjson_reads_otherwise_is_read_by_json(body: bytes, value: Any) -> None:
    got = loads(body)
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(("body", "message"), [
    (b"NaN", "NaN is not JSON"), (b'{"a": -Infinity}', "-Infinity is not JSON"),
    (b"[1e400]", "1e400 is out of range"),
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "nested more than 64 levels deep"),
    (b"[" * 2000 + b"]" * 2000, "nested more than 64 levels deep"),
    (b'{"a"', "Expecting ':' delimiter: line 1 column 5 (char 4)"),
])
def test_what_discord_refuses_is_refused_with_json_s_words(body: bytes, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        loads(body)
    assert str(refused.value) == message


def test_the_deepest_body_allowed_is_read() -> None:
    deepest = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    value = loads(deepest)
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == []
    assert math.isfinite(loads(b"1e308"))


def test_only_the_short_routes_run_on_the_event_loop() -> None:
    from cmdsync.emulator.routes import ROUTES

    inline = {(r.method, r.path) for r in ROUTES if r.inline}
    assert inline and all("/commands" in path for _, path in inline)
    assert ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands") in inline
    # a route that may wait for a bot (its answer, its endpoint) keeps its worker thread
    assert not any(r.inline for r in ROUTES if "interaction" in r.path
                   or "webhooks" in r.path or r.method == "PATCH" and "@me" in r.path)


def test_the_served_process_sets_its_start_aside() -> None:
    import gc

    from cmdsync.emulator.server import SERVING_THRESHOLD, settle_collector

    before = gc.get_threshold()
    try:
        settle_collector()
        assert gc.get_threshold() == SERVING_THRESHOLD
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
