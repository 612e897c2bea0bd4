"""Every rule, both ways, from the case files in tests/data/rules/."""

from __future__ import annotations

import pytest

from cmdsync.rules import all_rules
from cmdsync.validate import validate_paths
from rule_cases import ENV, Case, discover

CASES = discover()


def _actual(case: Case) -> set[tuple[str, int, int, str, str]]:
    result = validate_paths([str(case.path)], env=ENV)
    return {(d.location.file.replace("\\", "/").rsplit("/", 1)[-1], d.location.line,
             d.location.column, d.rule, d.message) for d in result.diagnostics}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    if case.kind == "valid":
        assert _actual(case) == set()
    else:
        expected = case.expected()
        assert expected, f"{case.path} declares no expected diagnostic"
        assert {e[3] for e in expected} >= {case.rule}, "the case must exercise its own rule"
        assert _actual(case) == expected


@pytest.mark.parametrize("rule", [r.id for r in all_rules()])
def test_every_rule_has_cases_both_ways(rule: str) -> None:
    kinds = {c.kind for c in CASES if c.rule == rule}
    assert kinds == {"valid", "invalid"}
