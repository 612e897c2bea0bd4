"""The identity endpoints: who the token is, its application, and switching the
application's Activity (EMBEDDED) and user install with PATCH /applications/@me."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx

from cmdsync.emulator import new_emulator
from cmdsync.emulator.store.database import Store
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD_COMMANDS,
    USER,
    USER_ID,
    asgi_client,
    chat,
    emulator,
    names,
)

EMBEDDED = 1 << 17
BOTH = {"0": {}, "1": {}}


def run(calls: Any) -> Any:
    async def scenario() -> Any:
        async with asgi_client(emulator()) as client:
            return await calls(client)
    return asyncio.run(scenario())


async def token(client: httpx.AsyncClient, scope: str) -> dict[str, str]:
    granted = await client.post("/oauth2/token", auth=(APP, "emulator-secret"),
                                data={"grant_type": "client_credentials", "scope": scope})
    return {"Authorization": f"Bearer {granted.json()['access_token']}"}


def test_users_me_is_the_bot_user_of_the_token_application() -> None:
    async def calls(client: httpx.AsyncClient) -> list[httpx.Response]:
        owner = await token(client, "identify")
        return [await client.get("/users/@me", headers=BOT),
                await client.get("/users/@me", headers=owner),
                await client.get("/users/@me", headers=USER),
                await client.get("/users/@me")]

    bot, owner, no_identify, anonymous = run(calls)
    assert bot.status_code == 200
    assert {k: bot.json()[k] for k in ("id", "username", "bot", "discriminator")} == {
        "id": APP, "username": "cmdsync emulator", "bot": True, "discriminator": "1111"}
    # Client credentials stand for the application's owner (its first seeded user here).
    assert (owner.status_code, owner.json()["id"], "bot" in owner.json()) == (200, USER_ID,
                                                                             False)
    assert (no_identify.status_code, no_identify.json()["code"]) == (401, 40001)
    assert anonymous.json() == {"message": "401: Unauthorized", "code": 0}


def test_applications_me_and_by_id_describe_the_application() -> None:
    async def calls(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get(path, headers=BOT) for path in (
            "/applications/@me", f"/applications/{APP}", "/oauth2/applications/@me",
            "/applications/444444444444444444")] + [
            await client.get("/applications/@me", headers=USER)]

    me, by_id, oauth2, other, bearer = run(calls)
    assert me.json() == by_id.json() == oauth2.json()
    body = me.json()
    assert {k: body[k] for k in ("id", "name", "flags", "flags_new",
                                 "integration_types_config")} == {
        "id": APP, "name": "cmdsync emulator", "flags": 0, "flags_new": "0",
        "integration_types_config": BOTH}  # as Discord makes a new application
    assert body["bot"]["id"] == APP and body["owner"]["id"] == USER_ID
    assert (other.status_code, other.json()["code"]) == (404, 10002)
    assert bearer.json() == {"message": "Only bots can use this endpoint", "code": 20002}


def test_patch_switches_user_install_on_and_off() -> None:
    async def calls(client: httpx.AsyncClient) -> dict[str, Any]:
        user_command = chat("hug", integration_types=[1])
        await client.patch("/applications/@me", headers=BOT,  # guild install only first
                           json={"integration_types_config": {"0": {}}})
        out: dict[str, Any] = {"before": await client.post(GLOBAL, headers=BOT,
                                                           json=user_command)}
        out["on"] = await client.patch("/applications/@me", headers=BOT,
                                       json={"integration_types_config": BOTH})
        out["created"] = await client.post(GLOBAL, headers=BOT, json=user_command)
        out["default"] = await client.post(GLOBAL, headers=BOT, json=chat("ping"))
        out["off"] = await client.patch(f"/applications/{APP}", headers=BOT,
                                        json={"integration_types_config": {"0": None}})
        out["after"] = await client.post(GLOBAL, headers=BOT, json=chat("pat",
                                                                       integration_types=[1]))
        out["listed"] = await client.get(GLOBAL, headers=BOT)
        return out

    out = run(calls)
    assert out["before"].status_code == 400
    assert out["on"].json()["integration_types_config"] == BOTH
    assert out["created"].status_code == 201
    assert out["default"].json()["integration_types"] == [0, 1]  # the app's contexts
    assert out["off"].json()["integration_types_config"] == {"0": {}}
    assert out["after"].json()["errors"] == {"integration_types": {"_errors": [{
        "code": "APPLICATION_COMMAND_INTEGRATION_TYPES_UNSUPPORTED",
        "message": "A command's integration_types must already be supported at "
                   "application level"}]}}
    # Existing commands keep what they were created with.
    assert [(c["name"], c["integration_types"]) for c in out["listed"].json()] == [
        ("hug", [1]), ("ping", [0, 1])]


def test_patch_switches_the_activity_and_its_entry_point() -> None:
    entry = {"type": 4, "name": "Play", "description": "Play", "handler": 2}

    async def calls(client: httpx.AsyncClient) -> dict[str, Any]:
        out: dict[str, Any] = {"refused": await client.post(GLOBAL, headers=BOT, json=entry)}
        out["on"] = await client.patch("/applications/@me", headers=BOT,
                                       json={"flags": EMBEDDED | 1 << 23})
        out["launch"] = await client.get(GLOBAL, headers=BOT)
        out["again"] = await client.patch("/applications/@me", headers=BOT,
                                          json={"flags": EMBEDDED})
        out["still"] = await client.get(GLOBAL, headers=BOT)
        out["bulk"] = await client.put(GLOBAL, headers=BOT, json=[chat("ping")])
        out["off"] = await client.patch("/applications/@me", headers=BOT, json={"flags": 0})
        out["gone"] = await client.get(GLOBAL, headers=BOT)
        out["empty"] = await client.put(GLOBAL, headers=BOT, json=[])
        return out

    out = run(calls)
    assert out["refused"].json()["errors"]["type"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
    assert (out["on"].json()["flags"], out["on"].json()["flags_new"]) == (
        EMBEDDED | 1 << 23, str(EMBEDDED | 1 << 23))
    (launch,) = out["launch"].json()
    assert (launch["type"], launch["name"], launch["handler"]) == (4, "Launch", 2)
    assert out["still"].json() == out["launch"].json()  # already EMBEDDED: nothing new
    assert out["bulk"].json()["code"] == 50240  # the entry point cannot be left out
    assert out["off"].status_code == 200 and out["gone"].json() == []
    assert out["empty"].status_code == 200


def test_patch_keeps_install_params_and_refuses_bad_values() -> None:
    params = {"scopes": ["applications.commands", "bot"], "permissions": "8"}

    async def calls(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.patch("/applications/@me", headers=BOT, json={
                "integration_types_config": {"0": {"oauth2_install_params": {
                    "scopes": ["applications.commands", "bot"], "permissions": 8}}}}),
            await client.get("/applications/@me", headers=BOT),
            await client.patch("/applications/@me", headers=BOT, json={
                "flags": True, "integration_types_config": {
                    "0": {"oauth2_install_params": {"scopes": ["email"]}}, "1": 5,
                    "3": {}}}),
            await client.patch("/applications/@me", headers=BOT, json={
                "integration_types_config": {}})]

    saved, read, bad, empty = run(calls)
    assert saved.json()["integration_types_config"] == {"0": {"oauth2_install_params": params}}
    assert read.json()["integration_types_config"] == {"0": {"oauth2_install_params": params}}
    assert bad.json()["errors"] == {
        "flags": {"_errors": [{"code": "NUMBER_TYPE_COERCE",
                               "message": 'Value "True" is not int.'}]},
        "integration_types_config": {
            "0": {"oauth2_install_params": {"scopes": {"_errors": [{
                "code": "ENUM_TYPE_COERCE",
                "message": "Scopes must be one or more of applications.commands, bot."}]}}},
            "1": {"_errors": [{"code": "MODEL_TYPE_CONVERT",
                               "message": "Only dictionaries may be used in a ModelType"}]},
            "3": {"_errors": [{"code": "ENUM_TYPE_COERCE",
                               "message": 'Value "3" is not a valid enum value.'}]}}}
    assert empty.json()["errors"]["integration_types_config"]["_errors"][0]["code"] == \
        "BASE_TYPE_BAD_LENGTH"


def test_oauth2_me_describes_a_bearer_token() -> None:
    async def calls(client: httpx.AsyncClient) -> list[httpx.Response]:
        plain = await token(client, "applications.commands.update")
        return [await client.get("/oauth2/@me", headers=plain),
                await client.get("/oauth2/@me", headers=USER)]

    credentials, user = run(calls)
    body = credentials.json()
    assert (body["application"]["id"], body["scopes"], "user" in body) == (
        APP, ["applications.commands.update"], False)
    assert body["application"]["integration_types_config"] == BOTH
    assert "owner" not in body["application"]  # the public application object
    assert body["expires"].startswith("2025-06-22T")  # the fake clock + 7 days
    assert user.json()["scopes"] == ["applications.commands.permissions.update"]


def test_application_settings_survive_a_restart_and_old_state_files(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    old = sqlite3.connect(path)  # a state file from before install_params existed
    old.executescript(
        "CREATE TABLE applications (id TEXT PRIMARY KEY, name TEXT NOT NULL, "
        "flags INTEGER NOT NULL, integration_types TEXT NOT NULL, client_secret TEXT NOT NULL);"
        f"INSERT INTO applications VALUES ('{APP}', 'Old', 0, '[0]', 'emulator-secret');")
    old.close()
    first = new_emulator(state=str(path))

    async def patch() -> None:
        async with asgi_client(first) as client:
            await client.patch("/applications/@me", headers=BOT, json={
                "flags": EMBEDDED, "integration_types_config": {
                    "1": {"oauth2_install_params": {"scopes": ["applications.commands"]}}}})
    asyncio.run(patch())
    first.store.close()
    second = new_emulator(state=str(path))  # the seed again: the file's settings win
    app = second.store.application(APP)
    assert app is not None
    assert (app.name, app.flags, app.integration_types, dict(app.install_params)) == (
        "Old", EMBEDDED, (1,), {"1": {"scopes": ["applications.commands"],
                                      "permissions": "0"}})
    second.store.close()
    assert Store(str(path)).application(APP) == app


def test_guild_commands_ignore_the_application_install_settings() -> None:
    async def calls(client: httpx.AsyncClient) -> httpx.Response:
        await client.post(GUILD_COMMANDS, headers=BOT, json=chat("local",
                                                                 integration_types=[1]))
        return await client.get(GUILD_COMMANDS, headers=BOT)

    assert names(run(calls).json()) == ["local"]


def test_flags_new_carries_bits_past_the_int32_flags() -> None:
    wide = EMBEDDED | 1 << 40

    async def calls(client: httpx.AsyncClient) -> httpx.Response:
        await client.patch("/applications/@me", headers=BOT, json={"flags": wide})
        return await client.get("/applications/@me", headers=BOT)

    body = run(calls).json()
    assert (body["flags"], body["flags_new"]) == (EMBEDDED, str(wide))
