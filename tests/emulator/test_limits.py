"""Limits and unknown ids, in-process: per-type caps (30032), the daily create
budget (30034), entry points (50035, 50240) and 404s (10002, 10004, 10063)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from cmdsync.emulator import Limits
from tests.support.emulator import (
    APP,
    BOT,
    EMBEDDED_SEED,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    FakeClock,
    asgi_client,
    chat,
    emulator,
)

pytestmark = pytest.mark.anyio
ACTIVITY = "/applications/444444444444444444/commands"
ACTIVITY_BOT = {"Authorization": "Bot activity-bot-token"}
MAX_COMMANDS = {"message": "Maximum number of application commands reached", "code": 30032}
DAILY = {"message": "Max number of daily application command creates has been reached (200)",
         "code": 30034}


@pytest.fixture
def emulator_options(clock: FakeClock) -> dict[str, Any]:
    return {"clock": clock, "seed": EMBEDDED_SEED}


def slash(count: int, prefix: str = "c") -> list[dict[str, Any]]:
    return [chat(f"{prefix}{i}") for i in range(count)]


def context_menus(kind: int, count: int) -> list[dict[str, Any]]:
    return [{"type": kind, "name": f"Menu {i}"} for i in range(count)]


@pytest.mark.parametrize("path", [GLOBAL, GUILD_COMMANDS])
async def test_caps_per_type_per_scope_answer_30032(api: httpx.AsyncClient, path: str) -> None:
    full = slash(100) + context_menus(2, 15) + context_menus(3, 15)
    assert (await api.put(path, json=full)).status_code == 200
    for body in (chat("one-more"), {"type": 2, "name": "One more"},
                 {"type": 3, "name": "One more"}):
        response = await api.post(path, json=body)
        assert (response.status_code, response.json()) == (400, MAX_COMMANDS)
    over = await api.put(path, json=slash(101))
    assert (over.status_code, over.json()) == (400, MAX_COMMANDS)
    assert (await api.post(path, json=chat("c0", "Same name: an overwrite"))).status_code == 200


async def test_caps_count_each_scope_apart(api: httpx.AsyncClient) -> None:
    assert (await api.put(GLOBAL, json=slash(100))).status_code == 200
    assert (await api.put(GUILD_COMMANDS, json=slash(100))).status_code == 200


async def test_a_bulk_overwrite_is_refused_whole_past_130_items(api: httpx.AsyncClient) -> None:
    response = await api.put(GLOBAL, json=slash(131))
    assert response.status_code == 400
    assert response.json()["errors"] == {"_errors": [{
        "code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 130 or fewer in length."}]}
    assert (await api.get(GLOBAL)).json() == []


async def test_200_creates_per_guild_per_utc_day(api: httpx.AsyncClient,
                                                 clock: FakeClock) -> None:
    assert (await api.put(GUILD_COMMANDS, json=slash(100, "a"))).status_code == 200
    assert (await api.put(GUILD_COMMANDS, json=slash(100, "a"))).status_code == 200  # no new
    assert (await api.put(GUILD_COMMANDS, json=slash(50, "b"))).status_code == 200
    assert (await api.put(GUILD_COMMANDS, json=slash(49, "c"))).status_code == 200
    assert (await api.post(GUILD_COMMANDS, json=chat("last"))).status_code == 201  # the 200th
    refused = await api.post(GUILD_COMMANDS, json=chat("too-many"))
    assert (refused.status_code, refused.json()) == (400, DAILY)
    bulk = await api.put(GUILD_COMMANDS, json=slash(49, "c") + [chat("last"), chat("new")])
    assert (bulk.status_code, bulk.json()) == (400, DAILY)
    unchanged = await api.put(GUILD_COMMANDS, json=slash(49, "c") + [chat("last")])
    assert unchanged.status_code == 200  # only new commands count
    assert (await api.post(GLOBAL, json=chat("elsewhere"))).status_code == 201
    clock.now = 1_750_032_000.0  # 00:00:00 UTC the next day
    assert (await api.post(GUILD_COMMANDS, json=chat("too-many"))).status_code == 201


async def test_the_daily_limit_can_answer_429(clock: FakeClock) -> None:
    instance = emulator(clock=clock, limits=Limits(daily_creates=1, daily_creates_status=429))
    async with asgi_client(instance) as api:
        assert (await api.post(GUILD_COMMANDS, json=chat("a"), headers=BOT)).status_code == 201
        refused = await api.post(GUILD_COMMANDS, json=chat("b"), headers=BOT)
    seconds_to_midnight = 1_750_032_000.0 - clock.now
    assert refused.status_code == 429
    assert refused.json() == {
        "message": "Max number of daily application command creates has been reached (1)",
        "code": 30034, "retry_after": seconds_to_midnight, "global": False}
    assert refused.headers["retry-after"] == str(int(seconds_to_midnight))


async def test_entry_points_only_global_and_only_for_embedded_apps(
        api: httpx.AsyncClient) -> None:
    entry = {"type": 4, "name": "play", "description": "Play", "handler": 1}
    not_embedded = await api.post(GLOBAL, json=entry)
    assert not_embedded.status_code == 400
    assert not_embedded.json()["errors"] == {"type": {"_errors": [{
        "code": "BASE_TYPE_CHOICES", "message": "PRIMARY_ENTRY_POINT commands need an "
                                                "application with an Activity (flag EMBEDDED)"}]}}
    guild = await api.post(f"/applications/444444444444444444/guilds/{GUILD}/commands",
                           json=entry, headers=ACTIVITY_BOT)
    assert guild.status_code == 400 and list(guild.json()["errors"]) == ["type"]
    second = await api.post(ACTIVITY, json=entry, headers=ACTIVITY_BOT)
    assert (second.status_code, second.json()) == (400, MAX_COMMANDS)


async def test_a_bulk_overwrite_may_not_drop_the_entry_point(api: httpx.AsyncClient) -> None:
    launch = (await api.get(ACTIVITY, headers=ACTIVITY_BOT)).json()[0]
    refused = await api.put(ACTIVITY, json=[chat()], headers=ACTIVITY_BOT)
    assert (refused.status_code, refused.json()["code"]) == (400, 50240)
    assert refused.json()["message"] == (
        "You cannot remove this app's Entry Point command in a bulk update operation. "
        "Please include the Entry Point command in your update request or delete it "
        "separately.")
    kept = await api.put(ACTIVITY, json=[chat(), {
        k: launch[k] for k in ("id", "type", "name", "description", "handler")}],
        headers=ACTIVITY_BOT)
    assert kept.status_code == 200
    assert kept.json()[1]["id"] == launch["id"]
    assert kept.json()[1]["version"] == launch["version"]
    deleted = await api.delete(f"{ACTIVITY}/{launch['id']}", headers=ACTIVITY_BOT)
    assert deleted.status_code == 204
    assert (await api.put(ACTIVITY, json=[chat()], headers=ACTIVITY_BOT)).status_code == 200


UNKNOWN_APP = {"message": "Unknown Application", "code": 10002}
UNKNOWN_GUILD = {"message": "Unknown Guild", "code": 10004}
UNKNOWN_COMMAND = {"message": "Unknown application command", "code": 10063}


@pytest.mark.parametrize(("method", "path", "expected"), [
    ("GET", "/applications/999999999999999999/commands", UNKNOWN_APP),
    ("POST", f"/applications/999999999999999999/guilds/{GUILD}/commands", UNKNOWN_APP),
    ("GET", f"/applications/{APP}/guilds/999999999999999999/commands", UNKNOWN_GUILD),
    ("PUT", f"/applications/{APP}/guilds/999999999999999999/commands", UNKNOWN_GUILD),
    ("GET", f"{GLOBAL}/999999999999999999", UNKNOWN_COMMAND),
    ("PATCH", f"{GUILD_COMMANDS}/999999999999999999", UNKNOWN_COMMAND),
    ("DELETE", f"{GUILD_COMMANDS}/999999999999999999", UNKNOWN_COMMAND),
])
async def test_unknown_ids_answer_404_with_their_code(api: httpx.AsyncClient, method: str,
                                                      path: str, expected: Any) -> None:
    body = [] if method == "PUT" else {"description": "x"} if method != "GET" else None
    response = await api.request(method, path, json=body)
    assert (response.status_code, response.json()) == (404, expected)


async def test_a_guild_command_is_unknown_in_another_scope(api: httpx.AsyncClient) -> None:
    created = (await api.post(GUILD_COMMANDS, json=chat())).json()
    response = await api.get(f"{GLOBAL}/{created['id']}")
    assert (response.status_code, response.json()) == (404, UNKNOWN_COMMAND)
