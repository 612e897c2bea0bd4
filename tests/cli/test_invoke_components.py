"""`cmdsync invoke` clicks, chooses and submits (issue 36, item 1): a button by label, a
select's values and a modal's text inputs, each on what a bot sent, against a served
emulator and an interactions endpoint that checks Discord's signatures with Discord's
own ``discord-interactions`` package (tests/support/bot.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.responses import JSONResponse

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.server import BackgroundServer
from tests.support.bot import StandInBot, serve
from tests.support.cli import clean_environment, run
from tests.support.emulator import BOT, GUILD, GUILD_COMMANDS, chat, emulator, http_client

pytestmark = pytest.mark.slow  # real servers: the full suite runs it

BUTTONS = [{"type": 1, "components": [
    {"type": 2, "style": 1, "label": "Press", "custom_id": "press"}]},
    {"type": 1, "components": [{"type": 3, "custom_id": "size", "options": [
        {"label": "Small", "value": "s"}, {"label": "Large", "value": "l"}]}]}]
MODAL = {"custom_id": "feedback", "title": "Feedback", "components": [
    {"type": 1, "components": [{"type": 4, "custom_id": "name", "label": "Your name",
                                "style": 1}]}]}


def answer(payload: dict[str, Any]) -> JSONResponse:
    """/ping: a button and a select; a click or choice updates the message; /form opens a
    modal, whose submission is thanked."""
    data = payload.get("data") or {}
    if payload["type"] == 2 and data.get("name") == "form":
        return JSONResponse({"type": 9, "data": MODAL})
    if payload["type"] == 2:
        return JSONResponse({"type": 4, "data": {"content": "pong", "components": BUTTONS}})
    if payload["type"] == 3:
        said = data.get("values") or [data["custom_id"]]
        return JSONResponse({"type": 7, "data": {"content": f"got {','.join(said)}",
                                                 "components": []}})
    typed = data["components"][0]["components"][0]["value"]
    return JSONResponse({"type": 4, "data": {"content": f"thanks {typed}"}})


@pytest.fixture
def base() -> Iterator[str]:
    instance = emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(instance)) as url, \
            http_client(f"{url}/api/v10", headers=BOT) as api:
        assert api.put(GUILD_COMMANDS, json=[chat("ping"), chat("form")]).status_code == 200
        with serve(StandInBot(api.get("/applications/@me").json()["verify_key"])) as stub:
            stub.answer = answer
            assert api.patch("/applications/@me", json={
                "interactions_endpoint_url": stub.url}).status_code == 200
            yield f"{url}/api/v10"


@pytest.fixture
def cli(base: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)

    def invoke(*args: str) -> tuple[int, str, str]:
        return run(capsys, "invoke", "--api-url", base, *args)

    return invoke


def exchange(cli: Any, *args: str) -> dict[str, Any]:
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, (out, err)
    result: dict[str, Any] = json.loads(out)
    return result


def test_a_button_is_clicked_by_label_and_a_select_chosen(cli: Any) -> None:
    pinged = exchange(cli, "--guild", GUILD, "/ping")
    message = pinged["messages"][0]["id"]
    clicked = exchange(cli, "--on", message, "--click", "Press")
    assert clicked["interaction"]["type"] == 3
    assert clicked["interaction"]["data"]["custom_id"] == "press"
    assert clicked["response"]["type"] == 7
    assert clicked["updated"]["content"] == "got press"
    again = exchange(cli, "--guild", GUILD, "/ping")["messages"][0]["id"]
    chosen = exchange(cli, "--on", again, "--choose", "Large")
    assert chosen["interaction"]["data"]["values"] == ["l"]
    assert chosen["updated"]["content"] == "got l"


def test_a_modal_is_submitted_with_its_fields(cli: Any) -> None:
    opened = exchange(cli, "--guild", GUILD, "/form")
    assert opened["response"]["type"] == 9
    sent = exchange(cli, "--submit", opened["interaction"]["id"], "--field", "Your name=Ada")
    assert sent["interaction"]["type"] == 5
    assert [m["content"] for m in sent["messages"]] == ["thanks Ada"]


def test_what_a_user_could_not_do_is_refused(cli: Any) -> None:
    message = exchange(cli, "--guild", GUILD, "/ping")["messages"][0]["id"]
    code, out, err = cli("--on", message, "--click", "Nope")
    assert (code, out) == (1, "") and "has no component with a button labelled 'Nope'" in err


@pytest.mark.parametrize(("args", "said"), [
    (["--click", "Press"], "--click, --custom-id and --choose act on a message: give --on"),
    (["--field", "a=b", "/ping"], "--field fills a modal: give --submit INTERACTION_ID"),
    (["--on", "1", "--click", "x", "--choose", "y"], "--click is a button, --choose a"),
    (["--on", "1"], "--on needs --click LABEL, --custom-id ID or --choose VALUE"),
    (["--submit", "1", "--field", "novalue"], "--field 'novalue': give KEY=VALUE"),
    (["--on", "abc", "--click", "x"], "--on 'abc' is not an id"),
    (["--on", "1", "--click", "x", "/ping"], "give one of: a command line"),
])
def test_flags_that_do_not_go_together(cli: Any, args: list[str], said: str) -> None:
    code, out, err = cli(*args)
    assert code == 2 and said in err, (out, err)


def test_the_text_says_what_was_clicked_and_shows_the_message_updated(cli: Any) -> None:
    message = exchange(cli, "--guild", GUILD, "/ping")["messages"][0]["id"]
    code, out, err = cli("--on", message, "--click", "Press")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f'Clicked "Press" (press) on message {message} as ')
    assert lines[1:] == ["Response: UPDATE_MESSAGE", "Message (edited):", "  got press"], out


def test_the_text_names_what_can_be_clicked_chosen_and_submitted(cli: Any) -> None:
    code, out, err = cli("--guild", GUILD, "/ping")
    assert code == 0, err
    shown = out.splitlines()[-1]
    assert re.fullmatch(r'  \[2 component row\(s\) on message \d+: button "Press" \(press\); '
                        r"select \(size\): Small, Large\]", shown), out
    code, out, err = cli("--guild", GUILD, "/form")
    assert code == 0, err
    assert re.fullmatch(r'  text inputs: "Your name" \(name\); submit it with --submit \d+ '
                        r"--field KEY=VALUE", out.splitlines()[-1]), out
