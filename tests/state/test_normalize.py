"""Canonical forms: every default of Discord's application command object, on real responses."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from cmdsync.state.normalize import (
    canonical,
    canonical_overwrites,
    fill_unknown,
    permission_names,
    permissions_value,
    request_body,
    same,
    to_api,
)
from tests.support.plan import CORPUS_PARAMS, load_commands, sent_form

GUILD = "222222222222222222"


def friendly_form(live: dict[str, Any]) -> dict[str, Any]:
    """``sent_form`` with enum names instead of integers, as a YAML manifest writes it."""
    command = sent_form(live)
    names = {1: "chat_input", 2: "user", 3: "message", 4: "primary_entry_point"}
    command["type"] = names[command.get("type", 1)]
    option_names = ["", "sub_command", "sub_command_group", "string", "integer", "boolean",
                    "user", "channel", "role", "mentionable", "number", "attachment"]

    def rename(option: dict[str, Any]) -> None:
        option["type"] = option_names[option["type"]]
        for child in option.get("options", []):
            rename(child)

    for option in command.get("options", []):
        rename(option)
    if "contexts" in command:
        command["contexts"] = [["guild", "bot_dm", "private_channel"][c]
                               for c in command["contexts"]]
    return command


@pytest.mark.parametrize("path", CORPUS_PARAMS)
def test_corpus_sent_form_equals_response(path: Path) -> None:
    for live in load_commands(path):
        expected = canonical(live, default_integration_types=[0])
        assert canonical(sent_form(live), default_integration_types=[0]) == expected
        assert canonical(friendly_form(live), default_integration_types=[0]) == expected


@pytest.mark.parametrize("path", CORPUS_PARAMS)
def test_corpus_response_as_manifest_equals_itself(path: Path) -> None:
    """A GET response pasted as a manifest (response-only keys and all) is no change."""
    for live in load_commands(path):
        pasted = copy.deepcopy(live)
        pasted["version"] = "1"
        pasted["id"] = "2"
        assert canonical(pasted) == canonical(live)


@pytest.mark.parametrize("path", CORPUS_PARAMS)
def test_corpus_unknown_integration_default_follows_live(path: Path) -> None:
    for live in load_commands(path):
        desired = canonical(sent_form(live))
        assert fill_unknown(desired, canonical(live)) == canonical(live)


def test_docs_localized_example_ignores_localized_fields() -> None:
    response = {"name": "birthday", "type": 1, "description": "Wish a friend a happy birthday",
                "name_localized": "生日", "description_localized": "祝你朋友生日快乐",
                "options": [{"name": "age", "type": 4, "description": "Your friend's age",
                             "name_localized": "岁数",
                             "description_localized": "你朋友的岁数"}]}
    manifest = {"name": "birthday", "description": "Wish a friend a happy birthday",
                "options": [{"name": "age", "type": "integer",
                             "description": "Your friend's age"}]}
    assert canonical(response) == canonical(manifest)


def test_canonical_of_a_minimal_global_command() -> None:
    assert canonical({"name": "ping", "description": "Ping"}) == {
        "type": 1, "name": "ping", "name_localizations": None, "description": "Ping",
        "description_localizations": None, "default_member_permissions": None,
        "nsfw": False, "contexts": None, "integration_types": None, "dm_permission": True,
    }


def test_canonical_guild_command_drops_global_only_fields() -> None:
    command = {"name": "ping", "description": "Ping", "contexts": [0],
               "integration_types": [1], "dm_permission": False, "guild_id": GUILD}
    assert canonical(command, scope=GUILD) == {
        "type": 1, "name": "ping", "name_localizations": None, "description": "Ping",
        "description_localizations": None, "default_member_permissions": None,
        "nsfw": False,
    }


@pytest.mark.parametrize("left, right", [
    ({"name_localizations": None}, {}),
    ({"name_localizations": {}}, {}),
    ({"description_localizations": {"fr": None}}, {"description_localizations": None}),
    ({"nsfw": False}, {}),
    ({"contexts": None}, {}),
    ({"dm_permission": True}, {}),
    ({"dm_permission": None}, {}),
    ({"options": []}, {}),
    ({"default_permission": True, "version": "9", "application_id": "1", "id": "3",
      "guild_id": GUILD, "name_localized": "x", "description_localized": "y"}, {}),
    ({"contexts": ["private_channel", "guild"]}, {"contexts": [0, 2]}),
    ({"integration_types": ["user_install", "guild_install"]}, {"integration_types": [0, 1]}),
    ({"default_member_permissions": ["manage_guild", "kick_members"]},
     {"default_member_permissions": "34"}),
    ({"default_member_permissions": 8}, {"default_member_permissions": "8"}),
    ({"type": "chat_input"}, {"type": 1}),
    ({"name_localizations": {"fr": "b", "de": "a"}},
     {"name_localizations": {"de": "a", "fr": "b"}}),
])
def test_equal_spellings(left: dict[str, Any], right: dict[str, Any]) -> None:
    base = {"name": "ping", "description": "Ping"}
    assert canonical({**base, **left}) == canonical({**base, **right})


@pytest.mark.parametrize("left, right", [
    ({"nsfw": True}, {}),
    ({"contexts": []}, {}),
    ({"dm_permission": False}, {}),
    ({"default_member_permissions": "0"}, {}),
    ({"name_localizations": {"fr": "pong"}}, {}),
    ({"integration_types": [1]}, {"integration_types": [0]}),
])
def test_real_differences_stay(left: dict[str, Any], right: dict[str, Any]) -> None:
    base = {"name": "ping", "description": "Ping"}
    assert canonical({**base, **left}) != canonical({**base, **right})


@pytest.mark.parametrize("kind", ["user", "message", 2, 3])
def test_context_menu_description_is_empty(kind: Any) -> None:
    manifest = {"type": kind, "name": "Report"}
    live = {"type": 2 if kind in ("user", 2) else 3, "name": "Report", "description": "",
            "description_localizations": None, "options": []}
    assert canonical(manifest) == canonical(live)
    assert canonical(manifest)["description"] == ""


def test_integration_types_default_from_application() -> None:
    command = {"name": "ping", "description": "Ping"}
    assert canonical(command, default_integration_types=[1, 0])["integration_types"] == [0, 1]
    assert canonical(command)["integration_types"] is None
    live = canonical({**command, "integration_types": [0, 1]})
    assert fill_unknown(canonical(command), live) == live
    explicit = canonical({**command, "integration_types": [0]})
    assert fill_unknown(explicit, live) == explicit


def test_options_defaults_and_order() -> None:
    manifest = {"name": "ban", "description": "Ban", "options": [
        {"type": "user", "name": "user", "description": "Who", "required": True},
        {"type": "string", "name": "reason", "description": "Why", "required": False,
         "autocomplete": False, "name_localizations": {}},
        {"type": "channel", "name": "log", "description": "Where",
         "channel_types": ["guild_text", "guild_announcement", 0]},
        {"type": "integer", "name": "days", "description": "Days", "min_value": 0,
         "max_value": 7, "choices": [{"name": "One", "value": 1},
                                     {"name": "Seven", "value": 7, "name_localizations": {}}]},
    ]}
    live = {"name": "ban", "description": "Ban", "type": 1, "options": [
        {"type": 6, "name": "user", "description": "Who", "required": True,
         "name_localizations": None, "description_localizations": None},
        {"type": 3, "name": "reason", "description": "Why"},
        {"type": 7, "name": "log", "description": "Where", "channel_types": [5, 0]},
        {"type": 4, "name": "days", "description": "Days", "min_value": 0.0, "max_value": 7,
         "choices": [{"name": "One", "value": 1, "name_localizations": None},
                     {"name": "Seven", "value": 7}]},
    ]}
    assert same(canonical(manifest), canonical(live))
    options = canonical(manifest)["options"]
    assert [o["name"] for o in options] == ["user", "reason", "log", "days"]
    assert [c["name"] for c in options[3]["choices"]] == ["One", "Seven"]
    assert options[2]["channel_types"] == [0, 5]
    reordered = {**manifest, "options": list(reversed(manifest["options"]))}
    assert canonical(reordered) != canonical(manifest)


def test_subcommands_nest() -> None:
    manifest = {"name": "mod", "description": "Moderation", "options": [
        {"type": "sub_command", "name": "ban", "description": "Ban", "options": [
            {"type": "user", "name": "user", "description": "Who", "required": False}]}]}
    live = {"name": "mod", "description": "Moderation", "options": [
        {"type": 1, "name": "ban", "description": "Ban", "options": [
            {"type": 6, "name": "user", "description": "Who"}]}]}
    assert canonical(manifest) == canonical(live)
    assert canonical(manifest)["options"][0]["options"][0] == {
        "type": 6, "name": "user", "name_localizations": None, "description": "Who",
        "description_localizations": None}


def test_entry_point_handler() -> None:
    manifest = {"type": "primary_entry_point", "name": "launch", "description": "Launch",
                "handler": "discord_launch_activity"}
    assert canonical(manifest)["handler"] == 2
    assert canonical({**manifest, "handler": None})["handler"] == 1


def test_same_is_json_equality() -> None:
    assert same(1, 1.0)
    assert not same(True, 1)
    assert not same(False, 0)
    assert same({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]})
    assert not same({"a": 1}, {"a": 1, "b": None})
    assert not same("1", 1)
    assert not same([1], [1, 2])


def test_to_api_converts_names() -> None:
    command = {"type": "chat_input", "name": "ping", "description": "Ping",
               "contexts": ["guild", "bot_dm"], "integration_types": ["guild_install"],
               "default_member_permissions": ["administrator"],
               "options": [{"type": "channel", "name": "where", "description": "W",
                            "channel_types": ["guild_forum"]}]}
    assert to_api(command) == {
        "type": 1, "name": "ping", "description": "Ping", "contexts": [0, 1],
        "integration_types": [0], "default_member_permissions": "8",
        "options": [{"type": 7, "name": "where", "description": "W",
                     "channel_types": [15]}]}


def test_request_body_strips_response_only_keys_at_every_depth() -> None:
    live = {"id": "10", "version": "11", "application_id": "1", "guild_id": GUILD,
            "name": "ping", "description": "P", "name_localized": "p",
            "default_permission": True,
            "options": [{"type": 3, "name": "a", "description": "A", "name_localized": "x",
                         "choices": [{"name": "c", "value": "c", "name_localized": "y"}]}]}
    assert request_body(live) == {
        "id": "10", "name": "ping", "description": "P",
        "options": [{"type": 3, "name": "a", "description": "A",
                     "choices": [{"name": "c", "value": "c"}]}]}
    assert "id" not in request_body(live, keep_id=False)


def test_permission_names_round_trip() -> None:
    assert permissions_value(["manage_guild", "kick_members"]) == "34"
    assert permission_names("34") == ["kick_members", "manage_guild"]
    assert permission_names("0") is None
    assert permission_names(None) is None
    assert permission_names(str(1 << 47)) is None  # bit 47 is unassigned
    assert permissions_value(permission_names(str(1 << 52 | 1))) == str(1 << 52 | 1)


def test_canonical_overwrites() -> None:
    manifest = [{"type": "channel", "id": "all_channels", "permission": False},
                {"type": "role", "id": "everyone", "permission": True},
                {"type": 2, "id": "5", "permission": True}]
    assert canonical_overwrites(manifest, GUILD) == [
        {"id": GUILD, "type": 1, "permission": True},
        {"id": "5", "type": 2, "permission": True},
        {"id": "222222222222222221", "type": 3, "permission": False}]


def test_same_tells_two_values_of_one_type_apart() -> None:
    assert not same(1, 2)
    assert not same(1.5, 2.5)
    assert not same("a", "b")
    assert not same(True, False)
    assert not same([1, 2], [2, 1])
    assert not same({"a": 1}, {"a": 2})
    assert not same({"a": 1}, {"b": 1})
    assert not same(None, 0)
    assert same(None, None) and same("a", "a") and same([], ())


def test_permission_names_of_what_is_not_a_permission_string() -> None:
    assert permission_names(None) is None
    assert permission_names("abc") is None
    assert permission_names("0") is None
    assert permission_names(str(1 << 60)) is None  # a bit Discord does not name
    assert permission_names("32") == ["manage_guild"]
    assert permission_names("34") == ["kick_members", "manage_guild"]


def test_to_api_keeps_a_name_it_does_not_know_as_written() -> None:
    """Validation reports it; the conversion neither drops nor guesses it."""
    assert to_api({"type": "chat_input", "name": "x"})["type"] == 1
    assert to_api({"type": "not_a_type", "name": "x"})["type"] == "not_a_type"


def test_request_body_strips_nested_options_and_keeps_choices_it_cannot_read() -> None:
    command = {"name": "mod", "description": "d", "options": [
        {"type": 2, "name": "group", "description": "g", "name_localized": "G", "options": [
            {"type": 1, "name": "sub", "description": "s", "description_localized": "S",
             "options": [{"type": 3, "name": "why", "description": "w",
                          "name_localized": "W", "choices": ["odd", {"name": "a",
                                                                      "value": "a",
                                                                      "name_localized": "A"}]}]}]}]}
    assert request_body(command) == {"name": "mod", "description": "d", "options": [
        {"type": 2, "name": "group", "description": "g", "options": [
            {"type": 1, "name": "sub", "description": "s", "options": [
                {"type": 3, "name": "why", "description": "w",
                 "choices": ["odd", {"name": "a", "value": "a"}]}]}]}]}


def test_canonical_overwrites_sort_by_type_then_numeric_id() -> None:
    overwrites = [{"id": "9", "type": 1, "permission": True},
                  {"id": "x", "type": 1, "permission": True},
                  {"id": "10", "type": 2, "permission": False},
                  {"id": "1", "type": 1, "permission": False},
                  {"id": "everyone", "type": 1, "permission": False}]
    assert [(o["type"], o["id"]) for o in canonical_overwrites(overwrites, GUILD)] == [
        (1, "x"), (1, "1"), (1, "9"), (1, GUILD), (2, "10")]


def test_canonical_of_a_context_menu_drops_what_it_cannot_have() -> None:
    command = {"type": 2, "name": "Profile", "description": "ignored",
               "description_localizations": {"fr": "ignoré"}, "nsfw": True,
               "options": [{"type": 3, "name": "x", "description": "x"}]}
    assert canonical(command, scope=GUILD) == {
        "type": 2, "name": "Profile", "name_localizations": None, "description": "",
        "description_localizations": None, "default_member_permissions": None,
        "nsfw": True}


def test_canonical_fills_missing_descriptions_and_keeps_choice_localizations() -> None:
    command = {"name": "pick", "options": [
        {"type": 3, "name": "colour", "choices": [
            {"name": "red", "name_localizations": {"fr": "rouge"}, "value": "r"},
            {"name": "blue", "value": "b", "name_localizations": {}}]}]}
    assert canonical(command, scope=GUILD) == {
        "type": 1, "name": "pick", "name_localizations": None, "description": "",
        "description_localizations": None, "default_member_permissions": None,
        "nsfw": False, "options": [
            {"type": 3, "name": "colour", "name_localizations": None, "description": "",
             "description_localizations": None, "choices": [
                 {"name": "red", "name_localizations": {"fr": "rouge"}, "value": "r"},
                 {"name": "blue", "name_localizations": None, "value": "b"}]}]}
