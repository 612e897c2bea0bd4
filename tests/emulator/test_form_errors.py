"""The mapping from cmdsync diagnostics (rule id + JSON pointer) to Discord's
nested 50035 ``errors`` (cmdsync.emulator.reference.form_body), without HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.emulator.application_commands.commands import NOT_ENFORCED
from cmdsync.emulator.reference.form_body import (
    DEFAULT_LEAF_CODE,
    LEAF_CODES,
    invalid_form_body,
    nest,
)
from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.validate.rules import all_rules

BODY: dict[str, Any] = {
    "name": "ping", "description": "d",
    "name_localizations": {"fr": "x"},
    "options": [{"type": 3, "name": "a", "description": "d"},
                {"type": 3, "name": "b", "description": "d", "required": True,
                 "choices": [{"name": "c", "value": "v"}]}]}


def diag(rule: str, pointer: str, message: str = "why") -> Diagnostic:
    return Diagnostic(rule, Severity.ERROR, message, Location("<request>", pointer=pointer))


def leaf(code: str, message: str = "why") -> dict[str, Any]:
    return {"_errors": [{"code": code, "message": message}]}


def test_every_enforced_error_rule_has_a_leaf_code() -> None:
    # Rules that need the application (CS6xx) the emulator enforces itself, with
    # Discord's wording (cmdsync.emulator.application_commands.commands.validate).
    enforced = [rule.id for rule in all_rules()
                if rule.severity is Severity.ERROR
                and rule.checked_by not in ("loader", "application")
                and not rule.id.startswith(NOT_ENFORCED)]
    assert [rule for rule in enforced if rule not in LEAF_CODES] == []


ANCHORED = {  # rule: (pointer the rule gives, where Discord puts the leaf)
    "CS205": ("/0/options/1/required", ("0", "options", "1")),
    "CS207": ("/0/options/1/type", ("0", "options")),
    "CS301": ("/0", ("0",)),
    "CS303": ("/0/name", ("0",)),
}


@pytest.mark.parametrize("rule", sorted(LEAF_CODES))
def test_each_rule_gives_its_leaf_code_where_discord_puts_it(rule: str) -> None:
    pointer, path = ANCHORED.get(rule, ("/0/options/1/choices/0/value",
                                        ("0", "options", "1", "choices", "0", "value")))
    expected: dict[str, Any] = leaf(LEAF_CODES[rule])
    for part in reversed(path):
        expected = {part: expected}
    assert invalid_form_body([diag(rule, pointer)], [BODY], single=False) == expected


def test_a_single_body_loses_its_leading_index() -> None:
    assert invalid_form_body([diag("CS101", "/0/options/0/name")], [BODY], single=True) == {
        "options": {"0": {"name": leaf("APPLICATION_COMMAND_INVALID_NAME")}}}
    assert invalid_form_body([diag("CS301", "/0")], [BODY], single=True) == leaf(
        "APPLICATION_COMMAND_TOO_LARGE")


def test_missing_fields_are_required_on_the_field_itself() -> None:
    items = [{"options": [{"description": "d"}], "choices": []},
             {"name": "x", "options": [{"type": 3, "name": "o",
                                        "choices": [{"name": "c"}]}]}]
    errors = invalid_form_body([diag("CS012", "/0"), diag("CS012", "/0/options/0"),
                                diag("CS103", "/1/options/0"),
                                diag("CS012", "/1/options/0/choices/0")], items, single=False)
    assert errors == {
        "0": {"name": leaf("BASE_TYPE_REQUIRED"),
              "options": {"0": {"type": leaf("BASE_TYPE_REQUIRED"),
                                "name": leaf("BASE_TYPE_REQUIRED")}}},
        "1": {"options": {"0": {"description": leaf("BASE_TYPE_REQUIRED"),
                                "choices": {"0": {"value": leaf("BASE_TYPE_REQUIRED")}}}}}}


def test_field_errors_win_over_errors_of_their_object() -> None:
    errors = invalid_form_body([diag("CS301", "/0", "too large"),
                                diag("CS101", "/0/name", "bad name")], [BODY], single=False)
    assert errors == {"0": {"name": leaf("APPLICATION_COMMAND_INVALID_NAME", "bad name")}}


def test_unknown_rules_pointer_escapes_and_several_leaves() -> None:
    items = [{"name_localizations": {"a/b~c": "x"}}]
    errors = invalid_form_body([diag("CS999", "/0/name_localizations/a~1b~0c", "one"),
                                diag("CS105", "/0/name_localizations/a~1b~0c", "two")],
                               items, single=False)
    assert errors == {"0": {"name_localizations": {"a/b~c": {"_errors": [
        {"code": DEFAULT_LEAF_CODE, "message": "one"},
        {"code": "ENUM_TYPE_COERCE", "message": "two"}]}}}}


def test_nest_builds_whole_request_errors() -> None:
    assert nest([((), "BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length.")]) == leaf(
        "BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length.")
    assert nest([(("permissions", "0", "id"), "NUMBER_TYPE_COERCE", "m")]) == {
        "permissions": {"0": {"id": leaf("NUMBER_TYPE_COERCE", "m")}}}
