"""`cmdsync invoke --format json` and the emulator's request log keep the interaction
token to themselves, and the JSON is as inert as the text.

The interaction token is a credential: for 15 minutes whoever holds it can
answer, post, edit and delete as the application in that channel. The text
output never showed it; the JSON printed it (``interaction.token``), and the
request log (``GET /_emulator/log``) showed it in every callback and webhook
path. A bot here answers as many do, by ``POST /interactions/{id}/{token}/callback``
after an empty HTTP answer, then writes a follow-up (``POST
/webhooks/{application_id}/{token}``) holding a right-to-left override and a
GitHub workflow command, which the JSON writes as ``\\u`` escapes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.server import BackgroundServer
from tests.support.bot import StandInBot, callback, serve, tell_when_delivered
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, BOT, GUILD, GUILD_COMMANDS, chat, emulator, http_client

pytestmark = pytest.mark.slow  # real servers on 127.0.0.1

REPLY = "pong \u202eevil ##[warning]forged"
FOLLOW_UP = "more \u202e\u2066 ##[error]forged\n::error::x"


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    return lambda *args: run(capsys, "invoke", *args)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
           ) -> Iterator[tuple[str, StandInBot]]:
    """The served emulator (its URL, without /api/v10) with /ping in the guild, and a bot
    that calls back with :data:`REPLY` once its empty answer arrived, then follows up
    with :data:`FOLLOW_UP`."""
    instance = emulator(limits=Limits(interaction_deadline=30))  # never the bottleneck
    delivered = tell_when_delivered(monkeypatch)
    with BackgroundServer(create_app(instance)) as base, \
            http_client(f"{base}/api/v10", headers=BOT) as api:
        assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200

        def answer_later(payload: dict[str, Any]) -> Response:
            def later() -> None:
                if not delivered.wait(30):
                    return
                callback(f"{base}/api/v10", payload, {"type": 4, "data": {"content": REPLY}})
                with httpx.Client(timeout=10) as client:
                    client.post(f"{base}/api/v10/webhooks/{APP}/{payload['token']}",
                                json={"content": FOLLOW_UP})

            threading.Thread(target=later, daemon=True).start()
            return Response(status_code=202)

        with serve(StandInBot(api.get("/applications/@me").json()["verify_key"])) as bot:
            bot.answer = answer_later
            assert api.patch("/applications/@me", json={
                "interactions_endpoint_url": bot.url}).status_code == 200
            capsys.readouterr()  # discord-interactions' word on the badly signed PING
            yield base, bot


def test_no_output_or_log_shows_the_interaction_token(
        cli: Any, served: tuple[str, StandInBot]) -> None:
    base, bot = served
    code, out, err = cli("--api-url", f"{base}/api/v10", "--guild", GUILD, "--wait", "30",
                         "--follow-ups", "1", "--format", "json", "/ping")
    assert (code, err) == (0, "")
    [payload] = bot.requests
    token = payload["token"]
    assert len(token) >= 32 and token not in out
    document = json.loads(out)
    assert document["interaction"]["token"] == "[redacted]"
    assert document["interaction"]["id"] == payload["id"]
    # the bot's words read back exactly; the terminal and a CI log never see them raw
    assert [m["content"] for m in document["messages"]] == [REPLY, FOLLOW_UP]
    assert "\u202e" not in out and "\u2066" not in out and "##[" not in out
    assert "#\\u0023[warning]" in out and "\\u202eevil" in out

    with httpx.Client(timeout=10) as client:
        log = client.get(f"{base}/_emulator/log")
        page = client.get(f"{base}/console/log")
    assert log.status_code == page.status_code == 200
    assert token not in log.text and token not in page.text
    paths = [entry["path"] for entry in log.json()["requests"]]
    assert f"/api/v10/interactions/{payload['id']}/{{interaction_token}}/callback" in paths
    assert f"/api/v10/webhooks/{APP}/{{interaction_token}}" in paths


# -- a stand-in for the emulator: a token wherever a bot or server may write it ----------

TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmV4YW1wbGUtdG9rZW4"


@pytest.fixture
def stand_in() -> Iterator[str]:
    """A server with the emulator's admin routes whose exchange quotes its token."""
    exchange = {
        "interaction": {"id": "9", "type": 2, "token": TOKEN, "guild_id": GUILD,
                        "channel_id": "8", "member": {"user": {"id": "7", "username": "o"}},
                        "data": {"id": "6", "name": "ping", "type": 1}},
        "response": {"type": 4, "data": {"content": f"my token is {TOKEN}"}},
        "failure": None,
        "messages": [{"type": 20, "content": f"my token is {TOKEN}",
                      "embeds": [{"title": TOKEN, "fields": [{"name": TOKEN, "value": "v"}]}]}]}

    async def interactions(request: Request) -> JSONResponse:
        return JSONResponse(exchange)

    app = Starlette(routes=[Route("/_emulator/interactions", interactions, methods=["POST"])])
    with BackgroundServer(app) as base:
        yield f"{base}/api/v10"


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_token_the_bot_echoes_is_redacted_too(cli: Any, stand_in: str, output: str) -> None:
    code, out, err = cli("--api-url", stand_in, "--application-id", "1", "--format", output,
                         "/ping")
    assert (code, err) == (0, "")
    assert TOKEN not in out and "my token is [redacted]" in out
    if output == "json":
        document = json.loads(out)
        assert document["interaction"]["token"] == "[redacted]"
        assert document["messages"][0]["embeds"][0]["fields"][0]["name"] == "[redacted]"
