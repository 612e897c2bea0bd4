"""disnake logs in through the emulator's gateway (``disnake.http.Route.BASE`` pointed at
it; the gateway URL from ``GET /gateway/bot``), caches the seeded guild and answers a
command run with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator.gateway.clients import pointed_at
from cmdsync.emulator.seed import BOT_TOKEN
from tests.emulator.gateway.bots import (
    BotThread,
    disnake_client,
    invoker,
    ping_answered,
    served_with,
    wait_ready,
)
from tests.support.emulator import APP, GUILD, chat

disnake = pytest.importorskip("disnake")


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    with served_with([chat("ping")]) as (emulator, base):
        client, loop, ready = disnake_client(disnake)

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
    code, out, err = invoker(world["base"], monkeypatch, capsys)("--guild", GUILD, "/ping")
    assert (code, out, err) == (0, ping_answered("pong from disnake in Emulator Guild"), "")
