"""Permission endpoints in-process: the guild-wide list, get and put one
command's overwrites, batch edit disabled, and overwrites dropped on delete
and rename (Discord's "Application Commands" documentation)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from cmdsync.emulator.seed import default_seed
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    USER,
    USER_ID,
    asgi_client,
    chat,
    emulator,
)

pytestmark = pytest.mark.anyio
OTHER_GUILD = "555555555555555555"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "bot_token": "emulator-bot-token",
                      "client_secret": "emulator-secret"},
                     {"id": "444444444444444444", "bot_token": "other-bot",
                      "client_secret": "other-secret"}],
    "guilds": [{"id": GUILD}, {"id": OTHER_GUILD}],
    "users": [{"id": USER_ID, "application_id": APP, "bearer_token": "emulator-user-token",
               "scopes": ["applications.commands.permissions.update"],
               "guilds": [GUILD, OTHER_GUILD]},
              {"id": "666666666666666666", "application_id": APP,
               "bearer_token": "guest-token",
               "scopes": ["applications.commands.permissions.update"], "guilds": []},
              {"id": "777777777777777777", "application_id": "444444444444444444",
               "bearer_token": "other-app-user",
               "scopes": ["applications.commands.permissions.update"], "guilds": [GUILD]}],
}
ROLE = {"id": "123456789012345678", "type": 1, "permission": True}
CHANNELS = {"id": str(int(GUILD) - 1), "type": 3, "permission": False}
NONE_SET = {"message": "Unknown application command permissions", "code": 10066}


@pytest.fixture
def emulator_options() -> dict[str, Any]:
    return {"seed": SEED}


@pytest.fixture
def api_headers() -> dict[str, str]:
    return {}  # each test sends the credentials it is about


def permissions_path(command_id: str, guild: str = GUILD) -> str:
    return f"/applications/{APP}/guilds/{guild}/commands/{command_id}/permissions"


async def create(api: httpx.AsyncClient, path: str, name: str = "ping") -> str:
    response = await api.post(path, json=chat(name), headers=BOT)
    command_id: str = response.json()["id"]
    return command_id


async def put(api: httpx.AsyncClient, command_id: str, overwrites: list[Any],
              guild: str = GUILD) -> httpx.Response:
    return await api.put(permissions_path(command_id, guild), headers=USER,
                         json={"permissions": overwrites})


async def test_put_then_get_one_commands_overwrites(api: httpx.AsyncClient) -> None:
    command_id = await create(api, GUILD_COMMANDS)
    missing = await api.get(permissions_path(command_id), headers=BOT)
    assert (missing.status_code, missing.json()) == (404, NONE_SET)
    response = await put(api, command_id, [ROLE, CHANNELS])
    expected = {"id": command_id, "application_id": APP, "guild_id": GUILD,
                "permissions": [ROLE, CHANNELS]}
    assert (response.status_code, response.json()) == (200, expected)
    for headers in (BOT, USER):
        got = await api.get(permissions_path(command_id), headers=headers)
        assert (got.status_code, got.json()) == (200, expected)


async def test_put_replaces_all_and_an_empty_list_removes_them(api: httpx.AsyncClient) -> None:
    command_id = await create(api, GUILD_COMMANDS)
    await put(api, command_id, [ROLE])
    replaced = await put(api, command_id, [CHANNELS])
    assert replaced.json()["permissions"] == [CHANNELS]
    emptied = await put(api, command_id, [])
    assert (emptied.status_code, emptied.json()["permissions"]) == (200, [])
    assert (await api.get(permissions_path(command_id), headers=BOT)).status_code == 404


async def test_the_guild_list_holds_only_commands_with_overwrites(
        api: httpx.AsyncClient) -> None:
    local = await create(api, GUILD_COMMANDS, "local")
    await create(api, GUILD_COMMANDS, "bare")
    everywhere = await create(api, GLOBAL, "everywhere")
    await put(api, local, [ROLE])
    await put(api, everywhere, [CHANNELS])
    await put(api, APP, [ROLE])  # the application-wide entry
    await put(api, everywhere, [ROLE], guild=OTHER_GUILD)
    path = f"/applications/{APP}/guilds/{GUILD}/commands/permissions"
    listed = (await api.get(path, headers=BOT)).json()
    assert sorted((e["id"], e["guild_id"], e["permissions"][0]["type"]) for e in listed) == sorted(
        [(local, GUILD, 1), (everywhere, GUILD, 3), (APP, GUILD, 1)])
    other = (await api.get(f"/applications/{APP}/guilds/{OTHER_GUILD}/commands/permissions",
                           headers=USER)).json()
    assert [(e["id"], e["guild_id"]) for e in other] == [(everywhere, OTHER_GUILD)]


async def test_overwrites_need_a_command_of_that_guild_or_a_global_one(
        api: httpx.AsyncClient) -> None:
    elsewhere = await create(api, f"/applications/{APP}/guilds/{OTHER_GUILD}/commands")
    for response in (await put(api, elsewhere, [ROLE]),
                     await api.get(permissions_path(elsewhere), headers=BOT),
                     await put(api, "999999999999999999", [ROLE])):
        assert (response.status_code, response.json()) == (404, {
            "message": "Unknown application command", "code": 10063})


async def test_deleting_or_renaming_a_command_drops_its_overwrites(
        api: httpx.AsyncClient) -> None:
    by_delete = await create(api, GLOBAL, "by-delete")
    by_patch = await create(api, GUILD_COMMANDS, "by-patch")
    by_bulk = await create(api, GUILD_COMMANDS, "by-bulk")
    kept = await create(api, GUILD_COMMANDS, "kept")
    for command_id in (by_delete, by_patch, by_bulk, kept):
        await put(api, command_id, [ROLE])
    await put(api, by_delete, [ROLE], guild=OTHER_GUILD)
    await api.delete(f"{GLOBAL}/{by_delete}", headers=BOT)
    await api.patch(f"{GUILD_COMMANDS}/{by_patch}", json={"name": "patched"}, headers=BOT)
    await api.put(GUILD_COMMANDS, headers=BOT, json=[
        {**chat("bulked"), "id": by_bulk}, chat("kept"), chat("patched")])
    await api.post(GUILD_COMMANDS, json=chat("kept", "Same name"), headers=BOT)
    for guild in (GUILD, OTHER_GUILD):
        listed = (await api.get(f"/applications/{APP}/guilds/{guild}/commands/permissions",
                                headers=BOT)).json()
        assert [e["id"] for e in listed] == ([kept] if guild == GUILD else [])


@pytest.mark.parametrize(("body", "errors"), [
    ({"permissions": [{"id": "abc", "type": 4, "permission": "yes"}]}, {"permissions": {"0": {
        "id": {"_errors": [{"code": "NUMBER_TYPE_COERCE",
                            "message": 'Value "abc" is not snowflake.'}]},
        "type": {"_errors": [{"code": "BASE_TYPE_CHOICES",
                              "message": "Value must be one of {1, 2, 3}."}]},
        "permission": {"_errors": [{"code": "BOOLEAN_TYPE_CONVERT",
                                    "message": "Must be either true or false."}]}}}}),
    ({"permissions": [ROLE, {}]}, {"permissions": {"1": {
        key: {"_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}
        for key in ("id", "type", "permission")}}}),
    ({"permissions": [ROLE] * 101}, {"permissions": {"_errors": [{
        "code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}]}}),
    ({"permissions": "all"}, {"permissions": {"_errors": [{
        "code": "LIST_TYPE_CONVERT", "message": "Only iterables may be used in a ListType"}]}}),
    ([ROLE], {"_errors": [{"code": "MODEL_TYPE_CONVERT",
                           "message": "Only dictionaries may be used in a ModelType"}]}),
])
async def test_bad_overwrites_answer_50035(api: httpx.AsyncClient, body: Any,
                                           errors: dict[str, Any]) -> None:
    command_id = await create(api, GUILD_COMMANDS)
    response = await api.put(permissions_path(command_id), headers=USER, json=body)
    assert (response.status_code, response.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035, "errors": errors})
    assert (await api.get(permissions_path(command_id), headers=BOT)).status_code == 404


@pytest.mark.parametrize(("headers", "status", "body"), [
    (BOT, 403, {"message": "Bots cannot use this endpoint", "code": 20001}),
    ({}, 401, {"message": "401: Unauthorized", "code": 0}),
    ({"Authorization": "Bearer nobody"}, 401, {"message": "401: Unauthorized", "code": 0}),
    ({"Authorization": "Bearer guest-token"}, 403, {"message": "Missing Permissions",
                                                    "code": 50013}),
    ({"Authorization": "Bearer other-app-user"}, 403, {
        "message": "You are not authorized to perform this action on this application",
        "code": 20012}),
    ({"Authorization": "Bearer emulator-user-token", "X-Extra": "1"}, 200, None),
])
async def test_only_a_user_who_manages_the_guild_may_put(
        api: httpx.AsyncClient, headers: dict[str, str], status: int,
        body: dict[str, Any] | None) -> None:
    command_id = await create(api, GUILD_COMMANDS)
    response = await api.put(permissions_path(command_id), headers=headers,
                             json={"permissions": [ROLE]})
    assert response.status_code == status
    if body is not None:
        assert response.json() == body


async def test_batch_edit_is_disabled(api: httpx.AsyncClient) -> None:
    response = await api.put(f"/applications/{APP}/guilds/{GUILD}/commands/permissions",
                             headers=USER, json=[{"id": APP, "permissions": [ROLE]}])
    assert (response.status_code, response.json()) == (405, {
        "message": "405: Method Not Allowed", "code": 0})


async def test_a_guild_without_the_application_is_missing_access() -> None:
    """Discord's answer for a guild the app was not invited to with applications.commands."""
    seed = default_seed()
    seed["guilds"].append({"id": "777777777777777777", "applications": []})
    async with asgi_client(emulator(seed=seed)) as client:
        client.headers.update(BOT)
        path = f"/applications/{APP}/guilds/777777777777777777/commands"
        for answer in (await client.get(path),
                       await client.put(path, json=[{"name": "ping", "description": "Pong"}])):
            assert (answer.status_code, answer.json()) == (
                403, {"message": "Missing Access", "code": 50001})
        unknown = await client.get(f"/applications/{APP}/guilds/888888888888888888/commands")
        assert (unknown.status_code, unknown.json()["code"]) == (404, 10004)
