"""The console in headless Chromium against a served emulator and the hikari example bot.

Each page is checked for what it shows (the picker in two locales, the
permission table before and after a member gets the right role, a run with
its embed and follow-ups, the log, the messages), for live updates (a
``cmdsync apply``, a seed), for the absence of every secret in the pages,
data routes and the browser's traffic, and with axe-core for accessibility.
No page may log an error (a Content-Security-Policy violation shows as one).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.emulator.interactions import signing
from cmdsync.emulator.seed import (
    APPLICATION_ID,
    BOT_TOKEN,
    CLIENT_SECRET,
    GUILD_ID,
    MEMBER_ID,
    USER_TOKEN,
)
from tests.console.world import MODS_ROLE_ID, Watched, World, apply, manifest_text
from tests.support.paths import ROOT

pytestmark = pytest.mark.slow  # a browser, servers and a bot: the full suite runs it

PAGES = ["commands", "permissions", "run", "log", "messages"]
TIMEOUT = 15_000  # ms a live change may take to show on a busy machine


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def url(world: World, page: str, **query: str) -> str:
    return str(httpx.URL(f"{world.base}/console/{page}", params=query))


def no_problems(watched: Watched) -> None:
    assert watched.problems == []


# -- Commands --------------------------------------------------------------------------


def test_the_picker_in_english_then_french(world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "commands", scope=GUILD_ID, locale="en-US"))
    slash = tab.get_by_role("region", name=re.compile("^Slash commands"))
    names = slash.locator(".command-name").all_inner_texts()
    assert names == ["ban", "card", "ping", "report", "shop"]
    card = tab.locator(f"#command-{world.commands['card']}")
    expect(card.locator("p.description")).to_have_text("Show a member's colour card")
    expect(card.locator(".source")).to_contain_text(
        "description_localizations[en-GB] (fallback of en-US)")
    user_menu = tab.get_by_role("region", name=re.compile("^User context menu"))
    expect(user_menu.locator(".command-name")).to_have_text(["Member card"])

    tab.get_by_label("Client locale").select_option("fr")
    tab.get_by_role("button", name="Show").click()
    tab.wait_for_url(re.compile("locale=fr"))
    shop = tab.locator(f"#command-{world.commands['shop']}")
    expect(shop.locator(".command-name")).to_have_text("boutique")
    expect(shop.locator("p.description")).to_have_text("La boutique")
    expect(shop.locator(".option-name").first).to_have_text("acheter")
    ping = tab.locator(f"#command-{world.commands['ping']}")
    expect(ping.locator(".command-name")).to_have_text("ping")
    expect(ping.locator(".source")).to_contain_text("default name (no fr localization)")
    names = slash.locator(".command-name").all_inner_texts()
    assert names.index("bannir") < names.index("boutique") < names.index("ping")

    shop.get_by_text("Raw JSON of boutique").click()
    raw = shop.locator("pre.json")
    expect(raw).to_be_visible()
    assert '"name_localizations": {' in raw.inner_text() and '"fr": "boutique"' in \
        raw.inner_text()
    no_problems(page)


# -- Who can use it ----------------------------------------------------------------------


def _cell(tab: Any, row: str, column: int = 0) -> Any:
    return tab.get_by_role("row", name=re.compile(re.escape(row))).locator("td").nth(column)


def test_the_permission_table_for_a_member_without_then_with_the_role(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "permissions", guild=GUILD_ID, command=world.commands["ban"]))
    expect(tab.locator("caption")).to_have_text(f"/ban in guild {GUILD_ID}")
    member = _cell(tab, f"member ({MEMBER_ID})")
    expect(member).to_have_text(
        f"Denied user {MEMBER_ID} may not use /ban: default_member_permissions asks for "
        "ban_members, which they lack")
    expect(_cell(tab, f"Mods ({MODS_ROLE_ID})")).to_have_text(
        "Allowed a member with this role has ban_members (default_member_permissions)")
    expect(_cell(tab, "owner (333333333333333333)")).to_contain_text("owns the guild")
    expect(_cell(tab, "admin (333333333333333335)")).to_contain_text("has Administrator")

    # A guild in a seed is given whole: its name and owner too (else they are reset)
    guild = {"id": GUILD_ID, "name": "Emulator Guild", "owner_id": "333333333333333333"}
    give = {"guilds": [{**guild, "members": [{"user_id": MEMBER_ID, "roles": [MODS_ROLE_ID]}]}]}
    take = {"guilds": [{**guild, "members": [{"user_id": MEMBER_ID, "roles": []}]}]}
    try:
        httpx.post(f"{world.base}/_emulator/seed", json=give).raise_for_status()
        expect(member).to_have_text(  # live: no reload
            f"Allowed user {MEMBER_ID} has ban_members (default_member_permissions)",
            timeout=TIMEOUT)
    finally:
        httpx.post(f"{world.base}/_emulator/seed", json=take).raise_for_status()
    expect(member).to_contain_text("Denied", timeout=TIMEOUT)
    no_problems(page)


def test_a_change_before_the_live_connection_opens_still_shows(
        world: World, page: Watched) -> None:
    """The page refreshes on the socket's hello: a seed between render and connect shows."""
    tab = page.page
    guild = {"id": GUILD_ID, "name": "Emulator Guild", "owner_id": "333333333333333333"}
    give = {"guilds": [{**guild, "members": [{"user_id": MEMBER_ID, "roles": [MODS_ROLE_ID]}]}]}
    take = {"guilds": [{**guild, "members": [{"user_id": MEMBER_ID, "roles": []}]}]}

    def seed_then_connect(socket: Any) -> None:  # the page is rendered, its socket held
        httpx.post(f"{world.base}/_emulator/seed", json=give).raise_for_status()
        socket.connect_to_server()

    tab.route_web_socket(re.compile(r"/console/live$"), seed_then_connect)
    try:
        tab.goto(url(world, "permissions", guild=GUILD_ID, command=world.commands["ban"]))
        expect(_cell(tab, f"member ({MEMBER_ID})")).to_have_text(
            f"Allowed user {MEMBER_ID} has ban_members (default_member_permissions)",
            timeout=TIMEOUT)
    finally:
        httpx.post(f"{world.base}/_emulator/seed", json=take).raise_for_status()
    no_problems(page)


# -- Run a command ---------------------------------------------------------------------


def test_running_card_shows_the_bots_embed_and_its_ephemeral_follow_up(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["card"]))
    tab.get_by_label("User", exact=True).select_option(MEMBER_ID)
    tab.get_by_label("member (required)").select_option(label="@admin")
    tab.get_by_role("button", name="Run /card").click()
    messages = tab.locator("#exchange .message")
    expect(messages).to_have_count(2, timeout=TIMEOUT)
    first = messages.nth(0)
    expect(first.locator(".content")).to_have_text("Here is @admin's card.")
    embed = first.locator(".embed")
    expect(embed.locator(".embed-title")).to_have_text("Member card")
    expect(embed.locator(".embed-description")).to_have_text("@admin, asked by @member.")
    expect(embed.locator(".embed-field dt")).to_have_text(["Roles", "Channel"])
    expect(embed.locator(".embed-field dd")).to_have_text(["@Admin", "#general"])
    expect(embed.locator(".embed-footer")).to_have_text("cmdsync's hikari example")
    expect(embed).to_have_css("border-left-color", "rgb(88, 101, 242)")  # its colour
    follow_up = messages.nth(1)
    expect(follow_up.locator(".kind")).to_have_text("follow-up")
    expect(follow_up.locator(".ephemeral-note")).to_have_text("Only you can see this")
    spoiler = follow_up.locator(".spoiler")
    expect(spoiler).to_have_attribute("aria-pressed", "false")
    spoiler.click()
    expect(spoiler).to_have_attribute("aria-pressed", "true")
    assert re.search(r"interaction=\d+", tab.url)
    no_problems(page)


def test_a_user_command_runs_on_its_target(world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["Member card"]))
    tab.get_by_label("Target").select_option(label="@member")
    tab.get_by_role("button", name="Run Member card (user command)").click()
    expect(tab.locator("#exchange .message .content").first).to_have_text(
        "Here is @member's card.", timeout=TIMEOUT)
    expect(tab.locator("#exchange .embed-title")).to_have_text("Member card")
    expect(tab.locator("#exchange .embed-field dd")).to_have_text(["none", "#general"])
    no_problems(page)


def test_a_deferred_report_is_edited_and_followed_up_as_it_happens(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["report"]))
    tab.get_by_role("button", name="Run /report").click()
    expect(tab.locator(".response-type")).to_have_text(
        "Response: 5 DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE", timeout=TIMEOUT)
    messages = tab.locator("#exchange .message .content")
    expect(messages).to_have_text(["Report ready: 3 new members.",
                                   "Details were sent to the moderators."], timeout=TIMEOUT)
    expect(tab.locator("#exchange .thinking")).to_have_count(0)
    no_problems(page)


def test_a_refused_run_says_what_invoke_says(world: World, page: Watched) -> None:
    invoked = httpx.post(f"{world.base}/_emulator/interactions", json={
        "application_id": APPLICATION_ID, "guild_id": GUILD_ID, "user_id": MEMBER_ID,
        "line": f"/ban user:<@{MEMBER_ID}>"})
    assert invoked.status_code == 400
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["ban"]))
    tab.get_by_label("User", exact=True).select_option(MEMBER_ID)
    tab.get_by_label("user (required)").select_option(f"<@{MEMBER_ID}>")
    tab.get_by_role("button", name="Run /ban").click()
    expect(tab.get_by_role("alert")).to_have_text(
        f"The client would not send it: {invoked.json()['message']}")
    no_problems(page)


def test_autocomplete_asks_the_bot_as_the_client_does(world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["shop"]))
    item = tab.get_by_label("item (required)")
    item.press_sequentially("ap")
    expect(item).to_have_attribute("data-choices", "2", timeout=TIMEOUT)
    choices = tab.locator(f"#{item.get_attribute('list')} option")
    assert [choices.nth(i).get_attribute("value") for i in range(2)] == ["apple", "apricot"]
    item.fill("apple")
    tab.get_by_label("amount").fill("3")
    tab.get_by_role("button", name="Run /shop").click()
    expect(tab.locator("#exchange .message .content")).to_have_text(
        "You bought 3 x apple.", timeout=TIMEOUT)
    no_problems(page)


# -- Log and messages ------------------------------------------------------------------


def test_the_log_shows_interactions_requests_and_the_create_budget(
        world: World, page: Watched) -> None:
    httpx.post(f"{world.base}/_emulator/interactions", json={
        "application_id": APPLICATION_ID, "guild_id": GUILD_ID, "line": "/ping"}
    ).raise_for_status()
    tab = page.page
    tab.goto(url(world, "log"))
    budget = tab.locator("table.budget tbody tr", has_text=GUILD_ID)
    expect(budget.locator("td").nth(3)).to_have_text("200")
    assert int(budget.locator("td").nth(2).inner_text()) >= 6
    latest = tab.locator("details.exchange summary").first
    expect(latest).to_contain_text("/ping by owner")
    assert re.search(r"1 message, the first after \d+ ms$", latest.inner_text())
    expect(tab.get_by_text("Rate limits:")).to_have_text(
        "Rate limits: 10 requests per 1.0 s per bucket; 50 per 1.0 s per token.")
    requests = tab.locator("table.requests tbody tr")
    webhook = requests.filter(has_text="POST /webhooks/{application_id}/{interaction_token}")
    if webhook.count():  # a follow-up was sent in an earlier test: its token is hidden
        expect(webhook.first.locator("td").nth(2)).to_contain_text(
            f"/api/v10/webhooks/{APPLICATION_ID}/{{interaction_token}}")
    listed = requests.filter(has_text="GET /applications/{application_id}/guilds/{guild_id}/"
                                      "commands").first
    expect(listed.locator("td.ratelimit .remaining")).to_have_text(
        re.compile(r"^\d+ of 10 left, resets in \d\.\d{3} s$"))
    listed.locator("td.ratelimit summary").click()
    expect(listed.locator("td.ratelimit pre")).to_contain_text("X-RateLimit-Limit: 10")
    tab.get_by_label("Route or bucket contains").fill("commands")
    tab.get_by_role("button", name="Filter").click()
    tab.wait_for_url(re.compile("q=commands"))
    routes = tab.locator("table.requests tbody tr td:nth-child(4)").all_inner_texts()
    assert routes and all("commands" in route for route in routes)
    no_problems(page)


def test_the_messages_page_shows_what_the_bot_sent_per_channel(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "messages"))
    channels = tab.get_by_role("navigation", name="Channels")
    expect(channels.get_by_role("link", name="#general")).to_have_attribute(
        "aria-current", "page")
    message = tab.locator("#channel-messages .message").first
    expect(message.locator(".content")).to_have_text(
        "Daily report: 3 new members, see #general.")
    expect(message.locator(".embed-title")).to_have_text("Weekly stats")
    expect(message.locator(".author")).to_have_text("cmdsync emulator")
    no_problems(page)


# -- Live updates ------------------------------------------------------------------------


def test_an_apply_shows_on_the_open_commands_page(world: World, page: Watched,
                                                  tmp_path: Path) -> None:
    tab = page.page
    tab.goto(url(world, "commands", scope=GUILD_ID))
    expect(tab.locator("#live-status")).to_have_text("Live updates: on", timeout=TIMEOUT)
    expect(tab.get_by_text("stats", exact=True)).to_have_count(0)
    changed = tmp_path / "commands.yaml"
    changed.write_text(manifest_text([{"name": "stats", "description": "Server statistics"}]),
                       encoding="utf-8")
    apply(world, changed)
    expect(tab.locator(".command-name", has_text="stats")).to_be_visible(timeout=TIMEOUT)
    apply(world, world.manifest)  # as it was, for the other tests
    expect(tab.locator(".command-name", has_text="stats")).to_have_count(0, timeout=TIMEOUT)
    no_problems(page)


# -- Secrets, accessibility, narrow windows, keyboard, screenshots ---------------------------


def _secrets(world: World) -> list[str]:
    store = world.emulator.store
    app = store.application(APPLICATION_ID)
    assert app is not None
    with store.transaction() as db:
        tokens = [row[0] for row in db.execute("SELECT token FROM interactions")]
    assert tokens  # the runs above made interactions, whose tokens must not show
    return [BOT_TOKEN, CLIENT_SECRET, USER_TOKEN, signing.private_key(app)
            .private_bytes_raw().hex(), *tokens]


def test_no_secret_reaches_a_page_a_data_route_or_the_network(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["card"]))
    tab.get_by_label("member (required)").select_option(label="@owner")
    tab.get_by_role("button", name="Run /card").click()
    expect(tab.locator("#exchange .message")).to_have_count(2, timeout=TIMEOUT)
    tab.locator("#exchange-json summary").click()
    seen = [tab.content()]
    for name in PAGES:
        tab.goto(url(world, name))
        for details in tab.locator("details summary").all():
            details.click()
        seen.append(tab.content())
    secrets = _secrets(world)
    text = "\n".join(seen + page.traffic)
    assert "(the interaction token, hidden)" in text
    assert [secret for secret in secrets if secret in text] == []
    no_problems(page)


@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violation(world: World, page: Watched, name: str) -> None:
    tab = page.page
    tab.goto(url(world, name, guild=GUILD_ID, command=world.commands["shop"]))
    for details in tab.locator("details summary").all():
        details.click()
    found = tab.evaluate("async () => (await axe.run(document)).violations.map("
                         "v => ({id: v.id, impact: v.impact, help: v.help, "
                         "nodes: v.nodes.map(n => n.target.join(' '))}))")
    serious = [v for v in found if v["impact"] in ("serious", "critical")]
    assert serious == []
    no_problems(page)


# Each table cell and table box that does not fit the window, or its own box, at 390 px
_CUT_OFF = """() => {
  const found = [];
  for (const box of document.querySelectorAll(".table-wrap")) {
    if (box.scrollWidth > box.clientWidth) found.push(`${box.getAttribute("aria-label")
      || box.getAttribute("aria-labelledby")} scrolls sideways`);
    const right = Math.min(box.getBoundingClientRect().right, innerWidth);
    for (const cell of box.querySelectorAll("td")) {
      if (cell.getBoundingClientRect().right > right + 0.5) found.push(cell.dataset.label);
    }
  }
  return found;
}"""


@pytest.mark.parametrize("name", PAGES)
def test_a_narrow_window_scrolls_only_down(world: World, browser: Any, name: str) -> None:
    """At a phone's 390x844 no page is wider than the window, and the Log's tables (the
    daily create budget, the requests) show every column without scrolling sideways."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        tab = context.new_page()
        tab.goto(url(world, name, guild=GUILD_ID, command=world.commands["shop"]))
        if name == "log":
            expect(tab.locator("table.budget tbody tr")).to_have_count(2)  # global, guild
            assert tab.locator("table.requests tbody tr").count() > 0
            for summary in tab.locator("table summary").all():
                summary.click()  # the rate-limit headers, open
            assert tab.evaluate(_CUT_OFF) == []
            limit = tab.locator("table.budget tbody tr", has_text=GUILD_ID).locator("td").nth(3)
            expect(limit).to_have_text("200")  # the column the trial could not see
            assert limit.bounding_box()["x"] + limit.bounding_box()["width"] <= 390
        overflow = tab.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert overflow <= 0
    finally:
        context.close()


def test_the_keyboard_reaches_the_content_and_runs_a_command(
        world: World, page: Watched) -> None:
    tab = page.page
    tab.goto(url(world, "run", guild=GUILD_ID, command=world.commands["ping"]))
    tab.keyboard.press("Tab")
    assert tab.evaluate("() => document.activeElement.textContent") == "Skip to the content"
    tab.keyboard.press("Enter")
    assert tab.evaluate("() => document.activeElement.id") == "main"
    for _ in range(20):  # the run button is among the next controls
        tab.keyboard.press("Tab")
        if tab.evaluate("() => document.activeElement.id") == "run-button":
            break
    tab.keyboard.press("Enter")
    expect(tab.locator("#exchange .message .content")).to_have_text("pong", timeout=TIMEOUT)
    expect(tab.locator("#exchange-heading")).to_be_focused()
    no_problems(page)


def test_screenshots_of_each_page(world: World, page: Watched, tmp_path: Path) -> None:
    """A PNG of each page at 1280x800 with the example bot's commands and answers; into
    docs/images/ when CMDSYNC_WRITE_SCREENSHOTS=1 (so the docs show what the console
    shows). The Run page is scrolled to the answer; the Log to its interactions and
    requests, a 429 among them (a bucket of one request for the time of two)."""
    tab = page.page
    shots = {"commands": url(world, "commands", scope=GUILD_ID, locale="fr"),
             "permissions": url(world, "permissions", guild=GUILD_ID,
                                command=world.commands["ban"]),
             "run": url(world, "run", guild=GUILD_ID, command=world.commands["card"]),
             "log": url(world, "log"), "messages": url(world, "messages")}
    target = ROOT / "docs" / "images" if os.environ.get("CMDSYNC_WRITE_SCREENSHOTS") == "1" \
        else tmp_path
    for name, address in shots.items():
        tab.goto(address)
        if name == "run":
            tab.get_by_label("member (required)").select_option(label="@admin")
            tab.get_by_role("button", name="Run /card").click()
            expect(tab.locator("#exchange .message")).to_have_count(2, timeout=TIMEOUT)
            tab.locator("#exchange-heading").evaluate("heading => heading.scrollIntoView()")
        if name == "log":
            _a_429(world)
            tab.reload()
            expect(tab.locator("table.requests tr.limited")).to_have_count(1)
            tab.locator("#interactions-heading").evaluate("h => h.scrollIntoView()")
        expect(tab.locator("#live-status")).to_have_text("Live updates: on", timeout=TIMEOUT)
        path = target / f"console-{name}.png"
        tab.screenshot(path=str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    no_problems(page)


def _a_429(world: World) -> None:
    """One request refused by its bucket (a limit of one request an hour), the limits
    then as they were."""
    with httpx.Client(base_url=world.base, timeout=30) as client:
        before = client.get("/_emulator/config").json()["ratelimit"]
        client.put("/_emulator/config", json={"ratelimit": {
            **before, "route_limit": 1, "route_window": 3600}}).raise_for_status()
        try:
            bot = {"Authorization": f"Bot {BOT_TOKEN}"}
            statuses = [client.get("/api/v10/applications/@me", headers=bot).status_code
                        for _ in range(2)]
        finally:
            client.put("/_emulator/config", json={"ratelimit": before}).raise_for_status()
    assert statuses == [200, 429]
