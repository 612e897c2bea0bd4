"""Property tests (hypothesis) over real HTTP: random and malformed requests at
every endpoint never get a 5xx, a refused request changes nothing, and the
state stays consistent; identical rewrites never change ``version``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cmdsync.emulator import Emulator
from cmdsync.model import MAX_COMMANDS_PER_TYPE
from tests.support.emulator import (
    APP,
    BOT,
    GUILD,
    USER,
    emulator,
    http_client,
    http_server,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
A = f"/applications/{APP}"
G = f"{A}/guilds/{GUILD}"
KEYS = ["type", "name", "description", "options", "choices", "required", "value",
        "name_localizations", "description_localizations", "default_member_permissions",
        "dm_permission", "contexts", "integration_types", "nsfw", "handler", "id",
        "channel_types", "min_value", "max_value", "min_length", "max_length",
        "autocomplete", "permissions", "permission"]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    instance = emulator()
    with http_server(instance) as base_url:
        yield instance, base_url


@pytest.fixture(scope="module")
def clients(served: tuple[Emulator, str]) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    with http_client(f"{served[1]}/api/v10") as api, http_client(
            f"{served[1]}/_emulator") as admin:
        yield api, admin


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_", min_size=1, max_size=12)
descriptions = st.text(alphabet="abcdefgh ijkl", min_size=1, max_size=30).filter(str.strip)


@st.composite
def valid_commands(draw: st.DrawFn) -> dict[str, Any]:
    option_names = draw(st.lists(names, max_size=4, unique=True))
    required = draw(st.integers(0, len(option_names)))
    options = []
    for index, name in enumerate(option_names):
        kind = draw(st.sampled_from([3, 4, 5, 6, 10]))
        item: dict[str, Any] = {"type": kind, "name": name, "description": draw(descriptions)}
        if index < required:
            item["required"] = True
        if kind in (3, 4) and draw(st.booleans()):
            item["choices"] = [{"name": "one", "value": "1" if kind == 3 else 1}]
        options.append(item)
    command: dict[str, Any] = {"name": draw(names), "description": draw(descriptions)}
    if options:
        command["options"] = options
    if draw(st.booleans()):
        command["contexts"] = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=1,
                                            unique=True))
    if draw(st.booleans()):
        command["name_localizations"] = {"fr": draw(names)}
    return command


scalars = (st.none() | st.booleans() | st.integers(-2**60, 2**60)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.sampled_from(["", "ping", "Ping Pong", "x" * 40, "123456789012345678", "fr",
                              "chat_input", "8", "-1", "ë", "\u0000"]) | st.text(max_size=8))
json_values = st.recursive(scalars, lambda children: st.lists(children, max_size=4)
                           | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4),
                                             children, max_size=5), max_leaves=25)
option_like = st.fixed_dictionaries({"type": st.integers(1, 11), "name": st.sampled_from(
    ["a", "b", "B", "a b"]), "description": st.sampled_from(["d", ""])},
    optional={k: json_values for k in ("required", "choices", "options", "channel_types",
                                        "min_value", "max_length", "autocomplete")})
command_like = st.fixed_dictionaries(
    {"name": st.sampled_from(["ping", "pong", "Ping", "Menu item", "launch", "x" * 33])},
    optional={"type": st.sampled_from([1, 2, 3, 4, 9, "chat_input"]),
              "description": st.sampled_from(["Ping it", "", "d" * 101]),
              "options": st.lists(option_like, max_size=3),
              "id": st.sampled_from(["123456789012345678", "abc"]),
              "contexts": json_values, "integration_types": json_values,
              "default_member_permissions": json_values, "nsfw": json_values,
              "handler": json_values, "name_localizations": json_values})
overwrite_like = st.fixed_dictionaries({}, optional={
    "id": st.sampled_from([GUILD, "1", "x", 5]), "type": json_values,
    "permission": json_values})
bodies = (json_values | command_like | st.lists(command_like, max_size=4) | valid_commands()
          | st.lists(valid_commands(), max_size=3)
          | st.fixed_dictionaries({"permissions": st.lists(overwrite_like, max_size=3)
                                   | json_values}))
raw_bodies = st.binary(max_size=40) | st.sampled_from([b"{", b"NaN", b"[" * 80 + b"]" * 80])
command_ids = st.sampled_from(["{known}", "{known}", "999999999999999999", APP, "x", "-1"])
ENDPOINTS = [("GET", f"{A}/commands"), ("POST", f"{A}/commands"), ("PUT", f"{A}/commands"),
             ("GET", f"{A}/commands/{{id}}"), ("PATCH", f"{A}/commands/{{id}}"),
             ("DELETE", f"{A}/commands/{{id}}"), ("GET", f"{G}/commands"),
             ("POST", f"{G}/commands"), ("PUT", f"{G}/commands"),
             ("GET", f"{G}/commands/permissions"), ("GET", f"{G}/commands/{{id}}"),
             ("PATCH", f"{G}/commands/{{id}}"), ("DELETE", f"{G}/commands/{{id}}"),
             ("GET", f"{G}/commands/{{id}}/permissions"),
             ("PUT", f"{G}/commands/{{id}}/permissions"), ("POST", "/oauth2/token")]
endpoints = st.one_of(*[st.sampled_from(ENDPOINTS)] * 4, st.tuples(
    st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    st.sampled_from([path for _, path in ENDPOINTS] + [
        f"/applications/1/guilds/{GUILD}/commands", f"{A}/guilds/1/commands", "/nope"])))
requests = st.tuples(endpoints, command_ids, st.sampled_from([BOT, BOT, USER, {}]),
                     bodies.map(lambda b: json.dumps(b).encode()) | raw_bodies)


def known_ids(admin: httpx.Client) -> list[str]:
    return [c["id"] for c in admin.get("/state").json()["commands"]]


def check_consistent(api: httpx.Client, admin: httpx.Client) -> None:
    """Ids and names unique, caps kept, every command accepted again unchanged,
    every overwrite on an existing command (or the application-wide entry)."""
    state = admin.get("/state").json()
    ids = [c["id"] for c in state["commands"]]
    assert len(ids) == len(set(ids))
    for path, scope in ((f"{A}/commands", None), (f"{G}/commands", GUILD)):
        listed = api.get(path, headers=BOT, params={"with_localizations": "true"}).json()
        mine = [c for c in state["commands"] if c["guild_id"] == scope]
        assert [c["id"] for c in listed] == [c["id"] for c in mine]
        keys = [(c["type"], c["name"]) for c in listed]
        assert len(keys) == len(set(keys))
        for kind, cap in MAX_COMMANDS_PER_TYPE.items():
            assert sum(1 for c in listed if c["type"] == kind) <= cap
        again = api.put(path, headers=BOT, json=[
            {k: v for k, v in c.items() if k not in ("application_id", "version", "guild_id")}
            for c in listed])
        assert again.status_code == 200, again.text
        assert [c["version"] for c in again.json()] == [c["version"] for c in listed]
    targets = set(ids) | {APP}
    assert all(p["id"] in targets for p in state["permissions"])


@SETTINGS
@given(st.lists(requests, min_size=1, max_size=8))
def test_random_requests_never_break_the_server(
        clients: tuple[httpx.Client, httpx.Client],
        calls: list[tuple[tuple[str, str], str, dict[str, str], bytes]]) -> None:
    api, admin = clients
    admin.post("/reset")
    api.put(f"{G}/commands", headers=BOT, json=[{"name": "seeded", "description": "d"}])
    for (method, path), command_id, headers, body in calls:
        ids = known_ids(admin) or ["1"]
        url = path.replace("{id}", command_id.replace("{known}", ids[-1]))
        before = admin.get("/state").json()
        response = api.request(method, url, headers=headers, content=body)
        assert response.status_code < 500, (method, url, body, response.text)
        if response.status_code >= 400:
            assert admin.get("/state").json() == before, (method, url, body)
            body_keys = set(response.json())
            assert "message" in body_keys or (body_keys >= {"error"} and "oauth2" in url)
    check_consistent(api, admin)


def with_defaults(command: dict[str, Any]) -> dict[str, Any]:
    """The same command, spelled with every default written out."""
    same = {**command, "nsfw": False, "dm_permission": True, "type": 1,
            "default_member_permissions": None, "description_localizations": {},
            "options": [{**o, "required": o.get("required", False), "name_localizations": None}
                        for o in command.get("options", [])]}
    if "contexts" in same:
        same["contexts"] = list(reversed(same["contexts"]))
    same.setdefault("name_localizations", {})
    return same


@SETTINGS
@given(valid_commands())
def test_identical_rewrites_keep_the_version(clients: tuple[httpx.Client, httpx.Client],
                                             command: dict[str, Any]) -> None:
    api, admin = clients
    admin.post("/reset")
    created = api.post(f"{A}/commands", headers=BOT, json=command)
    assert created.status_code == 201, created.text
    for rewrite in (api.post(f"{A}/commands", headers=BOT, json=with_defaults(command)),
                    api.put(f"{A}/commands", headers=BOT, json=[with_defaults(command)]),
                    api.patch(f"{A}/commands/{created.json()['id']}", headers=BOT,
                              json=with_defaults(command))):
        assert rewrite.status_code == 200, rewrite.text
        body = rewrite.json()
        assert (body[0] if isinstance(body, list) else body) == created.json()
