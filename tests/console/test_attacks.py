"""Attacks on the console, made for real over HTTP against a served emulator.

- Secrets in every encoding: a seed whose bot token and client secret hold
  the characters HTML, URLs and JSON escape (``emu&bot<tok>en-1``), and Bearer
  tokens of one and three characters; a bot writes them, and the interaction
  tokens, into messages, embeds, components, links, a follow-up and
  autocomplete choices; a guild and a command are named with them. No page
  and no JSON answer shows any of them in any form (raw, HTML-escaped,
  percent-encoded, JSON-escaped, or one of those inside another), and every
  page still shows its commands and its own links.
- Embeds whose ``url``, ``image`` or ``thumbnail`` is ``javascript:`` or
  ``data:text/html``: no link or image source of the Messages and Run pages
  has such a scheme; they are shown as text.
"""

from __future__ import annotations

import html
import html.parser
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, unquote_plus

import httpx
from starlette.responses import JSONResponse, Response

from cmdsync.emulator import Limits
from cmdsync.emulator.seed import APPLICATION_ID, CHANNEL_ID, GUILD_ID, default_seed
from tests.support.bot import StandInBot, serve
from tests.support.emulator import FakeClock, emulator, http_client, http_server

BOT_TOKEN = "emu&bot<tok>en-1"  # HTML's special characters
CLIENT_SECRET = 'cs"1\\2/é +y&z'  # JSON's, a URL's, and one that is not ASCII
TINY = "<&>"  # shorter than 6 characters, each of them special
ONE = "a"  # one letter: hidden where it is a word, and the page still whole
OTHER_USER = "333333333333333339"
COMMANDS = f"/api/v10/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"
Answer = Callable[[dict[str, Any]], Response]


def seed(bot_token: str = BOT_TOKEN) -> dict[str, Any]:
    data = default_seed()
    data["applications"][0].update(bot_token=bot_token, client_secret=CLIENT_SECRET)
    data["users"][0]["bearer_token"] = ONE
    data["users"].append({"id": OTHER_USER, "username": "tiny", "bearer_token": TINY,
                          "application_id": APPLICATION_ID})
    data["guilds"][0]["name"] = f"Guild {bot_token}"
    return data


@contextmanager
def served(data: dict[str, Any], answer: Answer) -> Iterator[httpx.Client]:
    """The emulator under uvicorn seeded with ``data``, on a fake clock, and a bot at its
    interactions endpoint answering ``answer``; a client of the emulator's root, the
    bot's ``Authorization`` header set."""
    bot = {"Authorization": f"Bot {data['applications'][0]['bot_token']}"}
    # a generous interaction deadline (real seconds): a busy machine never fails a bot
    with http_server(emulator(clock=FakeClock(), seed=data,
                              limits=Limits(interaction_deadline=30))) as base, \
            http_client(base, headers=bot) as site:
        verify_key = site.get("/api/v10/applications/@me").json()["verify_key"]
        with serve(StandInBot(verify_key)) as stand_in:
            stand_in.answer = answer
            endpoint = site.patch("/api/v10/applications/@me",
                                  json={"interactions_endpoint_url": stand_in.url})
            assert endpoint.status_code == 200, endpoint.text
            yield site


def put_commands(site: httpx.Client, *extra: dict[str, Any]) -> dict[str, str]:
    answer = site.put(COMMANDS, json=[
        {"name": "ban", "description": "Ban a member",
         "options": [{"type": 6, "name": "user", "description": "Who", "required": True}]},
        {"name": "find", "description": "Find a thing", "options": [
            {"type": 3, "name": "what", "description": "What", "autocomplete": True}]},
        {"name": "ping", "description": "Check the bot"}, *extra])
    assert answer.status_code == 200, answer.text
    return {c["name"]: c["id"] for c in answer.json()}


def run(site: httpx.Client, command_id: str, **form: Any) -> dict[str, Any]:
    """``POST /console/run`` as the Run page's script sends it."""
    ran = site.post("/console/run", json={"application": APPLICATION_ID, "guild": GUILD_ID,
                                          "command": command_id, **form})
    assert ran.status_code == 200, ran.text
    return dict(ran.json())


# -- secrets in every encoding -----------------------------------------------------------


def leaky(secrets: list[str]) -> Answer:
    """A bot that writes ``secrets`` and the interaction's token everywhere it can."""
    def answer(payload: dict[str, Any]) -> Response:
        said = " ".join([*secrets, payload["token"]])
        if payload["type"] == 4:  # autocomplete
            return JSONResponse({"type": 8, "data": {"choices": [
                {"name": f"tok {payload['token']}", "value": CLIENT_SECRET}]}})
        return JSONResponse({"type": 4, "data": {
            "content": f"said {said} `{said}` [site](<https://example.com/?t={CLIENT_SECRET}>)"
                       f" bearer {ONE} here",
            "embeds": [{"title": said, "url": f"https://example.com/{BOT_TOKEN}",
                        "description": said, "footer": {"text": said},
                        "author": {"name": said}, "fields": [{"name": said, "value": said}],
                        "image": {"url": f"https://example.com/i.png?t={CLIENT_SECRET}"}}],
            "components": [{"type": 1, "components": [
                {"type": 2, "style": 1, "label": " ".join(secrets), "custom_id": "c"}]}]}})

    return answer


def encodings_found(text: str, secret: str) -> list[str]:
    """The forms of ``secret`` in ``text``, decoded as a browser would: as is, its HTML
    entities decoded, then its percent-escapes (``+`` as a space or not); JSON's
    escapes of the secret in each."""
    decoded = html.unescape(text)
    views = {"as served": text, "HTML-decoded": decoded,
             "HTML- and URL-decoded": unquote(decoded),
             "HTML- and form-decoded": unquote_plus(decoded)}
    forms = {"raw": secret, "JSON-escaped": json.dumps(secret)[1:-1],
             "JSON-escaped (UTF-8)": json.dumps(secret, ensure_ascii=False)[1:-1]}
    return [f"{form} {how}" for how, view in views.items() for form, value in forms.items()
            if value in view]


def test_no_secret_shows_in_any_encoding_and_the_pages_stay_whole() -> None:
    secrets = [BOT_TOKEN, CLIENT_SECRET, TINY]
    with served(seed(), leaky(secrets)) as site:
        ids = put_commands(site, {"name": "leak", "description": f"says {CLIENT_SECRET}"})
        sent = site.post(f"/api/v10/channels/{CHANNEL_ID}/messages", json={
            "content": f"channel {' '.join(secrets)} bearer {ONE} here "
                       f"[x](<https://example.com/?t={CLIENT_SECRET}>)",
            "embeds": [{"title": BOT_TOKEN, "description": CLIENT_SECRET,
                        "thumbnail": {"url": f"https://example.com/{CLIENT_SECRET}"}}]})
        assert sent.status_code == 200, sent.text
        ran = run(site, ids["ping"])
        assert ran["failure"] is None
        completed = run(site, ids["find"], options={"what": "x"}, focused="what")
        tokens = [str(exchange["interaction"]["token"]) for exchange in (
            site.get(f"/_emulator/interactions/{ran['interaction']}").json(),
            site.get(f"/_emulator/interactions/{completed['interaction']}").json())]
        webhook = f"/api/v10/webhooks/{APPLICATION_ID}/{tokens[0]}"
        follow_up = site.post(webhook, json={"content": f"follow-up {tokens[0]} {TINY}"})
        assert follow_up.status_code == 200, follow_up.text
        assert site.get(f"{webhook}/not-a-route").status_code == 404  # its path logged as is
        pages = {
            "commands": site.get("/console/commands", params={"scope": GUILD_ID}).text,
            "permissions": site.get("/console/permissions", params={
                "guild": GUILD_ID, "command": ids["ban"]}).text,
            "run": site.get("/console/run", params={
                "guild": GUILD_ID, "command": ids["ping"], "interaction": ran["interaction"]
            }).text,
            "run, autocomplete": site.get("/console/run", params={
                "guild": GUILD_ID, "command": ids["find"],
                "interaction": completed["interaction"]}).text,
            "log": site.get("/console/log").text,
            "messages": site.get("/console/messages", params={"channel": CHANNEL_ID}).text,
            "run's answer": json.dumps(ran), "autocomplete's answer": json.dumps(completed)}
    found = {(name, secret): encodings_found(text, secret) for name, text in pages.items()
             for secret in [*secrets, *tokens]}
    assert {where: forms for where, forms in found.items() if forms} == {}
    assert completed["choices"] == [{"name": "tok [hidden]", "value": "[hidden]"}]
    # the one-letter token is hidden as a word; the page keeps its links and commands
    assert "channel [hidden] [hidden] [hidden] bearer [hidden] here" in pages["messages"]
    assert "bearer [hidden] here" in pages["run"]
    commands = pages["commands"]
    for name in ("ban", "find", "leak", "ping"):
        assert f">{name}</span>" in commands
    assert ">Ban [hidden] member</p>" in commands
    assert '<script type="module" src="/console/static/console.js"></script>' in commands
    assert f'<a href="/console/run?application={APPLICATION_ID}&amp;guild={GUILD_ID}' \
           f'&amp;command={ids["ping"]}&amp;locale=en-US">Run</a>' in commands
    assert f'<option value="{GUILD_ID}" selected>Guild [hidden] ({GUILD_ID})</option>' \
        in pages["run"]


def test_a_secret_a_bot_wrote_escaped_or_encoded_is_hidden_too() -> None:
    """What markdown decodes (a backslash, an entity, percent-escapes in a link) and the
    forms a bot may already have written a secret in."""
    secret = "emu_bot*tok&en"
    written = [r"emu\_bot\*tok\&en", "emu&#95;bot&#42;tok&amp;en", "emu_bot%2Atok%26en",
               "emu_bot*tok&amp;en", '"emu_bot*tok&en"']
    with served(seed(secret), leaky([])) as site:
        sent = site.post(f"/api/v10/channels/{CHANNEL_ID}/messages", json={
            "content": " ".join(written) + f" [x](https://example.com/{written[2]})"})
        assert sent.status_code == 200, sent.text
        page = site.get("/console/messages", params={"channel": CHANNEL_ID}).text
    assert encodings_found(page, secret) == []
    assert 'href="https://example.com/[hidden]"' in page


# -- links of other schemes -------------------------------------------------------------


class _Links(html.parser.HTMLParser):
    """Every href and src of a page, and the text of its embeds' media lines."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.media: list[str] = []
        self._in_media = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.targets += [value or "" for name, value in attrs if name in ("href", "src")]
        if ("class", "embed-media") in attrs:
            self._in_media = True
            self.media.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._in_media = False

    def handle_data(self, data: str) -> None:
        if self._in_media:
            self.media[-1] += data


HOSTILE = ["javascript:alert(document.domain)", "data:text/html,<script>alert(1)</script>",
           " JavaScript:alert(2)", "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg=="]
EMBEDS = [{"title": "Click", "url": HOSTILE[0], "image": {"url": HOSTILE[0]},
           "thumbnail": {"url": HOSTILE[1]}},
          {"title": "Again", "url": HOSTILE[2], "image": {"url": HOSTILE[2]},
           "thumbnail": {"url": HOSTILE[3]}},
          {"title": "Fine", "url": "https://example.com/", "image": {
              "url": "attachment://cat.png"}, "thumbnail": {"url": "HTTPS://example.com/t.png"}}]


def _schemes(page: str) -> tuple[list[str], list[str]]:
    links = _Links()
    links.feed(page)
    schemes = [target.strip().lower().partition(":")[0] for target in links.targets
               if ":" in target and target != "data:,"]  # but the console's own empty icon
    return schemes, [" ".join(line.split()) for line in links.media]


def test_embed_links_and_images_of_other_schemes_are_shown_as_text() -> None:
    answer: Answer = lambda payload: JSONResponse({"type": 4, "data": {
        "content": "embeds", "embeds": EMBEDS}})
    with served(seed(), answer) as site:
        ids = put_commands(site)
        sent = site.post(f"/api/v10/channels/{CHANNEL_ID}/messages",
                         json={"content": "embeds", "embeds": EMBEDS})
        assert sent.status_code == 200, sent.text
        ran = run(site, ids["ping"])
        pages = [site.get("/console/messages", params={"channel": CHANNEL_ID}).text,
                 site.get("/console/run", params={"guild": GUILD_ID, "command": ids["ping"],
                                                  "interaction": ran["interaction"]}).text]
    for page in pages:
        schemes, media = _schemes(page)
        assert sorted(set(schemes)) == ["attachment", "https"]
        assert schemes.count("attachment") == 1
        text = "(not a link: Discord shows only http, https and attachment images)"
        loaded = "(not loaded: the console loads nothing from elsewhere)"
        assert media == [f"Image: {HOSTILE[0]} {text}", f"Thumbnail: {HOSTILE[1]} {text}",
                         f"Image: {HOSTILE[2].strip()} {text}",
                         f"Thumbnail: {HOSTILE[3]} {text}",
                         f"Image: attachment://cat.png {loaded}",
                         f"Thumbnail: HTTPS://example.com/t.png {loaded}"]
        assert '<p class="embed-title">Click</p>' in page
        assert '<p class="embed-title">Again</p>' in page
        assert '<p class="embed-title"><a href="https://example.com/" rel="noopener ' \
               'noreferrer nofollow" target="_blank">Fine</a></p>' in page
