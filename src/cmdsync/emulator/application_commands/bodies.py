"""Command bodies both ways: what the emulator keeps of a body it accepted, and
commands as Discord returns them.

What the emulator keeps of a command body it accepted.

:func:`stored_body` turns a validated request body into the canonical form
the store keeps: only the fields Discord stores (unknown and response-only
keys are dropped, as Discord ignores them), defaults left out (``nsfw``
false, ``required`` and ``autocomplete`` false, ``dm_permission`` true, empty
or null localizations and lists, null ``contexts``), localizations without
null entries, ``contexts`` and ``integration_types`` sorted. Two bodies that
mean the same command store equal, which is how ``version`` changes on real
changes only. Fields that only mean something on global commands
(``dm_permission``, ``contexts``, ``integration_types``) are dropped from
guild commands; a global command without ``integration_types`` gets the
application's (as Discord returns them: its "Application Commands" docs).

Commands as Discord returns them, and the requester's locale.

:func:`command` renders a stored command with the fields, defaults and key
order of Discord's responses (Discord's application command object (checked against real responses), checked against
the real responses in ``shared/corpus/live_responses``): ``id``,
``application_id``, ``version``, ``default_member_permissions`` (null or a
string), ``type``, ``name``, ``description`` ("" on USER and MESSAGE),
``guild_id`` only on guild commands, ``dm_permission``, ``contexts`` (null
when unset) and ``integration_types`` (a list) only on global commands,
``options`` only when there are some, ``nsfw``, and ``handler`` on entry
points. An option's ``required: false`` is not stored, so it never comes back.

With ``localizations`` the ``*_localizations`` dictionaries come back (null
when unset); without, only ``name_localized`` / ``description_localized``
for the requester's locale (:func:`~cmdsync.emulator.reference.locales.requested_locale`),
where there is an entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cmdsync.emulator.domain.objects import Application, StoredCommand
from cmdsync.model import LOCALE_FALLBACKS, CommandType

_CONTEXT_MENUS = (CommandType.USER, CommandType.MESSAGE)
_NUMBERS = ("min_value", "max_value", "min_length", "max_length")
# The fields Discord's OpenAPI description (openapi.json) types as nullable in a command
# request (ApplicationCommandCreateRequest, UpdateRequest, PatchRequestPartial), an
# option (the eleven ApplicationCommand*Option schemas) and a choice; Discord takes a
# null one as absent (:func:`without_nulls`).
NULLABLE_COMMAND_FIELDS = frozenset({
    "id", "type", "description", "name_localizations", "description_localizations",
    "options", "default_member_permissions", "dm_permission", "contexts",
    "integration_types", "handler"})
NULLABLE_OPTION_FIELDS = frozenset({
    "name_localizations", "description_localizations", "required", "choices", "options",
    "channel_types", "min_value", "max_value", "min_length", "max_length", "autocomplete"})
NULLABLE_CHOICE_FIELDS = frozenset({"name_localizations"})


def without_nulls(item: Any) -> Any:
    """``item`` (a command body) with its nullable fields that are null left out, in its
    options at every depth and their choices too, as Discord reads them: interactions.py
    sends ``channel_types: null``, ``min_value: null`` ... on every option. ``item``
    itself when it has none (nothing copied); anything but an object as it is, for the
    schema to refuse. Only the request is read so: the manifest's schema still refuses
    a null where a list or number belongs."""
    return _pruned(item, "command")


# What may be null in each kind of object, and the kind of the objects in its lists.
_NULLABLE: dict[str, tuple[frozenset[str], dict[str, str]]] = {
    "command": (NULLABLE_COMMAND_FIELDS, {"options": "option"}),
    "option": (NULLABLE_OPTION_FIELDS, {"options": "option", "choices": "choice"}),
    "choice": (NULLABLE_CHOICE_FIELDS, {})}


def _pruned(item: Any, kind: str) -> Any:
    if not isinstance(item, dict):
        return item
    nullable, lists = _NULLABLE[kind]
    out = item
    if any(item[key] is None for key in nullable & item.keys()):
        out = {k: v for k, v in item.items() if not (v is None and k in nullable)}
    for key, inner in lists.items():
        children = out.get(key)
        if isinstance(children, list):
            pruned = [_pruned(child, inner) for child in children]
            if any(new is not old for new, old in zip(pruned, children)):
                out = {**out, key: pruned}
    return out


def stored_body(item: Mapping[str, Any], *, guild: bool,
                integration_types: tuple[int, ...]) -> dict[str, Any]:
    """The canonical stored form of one validated command body.

    ``guild`` is True for a guild command; ``integration_types`` are the
    application's, the default for global commands.
    """
    kind = item.get("type", int(CommandType.CHAT_INPUT))
    body: dict[str, Any] = {"type": kind, "name": item["name"]}
    _localizations(body, item, "name")
    if kind not in _CONTEXT_MENUS:
        body["description"] = item.get("description") or ""
        _localizations(body, item, "description")
        options = [stored_option(o) for o in item.get("options") or []]
        if options:
            body["options"] = options
    if item.get("default_member_permissions") is not None:
        body["default_member_permissions"] = str(item["default_member_permissions"])
    if not guild:
        if item.get("dm_permission") is False:
            body["dm_permission"] = False
        if item.get("contexts") is not None:
            body["contexts"] = sorted(set(item["contexts"]))
        types = item.get("integration_types")
        body["integration_types"] = sorted(set(types if types is not None
                                               else integration_types))
    if item.get("nsfw"):
        body["nsfw"] = True
    if kind == CommandType.PRIMARY_ENTRY_POINT:
        body["handler"] = item.get("handler", 1)
    return body


def stored_option(option: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical stored form of one option (recursively)."""
    out: dict[str, Any] = {"type": option["type"], "name": option["name"]}
    _localizations(out, option, "name")
    out["description"] = option.get("description") or ""
    _localizations(out, option, "description")
    if option.get("required"):
        out["required"] = True
    if option.get("choices"):
        out["choices"] = [_stored_choice(c) for c in option["choices"]]
    children = [stored_option(o) for o in option.get("options") or []]
    if children:
        out["options"] = children
    if option.get("channel_types"):
        out["channel_types"] = sorted(set(option["channel_types"]))
    for key in _NUMBERS:
        if option.get(key) is not None:
            out[key] = option[key]
    if option.get("autocomplete"):
        out["autocomplete"] = True
    return out


def _stored_choice(choice: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": choice["name"]}
    _localizations(out, choice, "name")
    out["value"] = choice["value"]
    return out


def _localizations(out: dict[str, Any], source: Mapping[str, Any], field: str) -> None:
    table = source.get(f"{field}_localizations")
    if isinstance(table, Mapping):
        kept = {locale: value for locale, value in sorted(table.items()) if value is not None}
        if kept:
            out[f"{field}_localizations"] = kept


_OPTION_TAIL = ("required", "choices", "options", "channel_types", "min_value", "max_value",
                "min_length", "max_length", "autocomplete")
# A bare language tag Discord has only with a region.


def command(stored: StoredCommand, app: Application, *, localizations: bool = True,
            locale: str | None = None) -> dict[str, Any]:
    """The response object of one command."""
    return _command(stored, app, localizations=localizations, locale=locale)


def commands_json(stored: Iterable[StoredCommand], app: Application, *,
                  localizations: bool = True, locale: str | None = None) -> bytes:
    """The JSON array of :func:`command` of each of ``stored``, UTF-8, as starlette's
    ``JSONResponse`` writes it; each command's JSON is made once per version, body,
    application's installation contexts and way of asking (``localizations``,
    ``locale``), and kept."""
    return b"[" + b",".join(_encoded(c, app, localizations, locale) for c in stored) + b"]"


def _encoded(stored: StoredCommand, app: Application, localizations: bool,
             locale: str | None) -> bytes:
    """The command's JSON: the parts its body makes (kept per body object, kind of scope,
    installation contexts and way of asking) around its own ``id``, ``application_id``,
    ``version`` and ``guild_id``, so that a body many commands share (a guild's copy of
    another's commands, a bulk overwrite's new ids) is encoded once."""
    mine = (stored.id, stored.version, stored.guild_id, stored.application_id,
            app.integration_types, localizations, locale)
    made = _ENCODED.get(mine)
    if made is not None and made[0] is stored.body:
        return made[1]  # this very command, asked again (a list after its overwrite)
    key = (id(stored.body), stored.type, bool(stored.guild_id),
           None if stored.guild_id else app.integration_types, localizations, locale)
    kept = _SHAPES.get(key)
    if kept is None or kept[0] is not stored.body:
        kept = (stored.body, *_shape(_command(stored, app, localizations=localizations,
                                              locale=locale)))
        _SHAPES[key] = kept
        while len(_SHAPES) > _ENCODED_KEPT:
            _SHAPES.pop(next(iter(_SHAPES)), None)  # handlers run in threads too
    _, head, tail = kept
    place = f',"guild_id":{_STRING(stored.guild_id)}' if stored.guild_id else ""
    encoded = (f'{{"id":{_STRING(stored.id)},"application_id":'
               f'{_STRING(stored.application_id)},"version":{_STRING(stored.version)},'
               f'{head}{place}{tail}}}').encode()
    _ENCODED[mine] = (stored.body, encoded)
    while len(_ENCODED) > _ENCODED_KEPT:
        _ENCODED.pop(next(iter(_ENCODED)), None)
    return encoded


def _shape(out: dict[str, Any]) -> tuple[str, str]:
    """``_dumps(out)`` without its first three keys (``id``, ``application_id``,
    ``version``) and ``guild_id``: the keys before ``guild_id``, and those after (with
    their leading comma)."""
    keys = list(out)[3:]
    cut = keys.index("guild_id") if "guild_id" in keys else len(keys)
    head = ",".join(f"{_STRING(k)}:{_fragment(out[k])}" for k in keys[:cut])
    tail = "".join(f",{_STRING(k)}:{_fragment(out[k])}" for k in keys[cut + 1:])
    return head, tail


# Each body's JSON by body object, kind of scope, installation contexts and way of asking,
# with the body (a store's bodies are shared per distinct text: another object at the same
# address is another body).
_SHAPES: dict[tuple[Any, ...], tuple[dict[str, Any], str, str]] = {}
# Each command's JSON by command and way of asking, with the body it was made from.
_ENCODED: dict[tuple[Any, ...], tuple[dict[str, Any], bytes]] = {}
_ENCODED_KEPT = 65_536
_RENDERED_KEPT = 20_000  # rendered options lists, and their parts' JSON


def _dumps(value: Any) -> str:
    """JSON as starlette's ``JSONResponse`` writes it."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _fragment(value: Any) -> str:
    """``_dumps(value)``; a list or mapping's kept by its identity (with the object, so
    that another object at the same address is not taken for it)."""
    if isinstance(value, str):
        return _STRING(value)
    if value is None or isinstance(value, (bool, float)):
        return _dumps(value)
    if isinstance(value, int):
        return int.__repr__(value)
    kept = _JSON.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    text = _dumps(value)
    _JSON[id(value)] = (value, text)
    while len(_JSON) > _RENDERED_KEPT:
        _JSON.pop(next(iter(_JSON)), None)
    return text


# The JSON of lists and mappings in rendered commands, by identity (with the object).
_JSON: dict[int, tuple[Any, str]] = {}
# A string as JSON, as json.dumps(..., ensure_ascii=False) writes it.
_STRING: Callable[[str], str] = json.encoder.encode_basestring


def _command(stored: StoredCommand, app: Application, *, localizations: bool,
             locale: str | None) -> dict[str, Any]:
    body = stored.body
    context_menu = stored.type in (CommandType.USER, CommandType.MESSAGE)
    out: dict[str, Any] = {
        "id": stored.id, "application_id": stored.application_id, "version": stored.version,
        "default_member_permissions": body.get("default_member_permissions"),
        "type": stored.type,
    }
    _text(out, body, "name", localizations, locale)
    _text(out, {} if context_menu else body, "description", localizations, locale)
    if stored.guild_id:
        out["guild_id"] = stored.guild_id
    else:
        out["dm_permission"] = body.get("dm_permission", True)
        out["contexts"] = body.get("contexts")
        out["integration_types"] = body.get("integration_types", list(app.integration_types))
    if body.get("options"):
        out["options"] = _options(body["options"], localizations, locale)
    out["nsfw"] = body.get("nsfw", False)
    if stored.type == CommandType.PRIMARY_ENTRY_POINT:
        out["handler"] = body.get("handler", 1)
    return out


def _options(options: list[Mapping[str, Any]], localizations: bool, locale: str | None
             ) -> list[dict[str, Any]]:
    """A command's options as returned, made once per options list (stored bodies are
    shared per distinct text, so commands alike share it) and way of asking."""
    key = (id(options), localizations, locale)
    kept = _OPTIONS.get(key)
    if kept is not None and kept[0] is options:
        return kept[1]
    out = [_option(o, localizations, locale) for o in options]
    _OPTIONS[key] = (options, out)
    while len(_OPTIONS) > _RENDERED_KEPT:
        _OPTIONS.pop(next(iter(_OPTIONS)), None)
    return out


_OPTIONS: dict[tuple[int, bool, str | None], tuple[Any, list[dict[str, Any]]]] = {}


def _option(option: Mapping[str, Any], localizations: bool, locale: str | None
            ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": option["type"]}
    _text(out, option, "name", localizations, locale)
    _text(out, option, "description", localizations, locale)
    for key in _OPTION_TAIL:
        if key not in option:
            continue
        if key == "choices":
            out[key] = [_choice(c, localizations, locale) for c in option[key]]
        elif key == "options":
            out[key] = [_option(o, localizations, locale) for o in option[key]]
        else:
            out[key] = option[key]
    return out


def _choice(choice: Mapping[str, Any], localizations: bool, locale: str | None
            ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _text(out, choice, "name", localizations, locale)
    out["value"] = choice["value"]
    return out


def _text(out: dict[str, Any], body: Mapping[str, Any], field: str, localizations: bool,
          locale: str | None) -> None:
    """``field``, then its localizations or its value in the requester's locale."""
    out[field] = body.get(field, "")
    table = body.get(f"{field}_localizations")
    if localizations:
        out[f"{field}_localizations"] = table
    elif locale and table:
        value = pick_locale(table, locale)
        if value is not None:
            out[f"{field}_localized"] = value


def pick_locale(table: Mapping[str, str], locale: str) -> str | None:
    """The value for ``locale``, else for its fallbacks (en-US <-> en-GB, es-419 -> es-ES)."""
    for candidate in (locale, *LOCALE_FALLBACKS.get(locale, ())):
        if table.get(candidate):
            return table[candidate]
    return None
