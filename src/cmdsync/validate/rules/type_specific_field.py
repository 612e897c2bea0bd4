"""Type-specific option fields appear only on the option types they belong to.

Discord (Discord's "Application Commands" documentation): ``choices`` only on STRING, INTEGER
and NUMBER options; ``min_value``/``max_value`` only on INTEGER and NUMBER;
``min_length``/``max_length`` only on STRING; ``channel_types`` only on
CHANNEL. Discord rejects the others with 50035 (Invalid Form Body). An
empty ``choices``/``channel_types`` list means "not set" and is not
reported (``null`` is the schema's, CS011). ``autocomplete`` on a wrong type
is CS209's; the choices themselves are judged (CS202, CS208) only where
they are allowed.

Failing::

    - name: config
      description: Configure the bot
      options:
        - type: boolean
          name: verbose
          description: Talk more
          choices:
            - {name: Loud, value: 1}
        - {type: string, name: prefix, description: Prefix, max_value: 3}

Passing::

    - name: config
      description: Configure the bot
      options:
        - {type: boolean, name: verbose, description: Talk more}
        - {type: string, name: prefix, description: Prefix, max_length: 3}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry
from cmdsync.model import OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import CHOICE_TYPES, label, option_type, type_name

ID = "CS210"
NAME = "type-specific-field"
TITLE = "Type-specific option fields only on their types"
SEVERITY = Severity.ERROR
PER_COMMAND = True

_NUMBERS = frozenset({OptionType.INTEGER, OptionType.NUMBER})
_STRING = frozenset({OptionType.STRING})
# field -> (option types that take it, how to name them in a message)
_FIELDS: Mapping[str, tuple[frozenset[OptionType], str]] = {
    "choices": (CHOICE_TYPES, "STRING, INTEGER and NUMBER options"),
    "min_value": (_NUMBERS, "INTEGER and NUMBER options"),
    "max_value": (_NUMBERS, "INTEGER and NUMBER options"),
    "min_length": (_STRING, "STRING options"),
    "max_length": (_STRING, "STRING options"),
    "channel_types": (frozenset({OptionType.CHANNEL}), "CHANNEL options"),
}


def check_option(option: OptionEntry) -> Iterator[Finding]:
    kind = option_type(option.data)
    if kind is None:
        return
    for field, (allowed, owners) in _FIELDS.items():
        value = option.data.get(field)
        if kind in allowed or value is None or value == []:
            continue
        yield Finding(option.entry.doc, option.path + (field,),
                      f"{field!r} is set on {label(option.data)}, which is "
                      f"{type_name(kind)}; it is only for {owners}: "
                      f"{_fix(field, kind)}", key=True)


def _fix(field: str, kind: int) -> str:
    """Remove the field, or use its counterpart (min_value <-> min_length)."""
    if kind == OptionType.STRING and field.endswith("_value"):
        return f"use {field.replace('_value', '_length')} for a string's length, or remove it"
    if kind in _NUMBERS and field.endswith("_length"):
        return f"use {field.replace('_length', '_value')} to bound a number, or remove it"
    return "remove it"
