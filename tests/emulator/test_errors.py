"""Error bodies exactly like Discord's, in-process: 50035 with nested ``errors``
and leaf codes from cmdsync's rules, 50109, 413, unknown routes and methods."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Limits
from cmdsync.emulator.reference.form_body import NAME_LENGTH
from cmdsync.validate import validate_api_commands
from tests.support.emulator import (
    APP,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    chat,
    option,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def emulator_options() -> dict[str, Any]:
    return {"limits": Limits(max_body_bytes=64 * 1024)}


def message(items: list[Any], rule: str, scope: str = "global") -> str:
    """The message cmdsync's validator gives for ``rule`` on these items."""
    found = [d.message for d in validate_api_commands(items, scope=scope) if d.rule == rule]
    assert len(found) == 1, found
    return found[0]


def invalid(errors: dict[str, Any]) -> dict[str, Any]:
    return {"code": 50035, "message": "Invalid Form Body", "errors": errors}


def leaf(code: str, text: str) -> dict[str, Any]:
    return {"_errors": [{"code": code, "message": text}]}


async def test_an_invalid_option_name_nests_by_key_and_index(api: httpx.AsyncClient) -> None:
    body = chat(options=[option("Bad Name")])
    response = await api.post(GLOBAL, json=body)
    assert response.status_code == 400
    assert response.json() == invalid({"options": {"0": {"name": leaf(
        "APPLICATION_COMMAND_INVALID_NAME", message([body], "CS101"))}}})


async def test_bulk_errors_are_keyed_by_the_items_index(api: httpx.AsyncClient) -> None:
    items = [chat("fine"), chat("fine"), chat("x", "d" * 101)]
    response = await api.put(GUILD_COMMANDS, json=items)
    assert response.json() == invalid({
        "1": leaf("APPLICATION_COMMANDS_DUPLICATE_NAME", message(items, "CS303", GUILD)),
        "2": {"description": leaf("BASE_TYPE_BAD_LENGTH", message(items, "CS103", GUILD))}})


@pytest.mark.parametrize(("body", "rule", "errors_path", "code"), [
    ({"description": "No name"}, "CS012", ("name",), "BASE_TYPE_REQUIRED"),
    ({"name": "ping"}, "CS103", ("description",), "BASE_TYPE_REQUIRED"),
    (chat(description=""), "CS103", ("description",), "BASE_TYPE_BAD_LENGTH"),
    (chat(options=[option(f"o{i}") for i in range(26)]), "CS201", ("options",),
     "BASE_TYPE_MAX_LENGTH"),
    (chat(options=[option("a"), option("b", required=True)]), "CS205", ("options", "1"),
     "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID"),
    (chat(options=[option("a", 1), option("b")]), "CS207", ("options",),
     "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID"),
    (chat(options=[option(f"o{i}", description="d" * 100, choices=[
        {"name": "n" * 100, "value": "v" * 100} for _ in range(25)]) for i in range(4)]),
     "CS301", (), "APPLICATION_COMMAND_TOO_LARGE"),
    (chat(type="chat_input"), "CS016", ("type",), "NUMBER_TYPE_COERCE"),
    ({"type": 2, "name": "x" * 33}, "CS102", ("name",), "BASE_TYPE_BAD_LENGTH"),
])
async def test_leaf_codes_of_rule_failures(api: httpx.AsyncClient, body: dict[str, Any],
                                           rule: str, errors_path: tuple[str, ...],
                                           code: str) -> None:
    response = await api.post(GLOBAL, json=body)
    # A name of the wrong length gets Discord's own words, not the rule's.
    words = NAME_LENGTH if rule == "CS102" else message([body], rule)
    expected: dict[str, Any] = leaf(code, words)
    for part in reversed(errors_path):
        expected = {part: expected}
    assert (response.status_code, response.json()) == (400, invalid(expected))
    assert (await api.get(GLOBAL)).json() == []


async def test_a_patch_is_validated_as_the_whole_result(api: httpx.AsyncClient) -> None:
    created = (await api.post(GLOBAL, json=chat())).json()
    response = await api.patch(f"{GLOBAL}/{created['id']}", json={"name": "Upper"})
    assert response.json() == invalid({"name": leaf(
        "APPLICATION_COMMAND_INVALID_NAME", message([chat("Upper")], "CS101"))})


async def test_unknown_keys_are_ignored_like_discord(api: httpx.AsyncClient) -> None:
    response = await api.post(GLOBAL, json=chat(descripton="typo", version="1"))
    assert response.status_code == 201
    assert "descripton" not in response.json()


NOT_AN_OBJECT = leaf("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")


async def test_bodies_of_the_wrong_shape(api: httpx.AsyncClient) -> None:
    created = (await api.post(GLOBAL, json=chat())).json()
    for method, path, body, errors in [
            ("POST", GLOBAL, [chat()], NOT_AN_OBJECT),
            ("PATCH", f"{GLOBAL}/{created['id']}", "text", NOT_AN_OBJECT),
            ("PUT", GLOBAL, {"name": "not-a-list"},
             leaf("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")),
            ("PUT", GLOBAL, [chat(), 5], {"1": NOT_AN_OBJECT})]:
        response = await api.request(method, path, json=body)
        assert (response.status_code, response.json()) == (400, invalid(errors))
    assert (await api.get(GLOBAL, params={"with_localizations": "true"})).json() == [created]


@pytest.mark.parametrize("raw", [b"{bad", b"", b"NaN", b'{"name": 1e999}',
                                 b"[" * 70 + b"]" * 70, b"\xff\xfe"])
async def test_malformed_json_answers_50109(api: httpx.AsyncClient, raw: bytes) -> None:
    response = await api.post(GLOBAL, content=raw, headers={"Content-Type": "application/json"})
    assert (response.status_code, response.json()) == (400, {
        "message": "The request body contains invalid JSON.", "code": 50109})


async def test_oversized_bodies_are_refused(api: httpx.AsyncClient) -> None:
    big = [chat(f"c{i}", "d" * 100) for i in range(600)]
    response = await api.put(GLOBAL, json=big)
    assert (response.status_code, response.json()) == (413, {
        "message": "Request entity too large", "code": 40005})

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(100):
            yield b" " * 1024
    streamed = await api.put(GLOBAL, content=chunks())
    assert streamed.status_code == 413


@pytest.mark.parametrize(("path", "param"), [
    ("/applications/undefined/commands", "application_id"),
    (f"/applications/{APP}/guilds/abc/commands", "guild_id"),
    (f"{GLOBAL}/-1", "command_id"),
    (f"{GLOBAL}/99999999999999999999999", "command_id"),
])
async def test_path_ids_must_be_snowflakes(api: httpx.AsyncClient, path: str,
                                           param: str) -> None:
    response = await api.get(path)
    value = path.split("/")[-1] if param == "command_id" else path.split("/")[
        2 if param == "application_id" else 4]
    assert (response.status_code, response.json()) == (400, invalid({param: leaf(
        "NUMBER_TYPE_COERCE", f'Value "{value}" is not snowflake.')}))


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/nope", 404), ("GET", "/applications", 404), ("GET", "/", 404),
    ("GET", f"{GLOBAL}/", 404),
    ("DELETE", GLOBAL, 405), ("POST", f"{GLOBAL}/1", 405),
    ("PUT", f"/applications/{APP}/guilds/{GUILD}/commands/permissions", 405),
    ("PATCH", "/oauth2/token", 405),
])
async def test_unknown_routes_and_methods(api: httpx.AsyncClient, method: str, path: str,
                                          status: int) -> None:
    response = await api.request(method, path)
    message = (f"404: Not Found (not emulated by cmdsync: {method} /api/v10{path})"
               if status == 404 else "405: Method Not Allowed")
    assert (response.status_code, response.json()) == (status, {"message": message, "code": 0})


@pytest.mark.parametrize("body, where", [
    ({"name": "a" * 33, "description": "Too long"}, ["name"]),
    ({"name": "ok", "description": "d", "name_localizations": {"fr": "b" * 33}},
     ["name_localizations", "fr"]),
    ({"type": 2, "name": "C" * 33}, ["name"]),
    ({"name": "ok", "description": "d",
      "options": [{"type": 3, "name": "o" * 33, "description": "x"}]},
     ["options", "0", "name"]),
], ids=["chat-input", "localized", "user", "option"])
async def test_an_over_long_name_is_base_type_bad_length(api: httpx.AsyncClient,
                                                         body: dict[str, Any],
                                                         where: list[str]) -> None:
    """What Discord answers hikari and discord.js for a 33-character name."""
    answer = await api.post(f"/applications/{APP}/commands", json=body)
    assert answer.status_code == 400
    node = answer.json()["errors"]
    for part in where:
        node = node[part]
    assert node["_errors"] == [{"code": "BASE_TYPE_BAD_LENGTH",
                                "message": "Must be between 1 and 32 in length."}]
