"""Concurrent writers to one scope, over real HTTP (threads) and in-process
(asyncio tasks): the state always equals one of the writes, never a mix; with
20 clients at once, ids and versions stay consistent too."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from cmdsync.emulator import FaultConfig, Limits
from tests.support.emulator import (
    BOT,
    GUILD,
    GUILD_COMMANDS,
    asgi_client,
    chat,
    emulator,
    http_client,
    http_server,
)

WRITERS = 8
MANY_CREATES = Limits(daily_creates=100_000)  # rounds of new commands add up


def write_set(writer: int) -> list[dict[str, Any]]:
    """Writer ``writer``'s whole scope: its own names, count and descriptions."""
    return [chat(f"w{writer}-c{i}", f"Written by {writer}") for i in range(3 + writer)]


def summary(commands: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["name"], c["description"]) for c in commands]


WRITES = [summary(write_set(w)) for w in range(WRITERS)]


def test_concurrent_bulk_overwrites_over_http() -> None:
    instance = emulator(limits=MANY_CREATES)
    instance.faults.configure(FaultConfig(latency=0.005))  # more overlap between requests
    with http_server(instance) as base_url, ThreadPoolExecutor(WRITERS) as pool:
        def write(writer: int) -> list[tuple[str, str]]:
            with http_client(f"{base_url}/api/v10", headers=BOT) as api:
                response = api.put(GUILD_COMMANDS, json=write_set(writer))
                assert response.status_code == 200
                return summary(response.json())

        for _ in range(5):
            answers = list(pool.map(write, range(WRITERS)))
            assert answers == WRITES  # each writer got back exactly what it wrote
            with http_client(f"{base_url}/api/v10", headers=BOT) as api:
                final = api.get(GUILD_COMMANDS).json()
            assert summary(final) in WRITES
            assert len({c["id"] for c in final}) == len(final)


def test_concurrent_creates_of_one_name_make_one_command() -> None:
    with http_server(emulator()) as base_url, ThreadPoolExecutor(WRITERS) as pool:
        def create(writer: int) -> tuple[int, str]:
            with http_client(f"{base_url}/api/v10", headers=BOT) as api:
                response = api.post(GUILD_COMMANDS, json=chat("same", f"By {writer}"))
                return response.status_code, response.json()["id"]

        results = list(pool.map(create, range(WRITERS)))
        with http_client(f"{base_url}/api/v10", headers=BOT) as api:
            final = api.get(GUILD_COMMANDS).json()
    assert sorted(status for status, _ in results) == [200] * (WRITERS - 1) + [201]
    assert {command_id for _, command_id in results} == {final[0]["id"]}
    assert len(final) == 1 and final[0]["description"] in {f"By {w}" for w in range(WRITERS)}


@pytest.mark.anyio
async def test_concurrent_writers_in_process() -> None:
    instance = emulator(limits=MANY_CREATES)
    async with asgi_client(instance) as api:
        async def write(writer: int) -> httpx.Response:
            if writer % 3 == 2:  # mix in creates and deletes of single commands
                made = await api.post(GUILD_COMMANDS, json=chat("solo"), headers=BOT)
                await api.delete(f"{GUILD_COMMANDS}/{made.json()['id']}", headers=BOT)
            return await api.put(GUILD_COMMANDS, json=write_set(writer), headers=BOT)

        for _ in range(5):
            responses = await asyncio.gather(*(write(w) for w in range(WRITERS)))
            assert {r.status_code for r in responses} == {200}
            final = (await api.get(GUILD_COMMANDS, headers=BOT)).json()
            assert summary(final) in WRITES or summary(final) in [
                w + [("solo", "Check the bot is alive")] for w in WRITES]


CLIENTS = 20
SHARED = [chat(f"shared-{i}", "Kept by everyone") for i in range(3)]


def client_set(client: int) -> list[dict[str, Any]]:
    """Client ``client``'s whole scope: three commands every client keeps (same names
    and bodies), then its own, in a number and with descriptions no other has."""
    own = [chat(f"c{client}-{i}", f"Written by client {client}") for i in range(1 + client % 4)]
    return SHARED + own


def test_twenty_concurrent_clients_bulk_overwriting_one_scope(
        record_property: Any) -> None:
    """20 clients over HTTP, each with its own connection, PUT their own list to one
    guild at once, 5 rounds: every answer is exactly what its client wrote; the scope
    then equals one client's write, never a mix, and matches the winning answer id
    for id and version; the commands every client keeps keep their ids; every id
    was created once (the emulator's create count), and no command is left behind."""
    instance = emulator(limits=MANY_CREATES)
    instance.faults.configure(FaultConfig(latency=0.002))
    writes = [summary(client_set(c)) for c in range(CLIENTS)]
    seen: set[str] = set()
    shared_ids: set[tuple[str, str]] = set()
    with http_server(instance) as base_url, ThreadPoolExecutor(CLIENTS) as pool:
        def write(client: int) -> list[dict[str, Any]]:
            with http_client(f"{base_url}/api/v10", headers=BOT) as api:
                response = api.put(GUILD_COMMANDS, json=client_set(client))
                assert response.status_code == 200, response.text
                return list(response.json())

        for _ in range(5):
            answers = list(pool.map(write, range(CLIENTS)))
            assert [summary(a) for a in answers] == writes
            with http_client(f"{base_url}/api/v10", headers=BOT) as api:
                final = api.get(GUILD_COMMANDS).json()
            winners = [a for a in answers if summary(a) == summary(final)]
            assert len(winners) == 1  # one client's write, whole
            assert [(c["id"], c["version"]) for c in final] == [
                (c["id"], c["version"]) for c in winners[0]]
            for answer in answers:
                ids = [c["id"] for c in answer]
                assert len(set(ids)) == len(ids)
                assert all(c["id"].isdigit() and int(c["version"]) >= int(c["id"])
                           for c in answer)
                seen.update(ids)
                shared_ids.update((c["name"], c["id"]) for c in answer
                                  if c["name"].startswith("shared-"))
        stored = [c for c in instance.store.dump()["commands"] if c["guild_id"] == GUILD]
    assert sorted((c["id"], c["version"], c["name"]) for c in stored) == sorted(
        (c["id"], c["version"], c["name"]) for c in final)  # nothing left behind
    assert len(shared_ids) == len(SHARED)  # one id each, through every round
    assert instance.log.counts()["creates"] == len(seen)  # each id created exactly once
    record_property("bulk_overwrites", CLIENTS * 5)
