"""cmdsync diagnostics as Discord's 50035 ``errors`` object.

Discord nests the errors of an Invalid Form Body by key and array index (as
string keys) down to the failing field, whose leaf is
``{"_errors": [{"code": "STRING_CODE", "message": "..."}]}``; whole-request
errors sit at ``errors._errors`` (Discord's "Opcodes and Status Codes" documentation)::

    {"options": {"0": {"name": {"_errors": [
        {"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "..."}]}}}}

:func:`invalid_form_body` builds that object from the diagnostics of
:func:`cmdsync.validate.validate_api_commands`: the rule id picks the leaf
code (:data:`LEAF_CODES`), the diagnostic's JSON pointer the place, and the
diagnostic's message (which says how to fix it) becomes the leaf's message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cmdsync.manifest.diagnostics import Diagnostic

# Rule id -> Discord's leaf code. Codes seen in real Discord answers: the six
# Discord's documentation lists, MODEL_TYPE_CONVERT, BASE_TYPE_MAX_LENGTH, BASE_TYPE_CHOICES,
# NUMBER_TYPE_COERCE, APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID. The others
# (marked *) are the emulator's best guess at Discord's naming.
LEAF_CODES: Mapping[str, str] = {
    "CS011": "BASE_TYPE_INVALID",  # * wrong JSON type
    "CS012": "BASE_TYPE_REQUIRED",
    "CS013": "BASE_TYPE_CHOICES",
    "CS016": "NUMBER_TYPE_COERCE",  # an enum name where Discord wants the integer
    "CS101": "APPLICATION_COMMAND_INVALID_NAME",
    "CS102": "BASE_TYPE_BAD_LENGTH",
    "CS103": "BASE_TYPE_BAD_LENGTH",
    "CS104": "BASE_TYPE_MAX_LENGTH",  # * "Must be 0 or fewer in length."
    "CS105": "ENUM_TYPE_COERCE",  # * not a locale
    "CS201": "BASE_TYPE_MAX_LENGTH",
    "CS202": "BASE_TYPE_MAX_LENGTH",
    "CS203": "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",  # *
    "CS204": "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",  # *
    "CS205": "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
    "CS206": "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",  # *
    "CS207": "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
    "CS208": "APPLICATION_COMMAND_OPTION_CHOICE_INVALID",  # *
    "CS209": "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_INVALID",  # *
    "CS210": "APPLICATION_COMMAND_OPTION_FIELD_INVALID",  # *
    "CS211": "NUMBER_TYPE_MAX",  # *
    "CS301": "APPLICATION_COMMAND_TOO_LARGE",
    "CS303": "APPLICATION_COMMANDS_DUPLICATE_NAME",
    "CS304": "BASE_TYPE_CHOICES",  # * entry point in a guild, or handler elsewhere
    "CS308": "NUMBER_TYPE_COERCE",  # * bits Discord does not know
    "CS501": "NUMBER_TYPE_COERCE",  # 'Value "x" is not snowflake.'
    "CS503": "APPLICATION_COMMANDS_DUPLICATE_ID",  # *
}
DEFAULT_LEAF_CODE = "BASE_TYPE_INVALID"
# A name (default or localized) of the wrong length: Discord's own code and words,
# whatever else is wrong with it (seen in its answers to hikari and discord.js).
_NAME_RULES = frozenset({"CS101", "CS102"})
NAME_LENGTH = "Must be between 1 and 32 in length."
# Where Discord puts the leaf when it is not the field the rule points at:
# on the enclosing object (a duplicate name is reported on the command, a
# misplaced required option on the option) or on the enclosing array.
_ON_OBJECT = frozenset({"CS205", "CS301", "CS303"})
_ON_ARRAY = frozenset({"CS207"})
# Rules that point at an object when one of its fields is missing.
_MISSING_FIELDS = {"CS012": None, "CS103": ("description",)}
_REQUIRED = {"options": ("type", "name"), "choices": ("name", "value")}
_COMMAND_REQUIRED = ("name",)


def invalid_form_body(diagnostics: Iterable[Diagnostic], items: list[Any], *,
                      single: bool) -> dict[str, Any]:
    """Discord's nested ``errors`` for diagnostics of ``items``.

    ``items`` is the array that was validated; ``single`` means it wraps one
    command (a POST or PATCH body), whose leading ``/0`` is then dropped.
    """
    leaves = []
    for diag in diagnostics:
        code = LEAF_CODES.get(diag.rule, DEFAULT_LEAF_CODE)
        for path, leaf_code in _places(diag.rule, _parts(diag.location.pointer), items, code):
            message = diag.message
            if diag.rule in _NAME_RULES and _bad_length(_resolve(items, path)):
                leaf_code, message = "BASE_TYPE_BAD_LENGTH", NAME_LENGTH
            leaves.append((path[1:] if single else path, leaf_code, message))
    return nest(leaves)


def _bad_length(value: Any) -> bool:
    return isinstance(value, str) and not 1 <= len(value) <= 32


def nest(leaves: Iterable[tuple[Sequence[str], str, str]]) -> dict[str, Any]:
    """``(path, code, message)`` leaves as one nested ``errors`` object.

    Where an object has errors on its fields, its own errors are left out,
    as Discord checks fields first (and its schema lets a node hold either).
    """
    errors: dict[str, Any] = {}
    for path, code, message in leaves:
        node = errors
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return _fields_first(errors)


def _places(rule: str, path: list[str], items: list[Any], code: str
            ) -> list[tuple[list[str], str]]:
    """Where the leaf of one diagnostic goes, and its code."""
    if rule in _ON_OBJECT:
        while path and not isinstance(_resolve(items, path), dict):
            path = path[:-1]
    elif rule in _ON_ARRAY:
        while path and not isinstance(_resolve(items, path), list):
            path = path[:-1]
    target = _resolve(items, path)
    if rule in _MISSING_FIELDS and isinstance(target, dict):
        wanted = _MISSING_FIELDS[rule] or _required(path)
        missing = [key for key in wanted if key not in target]
        if missing:
            return [(path + [key], "BASE_TYPE_REQUIRED") for key in missing]
    return [(path, code)]


def _parts(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def _required(path: list[str]) -> tuple[str, ...]:
    container = path[-2] if len(path) >= 2 else ""
    return _REQUIRED.get(container, _COMMAND_REQUIRED)


def _resolve(data: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return None
    return data


def _fields_first(node: dict[str, Any]) -> dict[str, Any]:
    """Drop ``_errors`` beside child errors: a node holds one or the other."""
    children = {k: _fields_first(v) for k, v in node.items() if k != "_errors"}
    if children:
        return children
    return node
