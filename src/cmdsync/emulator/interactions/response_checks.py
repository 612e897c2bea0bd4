"""Discord's checks of what an application sends back: responses and messages.

Each check raises :class:`~cmdsync.emulator.reference.error_replies.ErrorReply` 50035
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

from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.form_body import nest
from cmdsync.model import MAX_CHOICES

MAX_CONTENT = 2000  # characters
MAX_EMBEDS = 10
# Discord's "Embed Limits" (characters): each text field, and all of them across the
# message's embeds together.
EMBED_TEXT = {"title": 256, "description": 4096}
EMBED_PARTS = {"footer": ("text", 2048), "author": ("name", 256)}
FIELD_TEXT = {"name": 256, "value": 1024}
MAX_FIELDS = 25
MAX_EMBED_TOTAL = 6000
MAX_ROWS, MAX_ROWS_V2 = 5, 40  # top-level components, without and with IS_COMPONENTS_V2
IS_COMPONENTS_V2 = 1 << 15
MODAL_TOP_LEVEL = (1, 10, 18)  # ACTION_ROW (of text inputs), TEXT_DISPLAY, LABEL
MENTION_TYPES = ("roles", "users", "everyone")
MAX_MENTION_IDS = 100
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
    that are not lists of objects (at most 10 embeds), ``flags`` that are not an
    integer, embeds past Discord's "Embed Limits", more than 5 top-level
    components (40 with IS_COMPONENTS_V2), or a bad ``allowed_mentions``
    (Discord's "Allowed Mentions Object"); then 50006 for an empty message when
    ``require_content``. ``prefix`` is where the message sits in the request body
    (``data`` in a response, nothing in a webhook's or a channel message's body)."""
    leaves = _content(data) + _list_of_objects(data, "embeds", MAX_EMBEDS) + \
        _list_of_objects(data, "components", None) + _flags(data)
    if not leaves:
        leaves = _embed_limits(data["embeds"] if data.get("embeds") else []) + \
            _top_components(data) + _allowed_mentions(data.get("allowed_mentions"))
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
    """A modal: ``custom_id`` (1-100), ``title`` (1-45) and 1-5 components, each an object
    of a type a modal holds at its top ("Component Reference": a label, a text display,
    or an action row of text inputs, deprecated there but taken).

    A component that is not an object is 50035 at ``data.components.N`` with
    ``MODEL_TYPE_CONVERT`` "Only dictionaries may be used in a ModelType" (the code and
    words Discord answers for a non-object elsewhere; for a modal's component the
    emulator's inference); one of another type, ``UNION_TYPE_CHOICES`` 'Value of field
    "type" must be one of (1, 10, 18).' (the wording seen in Discord's answers for an
    action row's children, with the modal's types: inferred too). hikari 2.7.0's modal
    builder sends ``[[{row}, []]]``: refused so."""
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
    else:
        allowed = ", ".join(map(str, MODAL_TOP_LEVEL))
        for index, item in enumerate(components):
            at = ["data", "components", str(index)]
            if not isinstance(item, dict):
                leaves.append((at, *_NOT_AN_OBJECT))
            elif item.get("type") not in MODAL_TOP_LEVEL or isinstance(item["type"], bool):
                leaves.append((at, "UNION_TYPE_CHOICES",
                               f'Value of field "type" must be one of ({allowed}).'))
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


def _too_long(path: list[str], value: Any, most: int) -> list[Leaf]:
    if isinstance(value, str) and len(value) > most:
        return [(path, "BASE_TYPE_MAX_LENGTH", f"Must be {most} or fewer in length.")]
    return []


def _embed_limits(embeds: list[dict[str, Any]]) -> list[Leaf]:
    """Each embed's text fields and fields within Discord's limits, then their total."""
    leaves: list[Leaf] = []
    total = 0
    for index, embed in enumerate(embeds):
        at = ["embeds", str(index)]
        texts = [(at + [key], embed.get(key), most) for key, most in EMBED_TEXT.items()]
        for key, (inner, most) in EMBED_PARTS.items():
            part = embed.get(key)
            if isinstance(part, dict):
                texts.append((at + [key, inner], part.get(inner), most))
        fields = embed.get("fields")
        if isinstance(fields, list) and len(fields) > MAX_FIELDS:
            leaves.append((at + ["fields"], "BASE_TYPE_MAX_LENGTH",
                           f"Must be {MAX_FIELDS} or fewer in length."))
        elif isinstance(fields, list):
            for number, field in enumerate(fields):
                where = at + ["fields", str(number)]
                for key, most in FIELD_TEXT.items():
                    value = field.get(key) if isinstance(field, dict) else None
                    if not isinstance(value, str):
                        leaves.append((where + [key], "BASE_TYPE_REQUIRED",
                                       "This field is required"))
                    texts.append((where + [key], value, most))
        for path, value, most in texts:
            leaves += _too_long(path, value, most)
            total += len(value) if isinstance(value, str) else 0
    if not leaves and total > MAX_EMBED_TOTAL:  # the emulator's best guess at the words
        leaves.append((["embeds"], "BASE_TYPE_MAX_LENGTH",
                       f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}"))
    return leaves


def _top_components(data: Mapping[str, Any]) -> list[Leaf]:
    components = data.get("components") or []
    most = MAX_ROWS_V2 if message_flags(data) & IS_COMPONENTS_V2 else MAX_ROWS
    if len(components) > most:
        return [(["components"], "BASE_TYPE_MAX_LENGTH", f"Must be {most} or fewer in length.")]
    return [(["components", str(index), "type"], "BASE_TYPE_REQUIRED", "This field is required")
            for index, item in enumerate(components) if not isinstance(item.get("type"), int)]


def _allowed_mentions(value: Any) -> list[Leaf]:
    """``{"parse": [...], "users": [...], "roles": [...], "replied_user": bool}``."""
    at = ["allowed_mentions"]
    if value is None:
        return []
    if not isinstance(value, dict):
        return [(at, *_NOT_AN_OBJECT)]
    leaves: list[Leaf] = []
    parse = value.get("parse")
    if parse is not None and not isinstance(parse, list):
        leaves.append((at + ["parse"], *_NOT_A_LIST))
    for index, kind in enumerate(parse if isinstance(parse, list) else []):
        if kind not in MENTION_TYPES:
            leaves.append((at + ["parse", str(index)], "ENUM_TYPE_COERCE",
                           f'Value "{kind}" is not a valid enum value.'))
    for key in ("users", "roles"):
        ids = value.get(key)
        if ids is not None and not isinstance(ids, list):
            leaves.append((at + [key], *_NOT_A_LIST))
        elif ids and len(ids) > MAX_MENTION_IDS:
            leaves.append((at + [key], "BASE_TYPE_MAX_LENGTH",
                           f"Must be {MAX_MENTION_IDS} or fewer in length."))
        elif ids and isinstance(parse, list) and key in parse:
            leaves.append((at, "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                           f'parse:["{key}"] and {key}: [ids...] are mutually exclusive.'))
    return leaves
