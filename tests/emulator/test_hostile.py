"""The emulator against hostile input (issue 28): an alias bomb of a seed, a bot that
dribbles or floods its answer, DNS rebinding of the admin API, an endpoint URL
pointing at another service, answers of the wrong JSON types, and settings out of
range. Everything runs served on loopback; the stand-in bot checks signatures with
Discord's own ``discord-interactions`` package (tests/support/bot.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.server import BackgroundServer
from tests.support.bot import StandInBot, callback, serve
from tests.support.emulator import APP, BOT, GUILD, GUILD_COMMANDS, chat, emulator, http_client
from tests.support.processes import running

pytestmark = pytest.mark.slow  # real servers: the full suite runs it


@dataclass
class Served:
    instance: Emulator
    base: str
    api: httpx.Client  # /api/v10 with the bot token
    admin: httpx.Client  # /_emulator


@pytest.fixture
def served() -> Iterator[Served]:
    # A generous deadline, so that a busy machine never fails a bot that answers; tests
    # of the deadline lower it.
    instance = emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(instance)) as base, \
            http_client(f"{base}/api/v10", headers=BOT) as api, \
            http_client(f"{base}/_emulator") as admin:
        yield Served(instance, base, api, admin)


@pytest.fixture
def bot(served: Served) -> Iterator[StandInBot]:
    with serve(StandInBot(served.api.get("/applications/@me").json()["verify_key"])) as stub:
        yield stub


@pytest.fixture
def ready(served: Served, bot: StandInBot) -> Served:
    """/ping in the guild, and the stand-in bot as the interactions endpoint."""
    assert served.api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200
    assert served.api.patch("/applications/@me",
                            json={"interactions_endpoint_url": bot.url}).status_code == 200
    return served


def invoke(admin: httpx.Client) -> dict[str, Any]:
    response = admin.post("/interactions", json={"application_id": APP, "line": "/ping",
                                                 "guild_id": GUILD})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def configure(admin: httpx.Client, **limits: Any) -> None:
    response = admin.put("/config", json={"limits": limits})
    assert response.status_code == 200, response.text


# -- item 9: a seed's aliases are bounded as a manifest's ------------------------------


def billion_laughs(levels: int) -> str:
    """A seed whose guild name expands to 9**levels strings."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + (f'\napplications: []\nguilds: [{{id: "{GUILD}", '
                               f"name: *l{levels - 1}}}]\n")


@pytest.mark.parametrize(("levels", "budget"), [(6, "100,300"), (9, "100,360")])
def test_a_seed_alias_bomb_is_refused_at_once(served: Served, levels: int,
                                              budget: str) -> None:
    """Without the bound, 9 levels took 27 s and 3.7 GB; 6 were accepted."""
    refused = served.admin.post("/seed", content=billion_laughs(levels),
                                headers={"Content-Type": "application/yaml"})
    assert (refused.status_code, refused.json()) == (400, {
        "message": f"request body, line 6, column 5: aliases expand to more than {budget} "
                   "nodes (a billion-laughs file?): use fewer or smaller anchors", "code": 0})
    guilds = served.admin.get("/state").json()["guilds"]
    assert [g["name"] for g in guilds] == ["Emulator Guild"]


# -- item 10: deadlines for the whole answer, answers capped ---------------------------


def test_an_answer_dribbled_past_the_deadline_fails(ready: Served, bot: StandInBot) -> None:
    # One byte every 0.1 s: each read is quick, the whole answer takes 4 s.
    bot.answer = lambda payload: bot.dribble(b'{"type": 4, "data": {"content": "slow"}}',
                                             every=0.1)
    configure(ready.admin, interaction_deadline=1)
    result = invoke(ready.admin)
    assert result["failure"] == ("the application did not respond: the answer (HTTP 200) "
                                 "was not complete within 1 seconds")
    assert (result["response"], result["messages"]) == (None, [])


def test_endpoint_verification_has_one_deadline(served: Served, bot: StandInBot) -> None:
    bot.ping = lambda: bot.dribble(b'{"type": 1}' + b" " * 40, every=0.1)  # 5 s
    configure(served.admin, verification_deadline=1)
    refused = served.api.patch("/applications/@me", json={"interactions_endpoint_url": bot.url})
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"interactions_endpoint_url": {"_errors": [{
        "code": "APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID",
        "message": "The specified interactions endpoint url could not be verified: the "
                   "answer (HTTP 200) was not complete within 1 seconds."}]}}
    assert served.api.get("/applications/@me").json()["interactions_endpoint_url"] is None


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_an_answer_past_the_size_cap_fails(ready: Served, bot: StandInBot,
                                           declared: bool) -> None:
    bot.answer = lambda payload: bot.flood(10 * 1024 * 1024, declared=declared)
    configure(ready.admin, max_body_bytes=65536)
    result = invoke(ready.admin)
    assert result["failure"] == ("the application did not respond: the answer (HTTP 200) "
                                 "is larger than 65,536 bytes")


# -- item 11: the admin API's host names; no echo of another service --------------------


SEED = json.dumps({"applications": [{"id": "999999999999999999", "bot_token": "evil-token",
                                     "client_secret": "x"}]})


def test_the_admin_api_answers_only_loopback_host_names() -> None:
    """DNS rebinding: a page at evil.example, its name now resolving to 127.0.0.1, is
    same-origin with itself, but its requests still name evil.example."""
    with running() as (base_url, _), httpx.Client(base_url=base_url) as client:
        port = urlsplit(base_url).port
        rebound = client.post("/_emulator/seed", content=SEED, headers={
            "Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}",
            "Content-Type": "application/json"})
        assert (rebound.status_code, rebound.json()) == (403, {
            "message": "the admin API answers only requests for localhost, 127.0.0.1, "
                       "[::1] or the host it listens on, not 'evil.example': call it by "
                       "one of those", "code": 0})
        for host in ("localhost", "127.0.0.1", "[::1]"):
            state = client.get("/_emulator/state", headers={"Host": f"{host}:{port}"})
            assert state.status_code == 200, host
            assert "evil-token" not in state.text


def test_the_admin_api_answers_the_host_it_is_given() -> None:
    app = create_app(emulator(), hosts=("emulator.test",))
    with BackgroundServer(app) as base, httpx.Client(base_url=base) as client:
        assert client.get("/_emulator/state", headers={"Host": "emulator.test"}).is_success
        other = client.get("/_emulator/state", headers={"Host": "cmdsync.local"})
        assert other.status_code == 403
        # Discord's API is not the admin API: it takes any host, with a token.
        assert client.get(f"/api/v10{GUILD_COMMANDS}",
                          headers={**BOT, "Host": "cmdsync.local"}).status_code == 200


def _service(response: Response) -> Starlette:
    async def answer(request: Any) -> Response:
        return response

    return Starlette(routes=[Route("/", answer, methods=["POST"])])


@pytest.mark.parametrize(("response", "said"), [
    (Response("secret: hunter2", media_type="text/plain"),
     "a signed PING got HTTP 200 and a body of 15 bytes that is not JSON"),
    (JSONResponse({"token": "hunter2"}, status_code=404),
     'a signed PING got HTTP 404 and a JSON object without "type": 1'),
    (JSONResponse(["hunter2"]), "a signed PING got HTTP 200 and a JSON array"),
])
def test_verification_says_what_went_wrong_without_echoing_the_answer(
        served: Served, response: Response, said: str) -> None:
    with BackgroundServer(_service(response)) as other:
        refused = served.api.patch("/applications/@me",
                                   json={"interactions_endpoint_url": f"{other}/"})
    assert refused.status_code == 400 and "hunter2" not in refused.text
    [leaf] = refused.json()["errors"]["interactions_endpoint_url"]["_errors"]
    assert leaf["message"] == ("The specified interactions endpoint url could not be "
                               f'verified: {said}, not {{"type": 1}}.')


# -- item 12: answers of the wrong JSON types ------------------------------------------


def leaf(code: str, message: str) -> dict[str, Any]:
    return {"_errors": [{"code": code, "message": message}]}


NOT_INT = 'Value "{}" is not int.'
NOT_A_LIST = leaf("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType.")
NOT_AN_OBJECT = leaf("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
HOSTILE_DATA = [
    ({"content": "x", "flags": "abc"}, {"flags": leaf("NUMBER_TYPE_COERCE",
                                                      NOT_INT.format("abc"))}),
    ({"content": "x", "flags": [1]}, {"flags": leaf("NUMBER_TYPE_COERCE",
                                                    NOT_INT.format("[1]"))}),
    ({"content": "x", "components": 5}, {"components": NOT_A_LIST}),
    ({"content": "x", "embeds": [1, 2]}, {"embeds": {"0": NOT_AN_OBJECT,
                                                     "1": NOT_AN_OBJECT}}),
]


@pytest.mark.parametrize(("data", "errors"), [
    *[({"type": 4, "data": data}, {"data": errors}) for data, errors in HOSTILE_DATA],
    ({"type": 5, "data": {"flags": "abc"}},
     {"data": {"flags": leaf("NUMBER_TYPE_COERCE", NOT_INT.format("abc"))}}),
    ({"type": 4, "data": 5}, {"data": NOT_AN_OBJECT}),
])
def test_a_hostile_callback_is_invalid_form_body(ready: Served, bot: StandInBot,
                                                 data: dict[str, Any],
                                                 errors: dict[str, Any]) -> None:
    refusals: list[httpx.Response] = []

    def hostile_then_fine(payload: dict[str, Any]) -> Response:
        refusals.append(callback(f"{ready.base}/api/v10", payload, data))
        assert callback(f"{ready.base}/api/v10", payload,
                        {"type": 4, "data": {"content": "fine"}}).status_code == 204
        return Response(status_code=202)

    bot.answer = hostile_then_fine
    result = invoke(ready.admin)
    assert (result["failure"], result["response"]) == (
        None, {"type": 4, "data": {"content": "fine"}})
    [refused] = refusals
    assert (refused.status_code, refused.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035, "errors": errors})


@pytest.mark.parametrize(("data", "errors"), HOSTILE_DATA)
def test_a_hostile_follow_up_or_edit_is_invalid_form_body(
        ready: Served, data: dict[str, Any], errors: dict[str, Any]) -> None:
    token = invoke(ready.admin)["interaction"]["token"]
    webhook = f"{ready.base}/api/v10/webhooks/{APP}/{token}"
    with httpx.Client(timeout=10) as client:
        for refused in (client.post(webhook, json=data),
                        client.patch(f"{webhook}/messages/@original", json=data)):
            assert (refused.status_code, refused.json()) == (400, {
                "message": "Invalid Form Body", "code": 50035, "errors": errors})


def test_a_hostile_http_answer_fails_the_interaction(ready: Served, bot: StandInBot) -> None:
    bot.answer = lambda payload: JSONResponse(
        {"type": 4, "data": {"content": "x", "flags": "abc"}})
    assert invoke(ready.admin)["failure"] == (
        'Discord would refuse the response: 50035 Invalid Form Body (data.flags: Value '
        '"abc" is not int.)')
    bot.answer = lambda payload: Response(b'{"type": 4, "data": {"content": NaN}}',
                                          media_type="application/json")
    assert invoke(ready.admin)["failure"] == (
        "the application answered HTTP 200 with a body of 37 bytes that is not JSON (NaN "
        "and Infinity are not JSON either): send the response as a JSON object")


# -- item 13: settings out of range ----------------------------------------------------


@pytest.mark.parametrize(("body", "message"), [
    ('{"faults": {"latency": NaN}}',
     "faults.latency must be a number of seconds from 0 to 60, not nan"),
    ('{"faults": {"latency": 1e308}}',
     "faults.latency must be a number of seconds from 0 to 60, not 1e+308"),
    ('{"faults": {"error_rate": Infinity}}',
     "faults.error_rate must be a number from 0 to 1, not inf"),
    ('{"limits": {"interaction_deadline": 1e400}}',
     ("limits.interaction_deadline must be a number of seconds above 0 and at most 900, "
      "not inf")),
    ('{"limits": {"max_body_bytes": 1e12}}',
     ("limits.max_body_bytes must be a whole number of bytes from 1 to 104,857,600, not "
      "1000000000000.0")),
    ('{"ratelimit": {"global_window": -0.0}}',
     ("ratelimit.global_window must be a number of seconds above 0 and at most 3600, not "
      "-0.0")),
    ('{"ratelimit": {"route_limit": true}}',
     ("ratelimit.route_limit must be a whole number of requests from 0 to 1,000,000, not "
      "True")),
    ('{"faults": {"laterncy": 1}}',
     ("faults: unknown setting 'laterncy': use latency, error_rate, error_statuses, "
      "drop_rate, seed, slow_rate, slow_latency, lost_rate")),
])
def test_settings_out_of_range_are_refused_naming_the_field(served: Served, body: str,
                                                            message: str) -> None:
    before = served.admin.get("/config").json()
    refused = served.admin.put("/config", content=body,
                               headers={"Content-Type": "application/json"})
    assert (refused.status_code, refused.json()) == (400, {
        "message": f"bad configuration: {message}", "code": 0})
    assert served.admin.get("/config").json() == before
    assert served.api.get(GUILD_COMMANDS).status_code == 200  # served, not held
