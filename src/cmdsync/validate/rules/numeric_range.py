"""Numbers are within Discord's ranges, and minimums do not exceed maximums.

Discord (Discord's "Application Commands" documentation): INTEGER choice values, ``min_value``
and ``max_value`` are whole numbers within +-(2^53-1) (JavaScript's safe
integers); NUMBER ones are within +-2^53; ``min_length`` is 0-6000 and
``max_length`` 1-6000 on STRING options. ``min_value`` may not exceed
``max_value``, nor ``min_length`` ``max_length``. Discord rejects the rest
with 50035 (Invalid Form Body). An integral float such as ``5.0`` counts as
a whole number (as in JSON Schema). Only fields on the option types they
belong to are judged (CS210 reports the others); a choice value that is a
string where a number belongs is CS208's, a boolean the schema's (CS011).

Failing::

    - name: roll
      description: Roll dice
      options:
        - type: integer
          name: sides
          description: Sides
          min_value: 100
          max_value: 9007199254740992
        - {type: string, name: label, description: Label, max_length: 6001}

Passing::

    - name: roll
      description: Roll dice
      options:
        - type: integer
          name: sides
          description: Sides
          min_value: 2
          max_value: 9007199254740991
        - {type: string, name: label, description: Label, max_length: 6000}
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry, choices
from cmdsync.model import MAX_NUMBER, MAX_SAFE_INTEGER, OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import is_number, label

ID = "CS211"
NAME = "numeric-range"
TITLE = "Numbers within Discord's ranges, min not above max"
SEVERITY = Severity.ERROR
PER_COMMAND = True

MAX_LENGTH = 6000
_LIMITS = {OptionType.INTEGER: (MAX_SAFE_INTEGER, "2^53-1"), OptionType.NUMBER: (MAX_NUMBER, "2^53")}


def check_option(option: OptionEntry) -> Iterator[Finding]:
    kind = option.type
    if kind in _LIMITS:
        yield from _numbers(option, OptionType(kind))
    elif kind == OptionType.STRING:
        yield from _lengths(option)


def _numbers(option: OptionEntry, kind: OptionType) -> Iterator[Finding]:
    doc, data = option.entry.doc, option.data
    owner = label(data)
    for field in ("min_value", "max_value"):
        value = data.get(field)
        why = _number_problem(value, kind)
        if why:
            yield Finding(doc, option.path + (field,), f"{field} {value} of {owner} {why}")
    for path, choice in choices(option):
        value = choice.get("value")
        why = _number_problem(value, kind)
        if why:
            yield Finding(doc, path + ("value",), f"choice value {value} of {owner} {why}")
    low, high = data.get("min_value"), data.get("max_value")
    if is_number(low) and is_number(high) and low > high:
        yield Finding(doc, option.path + ("min_value",),
                      f"min_value {low} of {owner} is greater than its max_value {high}: "
                      "swap them", related=((doc, option.path + ("max_value",)),))


def _number_problem(value: object, kind: OptionType) -> str | None:
    """Why ``value`` is not a valid number for an option of ``kind``, or None."""
    if not is_number(value):
        return None
    limit, shown = _LIMITS[kind]
    if isinstance(value, float) and math.isnan(value):
        return "is not a number: write a number"
    if not -limit <= value <= limit:
        return (f"is outside the {kind.name} range -({shown}) to {shown}: use a value "
                f"from {-limit} to {limit}")
    if kind == OptionType.INTEGER and isinstance(value, float) and not value.is_integer():
        return "is not a whole number and the option is INTEGER: use an integer"
    return None


def _lengths(option: OptionEntry) -> Iterator[Finding]:
    doc, data = option.entry.doc, option.data
    low, high = data.get("min_length"), data.get("max_length")
    for field, value, floor in (("min_length", low, 0), ("max_length", high, 1)):
        if is_number(value) and not floor <= value <= MAX_LENGTH:
            yield Finding(doc, option.path + (field,),
                          f"{field} {value} of {label(data)} is outside {floor}-{MAX_LENGTH}: "
                          f"use a length from {floor} to {MAX_LENGTH}")
    if is_number(low) and is_number(high) and low > high:
        yield Finding(doc, option.path + ("min_length",),
                      f"min_length {low} of {label(data)} is greater than its max_length {high}: "
                      "swap them", related=((doc, option.path + ("max_length",)),))
