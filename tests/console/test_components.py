"""The components of a bot's answer used on the Run page, in headless Chromium.

A stand-in bot (:class:`tests.support.bot.StandInBot`) answers ``/ping`` with a
message holding buttons (one disabled, two links: one to the web, one
``javascript:``), a string select and a user select; a click on "Again" with an
UPDATE_MESSAGE (7) that edits it, a choice with an ephemeral message that has a
button of its own, and ``/feedback`` with a modal whose submission it answers
naming the value typed. Each test clicks, chooses or fills in as a user would
and checks what the page then shows: the updated message, the answer to a
choice, the modal's answer, disabled and link buttons that send nothing, and
the emulator's refusals in its own words. ``POST /console/act`` is then attacked
over HTTP as ``POST /console/run`` is (another origin, another host, a plain
form, a command line smuggled in).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.responses import JSONResponse, Response

from cmdsync.emulator import Limits, create_app, new_emulator
from cmdsync.emulator.seed import APPLICATION_ID, BOT_TOKEN, GUILD_ID, MEMBER_ID, USER_ID
from cmdsync.emulator.server import BackgroundServer
from tests.console.world import Watched, seed
from tests.support.bot import StandInBot, serve

pytestmark = pytest.mark.slow  # a browser, servers and a bot: the full suite runs it

TIMEOUT = 15_000  # ms an answer may take to show on a busy machine
COMMANDS = f"/api/v10/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"
PING = [
    {"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Again", "custom_id": "again"},
        {"type": 2, "style": 2, "label": "Off", "custom_id": "off", "disabled": True},
        {"type": 2, "style": 5, "label": "Docs", "url": "https://example.com/docs"},
        {"type": 2, "style": 5, "label": "Sneaky", "url": "javascript:alert(1)"}]},
    {"type": 1, "components": [
        {"type": 3, "custom_id": "colour", "placeholder": "Pick a colour", "options": [
            {"label": "Red", "value": "red"}, {"label": "Green", "value": "green"}]}]},
    {"type": 1, "components": [
        {"type": 5, "custom_id": "who", "placeholder": "Pick a member"}]}]
MODAL = {"custom_id": "feedback", "title": "Feedback", "components": [
    {"type": 1, "components": [{"type": 4, "custom_id": "opinion", "label": "Your opinion",
                                "style": 1, "required": True, "max_length": 100}]},
    {"type": 18, "label": "Details", "description": "Anything else to say",
     "component": {"type": 4, "custom_id": "details", "style": 2, "required": False}}]}


def answer(payload: dict[str, Any]) -> Response:
    """The stand-in bot: /ping, /feedback, and what their components and modal send."""
    data = payload["data"]
    user = ((payload.get("member") or {}).get("user") or payload.get("user"))["username"]
    if payload["type"] == 2:
        if data["name"] == "feedback":
            return JSONResponse({"type": 9, "data": MODAL})
        return JSONResponse({"type": 4, "data": {"content": "pong", "components": PING}})
    if payload["type"] == 5:  # MODAL_SUBMIT: the text inputs' values by custom_id
        values = {c["custom_id"]: c["value"] for row in data["components"]
                  for c in row.get("components") or [row.get("component") or {}]
                  if "custom_id" in c}
        return JSONResponse({"type": 4, "data": {
            "content": f"Thanks for your feedback: {values['opinion']} "
                       f"({len(values['details'])} characters of details)"}})
    if data["custom_id"] == "again":
        return JSONResponse({"type": 7, "data": {"content": f"pong, again for {user}"}})
    if data["custom_id"] == "colour":
        return JSONResponse({"type": 4, "data": {
            "content": f"You chose {', '.join(data['values'])}", "flags": 64,
            "components": [{"type": 1, "components": [
                {"type": 2, "style": 3, "label": "Thanks", "custom_id": "thanks"}]}]}})
    if data["custom_id"] == "who":
        return JSONResponse({"type": 4, "data": {"content": f"You picked <@{data['values'][0]}>"}})
    return JSONResponse({"type": 4, "data": {"content": f"{user} clicked {data['custom_id']}"}})


@dataclass
class Bench:
    """The served emulator (``base``), the bot, and the guild commands' ids by name."""

    base: str
    emulator: Any
    bot: StandInBot
    commands: dict[str, str] = field(default_factory=dict)

    def run_page(self, name: str) -> str:
        return str(httpx.URL(f"{self.base}/console/run", params={
            "guild": GUILD_ID, "command": self.commands[name]}))


@pytest.fixture(scope="module")
def bench() -> Iterator[Bench]:
    emulator = new_emulator(seed=seed(), limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(emulator)) as base, \
            httpx.Client(base_url=base, timeout=30,
                         headers={"Authorization": f"Bot {BOT_TOKEN}"}) as api:
        verify_key = api.get("/api/v10/applications/@me").json()["verify_key"]
        with serve(StandInBot(verify_key)) as bot:
            bot.answer = answer
            patched = api.patch("/api/v10/applications/@me",
                                json={"interactions_endpoint_url": bot.url})
            assert patched.status_code == 200, patched.text
            put = api.put(COMMANDS, json=[
                {"name": "ping", "description": "Ping, with buttons and selects"},
                {"name": "feedback", "description": "Tell us, in a modal"}])
            assert put.status_code == 200, put.text
            yield Bench(base, emulator, bot, {c["name"]: c["id"] for c in put.json()})


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def ping(bench: Bench, tab: Any) -> Any:
    """Run /ping on the Run page; its message, once shown."""
    tab.goto(bench.run_page("ping"))
    tab.get_by_role("button", name="Run /ping").click()
    message = tab.locator("#exchange .message")
    expect(message.locator(".content")).to_have_text("pong", timeout=TIMEOUT)
    return message


def axe(tab: Any) -> list[Any]:
    found = tab.evaluate("async () => (await axe.run(document)).violations.map("
                         "v => ({id: v.id, impact: v.impact, help: v.help, "
                         "nodes: v.nodes.map(n => n.target.join(' '))}))")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_a_click_updates_the_message_in_place(bench: Bench, page: Watched) -> None:
    tab = page.page
    message = ping(bench, tab)
    message_id = message.get_attribute("id").removeprefix("message-")
    assert axe(tab) == []
    message.get_by_role("button", name="Again").click()
    expect(tab.locator(".response-type")).to_have_text("Response: 7 UPDATE_MESSAGE",
                                                       timeout=TIMEOUT)
    updated = tab.get_by_label("The message the interaction updated").locator(".message")
    expect(updated).to_have_attribute("id", f"message-{message_id}")
    expect(updated.locator(".content")).to_have_text("pong, again for owner")
    expect(updated.locator(".edited")).to_have_text("(edited)")
    expect(updated.get_by_role("button", name="Again")).to_be_enabled()  # kept, usable
    expect(tab.locator("#exchange-heading")).to_be_focused()
    sent = bench.bot.requests[-1]
    assert (sent["type"], sent["data"], sent["message"]["id"]) == (
        3, {"custom_id": "again", "component_type": 2}, message_id)
    assert re.search(r"interaction=\d+", tab.url)
    log = httpx.get(f"{bench.base}/console/log").text
    assert f"<code>component again on message {message_id}</code> by owner" in log
    # the component interaction's token is a credential: in no page and no answer
    with bench.emulator.store.transaction() as db:
        tokens = [row[0] for row in db.execute("SELECT token FROM interactions")]
    text = "\n".join([tab.content(), *page.traffic])
    assert tokens and [token for token in tokens if token in text] == []
    assert page.problems == []


def test_disabled_and_link_buttons_send_nothing(bench: Bench, page: Watched) -> None:
    tab = page.page
    message = ping(bench, tab)
    asked = len(bench.bot.requests)
    expect(message.get_by_role("button", name="Off")).to_be_disabled()
    docs = message.get_by_role("link", name="Docs ↗")
    expect(docs).to_have_attribute("href", "https://example.com/docs")
    expect(docs).to_have_attribute("rel", "noopener noreferrer nofollow")
    # a link of another scheme is no link: a button that does nothing
    expect(message.get_by_role("link", name=re.compile("Sneaky"))).to_have_count(0)
    expect(message.get_by_role("button", name="Sneaky ↗")).to_be_disabled()
    assert "javascript:" not in message.inner_html()
    off = message.get_by_role("button", name="Off")
    assert off.get_attribute("data-component") is None
    off.click(force=True)  # clicked anyway: a disabled button fires nothing
    message.get_by_role("button", name="Again").click()  # then one that sends
    expect(tab.locator(".response-type")).to_have_text("Response: 7 UPDATE_MESSAGE",
                                                       timeout=TIMEOUT)
    assert [sent["data"]["custom_id"] for sent in bench.bot.requests[asked:]] == ["again"]
    expect(tab.locator("#action-refusal")).to_be_empty()
    assert page.problems == []


def test_a_choice_in_a_select_and_in_a_user_select(bench: Bench, page: Watched) -> None:
    tab = page.page
    message = ping(bench, tab)
    message.get_by_label("Pick a colour").select_option(label="Green")
    message.locator("form[data-custom-id=colour]").get_by_role("button", name="Choose").click()
    answered = tab.locator("#exchange .message")
    expect(answered.locator(".content")).to_have_text("You chose green", timeout=TIMEOUT)
    expect(answered.locator(".ephemeral-note")).to_have_text("Only you can see this")
    assert bench.bot.requests[-1]["data"] == {"custom_id": "colour", "component_type": 3,
                                              "values": ["green"]}

    message = ping(bench, tab)
    message.get_by_label("Pick a member").select_option(label="@member")
    message.locator("form[data-custom-id=who]").get_by_role("button", name="Choose").click()
    expect(tab.locator("#exchange .message .content")).to_have_text(
        "You picked @member", timeout=TIMEOUT)
    data = bench.bot.requests[-1]["data"]
    assert (data["values"], list(data["resolved"]["users"])) == ([MEMBER_ID], [MEMBER_ID])
    assert page.problems == []


def test_a_modal_is_a_form_whose_submission_the_bot_answers(
        bench: Bench, page: Watched) -> None:
    tab = page.page
    tab.goto(bench.run_page("feedback"))
    tab.get_by_role("button", name="Run /feedback").click()
    modal = tab.get_by_role("form", name="Feedback")
    expect(modal).to_be_visible(timeout=TIMEOUT)
    expect(tab.locator(".response-type")).to_have_text("Response: 9 MODAL")
    opinion = modal.get_by_label("Your opinion (required)")
    expect(opinion).to_have_attribute("maxlength", "100")
    expect(modal.get_by_label("Details")).to_have_accessible_description("Anything else to say")
    assert axe(tab) == []
    # left empty, the required input is refused in the emulator's words
    modal.get_by_role("button", name="Submit").click()
    expect(tab.locator("#action-refusal")).to_have_text(
        "The client would not send it: text input 'opinion' is required: give it a value",
        timeout=TIMEOUT)
    opinion.fill("Great tool")
    modal.get_by_label("Details").fill("More selects, please")
    modal.get_by_role("button", name="Submit").click()
    expect(tab.locator("#exchange .message .content")).to_have_text(
        "Thanks for your feedback: Great tool (20 characters of details)", timeout=TIMEOUT)
    expect(tab.locator("#action-refusal")).to_be_empty()
    assert bench.bot.requests[-1]["type"] == 5
    assert page.problems == []


def test_a_refusal_shows_the_emulators_reason(bench: Bench, page: Watched) -> None:
    """The ephemeral answer to a choice is the owner's: the member cannot click its
    button, and the page says why as ``POST /_emulator/interactions`` does."""
    tab = page.page
    message = ping(bench, tab)
    message.get_by_label("Pick a colour").select_option(label="Red")
    message.locator("form[data-custom-id=colour]").get_by_role("button", name="Choose").click()
    ephemeral = tab.locator("#exchange .message.ephemeral")
    expect(ephemeral.locator(".content")).to_have_text("You chose red", timeout=TIMEOUT)
    ephemeral_id = ephemeral.get_attribute("id").removeprefix("message-")
    asked = len(bench.bot.requests)
    invoked = httpx.post(f"{bench.base}/_emulator/interactions", json={
        "application_id": APPLICATION_ID, "kind": "component", "message_id": ephemeral_id,
        "custom_id": "thanks", "user_id": MEMBER_ID})
    assert invoked.status_code == 400
    assert invoked.json()["refusal"] == "not_yours"
    tab.get_by_label("User", exact=True).select_option(MEMBER_ID)
    ephemeral.get_by_role("button", name="Thanks").click()
    expect(tab.locator("#action-refusal")).to_have_text(
        f"The client would not send it: {invoked.json()['message']}", timeout=TIMEOUT)
    assert f"only user {USER_ID} sees it, not {MEMBER_ID}" in invoked.json()["message"]
    assert len(bench.bot.requests) == asked  # the bot heard nothing
    # the owner, whose message it is, may: the refusal goes, the answer shows
    tab.get_by_label("User", exact=True).select_option(USER_ID)
    ephemeral.get_by_role("button", name="Thanks").click()
    expect(tab.locator("#exchange .message .content")).to_have_text(
        "owner clicked thanks", timeout=TIMEOUT)
    expect(tab.locator("#action-refusal")).to_be_empty()
    assert page.problems == []


# -- attacks on POST /console/act -------------------------------------------------------


def test_an_action_from_another_origin_host_or_as_a_plain_form_is_refused(
        bench: Bench) -> None:
    with httpx.Client(base_url=bench.base, timeout=30) as site:
        ran = site.post("/console/run", json={"application": APPLICATION_ID,
                                              "guild": GUILD_ID,
                                              "command": bench.commands["ping"]})
        interaction = ran.json()["interaction"]
        message_id = site.get(f"/_emulator/interactions/{interaction}").json()[
            "messages"][0]["id"]
        asked = len(bench.bot.requests)
        action = {"application_id": APPLICATION_ID, "kind": "component",
                  "message_id": message_id, "custom_id": "again", "user_id": USER_ID,
                  "locale": "en-US"}
        other = site.post("/console/act", json=action, headers={"origin": "http://evil.example"})
        assert (other.status_code, other.json()["message"]) == (
            403, "the admin API refuses requests from another origin (http://evil.example)")
        rebound = site.post("/console/act", json=action, headers={"host": "rebound.example"})
        assert rebound.status_code == 403
        assert rebound.json()["message"].startswith("the admin API answers only requests for "
                                                    "localhost, 127.0.0.1, [::1]")
        for form in ({"data": action}, {"content": b'{"kind": "component"}',
                                        "headers": {"content-type": "text/plain"}}):
            plain = site.post("/console/act", **form)  # what a page elsewhere could send
            assert plain.status_code == 415, plain.text
        smuggled = site.post("/console/act", json={
            "application_id": APPLICATION_ID, "line": "/ping", "guild_id": GUILD_ID})
        assert smuggled.json() == {"refused": "The client would not send it: kind must be "
                                   "one of component, modal_submit (a command runs with "
                                   "POST /console/run)"}
        extra = site.post("/console/act", json={**action, "guild_id": GUILD_ID})
        assert extra.json()["refused"].startswith(
            "The client would not send it: unknown field 'guild_id'")
        assert site.post("/console/act", content=b"[1]", headers={
            "content-type": "application/json"}).status_code == 400
        assert len(bench.bot.requests) == asked  # none of them reached the bot
        own = site.post("/console/act", json=action, headers={"origin": bench.base})
        assert own.status_code == 200, own.text
        assert own.json()["failure"] is None
        assert own.headers["content-security-policy"].startswith("default-src 'none'")
