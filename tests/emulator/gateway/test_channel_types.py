"""GUILD_CREATE carries channels of every type with the fields their type has, so that
each library's cache reads them (issue 23, part 1): discord.py, disnake and hikari."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator import Emulator, create_app, new_emulator
from cmdsync.emulator.gateway.clients import discord_shaped_token, pointed_at
from cmdsync.emulator.seed import GUILD_ID, default_seed
from cmdsync.emulator.server import BackgroundServer
from tests.emulator.gateway.bots import BotThread, discord_py_client, disnake_client, wait_ready
from tests.support.emulator import APP

TYPES = {0: "text", 2: "voice", 4: "category", 5: "news", 10: "news_thread",
         11: "public_thread", 12: "private_thread", 13: "stage_voice", 14: "directory",
         15: "forum", 16: "media"}
TOKEN = discord_shaped_token(APP)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    seed = default_seed()
    seed["applications"][0]["bot_token"] = TOKEN
    seed["guilds"][0]["channels"] = [
        {"id": str(int(GUILD_ID) + 100 + kind), "name": f"c{kind}", "type": kind}
        for kind in TYPES]
    seed["guilds"][0]["messages"] = []
    emulator = new_emulator(seed=seed)
    with BackgroundServer(create_app(emulator)) as base:
        yield emulator, base


def test_discord_py_reads_every_channel_type(served: tuple[Emulator, str]) -> None:
    client, ready = discord_py_client()
    with pointed_at(served[1], libraries=("discord",)), \
            BotThread(lambda: client.start(TOKEN), client.close) as running:
        wait_ready(served[0], APP, ready, running)

        async def cached() -> tuple[list[str], list[str]]:
            guild = client.get_guild(int(GUILD_ID))
            assert guild is not None
            return (sorted(str(c.type) for c in guild.channels),
                    sorted(str(t.type) for t in guild.threads))

        channels, threads = running.call(cached())
    # GUILD_DIRECTORY (a hub's) is sent too; the libraries know no such channel and skip it
    assert channels == sorted(TYPES[k] for k in TYPES if k not in (10, 11, 12, 14))
    assert threads == ["news_thread", "private_thread", "public_thread"]


def test_disnake_reads_every_channel_type(served: tuple[Emulator, str]) -> None:
    client, loop, ready = disnake_client(pytest.importorskip("disnake"))
    with pointed_at(served[1], libraries=("disnake",)), \
            BotThread(lambda: client.start(TOKEN), client.close, loop) as running:
        wait_ready(served[0], APP, ready, running)
        guild = client.get_guild(int(GUILD_ID))
        assert guild is not None
        assert len(guild.channels) == 7 and len(guild.threads) == 3  # no directory


@pytest.mark.skipif(sys.version_info < (3, 11), reason="hikari needs Python 3.11 or newer")
def test_hikari_reads_every_channel_type(served: tuple[Emulator, str]) -> None:
    hikari = pytest.importorskip("hikari")
    bot = hikari.GatewayBot(TOKEN, rest_url=f"{served[1]}/api/v10", banner=None,
                            intents=hikari.Intents.GUILDS, suppress_optimization_warning=True)
    ready = threading.Event()

    @bot.listen(hikari.GuildAvailableEvent)
    async def on_guild(_: Any) -> None:
        ready.set()

    async def start() -> None:
        await bot.start(check_for_updates=False)
        await bot.join()

    with BotThread(start, bot.close) as running:
        wait_ready(served[0], APP, ready, running)
        guild = bot.cache.get_guild(int(GUILD_ID))
        assert guild is not None
        assert len(guild.get_channels()) == 7  # no directory
        assert len(bot.cache.get_threads_view_for_guild(int(GUILD_ID))) == 3
