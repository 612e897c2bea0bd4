"""The console browser tests' world: a served emulator seeded and applied with
the hikari example's commands, the example bot answering, and headless Chromium.

The world: the default seed plus an ``admin`` member (Administrator) and a
``Mods`` role nobody holds yet; ``examples/hikari/commands.yaml`` applied
with ``cmdsync apply`` as shipped (French and German names, ``/card``
answered with an embed and an ephemeral follow-up, a user command), the
example's RESTBot (hikari) at the application's interactions endpoint, and a message
the bot sent to ``#general``. hikari needs Python 3.11; Playwright and a
Chromium (Debian's ``chromium``; ``.ci/run`` installs it) are needed too:
without them the tests skip, saying why.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from cmdsync.emulator import Limits, create_app, new_emulator
from cmdsync.emulator.seed import (
    ADMIN_ROLE_ID,
    APPLICATION_ID,
    BOT_TOKEN,
    CHANNEL_ID,
    GUILD_ID,
    default_seed,
)
from cmdsync.emulator.server import BackgroundServer
from tests.support.browser import launched
from tests.support.cli import clean_environment
from tests.support.hikari import RunningBot, example_bot
from tests.support.paths import DATA, EXAMPLES

ADMIN_ID = "333333333333333335"
MODS_ROLE_ID = "222222222222222227"
AXE = DATA / "axe-core" / "axe.min.js"
VIEWPORT = {"width": 1280, "height": 800}


@dataclass
class World:
    """The served emulator (``base``: ``http://127.0.0.1:PORT``) and what is in it."""

    base: str
    emulator: Any
    manifest: Path
    commands: dict[str, str] = field(default_factory=dict)  # name -> id in the guild

    @property
    def api(self) -> str:
        return f"{self.base}/api/v10"


def manifest_text(extra: Sequence[dict[str, Any]] = ()) -> str:
    """The hikari example's manifest as shipped, with ``extra`` commands."""
    data = yaml.safe_load((EXAMPLES / "hikari" / "commands.yaml").read_text(encoding="utf-8"))
    data["guilds"][GUILD_ID]["commands"].extend(extra)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def build_bot(verify_key: str, api: str) -> Any:
    """The example's RESTBot as shipped (``examples/hikari/bot.py``)."""
    return example_bot().build_bot(BOT_TOKEN, verify_key, api)


def apply(world: World, manifest: Path) -> None:
    """``cmdsync apply --auto-approve`` of ``manifest`` against the served emulator (in a
    thread: Playwright's sync API holds an event loop in this one)."""
    from cmdsync.cli import main

    def run() -> object:
        with pytest.raises(SystemExit) as exited:
            main(["apply", "--auto-approve", "--api-url", world.api, str(manifest)])
        return exited.value.code

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(manifest.parent)  # its backups go beside the manifest
        clean_environment(patch)
        patch.setenv("DISCORD_BOT_TOKEN", BOT_TOKEN)
        patch.setenv("DISCORD_APPLICATION_ID", APPLICATION_ID)
        with ThreadPoolExecutor(1) as worker:
            assert worker.submit(run).result() == 0


def seed() -> dict[str, Any]:
    data = default_seed()
    data["users"].append({"id": ADMIN_ID, "username": "admin"})
    guild = data["guilds"][0]
    guild["members"].append({"user_id": ADMIN_ID, "roles": [ADMIN_ROLE_ID]})
    guild["roles"].append({"id": MODS_ROLE_ID, "name": "Mods", "permissions": ["ban_members"]})
    return data


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    if sys.version_info < (3, 11):
        pytest.skip("hikari needs Python 3.11 or newer")
    pytest.importorskip("hikari", reason="hikari[server] is not installed")
    manifest = tmp_path_factory.mktemp("console") / "commands.yaml"
    manifest.write_text(manifest_text(), encoding="utf-8")
    # Discord's 3 s is tested elsewhere; here a busy machine must not fail hikari
    emulator = new_emulator(seed=seed(), limits=Limits(interaction_deadline=30))
    bot_headers = {"Authorization": f"Bot {BOT_TOKEN}"}
    with BackgroundServer(create_app(emulator)) as base:
        world = World(base, emulator, manifest)
        apply(world, manifest)
        with httpx.Client(base_url=world.api, headers=bot_headers, timeout=30) as api:
            verify_key = api.get("/applications/@me").json()["verify_key"]
            with RunningBot(build_bot(verify_key, world.api)) as running:
                set_url = api.patch("/applications/@me",
                                    json={"interactions_endpoint_url": running.url})
                assert set_url.status_code == 200, set_url.text
                sent = api.post(f"/channels/{CHANNEL_ID}/messages", json={
                    "content": "Daily report: **3** new members, see <#222222222222222223>.",
                    "embeds": [{"title": "Weekly stats", "color": 0x2ECC71, "fields": [
                        {"name": "Joined", "value": "12", "inline": True},
                        {"name": "Left", "value": "2", "inline": True}]}]})
                assert sent.status_code == 200, sent.text
                commands = api.get(f"/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands")
                world.commands = {c["name"]: c["id"] for c in commands.json()}
                yield world


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched()


@dataclass
class Watched:
    """A page and what the browser saw: CSP violations and page errors, and every
    request and response (URL, headers, body) for the secret checks."""

    page: Any
    problems: list[str] = field(default_factory=list)
    traffic: list[str] = field(default_factory=list)


@pytest.fixture
def page(browser: Any) -> Iterator[Watched]:
    """A fresh page at 1280x800 with axe-core loaded in every document (an init script,
    which the Content-Security-Policy does not block), recording its traffic."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    watched = Watched(page)

    def console_message(message: Any) -> None:
        if message.type == "error":
            watched.problems.append(message.text)

    def response(answer: Any) -> None:
        request = answer.request
        watched.traffic.append(f"{request.method} {request.url} {request.headers} "
                               f"{request.post_data or ''} {answer.status} {answer.headers}")
        if 300 <= answer.status < 400 or answer.status == 101:
            return  # a redirect or a websocket upgrade: no body to read
        watched.traffic.append(answer.text())

    def websocket(socket: Any) -> None:
        watched.traffic.append(f"websocket {socket.url}")
        socket.on("framereceived", lambda frame: watched.traffic.append(str(frame)))

    page.on("console", console_message)
    page.on("pageerror", lambda error: watched.problems.append(str(error)))
    page.on("response", response)
    page.on("websocket", websocket)
    try:
        yield watched
    finally:
        context.close()
