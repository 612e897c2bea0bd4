"""Interactions over HTTP: endpoint verification, signed delivery, the response
checks, the callback route and follow-up webhooks (emulator.interactions).

The application side here is a small stand-in endpoint (starlette under
uvicorn) whose answer each test sets: it checks signatures with the
application's ``verify_key`` unless told not to. Real bots (hikari's
RESTBot) answer in ``tests/cli/test_invoke.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions.signing import verify
from cmdsync.emulator.server import BackgroundServer
from tests.support.emulator import (
    APP,
    BOT,
    GUILD,
    GUILD_COMMANDS,
    FakeClock,
    chat,
    emulator,
    http_client,
)

pytestmark = pytest.mark.slow  # real servers and subprocesses: the full suite runs it

Answer = Callable[[dict[str, Any]], tuple[int, Any]]


class Endpoint:
    """A stand-in interactions endpoint: records requests, answers with ``answer``."""

    def __init__(self) -> None:
        self.public_key = ""
        self.check_signatures = True
        self.requests: list[dict[str, Any]] = []
        self.answer: Answer = lambda payload: (200, {"type": 4, "data": {"content": "ok"}})
        self.release = threading.Event()

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        signature = request.headers.get("x-signature-ed25519", "")
        stamp = request.headers.get("x-signature-timestamp", "")
        if self.check_signatures and not verify(self.public_key, body, stamp, signature):
            return Response("invalid request signature", status_code=401)
        payload = json.loads(body)
        if payload["type"] == 1:
            return JSONResponse({"type": 1})
        self.requests.append(payload)
        status, answer = self.answer(payload)
        if answer is None:
            return Response(status_code=status)
        return JSONResponse(answer, status_code=status)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def served(clock: FakeClock) -> Iterator[tuple[Emulator, httpx.Client, httpx.Client]]:
    # A generous deadline, so a busy machine never fails a bot that answers; the test of
    # the deadline itself lowers it (its stand-in never answers in time).
    instance = emulator(clock=clock, limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(instance)) as base, \
            http_client(f"{base}/api/v10", headers=BOT) as api, \
            http_client(f"{base}/_emulator") as admin:
        yield instance, api, admin


@pytest.fixture
def endpoint(served: tuple[Emulator, httpx.Client, httpx.Client]) -> Iterator[Endpoint]:
    stub = Endpoint()
    stub.public_key = served[1].get("/applications/@me").json()["verify_key"]
    app = Starlette(routes=[Route("/", stub.handle, methods=["POST"])])
    with BackgroundServer(app) as base:
        stub.url = f"{base}/"  # type: ignore[attr-defined]
        yield stub
        stub.release.set()


@pytest.fixture
def ready(served: tuple[Emulator, httpx.Client, httpx.Client], endpoint: Endpoint
          ) -> tuple[httpx.Client, httpx.Client, Endpoint]:
    """An application with /ping and its endpoint set."""
    _, api, admin = served
    assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200
    set_url = api.patch("/applications/@me",
                        json={"interactions_endpoint_url": endpoint.url})  # type: ignore[attr-defined]
    assert set_url.status_code == 200, set_url.text
    return api, admin, endpoint


def invoke(admin: httpx.Client, line: str = "/ping", **fields: Any) -> httpx.Response:
    return admin.post("/interactions", json={"application_id": APP, "line": line,
                                             "guild_id": GUILD, **fields})


def test_the_endpoint_is_verified_before_it_is_saved(
        served: tuple[Emulator, httpx.Client, httpx.Client], endpoint: Endpoint) -> None:
    _, api, _ = served
    url = endpoint.url  # type: ignore[attr-defined]
    endpoint.check_signatures = False  # a bot that skips the signature check
    refused = api.patch("/applications/@me", json={"interactions_endpoint_url": url})
    assert refused.status_code == 400 and refused.json()["code"] == 50035
    [leaf] = refused.json()["errors"]["interactions_endpoint_url"]["_errors"]
    assert leaf["code"] == "APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID"
    assert "a badly signed PING got HTTP 200" in leaf["message"]
    assert api.get("/applications/@me").json()["interactions_endpoint_url"] is None
    endpoint.check_signatures = True
    accepted = api.patch("/applications/@me", json={"interactions_endpoint_url": url})
    assert accepted.status_code == 200 and accepted.json()["interactions_endpoint_url"] == url
    nobody = api.patch("/applications/@me",
                       json={"interactions_endpoint_url": "http://127.0.0.1:9/"})
    assert "cannot reach" in nobody.json()["errors"]["interactions_endpoint_url"][
        "_errors"][0]["message"]
    malformed = api.patch("/applications/@me", json={"interactions_endpoint_url": "ftp://x"})
    assert malformed.json()["errors"]["interactions_endpoint_url"]["_errors"][0][
        "code"] == "URL_TYPE_INVALID_URL"
    cleared = api.patch("/applications/@me", json={"interactions_endpoint_url": None})
    assert cleared.json()["interactions_endpoint_url"] is None


def test_an_interaction_is_signed_and_its_reply_recorded(
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    _, admin, endpoint = ready
    result = invoke(admin).json()
    assert result["failure"] is None
    assert result["response"] == {"type": 4, "data": {"content": "ok"}}
    [reply] = result["messages"]
    assert (reply["type"], reply["content"], reply["author"]["id"]) == (20, "ok", APP)
    assert endpoint.requests == [result["interaction"]]
    again = admin.get(f"/interactions/{result['interaction']['id']}").json()
    assert again["messages"] == result["messages"]


@pytest.mark.parametrize(("answer", "failure"), [
    ((200, {"type": 4, "data": {"content": "x" * 2001}}), "Must be 2000 or fewer in length"),
    ((200, {"type": 4, "data": {}}), "50006 Cannot send an empty message"),
    ((200, {"type": 8, "data": {"choices": []}}), "Value must be one of"),
    ((200, {"type": 12}), "does not have Activities enabled"),
    ((200, {"type": 9, "data": {"custom_id": "m", "title": "t" * 46, "components": [{}]}}),
     "data.title: Must be between 1 and 45 in length"),
    ((500, {"message": "boom"}), "the application answered HTTP 500"),
])
def test_a_bad_response_fails_the_interaction(
        ready: tuple[httpx.Client, httpx.Client, Endpoint], answer: tuple[int, Any],
        failure: str) -> None:
    _, admin, endpoint = ready
    endpoint.answer = lambda payload: answer
    result = invoke(admin).json()
    assert failure in result["failure"]
    assert result["messages"] == []


def test_an_empty_answer_without_a_callback_fails_at_the_deadline(
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    _, admin, endpoint = ready
    endpoint.answer = lambda payload: (204, None)
    # The emulator waits for the callback until the deadline: a short one.
    assert admin.put("/config", json={"limits": {"interaction_deadline": 2}}).is_success
    result = invoke(admin).json()
    assert result["failure"] == (
        "the application answered HTTP 204 with no response and did not call "
        "POST /interactions/{id}/{token}/callback within the deadline")
    assert result["messages"] == []


def test_autocomplete_allows_25_choices_and_no_more(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    api, admin, endpoint = ready
    api.put(GUILD_COMMANDS, json=[chat("ping", options=[
        {"type": 3, "name": "q", "description": "q", "autocomplete": True}])])

    def choices(count: int) -> Answer:
        return lambda payload: (200, {"type": 8, "data": {"choices": [
            {"name": f"c{i}", "value": str(i)} for i in range(count)]}})

    endpoint.answer = choices(25)
    assert invoke(admin, "/ping q:a", autocomplete=True).json()["failure"] is None
    endpoint.answer = choices(26)
    assert "Must be 25 or fewer in length" in invoke(
        admin, "/ping q:a", autocomplete=True).json()["failure"]


def test_no_answer_within_the_deadline_fails(
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    _, admin, endpoint = ready

    def never(payload: dict[str, Any]) -> tuple[int, Any]:
        endpoint.release.wait(30)  # held until the test ends: the deadline (0.5 s) passes
        return 200, {"type": 4, "data": {"content": "late"}}

    endpoint.answer = never
    assert admin.put("/config", json={"limits": {"interaction_deadline": 0.5}}).is_success
    result = invoke(admin).json()
    assert result["failure"] == "the application did not respond: no answer within 0.5 seconds"
    endpoint.release.set()


def callback(api: httpx.Client, interaction: dict[str, Any], body: dict[str, Any],
             query: str = "") -> httpx.Response:
    """``POST /interactions/{id}/{token}/callback`` as the application sends it: no
    ``Authorization``, the interaction token is the credential."""
    base = str(api.base_url).rstrip("/")
    with httpx.Client() as client:
        return client.post(f"{base}/interactions/{interaction['id']}/{interaction['token']}"
                           f"/callback{query}", json=body)


def test_a_refused_callback_is_said_first(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    """The bot answered 202 and called back with a reply Discord refuses (over 2,000
    characters): the failure says the callback was refused, not that it did not answer."""
    _, api, admin = served

    def too_long(payload: dict[str, Any]) -> tuple[int, Any]:
        answered = callback(api, payload, {"type": 4, "data": {"content": "x" * 2001}})
        assert answered.status_code == 400, answered.text
        return 202, None

    ready[2].answer = too_long
    # 5 s: the refused callback must come before the deadline, on however busy a machine
    assert admin.put("/config", json={"limits": {"interaction_deadline": 5}}).is_success
    failure = invoke(admin).json()["failure"]
    assert failure.startswith("the bot's callback was refused: HTTP 400 50035"), failure
    assert failure.endswith("; no other response came within the deadline, so the "
                            "interaction stayed unanswered"), failure


def test_the_callback_route_and_follow_ups(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint], clock: FakeClock) -> None:
    _, api, admin = served
    base = str(api.base_url).rstrip("/")

    def deferred_by_callback(payload: dict[str, Any]) -> tuple[int, Any]:
        answered = callback(api, payload, {"type": 5}, "?with_response=true")
        assert answered.status_code == 200, answered.text
        assert answered.json()["interaction"]["response_message_loading"] is True
        return 202, None

    ready[2].answer = deferred_by_callback
    result = invoke(admin).json()
    assert result["failure"] is None and result["response"] == {"type": 5}
    [thinking] = result["messages"]
    assert thinking["flags"] & 128  # LOADING
    interaction = result["interaction"]
    webhook = f"{base}/webhooks/{APP}/{interaction['token']}"
    again = callback(api, interaction, {"type": 4, "data": {"content": "twice"}})
    assert (again.status_code, again.json()["code"]) == (400, 40060)
    with httpx.Client() as client:
        edited = client.patch(f"{webhook}/messages/@original", json={"content": "done"})
        assert edited.status_code == 200 and edited.json()["flags"] & 128 == 0
        follow = client.post(f"{webhook}?wait=true", json={"content": "more", "flags": 64})
        # The first follow-up after a deferred response: as ephemeral as the response.
        assert follow.status_code == 200 and follow.json()["flags"] == 0
        quiet = client.post(webhook, json={"content": "quiet", "flags": 64})
        assert quiet.status_code == 200 and quiet.json()["flags"] == 64
        assert client.post(webhook, json={}).json()["code"] == 50006
        got = client.get(f"{webhook}/messages/{follow.json()['id']}")
        assert got.json()["content"] == "more"
        assert client.delete(f"{webhook}/messages/{follow.json()['id']}").status_code == 204
        assert client.get(f"{webhook}/messages/{follow.json()['id']}").json()["code"] == 10008
        assert [m["content"] for m in admin.get(f"/interactions/{interaction['id']}").json()[
            "messages"]] == ["done", "quiet"]
        wrong = client.post(f"{base}/webhooks/{APP}/not-a-token", json={"content": "x"})
        assert (wrong.status_code, wrong.json()["code"]) == (401, 50027)
        clock.advance(15 * 60 + 1)  # the token lives 15 minutes
        expired = client.patch(f"{webhook}/messages/@original", json={"content": "late"})
        assert (expired.status_code, expired.json()["code"]) == (401, 50027)


def test_with_response_names_a_message_only_when_there_is_one(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    """The Interaction Callback Response's ``response_message_*`` fields are optional,
    not nullable: a modal makes no message, so they are absent (hikari, which asks for
    ``with_response``, reads a present ``response_message_id`` as a snowflake)."""
    _, api, admin = served
    answers: list[dict[str, Any]] = []

    def answer_by_callback(body: dict[str, Any]) -> Answer:
        def answer(payload: dict[str, Any]) -> tuple[int, Any]:
            answered = callback(api, payload, body, "?with_response=true")
            assert answered.status_code == 200, answered.text
            answers.append(answered.json())
            return 202, None

        return answer

    ready[2].answer = answer_by_callback({"type": 9, "data": {
        "custom_id": "feedback", "title": "Feedback", "components": [{"type": 1, "components": [
            {"type": 4, "custom_id": "text", "label": "Your feedback", "style": 1}]}]}})
    assert invoke(admin).json()["failure"] is None
    ready[2].answer = answer_by_callback({"type": 4, "data": {"content": "only you",
                                                              "flags": 64}})
    assert invoke(admin).json()["failure"] is None
    modal, message = answers
    assert modal["interaction"] == {"id": modal["interaction"]["id"], "type": 2,
                                    "activity_instance_id": None}
    assert modal["resource"] == {"type": 9}
    assert message["interaction"]["response_message_id"] == message["resource"]["message"]["id"]
    assert (message["interaction"]["response_message_loading"],
            message["interaction"]["response_message_ephemeral"]) == (False, True)


def test_an_edit_sent_before_the_answer_is_taken_waits_for_it(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    """A bot that defers and edits at once (hikari's RESTBot does) may send the edit
    before the emulator has read the deferred answer: the edit waits, then applies."""
    _, api, admin = served
    base = str(api.base_url).rstrip("/")
    edits: list[httpx.Response] = []

    def defer_and_edit_at_once(payload: dict[str, Any]) -> tuple[int, Any]:
        def edit() -> None:
            with httpx.Client() as client:
                edits.append(client.patch(
                    f"{base}/webhooks/{APP}/{payload['token']}/messages/@original",
                    json={"content": "done"}))

        editing = threading.Thread(target=edit)
        editing.start()
        editing.join(0.2)  # sent (and, without the wait, refused) before the answer
        ready[2].editing = editing  # type: ignore[attr-defined]
        return 200, {"type": 5}

    ready[2].answer = defer_and_edit_at_once
    result = invoke(admin).json()
    assert result["failure"] is None and result["response"] == {"type": 5}
    ready[2].editing.join(30)  # type: ignore[attr-defined]
    [edited] = edits
    assert edited.status_code == 200, edited.text
    assert edited.json()["content"] == "done" and edited.json()["flags"] & 128 == 0
    shown = admin.get(f"/interactions/{result['interaction']['id']}").json()
    assert [m["content"] for m in shown["messages"]] == ["done"]


def test_a_bot_may_follow_up_before_its_http_answer_once_it_called_back(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    """Answered through the callback route, the interaction takes follow-ups at once,
    even while the bot has not sent its HTTP answer yet (no wait for it)."""
    _, api, admin = served
    base = str(api.base_url).rstrip("/")

    def callback_then_follow_up(payload: dict[str, Any]) -> tuple[int, Any]:
        assert callback(api, payload, {"type": 5}).status_code == 204
        with httpx.Client(timeout=5) as client:  # waiting for the answer would time out
            sent = client.post(f"{base}/webhooks/{APP}/{payload['token']}?wait=true",
                               json={"content": "first"})
        assert sent.status_code == 200, sent.text
        return 202, None

    ready[2].answer = callback_then_follow_up
    result = invoke(admin).json()
    assert result["failure"] is None and result["response"] == {"type": 5}
    assert [m["content"] for m in result["messages"]] == ["", "first"]


def test_a_callback_after_the_deadline_is_unknown(
        served: tuple[Emulator, httpx.Client, httpx.Client],
        ready: tuple[httpx.Client, httpx.Client, Endpoint], clock: FakeClock) -> None:
    _, api, admin = served

    def late(payload: dict[str, Any]) -> tuple[int, Any]:
        clock.advance(3)  # past the 2 s deadline (the emulator's clock) before it calls back
        answered = callback(api, payload, {"type": 4, "data": {"content": "x"}})
        assert (answered.status_code, answered.json()["code"]) == (404, 10062)
        return 202, None

    ready[2].answer = late
    assert admin.put("/config", json={"limits": {"interaction_deadline": 2}}).is_success
    assert "did not call POST" in invoke(admin).json()["failure"]


def test_read_repair_answers_an_outdated_command(
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    api, admin, _ = ready
    app_commands = f"/applications/{APP}/commands"
    api.put(app_commands, json=[chat("hello")])
    assert invoke(admin, "/hello", guild_id=None).status_code == 200
    api.put(app_commands, json=[chat("hello", "Changed")])
    outdated = invoke(admin, "/hello", guild_id=None)
    assert outdated.status_code == 400
    [leaf] = outdated.json()["errors"]["data"]["_errors"]
    assert leaf == {"code": "INTERACTION_APPLICATION_COMMAND_INVALID_VERSION",
                    "message": "This command is outdated, please try again in a few minutes"}
    assert invoke(admin, "/hello", guild_id=None).json()["failure"] is None


def test_fixtures_added_through_the_admin_api(
        ready: tuple[httpx.Client, httpx.Client, Endpoint]) -> None:
    _, admin, endpoint = ready
    added = admin.post("/seed", headers={"Content-Type": "application/yaml"}, content=f"""
applications: [{{id: "{APP}", bot_token: emulator-bot-token, client_secret: emulator-secret}}]
users: [{{id: "900000000000000001", username: carol, global_name: Carol}}]
guilds:
  - id: "{GUILD}"
    owner_id: "333333333333333333"
    preferred_locale: de
    roles: [{{id: "900000000000000002", name: Helpers, permissions: [manage_messages]}}]
    members: [{{user_id: "900000000000000001", roles: ["900000000000000002"], nick: C}}]
    channels: [{{id: "900000000000000003", name: helpers}}]
""")
    assert added.status_code == 204, added.text
    result = invoke(admin, user_id="900000000000000001", channel_id="900000000000000003",
                    locale="de").json()
    payload = endpoint.requests[-1]
    assert result["interaction"] == payload
    assert payload["member"]["nick"] == "C" and payload["member"]["roles"] == [
        "900000000000000002"]
    assert payload["member"]["user"]["global_name"] == "Carol"
    assert int(payload["member"]["permissions"]) & (1 << 13)  # MANAGE_MESSAGES
    assert (payload["locale"], payload["guild_locale"]) == ("de", "de")
    assert payload["channel"]["name"] == "helpers"
    bad = admin.post("/seed", json={"applications": [{"id": APP, "bot_token": "b",
                                                      "client_secret": "s"}],
                                    "guilds": [{"id": GUILD, "roles": [
                                        {"id": "1", "permissions": ["fly"]}]}]})
    assert bad.status_code == 400 and "unknown permission 'fly'" in bad.json()["message"]


def test_no_endpoint_and_bad_invocations_are_refused(
        served: tuple[Emulator, httpx.Client, httpx.Client]) -> None:
    _, api, admin = served
    api.put(GUILD_COMMANDS, json=[chat("ping")])
    no_url = invoke(admin)
    assert no_url.status_code == 400 and "no bot is connected for application" in \
        no_url.json()["message"]
    assert "unknown field 'colour'" in admin.post(
        "/interactions", json={"application_id": APP, "colour": "red"}).json()["message"]
    assert admin.get("/interactions/1").json()["code"] == 10062
