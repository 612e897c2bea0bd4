"""Tokens in-process: Bot and Bearer, 401 / 403 answers, scopes, and the
client-credentials exchange with expiring tokens (issue 3 "Auth")."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from tests.support.emulator import (
    APP,
    BOT,
    EMBEDDED_SEED,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    USER,
    FakeClock,
    chat,
)

pytestmark = pytest.mark.anyio
UNAUTHORIZED = {"message": "401: Unauthorized", "code": 0}
NO_SCOPE = {"message": "Unauthorized. Provide a valid token and try again", "code": 40001}
BASIC = "Basic " + base64.b64encode(f"{APP}:emulator-secret".encode()).decode()


@pytest.fixture
def emulator_options(clock: FakeClock) -> dict[str, Any]:
    return {"clock": clock, "seed": EMBEDDED_SEED}


@pytest.fixture
def api_headers() -> dict[str, str]:
    return {}  # each test sends the credentials it is about


async def token(api: httpx.AsyncClient, scope: str = "applications.commands.update",
                **form: str) -> httpx.Response:
    headers = {} if form else {"Authorization": BASIC}
    return await api.post("/oauth2/token", headers=headers,
                          data={"grant_type": "client_credentials", "scope": scope, **form})


@pytest.mark.parametrize("header", [None, "", "Bot", "Bot ", "emulator-bot-token",
                                    "Bot unknown", "Bearer emulator-bot-token",
                                    "Bot emulator-user-token", "Basic abc"])
async def test_missing_malformed_or_unknown_tokens_answer_401(
        api: httpx.AsyncClient, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    for method, path in (("GET", GLOBAL), ("POST", GUILD_COMMANDS), ("DELETE", f"{GLOBAL}/1")):
        response = await api.request(method, path, headers=headers, json=chat())
        assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


async def test_bot_tokens_work_with_any_case_of_the_scheme(api: httpx.AsyncClient) -> None:
    response = await api.get(GLOBAL, headers={"Authorization": "bot emulator-bot-token"})
    assert response.status_code == 200


async def test_another_applications_token_answers_403(api: httpx.AsyncClient) -> None:
    for path, headers in ((GLOBAL, {"Authorization": "Bot activity-bot-token"}),
                          ("/applications/444444444444444444/commands", BOT),
                          ("/applications/444444444444444444/commands", USER)):
        response = await api.post(path, headers=headers, json=chat())
        assert (response.status_code, response.json()) == (403, {
            "message": "You are not authorized to perform this action on this application",
            "code": 20012})


async def test_a_bearer_token_needs_the_endpoints_scope(api: httpx.AsyncClient) -> None:
    for method, path in (("GET", GLOBAL), ("PUT", GUILD_COMMANDS), ("POST", GLOBAL)):
        response = await api.request(method, path, headers=USER, json=[] if method == "PUT"
                                     else chat())
        assert (response.status_code, response.json()) == (401, NO_SCOPE)
    listed = await api.get(f"/applications/{APP}/guilds/{GUILD}/commands/permissions",
                           headers=USER)
    assert (listed.status_code, listed.json()) == (200, [])


async def test_client_credentials_with_http_basic(api: httpx.AsyncClient) -> None:
    response = await token(api)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "scope"}
    assert (body["token_type"], body["expires_in"], body["scope"]) == (
        "Bearer", 604800, "applications.commands.update")
    headers = {"Authorization": f"Bearer {body['access_token']}"}
    created = await api.post(GLOBAL, headers=headers, json=chat())
    assert created.status_code == 201
    assert (await api.get(GLOBAL, headers=headers)).json()[0]["id"] == created.json()["id"]


async def test_client_credentials_in_the_form_body(api: httpx.AsyncClient) -> None:
    response = await token(api, client_id=APP, client_secret="emulator-secret")
    assert response.status_code == 200


async def test_client_credentials_tokens_carry_their_scopes(api: httpx.AsyncClient) -> None:
    identify = (await token(api, "identify")).json()["access_token"]
    response = await api.get(GLOBAL, headers={"Authorization": f"Bearer {identify}"})
    assert (response.status_code, response.json()) == (401, NO_SCOPE)
    both = (await token(api, "applications.commands.update "
                             "applications.commands.permissions.update")).json()
    assert both["scope"] == "applications.commands.permissions.update applications.commands.update"
    command_id = (await api.post(GUILD_COMMANDS, headers=BOT, json=chat())).json()["id"]
    put = await api.put(f"{GUILD_COMMANDS}/{command_id}/permissions",
                        headers={"Authorization": f"Bearer {both['access_token']}"},
                        json={"permissions": []})
    assert (put.status_code, put.json()) == (403, {"message": "Missing Permissions",
                                                   "code": 50013})


async def test_client_credentials_tokens_expire(api: httpx.AsyncClient,
                                                clock: FakeClock) -> None:
    headers = {"Authorization": f"Bearer {(await token(api)).json()['access_token']}"}
    clock.advance(604799)
    assert (await api.get(GLOBAL, headers=headers)).status_code == 200
    clock.advance(1)
    response = await api.get(GLOBAL, headers=headers)
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


@pytest.mark.parametrize(("authorization", "form", "status", "body"), [
    ("Basic " + base64.b64encode(f"{APP}:wrong".encode()).decode(), {}, 401,
     {"error": "invalid_client"}),
    ("Basic !!!", {}, 401, {"error": "invalid_client"}),
    (None, {}, 401, {"error": "invalid_client"}),
    (BASIC, {"grant_type": "password"}, 400, {"error": "unsupported_grant_type"}),
    (BASIC, {"scope": "bot"}, 400, {"error": "invalid_scope", "error_description":
                                    "The requested scope is invalid, unknown, or malformed."}),
    (BASIC, {"scope": ""}, 400, {"error": "invalid_scope", "error_description":
                                 "The requested scope is invalid, unknown, or malformed."}),
])
async def test_refused_client_credentials(api: httpx.AsyncClient, authorization: str | None,
                                          form: dict[str, str], status: int,
                                          body: dict[str, Any]) -> None:
    data = {"grant_type": "client_credentials", "scope": "applications.commands.update", **form}
    headers = {"Authorization": authorization} if authorization else {}
    response = await api.post("/oauth2/token", headers=headers, data=data)
    assert (response.status_code, response.json()) == (status, body)


async def test_the_bot_token_of_the_seed_works_on_every_command_endpoint(
        api: httpx.AsyncClient) -> None:
    assert (await api.get(GLOBAL, headers=BOT)).status_code == 200
    assert (await api.get(GUILD_COMMANDS, headers=BOT)).status_code == 200
