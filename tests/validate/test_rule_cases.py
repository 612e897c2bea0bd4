"""Every rule, both ways, from the case files in tests/data/rules/."""

from __future__ import annotations

import pytest

from cmdsync.model import APPLICATION_FLAG_EMBEDDED
from cmdsync.state.application import AppInfo
from cmdsync.validate import validate_paths
from cmdsync.validate.rules import all_rules
from tests.support.rule_cases import ENV, Case, discover

CASES = discover()
# An application that allows everything: the CS6xx rules must stay quiet with it.
EVERYTHING = AppInfo("111111111111111111", "All", APPLICATION_FLAG_EMBEDDED, (0, 1))


def _actual(case: Case, application: AppInfo | None = None
            ) -> set[tuple[str, int, int, str, str]]:
    result = validate_paths([str(case.path)], env=ENV,
                            application=application or case.application())
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


APP_RULES = {r.id for r in all_rules() if r.app_check is not None}


def test_the_application_rules_are_cs601_and_cs602() -> None:
    assert APP_RULES == {"CS601", "CS602"}
    assert all(r.checked_by == "application" and r.check is None
               for r in all_rules() if r.id in APP_RULES)


@pytest.mark.parametrize("case", [c for c in CASES if c.rule in APP_RULES],
                         ids=lambda c: c.id)
def test_application_rule_cases_declare_their_application(case: Case) -> None:
    assert case.application() is not None


@pytest.mark.parametrize("case", [c for c in CASES if c.application() is None],
                         ids=lambda c: c.id)
def test_an_application_that_allows_everything_changes_no_other_case(case: Case) -> None:
    """Offline cases give the same diagnostics with the application rules on."""
    assert _actual(case, EVERYTHING) == _actual(case)
