"""disnake logs in through the emulator's gateway (``disnake.http.Route.BASE`` pointed at
it; the gateway URL from ``GET /gateway/bot``), caches the seeded guild and answers a
command run with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator import Limits, create_app, new_emulator
from cmdsync.emulator.gateway.clients import pointed_at
from cmdsync.emulator.seed import BOT_TOKEN, CHANNEL_ID
from cmdsync.emulator.server import BackgroundServer
from tests.emulator.gateway.bots import BotThread, wait_ready
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, BOT, GUILD, GUILD_COMMANDS, USER_ID, chat, http_client

disnake = pytest.importorskip("disnake")


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    emulator = new_emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(emulator)) as base:
        with http_client(f"{base}/api/v10", headers=BOT) as api:
            assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200
        loop = asyncio.new_event_loop()  # disnake takes the current loop when built
        asyncio.set_event_loop(loop)
        try:
            client = disnake.Client(intents=disnake.Intents.default(), guild_ready_timeout=0.05)
        finally:
            asyncio.set_event_loop(None)
        ready = threading.Event()

        @client.event
        async def on_ready() -> None:
            ready.set()

        @client.event
        async def on_application_command(interaction: Any) -> None:
            await interaction.response.send_message(
                f"pong from disnake in {interaction.guild.name}")

        with pointed_at(base, libraries=("disnake",)), \
                BotThread(lambda: client.start(BOT_TOKEN), client.close, loop) as running:
            wait_ready(emulator, APP, ready, running)
            yield {"base": base, "client": client, "running": running}


def test_disnake_caches_the_seeded_guild(world: dict[str, Any]) -> None:
    guild = world["client"].get_guild(int(GUILD))
    assert guild is not None
    assert [r.name for r in guild.roles] == ["@everyone", "Admin"]
    assert [c.name for c in guild.channels] == ["general", "Voice"]


def test_disnake_answers_an_invoked_command(world: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    clean_environment(monkeypatch)
    code, out, err = run(capsys, "invoke", "--api-url", f"{world['base']}/api/v10",
                         "--guild", GUILD, "/ping")
    assert (code, err) == (0, "")
    assert out == (f"Invoked /ping in guild {GUILD}, channel {CHANNEL_ID} as owner "
                   f"({USER_ID})\n"
                   "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
                   "Reply:\n"
                   "  pong from disnake in Emulator Guild\n")
