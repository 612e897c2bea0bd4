"""Responding and following up as Discord documents it (issue 28, items 18-20): a
callback after an empty HTTP answer, a follow-up's answer, the first follow-up after
a deferred response. The stand-in bot checks every signature with Discord's own
``discord-interactions`` package (tests/support/bot.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.responses import JSONResponse, Response

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.server import BackgroundServer
from tests.support.bot import StandInBot, callback, serve, tell_when_delivered
from tests.support.emulator import APP, BOT, GUILD, GUILD_COMMANDS, chat, emulator, http_client

pytestmark = pytest.mark.slow  # real servers: the full suite runs it
EPHEMERAL = 64


@pytest.fixture
def base() -> Iterator[str]:
    """A served emulator with /ping (its URL with /api/v10)."""
    # A generous deadline, so that a busy machine never fails a bot that answers.
    instance = emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(instance)) as url:
        yield f"{url}/api/v10"


@pytest.fixture
def bot(base: str) -> Iterator[StandInBot]:
    """The stand-in bot, the application's interactions endpoint."""
    with http_client(base, headers=BOT) as api:
        assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200
        with serve(StandInBot(api.get("/applications/@me").json()["verify_key"])) as stub:
            assert api.patch("/applications/@me", json={
                "interactions_endpoint_url": stub.url}).status_code == 200
            yield stub


def invoke(base: str) -> dict[str, Any]:
    with httpx.Client(timeout=60) as client:
        response = client.post(base.replace("/api/v10", "/_emulator/interactions"), json={
            "application_id": APP, "line": "/ping", "guild_id": GUILD})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.parametrize("status", [202, 204])
def test_a_callback_after_an_empty_answer_is_the_response(
        base: str, bot: StandInBot, status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot answers first and calls back after: once the emulator has its answer."""
    delivered = tell_when_delivered(monkeypatch)
    called_back: list[httpx.Response] = []
    threads: list[threading.Thread] = []

    def answer_then_call_back(payload: dict[str, Any]) -> Response:
        def later() -> None:
            if delivered.wait(30):
                called_back.append(callback(base, payload, {
                    "type": 4, "data": {"content": "called back"}}))

        threads.append(threading.Thread(target=later, daemon=True))
        threads[0].start()
        return Response(status_code=status)

    bot.answer = answer_then_call_back
    result = invoke(base)
    threads[0].join(30)
    assert result["failure"] is None
    assert result["response"] == {"type": 4, "data": {"content": "called back"}}
    assert [m["content"] for m in result["messages"]] == ["called back"]
    assert [r.status_code for r in called_back] == [204]


def test_a_follow_up_answers_its_message_without_wait(base: str, bot: StandInBot) -> None:
    token = invoke(base)["interaction"]["token"]
    webhook = f"{base}/webhooks/{APP}/{token}"
    with httpx.Client(timeout=10) as client:
        sent = client.post(webhook, json={"content": "more"})
        assert sent.status_code == 200, sent.text
        message = sent.json()
        assert (message["content"], message["webhook_id"]) == ("more", APP)
        assert client.get(f"{webhook}/messages/{message['id']}").json() == message


@pytest.mark.parametrize(("deferred", "first", "then"), [
    ({"flags": EPHEMERAL}, 0, [(0, 0), (EPHEMERAL, EPHEMERAL)]),
    (None, EPHEMERAL, [(EPHEMERAL, EPHEMERAL), (0, 0)]),
], ids=["ephemeral-ack", "public-ack"])
def test_the_first_follow_up_after_deferring_takes_the_acks_ephemerality(
        base: str, bot: StandInBot, deferred: dict[str, Any] | None, first: int,
        then: list[tuple[int, int]]) -> None:
    """Its own flags are ignored; later follow-ups' flags count."""
    bot.answer = lambda payload: JSONResponse(
        {"type": 5, **({"data": deferred} if deferred else {})})
    result = invoke(base)
    [thinking] = result["messages"]
    acked = (deferred or {}).get("flags", 0)
    assert thinking["flags"] == acked | 128  # LOADING
    webhook = f"{base}/webhooks/{APP}/{result['interaction']['token']}"
    with httpx.Client(timeout=10) as client:
        flags = [client.post(webhook, json={"content": "first", "flags": first}
                             ).json()["flags"]]
        flags += [client.post(webhook, json={"content": "later", "flags": sent}
                              ).json()["flags"] for sent, _ in then]
    assert flags == [acked] + [kept for _, kept in then]
