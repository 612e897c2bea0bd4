"""The tests skipped on Windows (tests/conftest.py's POSIX_ONLY) name tests that
exist: a renamed test would otherwise run, and fail, on Windows, and a stale entry
would say a test is skipped that is not there."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import POSIX_ONLY, posix_only
from tests.support import paths


@pytest.mark.parametrize("key", sorted(POSIX_ONLY))
def test_each_posix_only_entry_names_a_test(key: str) -> None:
    module, _, name = key.partition("::")
    path = paths.ROOT / module
    assert path.is_file(), module
    if name:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert name in {node.name for node in tree.body
                        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}, key
    assert POSIX_ONLY[key].strip()


def test_posix_only_matches_parametrized_ids_and_not_prefixes() -> None:
    key = next(iter(POSIX_ONLY))
    assert posix_only(key) == POSIX_ONLY[key]
    assert posix_only(key + "[SIGTERM]") == POSIX_ONLY[key]
    assert posix_only(key + "_and_more") is None
    assert posix_only("tests/release/test_platforms.py::test_x") is None
