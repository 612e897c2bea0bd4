"""The console's routes in-process (no browser): where they answer, their headers, what
they refuse, the live websocket, the secret filter, the permission table against
invoke's own answers, and the pieces (markdown, the Run form's command line)."""

from __future__ import annotations

import html.parser
import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.responses import JSONResponse, Response
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cmdsync.emulator import create_app
from cmdsync.emulator.console import markdown, run, views
from cmdsync.emulator.domain.objects import StoredCommand
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions.invocation import Invocation
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.emulator.seed import (
    ADMIN_ROLE_ID,
    APPLICATION_ID,
    BOT_TOKEN,
    CHANNEL_ID,
    GUILD_ID,
    MEMBER_ID,
    USER_ID,
)
from tests.support.bot import StandInBot, serve
from tests.support.emulator import BOT, EMBEDDED_SEED, USER, FakeClock, emulator

BASE = "http://127.0.0.1:8787"
LIVE = "ws://127.0.0.1:8787/console/live"
VOICE_ID = "222222222222222224"
PAGES = ["/console/commands", "/console/permissions", "/console/run", "/console/log",
         "/console/messages"]
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self' ws://127.0.0.1:8787; form-action 'self'; base-uri 'none'; "
          "frame-ancestors 'none'")
GUILD_COMMANDS = f"/api/v10/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"


@pytest.fixture
def instance() -> Emulator:
    return emulator()


@pytest.fixture
def client(instance: Emulator) -> Iterator[TestClient]:
    with TestClient(create_app(instance), base_url=BASE) as test_client:
        yield test_client


def commands(client: TestClient) -> dict[str, str]:
    answer = client.put(GUILD_COMMANDS, headers=BOT, json=[
        {"name": "ban", "description": "Ban a member", "default_member_permissions": "4",
         "options": [{"type": 6, "name": "user", "description": "Who", "required": True}]},
        {"name": "ping", "description": "Ping"}])
    assert answer.status_code == 200, answer.text
    return {c["name"]: c["id"] for c in answer.json()}


def test_the_root_url_leads_to_the_console(client: TestClient) -> None:
    for path in ("/", "/console", "/console/"):
        answer = client.get(path, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, "/console/commands")


@pytest.mark.parametrize("path", [*PAGES, "/console/static/console.js",
                                  "/console/static/console.css"])
def test_every_page_has_the_policy_and_no_inline_script_or_style(
        client: TestClient, path: str) -> None:
    commands(client)
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-security-policy"] == POLICY
    assert (answer.headers["x-frame-options"], answer.headers["cache-control"]) == \
        ("DENY", "no-store")
    if path.endswith((".js", ".css")):
        return
    found = _Inline()
    found.feed(answer.text)
    assert found.problems == []
    assert found.scripts == ["/console/static/console.js"]


class _Inline(html.parser.HTMLParser):
    """Inline scripts, event handler attributes and style attributes, which the policy
    would block."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        self.problems += [f"{tag} {name}" for name in names
                          if name.startswith("on") or name == "style"]
        if tag == "script":
            self.scripts.append(names.get("src") or "")
            self._in_script = not names.get("src")
        if tag == "style":
            self.problems.append("style element")

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.problems.append(f"inline script {data[:40]!r}")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False


@pytest.mark.parametrize("path", [*PAGES, "/console/static/console.js"])
def test_another_host_is_refused_as_by_the_admin_api(client: TestClient, path: str) -> None:
    answer = client.get(path, headers={"host": "rebound.example"})
    assert answer.status_code == 403
    assert answer.json()["message"].startswith("the admin API answers only requests for "
                                               "localhost, 127.0.0.1, [::1]")


def test_a_run_from_another_origin_or_as_a_plain_form_is_refused(client: TestClient) -> None:
    ids = commands(client)
    form = {"application": APPLICATION_ID, "guild": GUILD_ID, "command": ids["ping"]}
    other = client.post("/console/run", json=form, headers={"origin": "http://evil.example"})
    assert (other.status_code, other.json()["message"]) == (
        403, "the admin API refuses requests from another origin (http://evil.example)")
    plain = client.post("/console/run", data={"command": ids["ping"]}, headers={
        "origin": BASE})
    assert plain.status_code == 415
    own = client.post("/console/run", json=form, headers={"origin": BASE})
    assert own.status_code == 200
    assert own.json()["refused"].startswith("The client would not send it: no bot is "
                                            f"connected for application {APPLICATION_ID}")


class _Rows(html.parser.HTMLParser):
    """The text of each cell of the API requests table, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_requests = self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._in_requests = "requests" in (dict(attrs).get("class") or "").split()
        self._in_body = self._in_body or (self._in_requests and tag == "tbody")
        if self._in_body and tag == "tr":
            self.rows.append([])
        if self._in_body and tag == "td":
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False

    def handle_data(self, data: str) -> None:
        if self._in_body and self.rows and self.rows[-1]:
            self.rows[-1][-1] += f" {data}"


def _requests(client: TestClient, **query: str) -> list[list[str]]:
    found = _Rows()
    found.feed(client.get("/console/log", params=query).text)
    return [[" ".join(cell.split()) for cell in row] for row in found.rows]


def test_the_request_log_shows_each_answers_rate_limit_headers_and_429s() -> None:
    clock = FakeClock()
    instance = emulator(clock=clock, ratelimit=RateLimitConfig(global_limit=0, route_limit=1,
                                                               route_window=5))
    with TestClient(create_app(instance), base_url=BASE) as client:
        assert client.get(GUILD_COMMANDS, headers=BOT).status_code == 200
        clock.advance(2)
        assert client.get(GUILD_COMMANDS, headers=BOT).status_code == 429
        first, limited = (entry.ratelimit for entry in instance.log.entries())
        bucket = first["X-RateLimit-Bucket"]
        reset = f"{clock.now + 3:.3f}"
        assert first == {"X-RateLimit-Limit": "1", "X-RateLimit-Remaining": "0",
                         "X-RateLimit-Reset": reset, "X-RateLimit-Reset-After": "5.000",
                         "X-RateLimit-Bucket": bucket}
        assert limited == {**first, "X-RateLimit-Reset-After": "3.000", "Retry-After": "3",
                           "X-RateLimit-Scope": "user"}
        assert client.get("/_emulator/log").json()["requests"][1]["ratelimit"] == limited
        rows = _requests(client, status="429")
        assert len(rows) == 1
        assert rows[0][4].split()[-1] == bucket  # the route's bucket, then its hash
        assert rows[0][5:7] == ["429", (
            f"user limit: retry after 3 s 0 of 1 left, resets in 3.000 s Headers "
            f"X-RateLimit-Limit: 1 X-RateLimit-Remaining: 0 X-RateLimit-Reset: {reset} "
            "X-RateLimit-Reset-After: 3.000 X-RateLimit-Bucket: " + bucket
            + " Retry-After: 3 X-RateLimit-Scope: user")]
        assert len(_requests(client, q=bucket)) == 2  # the bucket's hash filters too
        assert [row[6] for row in _requests(client, q="/_emulator")] == []


def test_a_global_429_is_marked_global() -> None:
    instance = emulator(clock=FakeClock(), ratelimit=RateLimitConfig(global_limit=1,
                                                                     route_limit=0))
    with TestClient(create_app(instance), base_url=BASE) as client:
        assert client.get(GUILD_COMMANDS, headers=BOT).status_code == 200
        assert client.get(GUILD_COMMANDS, headers=BOT).status_code == 429
        assert instance.log.entries()[-1].ratelimit == {
            "Retry-After": "1", "X-RateLimit-Scope": "global", "X-RateLimit-Global": "true"}
        rows = _requests(client, status="429")
        assert rows[0][6] == ("global limit: retry after 1 s Headers "
                              "Retry-After: 1 X-RateLimit-Scope: global X-RateLimit-Global: true")
        assert _requests(client, status="2xx")[0][6] == "none"  # no bucket: no headers


def test_the_live_socket_says_when_the_state_changes(client: TestClient) -> None:
    with client.websocket_connect(LIVE, headers={"origin": BASE}) as live:
        assert live.receive_json() == {"type": "hello"}
        commands(client)
        assert live.receive_json() == {"type": "change"}


@pytest.mark.parametrize("headers", [{"origin": "http://evil.example"}, {},
                                     {"origin": "http://rebound.example",
                                      "host": "rebound.example"}])
def test_the_live_socket_refuses_other_origins_and_hosts(client: TestClient,
                                                         headers: dict[str, str]) -> None:
    with pytest.raises(WebSocketDisconnect) as refused, \
            client.websocket_connect(LIVE, headers=headers) as live:
        live.receive_json()
    assert refused.value.code == 1008


def test_a_secret_a_bot_wrote_is_hidden(client: TestClient) -> None:
    sent = client.post(f"/api/v10/channels/{CHANNEL_ID}/messages", headers=BOT,
                       json={"content": f"oops, my token is {BOT_TOKEN}"})
    assert sent.status_code == 200
    page = client.get("/console/messages").text
    assert BOT_TOKEN not in page and "oops, my token is [hidden]" in page


def test_each_cell_of_the_table_is_what_invoke_answers(client: TestClient,
                                                       instance: Emulator) -> None:
    """Overwrites of every kind, then each member and channel run through invoke: a
    refused cell is refused with the same words, an allowed one passes every check
    (and stops at the missing endpoint)."""
    ids = commands(client)
    overwrites = [{"id": VOICE_ID, "type": 3, "permission": False},
                  {"id": ADMIN_ROLE_ID, "type": 1, "permission": True},
                  {"id": MEMBER_ID, "type": 2, "permission": True}]
    put = client.put(f"{GUILD_COMMANDS}/{ids['ban']}/permissions", headers=USER,
                     json={"permissions": overwrites})
    assert put.status_code == 200, put.text
    app = instance.store.application(APPLICATION_ID)
    assert app is not None
    for name, command_id in ids.items():
        with instance.store.transaction() as db:
            command = instance.store.command(db, APPLICATION_ID, GUILD_ID, command_id)
        assert command is not None
        table = views.permission_table(instance.store, app, command, GUILD_ID)
        members = [row for row in table.rows if row.kind == "member"]
        assert [row.label for row in members] == [f"owner ({USER_ID})",
                                                  f"member ({MEMBER_ID})"]
        for row, user_id in zip(members, (USER_ID, MEMBER_ID)):
            for channel, cell in zip(table.channels, row.cells):
                answer = client.post("/_emulator/interactions", json={
                    "application_id": APPLICATION_ID, "guild_id": GUILD_ID,
                    "channel_id": channel["id"], "user_id": user_id,
                    "line": f"/{name}" + (f" user:<@{user_id}>" if name == "ban" else "")})
                message = answer.json()["message"]
                if cell.allowed:
                    assert "no bot is connected for application" in message, (name, cell)
                else:
                    assert message == cell.rule
    ban = views.permission_table(instance.store, app, _command(instance, ids["ban"]),
                                 GUILD_ID)
    member = next(row for row in ban.rows if row.label == f"member ({MEMBER_ID})")
    assert [(cell.allowed, cell.rule) for cell in member.cells] == [
        (True, (f"user {MEMBER_ID} may use /ban: the command-level overwrite for user "
               f"{MEMBER_ID} allows it")),
        (False, (f"/ban is not allowed in channel {VOICE_ID}: the command-level overwrite "
                "for this channel denies it"))]


def _command(instance: Emulator, command_id: str) -> StoredCommand:
    with instance.store.transaction() as db:
        command = instance.store.command(db, APPLICATION_ID, GUILD_ID, command_id)
    assert command is not None
    return command


def test_the_run_form_makes_the_line_invoke_reads(instance: Emulator) -> None:
    command = StoredCommand("9", APPLICATION_ID, GUILD_ID, 1, "shop", {}, "1")
    form: dict[str, Any] = {"guild": GUILD_ID, "user": MEMBER_ID, "locale": "fr",
                            "path": "buy", "options": {"item": "it's", "note": "",
                                                       "amount": "2"}}
    assert run.invocation_of(form, command) == Invocation(
        APPLICATION_ID, line="/shop buy item:'it'\"'\"'s' amount:2", guild_id=GUILD_ID,
        user_id=MEMBER_ID, locale="fr")
    focused = run.invocation_of({**form, "focused": "item"}, command)
    assert (focused.line, focused.autocomplete) == ("/shop buy amount:2 item:'it'\"'\"'s'",
                                                    True)


def test_markdown_is_discords_and_escaped() -> None:
    names = {("user", "1"): "ada", ("role", "2"): "Mods", ("channel", "3"): "general"}
    rendered = markdown.render(
        "**b** __u__ ~~s~~ <@1> <@&2> <#3> <@9> ||secret|| `<@1>` <script>x</script> "
        "[site](https://example.com) [bad](javascript:alert(1))",
        lambda kind, snowflake: names.get((kind, snowflake)))
    assert str(rendered) == (
        '<p><strong>b</strong> <u>u</u> <s>s</s> '
        '<span class="mention mention-user" title="user 1">@ada</span> '
        '<span class="mention mention-role" title="role 2">@Mods</span> '
        '<span class="mention mention-channel" title="channel 3">#general</span> '
        '<span class="mention mention-user" title="user 9">@unknown-user</span> '
        '<span class="spoiler" tabindex="0" role="button" aria-pressed="false" '
        'title="Spoiler: select to reveal">secret</span> <code>&lt;@1&gt;</code> '
        '&lt;script&gt;x&lt;/script&gt; <a href="https://example.com" '
        'rel="noopener noreferrer nofollow" target="_blank">site</a> '
        '[bad](javascript:alert(1))</p>\n')


def test_the_picker_resolves_names_as_the_client() -> None:
    body = {"name": "shop", "name_localizations": {"fr": "boutique", "en-GB": "shoppe"}}
    assert views.shown(body, "name", "fr") == views.Shown(
        "boutique", "name_localizations[fr]", True)
    assert views.shown(body, "name", "en-US") == views.Shown(
        "shoppe", "name_localizations[en-GB] (fallback of en-US)", True)
    assert views.shown(body, "name", "de") == views.Shown(
        "shop", "default name (no de localization)", False)


def test_global_commands_show_contexts_and_the_entry_point_its_menu() -> None:
    instance = emulator(seed=EMBEDDED_SEED)
    activity = "444444444444444444"
    with TestClient(create_app(instance), base_url=BASE) as client:
        created = client.post(f"/api/v10/applications/{activity}/commands", json={
            "name": "play", "description": "Play", "contexts": [0, 1], "nsfw": True},
            headers={"Authorization": "Bot activity-bot-token"})
        assert created.status_code == 201, created.text
        page = client.get("/console/commands", params={"application": activity}).text
    found = _Facts()
    found.feed(page)
    assert found.headings == ["Slash commands (1)", "/play NSFW",
                              "User context menu: Apps (0)",
                              "Message context menu: Apps (0)",
                              "Entry point (App Launcher)", "Launch"]
    play, launch = found.facts
    assert (play["contexts"], play["integration_types"], play["nsfw"]) == (
        "guild, bot_dm", "guild_install, user_install", "yes")
    assert (launch["contexts"], launch["handler"]) == (
        "every context (null)", "DISCORD_LAUNCH_ACTIVITY")


class _Facts(html.parser.HTMLParser):
    """The h2 and h3 texts of a page, and the ``dt``/``dd`` facts of each command."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.facts: list[dict[str, str]] = []
        self._tag: str | None = None
        self._text: list[str] = []
        self._term = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h2", "h3", "dt", "dd"):
            self._tag, self._text = tag, []
        if tag == "dl":
            self.facts.append({})

    def handle_data(self, data: str) -> None:
        if self._tag:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag != self._tag:
            return
        text = " ".join("".join(self._text).split())
        if tag in ("h2", "h3"):
            self.headings.append(text)
        elif tag == "dt":
            self._term = text
        else:
            self.facts[-1][self._term] = text
        self._tag = None


@pytest.mark.parametrize(("answer", "shown"), [
    ({"type": 9, "data": {"custom_id": "feedback", "title": "Your feedback", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "text", "label": "What happened?",
                                    "style": 2, "required": True}]}]}},
     ["Response: 9 MODAL", "Your feedback", "What happened?", "(required)", "Submit"]),
    ({"type": 4, "data": {"content": "Pick one", "flags": 64, "components": [
        {"type": 1, "components": [
            {"type": 2, "style": 1, "label": "Yes", "custom_id": "y"},
            {"type": 2, "style": 5, "label": "Docs", "url": "https://example.com"}]}]}},
     ["Response: 4 CHANNEL_MESSAGE_WITH_SOURCE", "Pick one", "Yes", "Docs ↗",
      "Only you can see this"]),
])
def test_a_modal_and_components_are_shown_as_the_client_shows_them(
        instance: Emulator, client: TestClient, answer: dict[str, Any],
        shown: list[str]) -> None:
    ids = commands(client)
    verify_key = client.get("/api/v10/applications/@me", headers=BOT).json()["verify_key"]
    with serve(StandInBot(verify_key)) as bot:
        bot.answer = lambda payload: JSONResponse(answer)
        client.patch("/api/v10/applications/@me", headers=BOT,
                     json={"interactions_endpoint_url": bot.url}).raise_for_status()
        ran = client.post("/console/run", json={
            "application": APPLICATION_ID, "guild": GUILD_ID, "command": ids["ping"]})
    interaction = ran.json()["interaction"]
    page = client.get("/console/run", params={"guild": GUILD_ID, "command": ids["ping"],
                                              "interaction": interaction}).text
    exchange = page[page.index('<section id="exchange"'):page.index("Raw JSON:")]
    text = [" ".join(part.split()) for part in re.split(r"<[^>]+>", exchange)]
    assert [part for part in text if part in shown] == shown


def test_a_run_in_a_dm_is_checked_as_invoke_checks_it(client: TestClient) -> None:
    created = client.post(f"/api/v10/applications/{APPLICATION_ID}/commands", headers=BOT,
                          json={"name": "hello", "description": "Hi", "contexts": [0]})
    assert created.status_code == 201, created.text
    invoked = client.post("/_emulator/interactions", json={
        "application_id": APPLICATION_ID, "user_id": MEMBER_ID, "line": "/hello"})
    ran = client.post("/console/run", json={
        "application": APPLICATION_ID, "guild": "", "user": MEMBER_ID,
        "command": created.json()["id"]})
    assert invoked.json()["message"] == "/hello does not show in a bot_dm: its contexts are guild"
    assert ran.json() == {"refused": f"The client would not send it: {invoked.json()['message']}"}


def _text(html_text: str) -> str:
    return " ".join(" ".join(re.split(r"<[^>]+>", html_text)).split())


def test_a_failure_shows_whoever_ran_the_interaction(client: TestClient) -> None:
    """An interaction run through the admin API (what ``cmdsync invoke`` sends) keeps
    its failure: the Log and the Run page show it, as for a run from the console."""
    ids = commands(client)
    verify_key = client.get("/api/v10/applications/@me", headers=BOT).json()["verify_key"]
    with serve(StandInBot(verify_key)) as bot:
        client.patch("/api/v10/applications/@me", headers=BOT,
                     json={"interactions_endpoint_url": bot.url}).raise_for_status()
        bot.answer = lambda payload: Response("pong", media_type="text/plain")
        invoked = client.post("/_emulator/interactions", json={
            "application_id": APPLICATION_ID, "guild_id": GUILD_ID, "line": "/ping"})
    failure = ("the application answered HTTP 200 with a body of 4 bytes that is not JSON "
               "(NaN and Infinity are not JSON either): send the response as a JSON object")
    assert invoked.json()["failure"] == failure
    interaction = invoked.json()["interaction"]["id"]
    assert client.get(f"/_emulator/interactions/{interaction}").json()["failure"] == failure
    log = client.get("/console/log").text
    summary = log[log.index(f'id="x-{interaction}"'):]
    summary = _text(summary[:summary.index("</details>")])
    assert re.search(r"/ping by owner · guild \d+ · no response · 0 messages · failed "
                     "Failed: the application answered HTTP 200 with a body of 4 bytes", summary)
    run_page = client.get("/console/run", params={"guild": GUILD_ID, "command": ids["ping"],
                                                  "interaction": interaction}).text
    assert f'<p class="failure" role="alert">{failure}</p>' in run_page


def test_an_undelivered_interaction_says_why_in_the_log(client: TestClient) -> None:
    commands(client)
    refused = client.post("/_emulator/interactions", json={
        "application_id": APPLICATION_ID, "guild_id": GUILD_ID, "line": "/ping"})
    assert refused.status_code == 400
    assert "Failed: not delivered: no bot is connected for application " \
           "111111111111111111" in _text(client.get("/console/log").text)


def test_a_failure_is_kept_in_the_state_file(tmp_path: Any) -> None:
    """``cmdsync invoke --local`` and ``cmdsync emulator --local`` are two processes on one
    state file: the failure one records, the other reads."""
    from cmdsync.emulator import new_emulator
    from cmdsync.emulator.interactions import responses as interactions

    state = str(tmp_path / "local.sqlite")
    runner, console = new_emulator(state=state), new_emulator(state=state)
    try:
        with TestClient(create_app(runner), base_url=BASE) as client:
            commands(client)
            verify_key = client.get("/api/v10/applications/@me",
                                    headers=BOT).json()["verify_key"]
            with serve(StandInBot(verify_key)) as bot:
                client.patch("/api/v10/applications/@me", headers=BOT,
                             json={"interactions_endpoint_url": bot.url}).raise_for_status()
                bot.answer = lambda payload: JSONResponse({"type": 4, "data": {}})
                ran = interactions.invoke(
                    runner.store, Invocation(APPLICATION_ID, line="/ping", guild_id=GUILD_ID),
                    now=runner.clock(), limits=runner.limits)
        failure = ran["failure"]
        assert failure is not None and failure.startswith("Discord would refuse the response: "
                                                          "50006")
        assert interactions.exchange(console.store, ran["interaction"]["id"])["failure"] == \
            failure
    finally:
        runner.store.close()
        console.store.close()
