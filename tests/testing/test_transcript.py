"""A failing test's report carries a transcript (issue 36, item 5): the gateway
dispatches and API requests of the test, the callback included, in order, without the
interaction's token; a passing test's report has none."""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

BOT = '''
import discord
import pytest


@pytest.fixture
def anyio_backend():
    return "asyncio"


def make_bot():
    bot = discord.Client(intents=discord.Intents.default())
    bot.tree = discord.app_commands.CommandTree(bot)

    @bot.tree.command()
    async def ping(interaction: discord.Interaction) -> None:
        """Check the bot is alive"""
        await interaction.response.send_message("pong")
        await interaction.followup.send("and more")

    return bot


@pytest.mark.anyio
async def test_a_wrong_expectation(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke("/ping")
    assert result.content == "PONG"


@pytest.mark.anyio
async def test_a_right_one(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke("/ping")
    assert result.content == "pong"
'''


def test_a_failing_test_reports_what_the_emulator_did(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bot=BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert out.count("discord emulator transcript") == 1  # the failing test's only
    section = out[out.index("discord emulator transcript"):]
    wanted = [
        r"gateway  READY -> application \d+ \(seq 1\): user \d+\n",
        r"gateway  GUILD_CREATE -> application \d+ \(seq 2\): guild \d+",
        r"REST     PUT /api/v10/applications/\d+/commands -> 200",  # the tree's sync
        (r"gateway  INTERACTION_CREATE -> application \d+ \(seq \d+\): "
         r"interaction \d+ \(type 2: ping\)"),
        r"REST     POST /api/v10/interactions/\d+/\{interaction_token\}/callback -> 20[04]",
        r"REST     POST /api/v10/webhooks/\d+/\{interaction_token\} -> 200",  # the follow-up
    ]
    places = [re.search(line, section) for line in wanted]
    assert all(places), (wanted, section)
    assert [p.start() for p in places if p] == sorted(p.start() for p in places if p)
    assert re.search(r"^\+ *\d+\.\d{3}s  ", section, re.MULTILINE)
    token = re.search(r'"token": "([^"]+)"', out)  # no interaction token anywhere
    assert token is None
