"""Discord's checks of what an application sends back: responses and messages.

Each check raises :class:`~cmdsync.emulator.error_replies.ErrorReply` 50035
(Invalid Form Body, the failing field's leaf) or 50006 (an empty message),
as Discord answers the callback route and the webhook routes (Discord's
"Interactions > Receiving and Responding" and "Webhook > Execute Webhook"
docs). A value of the wrong JSON type is such an error, never a crash:
``flags: "abc"`` is ``NUMBER_TYPE_COERCE`` ('Value "abc" is not int.', as
Discord words it), an object where Discord wants one is checked with
``MODEL_TYPE_CONVERT`` ("Only dictionaries may be used in a ModelType"),
both seen in Discord's answers; a list where Discord wants one is checked with
``LIST_TYPE_CONVERT`` ("Only iterables may be used in a ListType."), the
emulator's best guess at Discord's words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cmdsync.emulator import error_replies
from cmdsync.emulator.form_body import nest
from cmdsync.model import MAX_CHOICES

MAX_CONTENT = 2000  # characters
MAX_EMBEDS = 10
MAX_FLAGS = 2**63 - 1  # Discord's integers are 64-bit
Leaf = tuple[list[str], str, str]
_NOT_AN_OBJECT = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
_NOT_A_LIST = ("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType.")


def response_data(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``data`` of an interaction response: ``{}`` when absent or null, 50035 at
    ``data`` when it is not an object."""
    data = body.get("data")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error_replies.field_error(("data",), *_NOT_AN_OBJECT)
    return data


def check_message(data: Mapping[str, Any], *, require_content: bool,
                  prefix: tuple[str, ...] = ("data",)) -> None:
    """50035 for a too long or non-string ``content``, ``embeds`` or ``components``
    that are not lists of objects (at most 10 embeds), or ``flags`` that are not an
    integer; then 50006 for an empty message when ``require_content``. ``prefix``
    is where the message sits in the request body (``data`` in a response, nothing
    in a webhook's body)."""
    leaves = _content(data) + _list_of_objects(data, "embeds", MAX_EMBEDS) + \
        _list_of_objects(data, "components", None) + _flags(data)
    if leaves:
        raise error_replies.invalid_form(nest([(list(prefix) + p, c, m) for p, c, m in leaves]))
    if require_content and not any(data.get(key) for key in (
            "content", "embeds", "components", "attachments", "sticker_ids", "poll")):
        raise error_replies.empty_message()


def message_flags(data: Mapping[str, Any]) -> int:
    """The ``flags`` of a message checked by :func:`check_message` (0 when absent)."""
    flags = data.get("flags")
    return int(flags) if flags is not None else 0


def check_flags(data: Mapping[str, Any], *, prefix: tuple[str, ...] = ("data",)) -> None:
    """50035 unless ``flags`` is absent or an integer (a deferred response's data)."""
    leaves = _flags(data)
    if leaves:
        raise error_replies.invalid_form(nest([(list(prefix) + p, c, m) for p, c, m in leaves]))


def check_choices(data: Mapping[str, Any]) -> None:
    """An autocomplete result: at most 25 choices, each with a name (1-100) and a value."""
    choices = data.get("choices")
    leaves: list[Leaf] = []
    if not isinstance(choices, list):
        leaves.append((["data", "choices"], "BASE_TYPE_REQUIRED", "This field is required"))
    elif len(choices) > MAX_CHOICES:
        leaves.append((["data", "choices"], "BASE_TYPE_MAX_LENGTH",
                       f"Must be {MAX_CHOICES} or fewer in length."))
    else:
        for index, choice in enumerate(choices):
            name = choice.get("name") if isinstance(choice, dict) else None
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                leaves.append((["data", "choices", str(index), "name"], "BASE_TYPE_BAD_LENGTH",
                               "Must be between 1 and 100 in length."))
            if not isinstance(choice, dict) or "value" not in choice:
                leaves.append((["data", "choices", str(index), "value"], "BASE_TYPE_REQUIRED",
                               "This field is required"))
    if leaves:
        raise error_replies.invalid_form(nest(leaves))


def check_modal(data: Mapping[str, Any]) -> None:
    """A modal: ``custom_id`` (1-100), ``title`` (1-45) and 1-5 components."""
    leaves: list[Leaf] = []
    for key, low, high in (("custom_id", 1, 100), ("title", 1, 45)):
        value = data.get(key)
        if not isinstance(value, str) or not low <= len(value) <= high:
            leaves.append((["data", key], "BASE_TYPE_BAD_LENGTH",
                           f"Must be between {low} and {high} in length."))
    components = data.get("components")
    if not isinstance(components, list) or not 1 <= len(components) <= 5:
        leaves.append((["data", "components"], "BASE_TYPE_BAD_LENGTH",
                       "Must be between 1 and 5 in length."))
    if leaves:
        raise error_replies.invalid_form(nest(leaves))


def _content(data: Mapping[str, Any]) -> list[Leaf]:
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        return [(["content"], "BASE_TYPE_STRING", "Must be a string.")]
    if content is not None and len(content) > MAX_CONTENT:
        return [(["content"], "BASE_TYPE_MAX_LENGTH",
                 f"Must be {MAX_CONTENT} or fewer in length.")]
    return []


def _list_of_objects(data: Mapping[str, Any], key: str, most: int | None) -> list[Leaf]:
    items = data.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        return [([key], *_NOT_A_LIST)]
    if most is not None and len(items) > most:
        return [([key], "BASE_TYPE_MAX_LENGTH", f"Must be {most} or fewer in length.")]
    return [([key, str(index)], *_NOT_AN_OBJECT)
            for index, item in enumerate(items) if not isinstance(item, dict)]


def _flags(data: Mapping[str, Any]) -> list[Leaf]:
    flags = data.get("flags")
    # Discord takes an integer written as a string, too.
    number = int(flags) if isinstance(flags, str) and flags.isascii() and flags.isdigit() \
        else flags
    if flags is None or (isinstance(number, int) and not isinstance(number, bool)
                         and 0 <= number <= MAX_FLAGS):
        return []
    text = flags if isinstance(flags, str) else json.dumps(flags)
    return [(["flags"], "NUMBER_TYPE_COERCE", f'Value "{text}" is not int.')]
