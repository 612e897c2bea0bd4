"""The emulator over real HTTP: uvicorn on 127.0.0.1 and a free port, started
and stopped by a fixture. Every endpoint, the admin API and fault injection."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.reference.log import LogEntry, RequestLog
from tests.support.emulator import (
    APP,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    USER,
    chat,
    emulator,
    http_client,
    http_server,
    option,
)

YAML = {"Content-Type": "application/yaml"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    instance = emulator()
    with http_server(instance) as base_url:
        yield instance, base_url


@pytest.fixture
def admin(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    """A client on ``/_emulator``, after a reset with rate limits and faults off."""
    with http_client(f"{served[1]}/_emulator") as client:
        assert client.post("/reset").status_code == 204
        client.put("/config", json={
            "ratelimit": {"global_limit": 0, "route_limit": 0},
            "faults": {"latency": 0, "error_rate": 0, "drop_rate": 0},
            "limits": {"daily_creates": 200}})
        yield client


def test_every_endpoint_over_http(admin: httpx.Client, http_api: httpx.Client) -> None:
    assert http_api.get(GLOBAL).json() == []
    made = http_api.post(GLOBAL, json=chat(options=[option("who")]))
    assert made.status_code == 201
    one = made.json()["id"]
    assert http_api.get(f"{GLOBAL}/{one}").json() == made.json()
    assert http_api.patch(f"{GLOBAL}/{one}", json={"description": "New"}).json()["description"] == "New"
    assert http_api.post(GLOBAL, json=chat(description="Again")).status_code == 200
    assert http_api.delete(f"{GLOBAL}/{one}").status_code == 204
    bulk = http_api.put(GLOBAL, json=[chat("a"), {"type": 3, "name": "Quote"}])
    assert [c["name"] for c in bulk.json()] == ["a", "Quote"]
    guild = http_api.put(GUILD_COMMANDS, json=[chat("g")]).json()[0]
    assert http_api.post(GUILD_COMMANDS, json=chat("h")).status_code == 201
    assert http_api.get(f"{GUILD_COMMANDS}/{guild['id']}").json() == guild
    assert http_api.patch(f"{GUILD_COMMANDS}/{guild['id']}", json={"nsfw": True}).json()["nsfw"]
    permissions = f"{GUILD_COMMANDS}/{guild['id']}/permissions"
    overwrite = {"id": GUILD, "type": 1, "permission": False}
    assert http_api.get(permissions).status_code == 404
    assert http_api.put(permissions, headers=USER, json={"permissions": [overwrite]}).json()[
        "permissions"] == [overwrite]
    assert http_api.get(permissions).json()["permissions"] == [overwrite]
    assert [e["id"] for e in http_api.get(f"{GUILD_COMMANDS}/permissions").json()] == [guild["id"]]
    assert http_api.put(f"{GUILD_COMMANDS}/permissions", json=[]).status_code == 405
    assert http_api.delete(f"{GUILD_COMMANDS}/{guild['id']}").status_code == 204
    assert [c["name"] for c in http_api.get(GUILD_COMMANDS).json()] == ["h"]
    assert http_api.get("/nowhere").json() == {
        "message": "404: Not Found (not emulated by cmdsync: GET /api/v10/nowhere)", "code": 0}
    granted = http_api.post("/oauth2/token", auth=(APP, "emulator-secret"), headers={}, data={
        "grant_type": "client_credentials", "scope": "applications.commands.update"})
    assert granted.json()["token_type"] == "Bearer"


def test_admin_log_counts_reads_writes_and_creates(http_api: httpx.Client, admin: httpx.Client) -> None:
    http_api.put(GLOBAL, json=[chat("a"), chat("b")])
    http_api.put(GLOBAL, json=[chat("a"), chat("b"), chat("c")])
    http_api.get(GLOBAL)
    http_api.get(f"{GLOBAL}/1")
    http_api.post("/oauth2/token", headers={}, data={})
    log = admin.get("/log").json()
    assert log["counts"] == {"requests": 5, "reads": 2, "writes": 2, "tokens": 1, "creates": 3,
                             "rate_limited": 0, "errors": 2}
    assert [(e["route"], e["status"], e["creates"]) for e in log["requests"]][:3] == [
        ("PUT /applications/{application_id}/commands", 200, 2),
        ("PUT /applications/{application_id}/commands", 200, 1),
        ("GET /applications/{application_id}/commands", 200, 0)]
    assert log["requests"][0]["path"] == f"/api/v10{GLOBAL}"
    assert admin.delete("/log").status_code == 204
    assert admin.get("/log").json()["counts"]["requests"] == 0


def test_the_log_keeps_counting_past_its_last_entries() -> None:
    log = RequestLog(keep=2)
    for status in (200, 429, 404):
        log.record(LogEntry("GET", "/x", "GET /x", status, 0.0))
    assert [e.status for e in log.entries()] == [429, 404]
    assert log.counts() == {"requests": 3, "reads": 3, "writes": 0, "tokens": 0, "creates": 0,
                            "rate_limited": 1, "errors": 2}


def test_admin_reset_and_seed(http_api: httpx.Client, admin: httpx.Client) -> None:
    http_api.post(GLOBAL, json=chat())
    seed = """
applications:
  - {id: "777777777777777777", bot_token: seven, client_secret: s, flags: [embedded]}
guilds: [{id: "888888888888888888"}]
"""
    assert admin.post("/seed", content=seed, headers=YAML).status_code == 204
    seven = {"Authorization": "Bot seven"}
    launch = http_api.get("/applications/777777777777777777/commands", headers=seven).json()
    assert [c["name"] for c in launch] == ["Launch"]
    assert [c["name"] for c in http_api.get(GLOBAL).json()] == ["ping"]
    assert admin.post("/reset").status_code == 204
    assert http_api.get(GLOBAL).json() == []
    assert http_api.get(GLOBAL, headers=seven).status_code == 401
    replaced = admin.post("/reset", content=seed, headers=YAML)
    assert replaced.status_code == 204
    assert http_api.get(GLOBAL).status_code == 401
    state = admin.get("/state").json()
    assert [a["id"] for a in state["applications"]] == ["777777777777777777"]
    assert [(c["name"], c["guild_id"]) for c in state["commands"]] == [("Launch", None)]
    for bad in ("[1, 2]", "applications: []", "applications: [{id: 1}]", "{{"):
        refused = admin.post("/reset", content=bad, headers=YAML)
        assert refused.status_code == 400 and refused.json()["code"] == 0
    admin.post("/reset", json={"applications": [{
        "id": APP, "bot_token": "emulator-bot-token", "client_secret": "emulator-secret"}],
        "guilds": [{"id": GUILD}]})
    assert http_api.get(GUILD_COMMANDS).status_code == 200


def test_admin_config(admin: httpx.Client, http_api: httpx.Client) -> None:
    current = admin.get("/config").json()
    assert current["limits"] == {"daily_creates": 200, "daily_creates_status": 400,
                                 "max_body_bytes": 4194304, "interaction_deadline": 3.0,
                                 "interaction_token_lifetime": 900.0,
                                 "verification_deadline": 10.0}
    changed = admin.put("/config", json={
        "ratelimit": {"global_limit": 2}, "limits": {"daily_creates": 1}}).json()
    assert (changed["ratelimit"]["global_limit"], changed["limits"]["daily_creates"]) == (2, 1)
    assert changed["ratelimit"]["route_limit"] == 0
    statuses = [http_api.get(GLOBAL).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    for bad in ({"ratelimit": {"global_limit": -1}}, {"faults": {"error_rate": 2}},
                {"limits": {"daily_creates_status": 418}}, {"nope": {}}, [],
                {"faults": {"error_statuses": [404]}}, {"ratelimit": {"speed": 1}}):
        refused = admin.put("/config", json=bad)
        assert refused.status_code == 400, bad
    assert admin.get("/config").json() == changed


def test_injected_latency(admin: httpx.Client, http_api: httpx.Client) -> None:
    admin.put("/config", json={"faults": {"latency": 0.2}})
    started = time.monotonic()
    assert http_api.get(GLOBAL).status_code == 200
    assert time.monotonic() - started >= 0.2
    started = time.monotonic()
    admin.get("/log")
    assert time.monotonic() - started < 0.2  # never on the admin API


def test_injected_server_errors(admin: httpx.Client, http_api: httpx.Client) -> None:
    admin.put("/config", json={"faults": {"error_rate": 1.0, "seed": 3}})
    responses = [http_api.post(GLOBAL, json=chat()) for _ in range(12)]
    assert {r.status_code for r in responses} == {500, 502}
    assert {tuple(r.json().items()) for r in responses} == {
        (("message", "500: Internal Server Error"), ("code", 0)),
        (("message", "502: Bad Gateway"), ("code", 0))}
    assert admin.get("/state").json()["commands"] == []
    admin.put("/config", json={"faults": {"error_rate": 0.5, "seed": 1}})
    mixed = {http_api.get(GLOBAL).status_code for _ in range(20)}
    assert 200 in mixed and mixed & {500, 502}


def test_injected_dropped_connections(admin: httpx.Client, http_api: httpx.Client) -> None:
    admin.put("/config", json={"faults": {"drop_rate": 1.0}})
    with pytest.raises(httpx.RemoteProtocolError):
        http_api.get(GLOBAL)
    with pytest.raises(httpx.RemoteProtocolError):
        http_api.post("/oauth2/token", data={})
    admin.put("/config", json={"faults": {"drop_rate": 0}})
    assert http_api.get(GLOBAL).status_code == 200  # the server lives on


def test_faults_are_off_by_default() -> None:
    fresh = emulator()
    assert (fresh.faults.config.latency, fresh.faults.config.error_rate,
            fresh.faults.config.drop_rate) == (0, 0, 0)
