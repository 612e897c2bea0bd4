"""Property tests of validate and normalize (hypothesis).

- Random valid commands, written as a YAML manifest, validate with no
  diagnostic at all and round-trip unchanged: YAML text -> load -> the same
  data; -> ``to_api`` -> JSON text (Discord's wire format) -> load -> valid,
  and equal to the original in canonical form.
- Random corruptions of valid commands (wrong types, missing fields, huge
  strings, deep nesting, Unicode edge cases: combining marks, lone
  surrogates, right-to-left and zero-width characters) always give at least
  one error diagnostic, and never raise.

The strategies build only what Discord's "Application Commands" documentation allows, so a
diagnostic on a generated valid command is a false positive of a rule.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.loader import load_text
from cmdsync.model import LOCALES
from cmdsync.state.normalize import canonical, to_api
from cmdsync.validate import validate_documents

SETTINGS = settings(max_examples=int(os.environ.get("CMDSYNC_HYPOTHESIS_EXAMPLES", "60")), deadline=timedelta(seconds=10),
                    suppress_health_check=[HealthCheck.too_slow])

# Names: lowercase letters of several scripts, digits, - _ ' (Discord's documentation name regex).
_NAME_CHARS = st.sampled_from(list("abcdefghijklmnopqrstuvwxyz0123456789-_'")
                              + list("éßøçñüжщяαβγ") + list("日本語한국") + list("नमस्ते")
                              + list("สวัสดี"))
names = st.text(_NAME_CHARS, min_size=1, max_size=32)
# Descriptions: printable text of any script; no surrounding whitespace issues.
descriptions = st.text(st.characters(categories=["L", "N", "P", "Zs"]), min_size=1,
                       max_size=100).filter(lambda s: s.strip() == s and s != "")
locales = st.sampled_from(sorted(LOCALES))


def localizations(values: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, str] | None]:
    return st.one_of(st.none(), st.dictionaries(locales, values, max_size=3))


@st.composite
def leaf_options(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean", "user", "channel",
                                 "role", "mentionable", "attachment"]))
    option: dict[str, Any] = {"type": kind, "name": draw(names),
                              "description": draw(descriptions)}
    if draw(st.booleans()):
        option["required"] = True
    if kind == "string" and draw(st.booleans()):
        option["choices"] = draw(st.lists(st.fixed_dictionaries(
            {"name": descriptions, "value": st.text(min_size=1, max_size=100)}),
            max_size=5, unique_by=lambda c: c["name"]))
    elif kind in ("integer", "number") and draw(st.booleans()):
        low = draw(st.integers(-(2**53 - 1), 2**53 - 2))
        option["min_value"] = low
        option["max_value"] = draw(st.integers(low, 2**53 - 1))
    elif kind == "string" and draw(st.booleans()):
        option["max_length"] = draw(st.integers(1, 6000))
    elif kind == "channel" and draw(st.booleans()):
        option["channel_types"] = draw(st.lists(
            st.sampled_from(["guild_text", "guild_voice", "guild_forum"]), min_size=1,
            max_size=3, unique=True))
    if draw(st.booleans()):
        option["name_localizations"] = draw(localizations(names))
    return option


def _ordered(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Required options first, names unique (Discord's documentation)."""
    unique = list({o["name"]: o for o in options}.values())
    # Localized names must differ from the siblings' names and from each other per locale.
    taken = {o["name"] for o in unique}
    for option in unique:
        table = option.get("name_localizations") or {}
        option_taken = taken - {option["name"]}
        for locale, value in list(table.items()):
            if value in option_taken:
                del table[locale]
    for locale in LOCALES:
        seen: set[str] = set()
        for option in unique:
            table = option.get("name_localizations") or {}
            if locale in table:
                if table[locale] in seen:
                    del table[locale]
                else:
                    seen.add(table[locale])
    return sorted(unique, key=lambda o: not o.get("required", False))


@st.composite
def chat_input(draw: st.DrawFn) -> dict[str, Any]:
    command: dict[str, Any] = {"name": draw(names), "description": draw(descriptions)}
    if draw(st.booleans()):
        subcommands = draw(st.lists(st.builds(
            lambda name, description, options: {"type": "sub_command", "name": name,
                                                "description": description,
                                                "options": _ordered(options)},
            names, descriptions, st.lists(leaf_options(), max_size=3)),
            min_size=1, max_size=3, unique_by=lambda s: s["name"]))
        command["options"] = subcommands
    else:
        command["options"] = _ordered(draw(st.lists(leaf_options(), max_size=5)))
    if draw(st.booleans()):
        command["description_localizations"] = draw(localizations(descriptions))
    if draw(st.booleans()):
        command["default_member_permissions"] = draw(st.one_of(
            st.none(), st.just("0"),
            st.lists(st.sampled_from(["manage_guild", "ban_members", "kick_members"]),
                     min_size=1, unique=True)))
    if draw(st.booleans()):
        command["contexts"] = draw(st.lists(st.sampled_from(["guild", "bot_dm"]),
                                            min_size=1, unique=True))
    if draw(st.booleans()):
        command["nsfw"] = draw(st.booleans())
    return command


context_menu = st.builds(
    lambda kind, name: {"type": kind, "name": name},
    st.sampled_from(["user", "message"]),
    st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=15).map(
        lambda s: f"{s} Menu"))


def manifest_of(commands: list[dict[str, Any]]) -> dict[str, Any]:
    return {"application_id": "111111111111111111", "commands": commands}


def unique_per_type(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list({(c.get("type", "chat_input"), c["name"]): c for c in commands}.values())


manifests = st.lists(st.one_of(chat_input(), context_menu), min_size=1,
                     max_size=6).map(unique_per_type).map(manifest_of)


def diagnostics(text: str, *, kind: str) -> list[Any]:
    doc = load_text(text, file=f"m.{kind}", kind=kind, env={})
    return validate_documents([doc]).diagnostics


@SETTINGS
@given(manifests)
def test_valid_commands_validate_clean_and_round_trip(manifest: dict[str, Any]) -> None:
    text = yaml.safe_dump(manifest, allow_unicode=True, sort_keys=False)
    doc = load_text(text, file="m.yaml", kind="yaml", env={})
    assert doc.data == manifest
    assert validate_documents([doc]).diagnostics == []

    wire = [to_api(command) for command in manifest["commands"]]
    assert diagnostics(json.dumps(wire, ensure_ascii=False), kind="json") == []
    reloaded = load_text(json.dumps(wire), file="w.json", kind="json").data
    assert [canonical(c) for c in reloaded] == [canonical(c) for c in manifest["commands"]]


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# Values that break a field whatever it is: wrong types, huge, deep, hostile Unicode.
_HOSTILE_STRINGS = ["a\u0301" * 3, "\ud800x", "\u202eevil", "zero\u200bwidth", "x" * 100_000,
                    "", " ", "\u0000"]
_BAD_VALUES = st.one_of(
    st.sampled_from(_HOSTILE_STRINGS), st.integers(), st.floats(allow_nan=True),
    st.booleans(), st.just(_nested_list(20)),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))


@st.composite
def corruptions(draw: st.DrawFn) -> dict[str, Any]:
    """A valid chat-input command with one field made certainly invalid."""
    command = draw(chat_input())
    how = draw(st.sampled_from(["name", "description", "drop-name", "type", "deep",
                                "option-name"]))
    if how == "name":
        command["name"] = draw(st.one_of(st.sampled_from(_HOSTILE_STRINGS), st.integers(),
                                         st.none(), st.lists(st.integers(), max_size=2)))
    elif how == "description":
        command["description"] = draw(st.sampled_from(["", "x" * 101, "x" * 100_000]) |
                                      st.integers() | st.none())
    elif how == "drop-name":
        del command["name"]
    elif how == "type":
        command["type"] = draw(_BAD_VALUES.filter(lambda v: v not in (1, 2, 3, 4)))
    elif how == "deep":
        nested: dict[str, Any] = {"type": 1, "name": "leaf", "description": "Leaf"}
        for depth in range(draw(st.integers(3, 80))):
            nested = {"type": 2, "name": f"g{depth}", "description": "Group",
                      "options": [nested]}
        command["options"] = [nested]
    else:
        command["options"] = [{"type": "string", "name": draw(st.sampled_from(
            _HOSTILE_STRINGS)), "description": "Hostile"}]
    return command


@SETTINGS
@given(corruptions())
def test_corruptions_give_errors_never_tracebacks(command: dict[str, Any]) -> None:
    text = json.dumps({"commands": [command]})  # JSON: every value above is representable
    found = diagnostics(text, kind="json")
    assert any(d.severity is Severity.ERROR for d in found), command
