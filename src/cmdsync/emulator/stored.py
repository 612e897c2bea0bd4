"""What the emulator keeps of a command body it accepted.

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
application's (FACTS.md "What a GET returns").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cmdsync.model import CommandType

_CONTEXT_MENUS = (CommandType.USER, CommandType.MESSAGE)
_NUMBERS = ("min_value", "max_value", "min_length", "max_length")


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
        out["choices"] = [_choice(c) for c in option["choices"]]
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


def _choice(choice: Mapping[str, Any]) -> dict[str, Any]:
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
