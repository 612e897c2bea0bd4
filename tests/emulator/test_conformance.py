"""Conformance over real HTTP: every endpoint's success and error responses
against the schemas of Discord's OpenAPI document, and real Discord responses
(shared/corpus/live_responses) reproduced field for field.

Two documented departures from openapi.json, where Discord's documentation (observed
answers) wins: the leaves of a 50035 carry string codes
(``BASE_TYPE_REQUIRED``), where the document's ``Error.code`` is an integer;
and a rate limit's 429 body is ``{"message", "retry_after", "global"}``
without ``code``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from cmdsync.emulator import Emulator, RateLimitConfig
from cmdsync.emulator.seed import default_seed
from tests.support import paths
from tests.support.emulator import (
    APP,
    BOT,
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

OPENAPI = paths.OPENAPI  # shipped in tests/data (MIT, see SOURCE.md beside it)
LIVE = paths.CORPUS / "live_responses"  # given by CMDSYNC_TEST_SHARED, else skipped
NO_CORPUS = pytest.mark.skipif(not LIVE.is_dir(), reason=(
    f"real Discord responses not found at {LIVE}: {paths.NO_CORPUS}"))
RESPONSE_ONLY = ("id", "application_id", "version", "guild_id")
HEADER_TYPES = {"integer": int, "number": float, "string": str}


@cache
def openapi() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    schemas["InnerErrors"]["properties"]["_errors"]["items"] = {
        "type": "object", "required": ["code", "message"], "additionalProperties": False,
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}
    limited = schemas["RatelimitedResponse"]
    limited["allOf"][0] = {"type": "object", "required": ["message"],
                           "properties": {"code": {"type": "integer"},
                                          "message": {"type": "string"}}}
    return document


def response_spec(method: str, template: str, status: int) -> dict[str, Any]:
    """The OpenAPI response object for this operation and status (or its 4XX)."""
    document = openapi()
    responses = document["paths"][template][method.lower()]["responses"]
    spec = responses.get(str(status)) or responses[f"{str(status)[0]}XX"]
    while "$ref" in spec:
        spec = document["components"]["responses"][spec["$ref"].rsplit("/", 1)[1]]
    return copy.deepcopy(spec)


def check(response: httpx.Response, method: str, template: str) -> None:
    """The body (and rate-limit headers) of ``response`` match the OpenAPI."""
    spec = response_spec(method, template, response.status_code)
    content = spec.get("content", {}).get("application/json")
    if content is None:
        assert response.content == b"", (template, response.status_code)
    else:
        schema = {**content["schema"], "components": openapi()["components"]}
        errors = sorted(Draft202012Validator(schema).iter_errors(response.json()),
                        key=lambda e: list(e.absolute_path))
        assert not errors, (method, template, response.status_code, response.json(),
                            [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]])
    for name in spec.get("headers", {}):
        kind = openapi()["components"]["headers"][name.split("/")[-1]]["schema"]["type"]
        if name in response.headers:
            HEADER_TYPES[kind](response.headers[name])


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    seed = default_seed()  # user-installable, as the apps of some live responses are
    seed["applications"][0]["integration_types"] = ["guild_install", "user_install"]
    instance = emulator(seed=seed, ratelimit=RateLimitConfig(global_limit=0, route_limit=1000))
    with http_server(instance) as base_url:
        yield instance, base_url


@pytest.fixture(autouse=True)
def reset(served: tuple[Emulator, str]) -> None:
    with http_client(served[1]) as admin:
        admin.post("/_emulator/reset")


A = "/applications/{application_id}"
G = A + "/guilds/{guild_id}"
RICH = chat("rich", options=[
    option("text", 3, required=True, min_length=1, max_length=20,
           choices=[{"name": "A", "value": "a", "name_localizations": {"fr": "Ah"}}]),
    option("count", 4, min_value=0, max_value=10, autocomplete=True),
    option("ratio", 10, choices=[{"name": "Half", "value": 0.5}]),
    option("room", 7, channel_types=[0]), option("who", 6), option("role", 8),
    option("any", 9), option("flag", 5), option("file", 11)],
    name_localizations={"fr": "riche"}, contexts=[0, 1], default_member_permissions="8")
GROUPED = chat("admin", options=[option("users", 2, options=[
    option("add", 1, options=[option("who", 6, required=True)])]), option("reset", 1)])


def test_every_endpoint_success_and_errors_match_the_openapi(http_api: httpx.Client) -> None:
    made = http_api.post(GLOBAL, json=RICH)
    check(made, "POST", A + "/commands")
    one = f"{GLOBAL}/{made.json()['id']}"
    check(http_api.post(GLOBAL, json=RICH), "POST", A + "/commands")
    for response in (http_api.get(GLOBAL), http_api.get(GLOBAL, params={"with_localizations": "true"}),
                     http_api.get(GLOBAL, headers={"X-Discord-Locale": "fr"})):
        check(response, "GET", A + "/commands")
    check(http_api.put(GLOBAL, json=[RICH, GROUPED, {"type": 2, "name": "Hug"},
                                {"type": 3, "name": "Quote"}]), "PUT", A + "/commands")
    check(http_api.get(one), "GET", A + "/commands/{command_id}")
    check(http_api.patch(one, json={"nsfw": True}), "PATCH", A + "/commands/{command_id}")
    guild = http_api.post(GUILD_COMMANDS, json=GROUPED)
    check(guild, "POST", G + "/commands")
    mine = f"{GUILD_COMMANDS}/{guild.json()['id']}"
    check(http_api.get(GUILD_COMMANDS), "GET", G + "/commands")
    check(http_api.put(GUILD_COMMANDS, json=[GROUPED, RICH]), "PUT", G + "/commands")
    check(http_api.get(mine), "GET", G + "/commands/{command_id}")
    check(http_api.patch(mine, json={"description": "New"}), "PATCH", G + "/commands/{command_id}")
    permissions = f"{mine}/permissions"
    body = {"permissions": [{"id": GUILD, "type": 1, "permission": True},
                            {"id": str(int(GUILD) - 1), "type": 3, "permission": False}]}
    check(http_api.put(permissions, headers=USER, json=body), "PUT",
          G + "/commands/{command_id}/permissions")
    check(http_api.get(permissions), "GET", G + "/commands/{command_id}/permissions")
    check(http_api.get(f"{GUILD_COMMANDS}/permissions"), "GET", G + "/commands/permissions")
    check(http_api.delete(mine), "DELETE", G + "/commands/{command_id}")
    check(http_api.delete(one), "DELETE", A + "/commands/{command_id}")


def test_bot_routes_match_the_openapi(http_api: httpx.Client) -> None:
    """What a bot reads and sends beside the interaction (issue 23, part 3)."""
    channel, member = "222222222222222223", "333333333333333334"
    check_exact(http_api.get(f"/users/{member}"), "GET", "/users/{user_id}")
    check_exact(http_api.get(f"/users/{APP}"), "GET", "/users/{user_id}")
    check_exact(http_api.get(f"/guilds/{GUILD}/members/{member}"), "GET",
                "/guilds/{guild_id}/members/{user_id}")
    check_exact(http_api.get(f"/guilds/{GUILD}/channels"), "GET", "/guilds/{guild_id}/channels")
    check_exact(http_api.get(f"/guilds/{GUILD}/roles"), "GET", "/guilds/{guild_id}/roles")
    for channel_id in (channel, "222222222222222224"):
        check_exact(http_api.get(f"/channels/{channel_id}"), "GET", "/channels/{channel_id}")
    check_exact(http_api.get(f"/guilds/{GUILD}", params={"with_counts": "true"}), "GET",
                "/guilds/{guild_id}")
    dm = http_api.post("/users/@me/channels", json={"recipient_id": member})
    check_exact(dm, "POST", "/users/@me/channels")
    # check, not check_exact: declared_keys reads a oneOf as its first (guild) channel
    check(http_api.get(f"/channels/{dm.json()['id']}"), "GET", "/channels/{channel_id}")
    messages = f"/channels/{channel}/messages"
    template = "/channels/{channel_id}/messages"
    sent = http_api.post(messages, json={
        "content": f"<@{member}> look", "embeds": [{"title": "t", "fields": [
            {"name": "n", "value": "v"}]}], "nonce": "1", "allowed_mentions": {"parse": ["users"]},
        "message_reference": {"message_id": "222222222222222226"}})
    check_exact(sent, "POST", template)
    with_file = http_api.post(messages, data={"payload_json": '{"content": "f"}'},
                              files={"files[0]": ("a.txt", b"abc", "text/plain")})
    check_exact(with_file, "POST", template)
    one = f"{messages}/{sent.json()['id']}"
    check_exact(http_api.get(one), "GET", template + "/{message_id}")
    check_exact(http_api.patch(one, json={"content": "new"}), "PATCH", template + "/{message_id}")
    check_exact(http_api.get(messages), "GET", template)
    check(http_api.delete(one), "DELETE", template + "/{message_id}")
    for path, route in (("/users/1", "/users/{user_id}"),
                        (f"/guilds/{GUILD}/members/1", "/guilds/{guild_id}/members/{user_id}"),
                        ("/channels/1", "/channels/{channel_id}"), (one, template + "/{message_id}")):
        missing = http_api.get(path)
        assert missing.status_code == 404, path
        check(missing, "GET", route)
    refused = http_api.post(messages, json={"content": "x" * 2001})
    assert refused.status_code == 400
    check(refused, "POST", template)


def declared_keys(value: Any, schema: dict[str, Any]) -> list[str]:
    """Keys of ``value`` (at any depth) that ``schema`` does not declare: invented fields."""
    while "$ref" in schema or "oneOf" in schema:
        if "$ref" in schema:
            schema = openapi()["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        else:
            schema = next((s for s in schema["oneOf"] if s.get("type") != "null"), {})
    found = []
    if isinstance(value, dict) and "properties" in schema:
        for key, item in value.items():
            if key not in schema["properties"]:
                found.append(key)
            else:
                found += [f"{key}.{k}" for k in declared_keys(item, schema["properties"][key])]
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, item in value.items():
            found += [f"{key}.{k}" for k in declared_keys(item, schema["additionalProperties"])]
    return found


# Keys Discord sends that its OpenAPI document leaves out: the application object's
# deprecated "summary", an empty string until API v11 (Discord's "Application Object",
# until discord-api-docs #7114 stopped listing it; interactions.py requires it).
UNDECLARED = {"summary"}


def check_exact(response: httpx.Response, method: str, template: str) -> None:
    """:func:`check`, and every key of the body is one the schema declares (or one of
    :data:`UNDECLARED`)."""
    check(response, method, template)
    spec = response_spec(method, template, response.status_code)
    schema = spec["content"]["application/json"]["schema"]
    assert [key for key in declared_keys(response.json(), schema)
            if key.rsplit(".", 1)[-1] not in UNDECLARED] == [], (template, response.json())


def bearer(http_api: httpx.Client, scope: str) -> dict[str, str]:
    """A client-credentials Bearer token of the default application with ``scope``."""
    granted = http_api.post("/oauth2/token", auth=(APP, "emulator-secret"),
                       data={"grant_type": "client_credentials", "scope": scope})
    return {"Authorization": f"Bearer {granted.json()['access_token']}"}


def test_identity_endpoints_match_the_openapi(http_api: httpx.Client) -> None:
    check_exact(http_api.get("/users/@me"), "GET", "/users/@me")
    check_exact(http_api.get("/users/@me", headers=bearer(http_api, "identify")), "GET", "/users/@me")
    for path, template in (("/applications/@me", "/applications/@me"),
                           (f"/applications/{APP}", A),
                           ("/oauth2/applications/@me", "/oauth2/applications/@me")):
        check_exact(http_api.get(path), "GET", template)
    check_exact(http_api.get("/oauth2/@me", headers=bearer(http_api, "identify applications.commands.update")),
                "GET", "/oauth2/@me")
    for headers in ({}, bearer(http_api, "guilds")):
        mine = http_api.get("/users/@me/guilds", headers=headers, params={"with_counts": "true"})
        assert [g["id"] for g in mine.json()] == [GUILD]
        check_exact(mine, "GET", "/users/@me/guilds")
    check_exact(http_api.patch("/applications/@me", json={
        "flags": 1 << 17, "description": {"default": "ignored"},
        "integration_types_config": {
            "0": {"oauth2_install_params": {"scopes": ["applications.commands", "bot"],
                                            "permissions": 2048}},
            "1": None}}), "PATCH", "/applications/@me")
    check_exact(http_api.patch(f"/applications/{APP}", json={
        "flags": 0, "integration_types_config": {"0": {}}}), "PATCH", A)


ERRORS = [  # (method, path, template, headers, body, status)
    ("GET", "/users/@me", "/users/@me", {}, None, 401),
    ("GET", "/users/@me", "/users/@me", USER, None, 401),  # a Bearer token without identify
    ("GET", "/applications/@me", "/applications/@me", USER, None, 403),
    ("PATCH", "/applications/@me", "/applications/@me", USER, {"flags": 0}, 403),
    ("PATCH", "/applications/@me", "/applications/@me", BOT, {"flags": "embedded"}, 400),
    ("PATCH", "/applications/@me", "/applications/@me", BOT,
     {"integration_types_config": {}}, 400),
    ("PATCH", "/applications/@me", "/applications/@me", BOT, [], 400),
    ("GET", "/applications/1", A, BOT, None, 404),
    ("GET", "/applications/x", A, BOT, None, 400),
    ("PATCH", f"/applications/{APP}", A, BOT, {"integration_types_config": {"2": {}}}, 400),
    ("GET", "/oauth2/applications/@me", "/oauth2/applications/@me", {}, None, 401),
    ("GET", "/oauth2/@me", "/oauth2/@me", BOT, None, 401),
    ("POST", GLOBAL, A + "/commands", BOT, chat("Bad Name", options=[{"type": 3}]), 400),
    ("POST", GLOBAL, A + "/commands", {}, chat(), 401),
    ("POST", GLOBAL, A + "/commands", {"Authorization": "Bot activity"}, chat(), 401),
    ("GET", f"/applications/{APP}/guilds/1/commands", G + "/commands", BOT, None, 404),
    ("GET", "/applications/1/commands", A + "/commands", BOT, None, 404),
    ("PUT", GLOBAL, A + "/commands", BOT, [chat(), chat()], 400),
    ("PUT", GUILD_COMMANDS, G + "/commands", USER, [], 401),
    ("GET", f"{GLOBAL}/1", A + "/commands/{command_id}", BOT, None, 404),
    ("PATCH", f"{GLOBAL}/1", A + "/commands/{command_id}", BOT, {}, 404),
    ("DELETE", f"{GLOBAL}/x", A + "/commands/{command_id}", BOT, None, 400),
    ("POST", GUILD_COMMANDS, G + "/commands", BOT, {"name": "x" * 40}, 400),
    ("GET", f"{GUILD_COMMANDS}/1", G + "/commands/{command_id}", BOT, None, 404),
    ("PATCH", f"{GUILD_COMMANDS}/1", G + "/commands/{command_id}", BOT, [], 404),
    ("DELETE", f"{GUILD_COMMANDS}/1", G + "/commands/{command_id}", {}, None, 401),
    ("GET", f"{GUILD_COMMANDS}/permissions", G + "/commands/permissions", {}, None, 401),
    ("GET", f"{GUILD_COMMANDS}/{APP}/permissions", G + "/commands/{command_id}/permissions",
     BOT, None, 404),
    ("PUT", f"{GUILD_COMMANDS}/{APP}/permissions", G + "/commands/{command_id}/permissions",
     BOT, {"permissions": []}, 403),
    ("PUT", f"{GUILD_COMMANDS}/{APP}/permissions", G + "/commands/{command_id}/permissions",
     USER, {"permissions": [{"id": "x", "type": 9}]}, 400),
    ("POST", GLOBAL, A + "/commands", BOT, b"{oops", 400),
]


@pytest.mark.parametrize(("method", "path", "template", "headers", "body", "status"), ERRORS)
def test_error_responses_match_the_openapi(http_api: httpx.Client, method: str, path: str,
                                           template: str, headers: dict[str, str], body: Any,
                                           status: int) -> None:
    raw = body if isinstance(body, bytes) else None
    response = http_api.request(method, path, headers={"Authorization": "", **headers},
                           json=None if raw else body, content=raw)
    assert response.status_code == status, response.text
    check(response, method, template)


def test_429_responses_match_the_openapi(http_api: httpx.Client,
                                         served: tuple[Emulator, str]) -> None:
    with http_client(served[1]) as admin:
        admin.put("/_emulator/config", json={"ratelimit": {"global_limit": 1}})
        try:
            assert http_api.get(GLOBAL).status_code == 200
            for method, path, template in (("GET", GLOBAL, A + "/commands"),
                                           ("POST", GUILD_COMMANDS, G + "/commands")):
                response = http_api.request(method, path, json=chat())
                assert response.status_code == 429
                check(response, method, template)
        finally:
            admin.put("/_emulator/config", json={"ratelimit": {"global_limit": 0}})


def live_files() -> list[Path]:
    return sorted(p for p in LIVE.glob("*.json") if "localized_get_example" not in p.name)


def live_commands(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    commands: list[dict[str, Any]] = (data if isinstance(data, list)
                                      else [c for scope in data.values() for c in scope])
    return commands


@NO_CORPUS
@pytest.mark.parametrize("path", live_files() or [None], ids=lambda p: getattr(p, "name", "none"))
def test_real_discord_responses_come_back_field_for_field(http_api: httpx.Client,
                                                          path: Path) -> None:
    assert path is not None
    live = live_commands(path)
    sent = [{k: v for k, v in c.items() if k not in RESPONSE_ONLY} for c in live]
    response = http_api.put(GLOBAL, json=sent)
    assert response.status_code == 200, response.text
    listed = http_api.get(GLOBAL, params={"with_localizations": "true"}).json()
    for got, real in zip(listed, live, strict=True):
        assert {k: v for k, v in got.items() if k not in RESPONSE_ONLY} == {
            k: v for k, v in real.items() if k not in RESPONSE_ONLY}
        assert list(got) == list(real)  # Discord's key order too


@pytest.mark.corpus
@NO_CORPUS
def test_the_documented_localized_list_comes_back(http_api: httpx.Client) -> None:
    example = json.loads((LIVE / "discord__discord-api-docs__localized_get_example.json")
                         .read_text(encoding="utf-8"))[0]
    option_ = example["options"][0]
    http_api.post(GLOBAL, json={
        "name": example["name"], "description": example["description"],
        "name_localizations": {"zh-CN": example["name_localized"]},
        "description_localizations": {"zh-CN": example["description_localized"]},
        "options": [{"type": option_["type"], "name": option_["name"],
                     "description": option_["description"],
                     "name_localizations": {"zh-CN": option_["name_localized"]},
                     "description_localizations": {"zh-CN": option_["description_localized"]}}]})
    got = http_api.get(GLOBAL, headers={"X-Discord-Locale": "zh-CN"}).json()[0]
    assert {k: got[k] for k in example if k != "options"} == {
        k: v for k, v in example.items() if k != "options"}
    assert {k: got["options"][0][k] for k in option_} == option_
