"""A bot connects once per session (issue 36, item 7): a session-scoped fixture connects a
real discord.py bot through ``discord_emulator_session``; each test's reset keeps its
gateway session and returns to the state it connected to, sending the events that undo
what a test changed. And where tests do reconnect, a closed bot never gets the next
test's interactions. Each suite runs in a pytester session of its own."""

from __future__ import annotations

import re

import pytest

from tests.support import paths

pytest_plugins = ["pytester"]
pytest.importorskip("discord")
pytest.importorskip("pytest_asyncio")

CONFTEST = '''
import asyncio

import discord
import pytest_asyncio

GUILD, OWNER, VISITOR = 666666666666666666, 777777777777777777, 777777777777777779
SEED = {
    "applications": [{"id": "555555555555555555", "name": "Shop",
                      "flags": ["gateway_guild_members"],  # the privileged intent it asks
                      "bot_token": "shop-token", "client_secret": "shop-secret"}],
    "guilds": [{"id": str(GUILD), "name": "Shop guild", "owner_id": str(OWNER),
                "roles": [{"id": str(GUILD), "name": "@everyone",
                           "permissions": ["view_channel", "send_messages",
                                           "use_application_commands"]}],
                "members": [{"user_id": str(OWNER)}, {"user_id": "555555555555555555"}],
                "channels": [{"id": "666666666666666667", "name": "shop", "type": 0}]}],
    "users": [{"id": str(OWNER), "username": "shopkeeper"},
              {"id": str(VISITOR), "username": "visitor"}],
}
READY = []  # every READY the bot got: one for the whole session


def make_bot():
    intents = discord.Intents.default()
    intents.members = True
    bot = discord.Client(intents=intents)
    bot.tree = discord.app_commands.CommandTree(bot)

    @bot.event
    async def on_ready():
        READY.append(bot.user.id)

    @bot.event
    async def on_member_join(member):
        await member.guild.text_channels[0].send(f"welcome {member.name}")

    @bot.tree.command()
    async def ping(interaction: discord.Interaction) -> None:
        """Check the bot is alive"""
        await interaction.response.send_message("pong")
        await interaction.channel.send("posted")

    return bot


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def bot(discord_emulator_session):
    discord_emulator_session.reset(SEED)  # before the bot connects: the session's seed
    bot = make_bot()
    async with discord_emulator_session.connect(bot):
        await bot.tree.sync()
        yield bot


async def until(condition):
    for _ in range(500):  # a condition the bot's cache meets once an event is read
        if condition():
            return True
        await asyncio.sleep(0.01)
    return False
'''

SESSION_TESTS = '''
import discord
import pytest

from conftest import GUILD, READY, SEED, VISITOR, make_bot, until
from cmdsync.errors import UsageError
from cmdsync.testing import InvocationFailed

pytestmark = pytest.mark.asyncio(loop_scope="session")


def answer_from(name):
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(name)

    return ping


async def test_a_visitor_joins_and_the_bot_is_asked(bot, discord_emulator):
    await discord_emulator.join(VISITOR)  # an int id, as the bot holds it
    assert await until(lambda: bot.get_guild(GUILD).get_member(VISITOR) is not None)
    assert await discord_emulator.settle()
    assert [m["content"] for m in discord_emulator.messages(channel=666666666666666667)] == [
        "welcome visitor"]
    result = await discord_emulator.invoke("/ping")
    assert (result.content, [m["content"] for m in result.channel_messages]) == (
        "pong", ["posted"])


async def test_the_next_test_starts_where_the_bot_connected(bot, discord_emulator):
    # the visitor's join is undone, in the bot's cache too (the reset ran the bot until
    # it read GUILD_MEMBER_REMOVE), and nothing was re-synced
    assert bot.get_guild(GUILD).get_member(VISITOR) is None
    assert discord_emulator.messages() == []  # the welcome, and the pings' posts, are gone
    result = await discord_emulator.invoke("/ping")
    assert result.content == "pong"
    assert discord_emulator.emulator.store.member(str(GUILD), str(VISITOR)) is None
    log = discord_emulator.emulator.log.entries()
    assert [e.route for e in log if "commands" in e.route] == []  # no sync in this test
    assert READY == [555555555555555555]  # one connection for both tests


async def test_a_test_re_syncs_the_bot_s_commands(bot, discord_emulator):
    ping = bot.tree.get_command("ping")
    bot.tree.remove_command("ping")
    await bot.tree.sync()  # this test registers no command at all
    try:
        with pytest.raises(InvocationFailed, match="ping"):
            await discord_emulator.invoke("/ping")
    finally:
        bot.tree.add_command(ping)  # the bot's tree as it was, not synced again


async def test_commands_a_test_re_synced_are_put_back(bot, discord_emulator):
    assert (await discord_emulator.invoke("/ping")).content == "pong"


async def test_a_bot_connected_in_a_test_takes_the_interactions_meanwhile(
        bot, discord_emulator):
    other = make_bot()
    other.tree.get_command("ping")._callback = answer_from("the test's bot")
    async with discord_emulator.connect(other):
        mine = await discord_emulator.invoke("/ping")
    again = await discord_emulator.invoke("/ping")
    assert (mine.content, again.content) == ("the test's bot", "pong")


async def test_a_seed_of_its_own_is_refused_while_the_bot_stays(bot, discord_emulator):
    with pytest.raises(UsageError, match="a bot is connected for the whole test session"):
        discord_emulator.reset(SEED)
    assert len(READY) == 2  # the session's bot, and the one the test before connected
'''

RECONNECT_TESTS = '''
import pytest

from conftest import SEED, make_bot

HEARD = {}  # interaction ids each test's bot got


@pytest.fixture
def discord_seed():
    return SEED


def counting(name):
    bot = make_bot()

    @bot.event
    async def on_interaction(interaction):
        HEARD.setdefault(name, []).append(interaction.id)

    return bot


@pytest.mark.asyncio
async def test_a_first_bot(discord_emulator):
    bot = counting("first")
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        await discord_emulator.invoke("/ping")
    assert discord_emulator.gateway.sessions() == []  # its session ended with it


@pytest.mark.asyncio
async def test_a_second_bot_gets_every_interaction_of_its_test(discord_emulator):
    bot = counting("second")
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        results = [await discord_emulator.invoke("/ping") for _ in range(3)]
    assert HEARD["second"] == [int(r.interaction["id"]) for r in results]
    assert len(HEARD["first"]) == 1
'''


def test_a_bot_connected_for_the_session_keeps_its_gateway_session(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_session=SESSION_TESTS)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=6)


def test_a_closed_bot_never_gets_the_next_test_s_interactions(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_reconnect=RECONNECT_TESTS)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=2)


MY_BOT = '''
import discord


def make_bot():
    bot = discord.Client(intents=discord.Intents.default())
    bot.tree = discord.app_commands.CommandTree(bot)

    @bot.tree.command()
    async def ping(interaction: discord.Interaction) -> None:
        """Check the bot is alive"""
        await interaction.response.send_message("Pong!", ephemeral=True)

    return bot
'''


def test_the_docs_session_example_passes(pytester: pytest.Pytester) -> None:
    """docs/testing/pytest.md's "One bot for the whole session" (a promise: run here)."""
    page = (paths.ROOT / "docs" / "testing" / "pytest.md").read_text(encoding="utf-8")
    section = page[page.index("## One bot for the whole session"):]
    conftest, tests = re.findall(r"```python\n(.*?)```", section, re.DOTALL)[:2]
    pytester.makepyfile(mybot=MY_BOT, conftest=conftest, test_bot=tests)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=2)
