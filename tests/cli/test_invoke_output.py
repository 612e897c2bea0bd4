"""`cmdsync invoke`'s text (issue 28, items 15, 21 and 12's invoke part): a bot's
words shown as written (``é``, embed fields) but inert (no escape sequence, no
workflow command), and hostile answers a clear failure (exit 1), never exit 70.

Two setups: the served emulator with a small bot whose answer each test sets, and
a stand-in for the emulator that answers an exchange the test writes, so what
`invoke` does with any JSON is tested apart from what the emulator lets through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.interactions.signing import verify
from cmdsync.emulator.seed import BOT_TOKEN
from cmdsync.emulator.server import BackgroundServer
from tests.support.cli import clean_environment, run
from tests.support.emulator import GUILD, GUILD_COMMANDS, chat, emulator, http_client, option

pytestmark = pytest.mark.slow  # real servers on 127.0.0.1

HOSTILE = ("caf\u00e9 \x1b[2J\n::warning title=FORGED::x\n"
           "\x1b]0;pwned\x07 \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\")


def assert_inert(text: str) -> None:
    """No escape sequence, bell, or line a GitHub runner reads as a workflow command."""
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "##[" not in text
    assert not [line for line in text.splitlines() if line.lstrip().startswith("::")]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    return lambda *args: run(capsys, "invoke", *args)


@pytest.fixture
def bot() -> Iterator[tuple[str, dict[str, Any]]]:
    """The served emulator (its API URL) with /ping in the guild, and the answer its bot
    gives: ``{"json": body}``, or ``{"raw": bytes, "status": code}``."""
    instance = emulator(limits=Limits(interaction_deadline=30))  # never the bottleneck
    answer: dict[str, Any] = {}
    key = ""

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        if not verify(key, body, request.headers["x-signature-timestamp"],
                      request.headers["x-signature-ed25519"]):
            return JSONResponse({"error": "bad signature"}, status_code=401)
        if json.loads(body)["type"] == 1:
            return JSONResponse({"type": 1})
        if "raw" in answer:
            return Response(answer["raw"], status_code=answer.get("status", 200),
                            media_type="text/plain")
        return JSONResponse(answer["json"])

    with BackgroundServer(create_app(instance)) as base, \
            BackgroundServer(Starlette(routes=[Route("/", endpoint, methods=["POST"])])) as url, \
            http_client(f"{base}/api/v10", headers={"Authorization": f"Bot {BOT_TOKEN}"}) as api:
        key = api.get("/applications/@me").json()["verify_key"]
        api.put(GUILD_COMMANDS, json=[chat("ping", options=[option("text")])])
        assert api.patch("/applications/@me",
                         json={"interactions_endpoint_url": f"{url}/"}).status_code == 200
        yield f"{base}/api/v10", answer


def test_a_reply_is_shown_as_written_and_inert(cli: Any, bot: tuple[str, dict[str, Any]]
                                                ) -> None:
    api_url, answer = bot
    answer["json"] = {"type": 4, "data": {"content": HOSTILE, "embeds": [{
        "title": "R\u00e9sum\u00e9", "url": "https://example.com/r",
        "author": {"name": "Bot \u202eevil"}, "description": "line 1\nline 2",
        "fields": [{"name": "Score", "value": "10", "inline": True},
                   {"name": "Note", "value": "a\n::error::b"}],
        "footer": {"text": "footer ##[error]x"}}]}}
    code, out, err = cli("--api-url", api_url, "--guild", GUILD, '/ping text:"cr\u00e8me br\u00fbl\u00e9e"')
    assert (code, err) == (0, "")
    first, *rest = out.splitlines()
    assert first.startswith('Invoked /ping text:"cr\u00e8me br\u00fbl\u00e9e" in guild ')
    assert rest == [
        "Response: CHANNEL_MESSAGE_WITH_SOURCE",
        "Reply:",
        "  caf\u00e9 \\u001b[2J",
        "  \\u003a:warning title=FORGED::x",
        ("  \\u001b]0;pwned\\u0007 \\u001b]8;;https://evil.example\\u001b\\link"
         "\\u001b]8;;\\u001b\\"),
        "  [embed] R\u00e9sum\u00e9 (https://example.com/r)",
        "    by Bot \\u202eevil",
        "    line 1",
        "    line 2",
        "    Score (inline): 10",
        "    Note: a",
        "      \\u003a:error::b",
        "    -- footer #\\u0023[error]x"]
    assert_inert(out)


def test_in_colour_only_rich_writes_escape_sequences(cli: Any, monkeypatch: pytest.MonkeyPatch,
                                                     bot: tuple[str, dict[str, Any]]) -> None:
    api_url, answer = bot
    answer["json"] = {"type": 4, "data": {"content": HOSTILE + " [bold]not markup[/bold]"}}
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out, _ = cli("--api-url", api_url, "--guild", GUILD, "/ping")
    assert code == 0 and "\x1b[" in out  # rich's colours
    assert "\x1b[2J" not in out and "\x1b]" not in out and "\x07" not in out
    assert "caf\u00e9 \\u001b[2J" in out and "[bold]not markup[/bold]" in out


def test_embeds_that_are_not_objects_fail_the_interaction(
        cli: Any, bot: tuple[str, dict[str, Any]]) -> None:
    api_url, answer = bot
    answer["json"] = {"type": 4, "data": {"content": "hi", "embeds": [1, 2]}}
    code, out, err = cli("--api-url", api_url, "--guild", GUILD, "/ping")
    assert code == 1, out + err  # was 70: the text could not draw an embed that is 1
    assert "This interaction failed: " in out and "embeds" in out
    assert "internal error" not in err


def test_an_answer_that_is_not_json_is_not_called_no_response(
        cli: Any, bot: tuple[str, dict[str, Any]]) -> None:
    api_url, answer = bot
    answer.update(raw=b"<html>\x1b[2J\n::error title=FORGED::x</html>", status=200)
    code, out, _ = cli("--api-url", api_url, "--guild", GUILD, "/ping")
    assert code == 1
    assert "This interaction failed: " in out and "not JSON" in out
    assert "no response" not in out
    assert_inert(out)


def test_an_error_answer_quoted_in_the_failure_is_inert(
        cli: Any, bot: tuple[str, dict[str, Any]]) -> None:
    api_url, answer = bot
    answer.update(raw=b"boom \x1b[2J\n::error title=FORGED::x\n##[warning]y", status=500)
    code, out, _ = cli("--api-url", api_url, "--guild", GUILD, "/ping")
    assert code == 1 and "This interaction failed: " in out
    assert_inert(out)


@pytest.mark.parametrize(("refusal", "verified"), [(200, False), (400, True), (401, True)])
def test_the_endpoint_check_says_what_it_checks(cli: Any, monkeypatch: pytest.MonkeyPatch,
                                                bot: tuple[str, dict[str, Any]], refusal: int,
                                                verified: bool) -> None:
    """Any 4xx refuses a badly signed PING (hikari answers 400), and the message says so;
    Discord's "Security and Authorization" docs ask for 401."""
    api_url, answer = bot
    answer["json"] = {"type": 4, "data": {"content": "pong"}}
    with http_client(api_url, headers={"Authorization": f"Bot {BOT_TOKEN}"}) as api:
        key = api.get("/applications/@me").json()["verify_key"]

    async def endpoint(request: Request) -> JSONResponse:
        body = await request.body()
        if refusal == 200 or verify(key, body, request.headers["x-signature-timestamp"],
                                    request.headers["x-signature-ed25519"]):
            return JSONResponse({"type": 1} if json.loads(body)["type"] == 1 else answer["json"])
        return JSONResponse({"error": "bad signature"}, status_code=refusal)

    monkeypatch.setenv("DISCORD_BOT_TOKEN", BOT_TOKEN)
    with BackgroundServer(Starlette(routes=[Route("/", endpoint, methods=["POST"])])) as url:
        code, out, err = cli("--api-url", api_url, "--endpoint", f"{url}/", "--guild", GUILD,
                             "/ping")
    if verified:
        assert (code, err) == (0, "") and out.endswith("Reply:\n  pong\n")
        return
    assert (code, out) == (1, "")
    assert err == (f"error: cannot set the interactions endpoint URL {url}/: The specified "
                   "interactions endpoint url could not be verified: a badly signed PING got "
                   "HTTP 200: the endpoint must check X-Signature-Ed25519 and refuse it with a "
                   "4xx status (Discord's 'Security and Authorization' docs ask for 401).\n")


# -- a stand-in for the emulator: any exchange ------------------------------------------

INTERACTION = {"id": "9", "type": 2, "guild_id": GUILD, "channel_id": "8",
               "member": {"user": {"id": "7", "username": "owner"}},
               "data": {"id": "6", "name": "ping", "type": 1}}


@pytest.fixture
def stand_in() -> Iterator[tuple[str, dict[str, Any]]]:
    """A server with the emulator's admin routes that answers ``POST
    /_emulator/interactions`` with ``reply["status"]`` and ``reply["json"]``."""
    reply: dict[str, Any] = {"status": 200}

    async def interactions(request: Request) -> JSONResponse:
        return JSONResponse(reply["json"], status_code=reply["status"])

    app = Starlette(routes=[Route("/_emulator/interactions", interactions, methods=["POST"])])
    with BackgroundServer(app) as base:
        yield f"{base}/api/v10", reply


@pytest.mark.parametrize(("sent", "failure"), [
    ({"messages": [{"type": 20, "content": "hi", "embeds": [1, 2]}]},
     "messages[0].embeds[0]: 1 is not of type 'object'"),
    ({"messages": [{"type": 20, "embeds": [{"fields": [{"value": "v"}]}]}]},
     "messages[0].embeds[0].fields[0]: 'name' is a required property"),
    ({"response": {"type": 8, "data": {"choices": ["a"]}}},
     "response.data.choices[0]: 'a' is not of type 'object'"),
    ({"messages": [{"type": 20, "content": 5}]},
     "messages[0].content: 5 is not of type 'string', 'null'"),
])
def test_what_discord_would_refuse_is_a_failure(cli: Any, stand_in: tuple[str, dict[str, Any]],
                                                sent: dict[str, Any], failure: str) -> None:
    api_url, reply = stand_in
    reply["json"] = {"interaction": INTERACTION, "response": {"type": 4}, "failure": None,
                     "messages": [], **sent}
    code, out, err = cli("--api-url", api_url, "--application-id", "1", "/ping")
    assert (code, err) == (1, "")
    assert out.splitlines()[-1] == ("This interaction failed: Discord would refuse what the "
                                    f"application sent: 50035 Invalid Form Body ({failure})")
    code, out, _ = cli("--api-url", api_url, "--application-id", "1", "--format", "json", "/ping")
    document = json.loads(out)
    assert code == 1 and document["ok"] is False and failure in document["failure"]


@pytest.mark.parametrize(("exchange", "said"), [
    ({"interaction": []}, "interaction: [] is not of type 'object'"),
    ({"interaction": INTERACTION, "failure": 3}, "failure: 3 is not of type 'string', 'null'"),
    ({"response": None}, "the exchange: 'interaction' is a required property"),
])
def test_an_exchange_the_emulator_garbled_is_an_error(
        cli: Any, stand_in: tuple[str, dict[str, Any]], exchange: dict[str, Any],
        said: str) -> None:
    api_url, reply = stand_in
    reply["json"] = exchange
    code, out, err = cli("--api-url", api_url, "--application-id", "1", "/ping")
    assert (code, out) == (1, "")
    assert err == f"error: the emulator answered an exchange cmdsync cannot read: {said}\n"


def test_server_text_in_an_error_is_inert(cli: Any, stand_in: tuple[str, dict[str, Any]]
                                          ) -> None:
    api_url, reply = stand_in
    reply.update(status=500, json={"message": "boom \x1b[2J\n::error title=FORGED::x"})
    code, out, err = cli("--api-url", api_url, "--application-id", "1", "/ping")
    assert (code, out) == (1, "")
    assert err == ("error: the emulator answered HTTP 500: boom \\u001b[2J\\n::error "
                   "title=FORGED::x\n")
