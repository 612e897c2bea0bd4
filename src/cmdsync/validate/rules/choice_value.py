"""Choice names are 1-100 characters and choice values have the option's type.

Discord (Discord's "Application Commands" documentation): a choice ``name`` (and each localized
name) is 1-100 characters; the ``value`` of a STRING option's choice is a
string of at most 100 characters, of an INTEGER option's an integer, of a
NUMBER option's a number (an integer or a float). Discord rejects anything
else with 50035 (Invalid Form Body). This rule judges only the kind of value
(string or number) and lengths; it looks only at STRING, INTEGER and NUMBER
options (choices elsewhere are CS210's). A value that is neither string nor
number (``true``, ``null``) is already reported by the schema (CS011) and so
skipped here, even though Python counts ``True`` as an integer. Whether an
INTEGER value is whole and every number is within Discord's range is
CS211's.

Failing::

    - name: roll
      description: Roll dice
      options:
        - type: integer
          name: sides
          description: Sides
          choices:
            - {name: Six, value: "6"}
            - {name: "", value: 20}

Passing::

    - name: roll
      description: Roll dice
      options:
        - type: integer
          name: sides
          description: Sides
          choices:
            - {name: Six, value: 6}
            - {name: Twenty, value: 20}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry, choices
from cmdsync.model import OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import (
    CHOICE_TYPES,
    is_number,
    label,
    localized,
    option_type,
    type_name,
    where,
)

ID = "CS208"
NAME = "choice-value"
TITLE = "Choice names 1-100 characters, values of the option's type"
SEVERITY = Severity.ERROR
PER_COMMAND = True

MAX_CHOICE_NAME = 100
MAX_CHOICE_STRING = 100


def check_option(option: OptionEntry) -> Iterator[Finding]:
    kind = option_type(option.data)
    if kind not in CHOICE_TYPES:
        return
    doc = option.entry.doc
    for path, choice in choices(option):
        for at, locale, name in localized(choice, "name", path):
            why = _name_problem(name)
            if why:
                yield Finding(doc, at, f"choice name{where(locale)} {why}")
        if "value" in choice:
            why = _value_problem(option, kind, choice["value"])
            if why:
                yield Finding(doc, path + ("value",), why)


def _name_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    if not name:
        return f"is empty: give the choice a name of 1-{MAX_CHOICE_NAME} characters"
    if len(name) > MAX_CHOICE_NAME:
        return (f"is {len(name)} characters long; Discord allows at most {MAX_CHOICE_NAME}: "
                f"shorten it by {len(name) - MAX_CHOICE_NAME}")
    return None


def _value_problem(option: OptionEntry, kind: int, value: Any) -> str | None:
    if kind == OptionType.STRING:
        if is_number(value):
            return (f"choice value {value!r} is a number but {_owner(option, kind)}: "
                    f"quote it ('{value}')")
        if isinstance(value, str) and len(value) > MAX_CHOICE_STRING:
            return (f"choice value is {len(value)} characters long; string choice values are "
                    f"at most {MAX_CHOICE_STRING}: shorten it by {len(value) - MAX_CHOICE_STRING}")
        return None
    if isinstance(value, str):
        wanted = "an integer" if kind == OptionType.INTEGER else "a number"
        hint = _exponent_hint(value) if option.entry.doc.kind == "yaml" else ""
        return (f"choice value {value!r} is a string but {_owner(option, kind)}: write "
                f"{wanted} without quotes{hint}")
    return None


def _owner(option: OptionEntry, kind: int) -> str:
    return f"{label(option.data)} is {type_name(kind)}"


def _exponent_hint(text: str) -> str:
    """YAML 1.1 reads ``1e3`` and ``1.5e10`` as strings: say how to write them."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    if not exponent:
        return ""
    if "." not in mantissa:
        mantissa += ".0"
    if exponent[0] not in "+-":
        exponent = "+" + exponent
    suggestion = f"{mantissa}e{exponent}"
    try:
        float(text)
    except ValueError:
        return ""
    return "" if suggestion == text else f" (YAML reads {text} as text; write {suggestion})"

