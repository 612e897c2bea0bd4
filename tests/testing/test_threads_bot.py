"""Threads as a real discord.py bot uses them from slash commands: it starts a thread
from its reply (and one without a message), adds a member, and posts in the thread; the
REST answers, the gateway events (THREAD_CREATE, THREAD_MEMBERS_UPDATE, MESSAGE_CREATE)
and discord.py's cache all agree; without CREATE_PUBLIC_THREADS the thread is refused
with 50013."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

THREADING_BOT = '''
import asyncio

import discord
import pytest

OWNER, MEMBER, BOT = "777777777777777777", 777777777777777778, "555555555555555555"
GUILD, GENERAL = 666666666666666666, 666666666666666667
EVERYONE = ["view_channel", "send_messages", "read_message_history",
            "use_application_commands", "create_public_threads", "send_messages_in_threads"]
SEED = {
    "applications": [{"id": BOT, "name": "Weaver", "bot_token": "weaver-token",
                      "client_secret": "s", "flags": ["gateway_guild_members"]}],
    "guilds": [{"id": str(GUILD), "name": "Guild", "owner_id": OWNER,
                "roles": [{"id": str(GUILD), "name": "@everyone", "permissions": EVERYONE}],
                "members": [{"user_id": OWNER}, {"user_id": str(MEMBER)},
                            {"user_id": BOT}],
                "channels": [{"id": str(GENERAL), "name": "general", "type": 0}]}],
    "users": [{"id": OWNER, "username": "owner"},
              {"id": str(MEMBER), "username": "member"}],
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def discord_seed():
    return SEED


def make_bot():
    bot = discord.Client(intents=discord.Intents.default())
    bot.tree = discord.app_commands.CommandTree(bot)
    bot.events = []
    bot.made = {}

    @bot.event
    async def on_thread_create(thread):
        bot.events.append(("created", thread.id))

    @bot.event
    async def on_thread_join(thread):
        bot.events.append(("joined", thread.id))

    @bot.event
    async def on_message(message):
        bot.events.append(("message", message.channel.id, message.content))

    @bot.tree.command()
    async def discuss(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("let us talk")
        reply = await interaction.original_response()
        try:
            thread = await reply.create_thread(name="Talk", auto_archive_duration=60)
        except discord.Forbidden as refused:
            await interaction.edit_original_response(content=f"refused {refused.code}")
            return
        await thread.add_user(discord.Object(MEMBER))
        posted = await thread.send("welcome")
        bot.made.update(reply=reply, thread=thread, posted=posted)

    @bot.tree.command()
    async def brainstorm(interaction: discord.Interaction) -> None:
        thread = await interaction.channel.create_thread(
            name="Ideas", type=discord.ChannelType.public_thread)
        await thread.send("first idea")
        bot.made["ideas"] = thread
        await interaction.response.send_message(f"opened {thread.id}")

    return bot


async def until(condition, seconds=5.0):
    """Wait for ``condition()`` to hold (a gateway event's effect), at most ``seconds``."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


@pytest.mark.anyio
async def test_a_command_starts_a_thread_from_its_reply(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/discuss")
        reply, thread, posted = bot.made["reply"], bot.made["thread"], bot.made["posted"]
        guild = bot.get_guild(GUILD)
        assert await until(lambda: guild.get_thread(thread.id) is not None)
        cached = guild.get_thread(thread.id)
        assert await until(lambda: cached.me is not None)
        assert await until(lambda: ("message", thread.id, "welcome") in bot.events)
        members = await cached.fetch_members()
        history = [m async for m in thread.history()]
        fetched = await bot.fetch_channel(thread.id)
    assert answer.content == "let us talk"
    assert (thread.id, thread.parent_id, thread.type, thread.owner_id, thread.name) == (
        reply.id, GENERAL, discord.ChannelType.public_thread, int(BOT), "Talk")
    assert thread.auto_archive_duration == 60
    assert ("created", thread.id) in bot.events
    assert sorted(m.id for m in members) == sorted([int(BOT), MEMBER])
    assert (posted.channel.id, posted.content) == (thread.id, "welcome")
    assert [m.content for m in history] == ["welcome"]
    assert (fetched.parent_id, fetched.member_count) == (GENERAL, 2)


@pytest.mark.anyio
async def test_a_command_opens_a_thread_without_a_message(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/brainstorm")
        ideas = bot.made["ideas"]
        assert await until(lambda: ("message", ideas.id, "first idea") in bot.events)
    assert answer.content == f"opened {ideas.id}"
    assert (ideas.type, ideas.parent_id, ideas.name) == (
        discord.ChannelType.public_thread, GENERAL, "Ideas")
    assert ("created", ideas.id) in bot.events


@pytest.mark.anyio
async def test_starting_a_thread_without_the_permission_is_refused(discord_emulator):
    everyone = [p for p in EVERYONE if p != "create_public_threads"]
    seed = {**SEED, "guilds": [{**SEED["guilds"][0], "roles": [
        {"id": str(GUILD), "name": "@everyone", "permissions": everyone}]}]}
    discord_emulator.reset(seed)
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/discuss")
    assert answer.content == "refused 50013"
    assert not any(event[0] == "created" for event in bot.events)
'''


def test_a_discordpy_bot_works_in_threads(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_threads=THREADING_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=3)
