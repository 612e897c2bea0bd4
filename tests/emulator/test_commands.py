"""Command endpoints in-process (httpx.ASGITransport): upsert, get, edit, delete,
bulk overwrite, and when ``version`` changes (issue 3 "Endpoints", "Semantics")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.emulator import new_emulator
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    FakeClock,
    asgi_client,
    chat,
    emulator,
    names,
    option,
)

pytestmark = pytest.mark.anyio
SCOPES = [GLOBAL, GUILD_COMMANDS]


async def post(api: httpx.AsyncClient, path: str, body: Any) -> dict[str, Any]:
    response = await api.post(path, json=body)
    assert response.status_code in (200, 201), response.text
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.parametrize("path", SCOPES)
async def test_post_creates_with_201_then_overwrites_the_same_name_with_200(
        api: httpx.AsyncClient, path: str) -> None:
    first = await api.post(path, json=chat())
    second = await api.post(path, json=chat(description="Pong back"))
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["description"] == "Pong back"
    assert second.json()["version"] != first.json()["version"]
    listed = (await api.get(path)).json()
    assert [(c["id"], c["description"]) for c in listed] == [(first.json()["id"], "Pong back")]


async def test_upsert_is_per_type_and_per_scope(api: httpx.AsyncClient) -> None:
    slash = (await api.post(GLOBAL, json=chat("report"))).json()
    user = await api.post(GLOBAL, json={"type": 2, "name": "report"})
    in_guild = await api.post(GUILD_COMMANDS, json=chat("report"))
    assert (user.status_code, in_guild.status_code) == (201, 201)
    assert len({slash["id"], user.json()["id"], in_guild.json()["id"]}) == 3
    assert len((await api.get(GLOBAL)).json()) == 2


@pytest.mark.parametrize("path", SCOPES)
async def test_get_one_answers_what_post_answered(api: httpx.AsyncClient, path: str) -> None:
    created = await post(api, path, chat(options=[option("target", required=True)]))
    response = await api.get(f"{path}/{created['id']}")
    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize("path", SCOPES)
async def test_patch_replaces_each_provided_field_entirely(api: httpx.AsyncClient,
                                                           path: str) -> None:
    created = await post(api, path, chat(
        options=[option("a"), option("b")],
        name_localizations={"fr": "ping-fr", "de": "ping-de"}))
    response = await api.patch(f"{path}/{created['id']}", json={
        "options": [option("c", 4)], "name_localizations": {"fr": "pong-fr"}})
    assert response.status_code == 200
    edited = response.json()
    assert [(o["name"], o["type"]) for o in edited["options"]] == [("c", 4)]
    assert edited["name_localizations"] == {"fr": "pong-fr"}
    assert edited["description"] == created["description"]  # not provided: kept
    assert edited["id"] == created["id"] and edited["version"] != created["version"]
    cleared = (await api.patch(f"{path}/{created['id']}",
                               json={"name_localizations": None, "options": []})).json()
    assert cleared["name_localizations"] is None and "options" not in cleared


async def test_patch_cannot_change_the_type_and_refuses_a_taken_name(
        api: httpx.AsyncClient) -> None:
    ping = await post(api, GLOBAL, chat("ping"))
    await post(api, GLOBAL, chat("pong"))
    same_type = await api.patch(f"{GLOBAL}/{ping['id']}", json={"type": 2})
    assert same_type.status_code == 200 and same_type.json()["type"] == 1
    taken = await api.patch(f"{GLOBAL}/{ping['id']}", json={"name": "pong"})
    assert taken.status_code == 400
    assert taken.json() == {"message": "An application command with that name already "
                                       "exists", "code": 40041}


@pytest.mark.parametrize("path", SCOPES)
async def test_delete_answers_204_and_the_command_is_gone(api: httpx.AsyncClient,
                                                          path: str) -> None:
    created = await post(api, path, chat())
    response = await api.delete(f"{path}/{created['id']}")
    assert (response.status_code, response.content) == (204, b"")
    for request in (api.get, api.delete):
        gone = await request(f"{path}/{created['id']}")
        assert gone.status_code == 404
        assert gone.json() == {"message": "Unknown application command", "code": 10063}
    assert (await api.get(path)).json() == []


@pytest.mark.parametrize("path", SCOPES)
async def test_bulk_overwrite_replaces_every_type_and_keeps_ids_by_id_and_name(
        api: httpx.AsyncClient, path: str) -> None:
    old = await post(api, path, chat("old"))
    keep = await post(api, path, chat("keep"))
    gone = await post(api, path, {"type": 3, "name": "Report"})
    response = await api.put(path, json=[
        {**chat("renamed"), "id": old["id"]}, chat("keep"), chat("new"),
        {"type": 2, "name": "Profile"}])
    assert response.status_code == 200
    saved = response.json()
    assert names(saved) == ["renamed", "keep", "new", "Profile"]
    assert saved[0]["id"] == old["id"] and saved[0]["version"] != old["version"]
    assert saved[1]["id"] == keep["id"] and saved[1]["version"] == keep["version"]
    assert gone["id"] not in {c["id"] for c in saved}
    assert sorted(names((await api.get(path)).json())) == sorted(names(saved))
    assert (await api.put(path, content=b"null")).json() == []
    assert (await api.get(path)).json() == []


async def test_bulk_overwrite_refuses_an_unknown_id(api: httpx.AsyncClient) -> None:
    response = await api.put(GLOBAL, json=[{**chat(), "id": "123456789012345678"}])
    assert response.status_code == 400
    assert response.json() == {"message": "Invalid Form Body", "code": 50035, "errors": {
        "0": {"id": {"_errors": [{"code": "APPLICATION_COMMAND_UNKNOWN_ID", "message":
                                  "no CHAT_INPUT command has id 123456789012345678 in "
                                  "this scope"}]}}}}


async def test_bulk_overwrite_of_a_guild_leaves_other_scopes_alone(
        api: httpx.AsyncClient) -> None:
    await post(api, GLOBAL, chat("global-one"))
    await api.put(GUILD_COMMANDS, json=[chat("guild-one")])
    await api.put(GUILD_COMMANDS, json=[])
    assert names((await api.get(GLOBAL)).json()) == ["global-one"]


REWRITES = [
    ({"options": [option("a", required=False)]}, {"options": [option("a")]}),
    ({"nsfw": False, "name_localizations": {}}, {}),
    ({"options": [], "description_localizations": None}, {"dm_permission": True}),
    # integration_types left out: the application's installation contexts (both, by default)
    ({"contexts": None, "default_member_permissions": None}, {"integration_types": [0, 1]}),
]


@pytest.mark.parametrize(("first", "second"), REWRITES)
async def test_version_stays_on_identical_rewrites(api: httpx.AsyncClient,
                                                   first: dict[str, Any],
                                                   second: dict[str, Any]) -> None:
    created = await post(api, GLOBAL, chat(**first))
    again = await post(api, GLOBAL, chat(**second))
    bulk = (await api.put(GLOBAL, json=[chat(**first)])).json()[0]
    patched = (await api.patch(f"{GLOBAL}/{created['id']}", json=second)).json()
    empty = (await api.patch(f"{GLOBAL}/{created['id']}", json={})).json()
    assert {again["version"], bulk["version"], patched["version"], empty["version"]} == {
        created["version"]}


async def test_version_changes_on_every_real_change(api: httpx.AsyncClient) -> None:
    created = await post(api, GLOBAL, chat())
    versions = [created["version"]]
    for change in ({"description": "Other"}, {"nsfw": True}, {"contexts": [0]},
                   {"options": [option("a")]}, {"default_member_permissions": "8"}):
        edited = await post(api, GLOBAL, chat(**{"description": "Other", **change}))
        versions.append(edited["version"])
    assert len(set(versions)) == len(versions)
    assert versions == sorted(versions, key=int)


async def test_a_state_file_keeps_commands_across_instances(tmp_path: Path) -> None:
    state = str(tmp_path / "local.sqlite")
    first = new_emulator(state=state)
    async with asgi_client(first) as api:
        created = (await api.post(GUILD_COMMANDS, json=chat(), headers=BOT)).json()
    first.store.close()
    second = new_emulator(state=state)  # the seed again: identities only, commands kept
    async with asgi_client(second) as api:
        listed = (await api.get(GUILD_COMMANDS, headers=BOT,
                                params={"with_localizations": "true"})).json()
        again = (await api.post(GUILD_COMMANDS, json=chat("pong"), headers=BOT)).json()
    assert listed == [created]
    assert int(again["id"]) > int(created["version"])  # snowflakes keep increasing


async def test_snowflakes_increase_even_when_the_clock_goes_back() -> None:
    clock = FakeClock()
    async with asgi_client(emulator(clock=clock)) as api:
        first = (await api.post(GLOBAL, json=chat("a"), headers=BOT)).json()
        clock.advance(-3600)
        second = (await api.post(GLOBAL, json=chat("b"), headers=BOT)).json()
    assert int(first["id"]) < int(first["version"]) < int(second["id"]) < int(
        second["version"])
    assert int(first["id"]) >> 22 == int(clock.now * 1000 + 3600_000) - 1_420_070_400_000


async def test_api_prefixes_and_ids(api: httpx.AsyncClient) -> None:
    created = await post(api, GLOBAL, chat())
    assert created["application_id"] == APP
    assert int(created["id"]) > 0 and int(created["version"]) > int(created["id"])
    async with asgi_client(emulator(), prefix="/api/v9") as v9:
        assert (await v9.get(GLOBAL, headers=BOT)).status_code == 200
    async with asgi_client(emulator(), prefix="/api") as bare:
        assert (await bare.get(f"/applications/{APP}/guilds/{GUILD}/commands",
                               headers=BOT)).status_code == 200


async def test_default_member_permissions_as_an_integer_is_accepted(
        api: httpx.AsyncClient) -> None:
    """hikari sends the bit set as a JSON integer, as Discord's OpenAPI document types it."""
    made = await api.post(GLOBAL, json={"name": "ban", "description": "Ban a member",
                                        "default_member_permissions": 4})
    assert made.status_code == 201, made.text
    assert made.json()["default_member_permissions"] == "4"  # returned as Discord does
    bulk = await api.put(GLOBAL, json=[{"name": "kick", "description": "Kick",
                                        "default_member_permissions": 2}])
    assert bulk.status_code == 200 and bulk.json()[0]["default_member_permissions"] == "2"
