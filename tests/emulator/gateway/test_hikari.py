"""hikari's ``GatewayBot`` logs in through the emulator's gateway (``rest_url`` pointed
at it; the gateway URL from ``GET /gateway/bot``, zlib-stream), caches the seeded guild
and answers a command run with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4).

hikari needs Python 3.11 or newer; these tests are skipped without it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator.gateway.clients import discord_shaped_token
from cmdsync.emulator.seed import default_seed
from tests.emulator.gateway.bots import BotThread, invoker, ping_answered, served_with, wait_ready
from tests.support.emulator import APP, GUILD, chat

if sys.version_info < (3, 11):
    pytest.skip("hikari needs Python 3.11 or newer", allow_module_level=True)
hikari = pytest.importorskip("hikari")
# hikari's GatewayBot reads the application id from the token's first part, as in
# Discord's tokens (base64 of the id): the seed gives its bot such a token.
BOT_TOKEN = discord_shaped_token(APP)


def build_bot(api_url: str) -> tuple[Any, threading.Event]:
    bot = hikari.GatewayBot(BOT_TOKEN, rest_url=api_url, intents=hikari.Intents.GUILDS,
                            banner=None, suppress_optimization_warning=True)
    started = threading.Event()  # once the seeded guild's GUILD_CREATE is cached

    @bot.listen(hikari.GuildAvailableEvent)
    async def on_guild(event: Any) -> None:
        if event.guild_id == int(GUILD):
            started.set()

    @bot.listen(hikari.InteractionCreateEvent)
    async def on_interaction(event: Any) -> None:
        interaction = event.interaction
        if isinstance(interaction, hikari.CommandInteraction):
            await interaction.create_initial_response(
                hikari.ResponseType.MESSAGE_CREATE,
                f"pong from hikari to {interaction.user.username}")

    return bot, started


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    seed = default_seed()
    seed["applications"][0]["bot_token"] = BOT_TOKEN
    with served_with([chat("ping")], seed=seed, token=BOT_TOKEN) as (emulator, base):
        bot, started = build_bot(f"{base}/api/v10")

        async def start() -> None:
            await bot.start(check_for_updates=False)
            await bot.join()

        with BotThread(start, bot.close) as running:
            wait_ready(emulator, APP, started, running)
            yield {"base": base, "bot": bot, "running": running}


def test_hikari_caches_the_seeded_guild(world: dict[str, Any]) -> None:
    guild = world["bot"].cache.get_guild(int(GUILD))
    assert guild is not None and guild.name == "Emulator Guild"
    assert sorted(r.name for r in guild.get_roles().values()) == ["@everyone", "Admin"]
    assert sorted(c.name for c in guild.get_channels().values()) == ["Voice", "general"]


def test_hikari_answers_an_invoked_command(world: dict[str, Any],
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = invoker(world["base"], monkeypatch, capsys)("--guild", GUILD, "/ping")
    assert (code, out, err) == (0, ping_answered("pong from hikari to owner"), "")
