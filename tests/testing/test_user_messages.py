"""Users write (issue 36, item 2, in part): a seeded user's message reaches a real
discord.py bot as MESSAGE_CREATE, so its prefix commands and ``on_message`` run from a
test in one line; without the MESSAGE_CONTENT intent the content arrives empty, as
Discord sends it; a bot's own messages are dispatched too."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

PREFIX_BOT = '''
import discord
import pytest
from discord.ext import commands

from cmdsync.emulator.resources import messages
from cmdsync.testing import InvocationFailed

OWNER, MEMBER = "777777777777777777", "777777777777777778"


def seed(flags):
    return {
        "applications": [{"id": "555555555555555555", "name": "Shop", "flags": flags,
                          "bot_token": "shop-token", "client_secret": "shop-secret"}],
        "guilds": [{"id": "666666666666666666", "name": "Shop guild", "owner_id": OWNER,
                    "roles": [{"id": "666666666666666666", "name": "@everyone",
                               "permissions": ["view_channel", "send_messages",
                                               "read_message_history"]}],
                    "members": [{"user_id": OWNER}, {"user_id": MEMBER},
                                {"user_id": "555555555555555555"}],
                    "channels": [{"id": "666666666666666667", "name": "shop", "type": 0}]}],
        "users": [{"id": OWNER, "username": "shopkeeper"},
                  {"id": MEMBER, "username": "buyer"}],
    }


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def discord_seed(request):
    return seed(getattr(request, "param", ["gateway_message_content"]))


def make_bot(content=True):
    intents = discord.Intents.default()
    intents.message_content = content
    bot = commands.Bot(command_prefix="!", intents=intents)
    bot.seen = []

    @bot.command()
    async def ping(ctx):
        await ctx.send(f"pong, {ctx.author.name}")

    @bot.listen()
    async def on_message(message):
        bot.seen.append((message.author.name, message.content))

    @bot.command()
    async def note(ctx):
        sent = await ctx.send("draft")
        await sent.edit(content="final")
        await sent.delete()

    @bot.listen()
    async def on_raw_message_edit(event):
        bot.seen.append(("edit", event.message_id, event.data.get("content")))

    @bot.listen()
    async def on_raw_message_delete(event):
        bot.seen.append(("delete", event.message_id, event.channel_id))

    @bot.listen()
    async def on_raw_reaction_add(event):
        bot.seen.append(("add", event.user_id, str(event.emoji)))

    @bot.listen()
    async def on_raw_reaction_remove(event):
        bot.seen.append(("remove", event.user_id, str(event.emoji)))

    return bot


async def seen(bot, count):
    import asyncio
    for _ in range(500):  # until the bot's on_message has run for them: at most 5 s
        if len(bot.seen) >= count:
            return
        await asyncio.sleep(0.01)


@pytest.mark.anyio
async def test_a_prefix_command_runs_from_a_users_message(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        said = await discord_emulator.send_message("!ping", user=MEMBER, replies=1)
        await seen(bot, 2)
    assert [m["content"] for m in said.replies] == ["pong, buyer"]
    assert said.message["author"]["id"] == MEMBER
    # on_message saw the user's message and the bot's own reply (MESSAGE_CREATE too)
    assert ("buyer", "!ping") in bot.seen and ("Shop", "pong, buyer") in bot.seen


@pytest.mark.anyio
@pytest.mark.parametrize("discord_seed", [[]], indirect=True)
async def test_without_the_message_content_intent_the_content_is_empty(discord_emulator):
    bot = make_bot(content=False)
    async with discord_emulator.connect(bot):
        with pytest.raises(InvocationFailed, match="asked for 1 replies, 0 came"):
            await discord_emulator.send_message("!ping", user=MEMBER, replies=1, wait=0.5)
        mentioned = await discord_emulator.send_message("<@555555555555555555> hi",
                                                        user=MEMBER)
        await seen(bot, 2)
    assert ("buyer", "") in bot.seen  # the prefix command never ran: no content
    assert ("buyer", "<@555555555555555555> hi") in bot.seen  # a mention keeps it
    assert mentioned.replies == []


@pytest.mark.anyio
async def test_users_react_to_a_bots_message(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        said = await discord_emulator.send_message("!ping", user=MEMBER, replies=1)
        reply = said.replies[0]
        once = await discord_emulator.react(reply, "👍", user=MEMBER)
        twice = await discord_emulator.react(reply, "👍", user=OWNER)
        gone = await discord_emulator.react(reply, "👍", user=MEMBER, remove=True)
        await seen(bot, 5)
    assert [r["count"] for r in once["reactions"]] == [1]
    assert [(r["count"], r["emoji"]["name"]) for r in twice["reactions"]] == [(2, "👍")]
    assert [r["count"] for r in gone["reactions"]] == [1]
    assert [s for s in bot.seen if s[0] in ("add", "remove")] == [
        ("add", int(MEMBER), "👍"), ("add", int(OWNER), "👍"), ("remove", int(MEMBER), "👍")]


@pytest.mark.anyio
async def test_a_bots_edit_and_delete_reach_bots(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        said = await discord_emulator.send_message("!note", user=MEMBER, replies=0)
        await seen(bot, 4)  # !note, draft, its edit, its deletion
    edits = [s for s in bot.seen if s[0] in ("edit", "delete")]
    assert [(kind, text) for kind, _, text in edits] == [
        ("edit", "final"), ("delete", int(said.message["channel_id"]))]
    assert edits[0][1] == edits[1][1]  # the same message, edited then deleted
    # deleted: no longer among the messages bots sent to channels
    assert messages.sent(discord_emulator.emulator.store, after=said.message["id"]) == []


@pytest.mark.anyio
async def test_a_prefix_command_runs_in_a_dm(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        # ids as ints, as a bot's own state holds them
        said = await discord_emulator.send_message("!ping", user=int(MEMBER), dm=True,
                                                   replies=1)
    assert [m["content"] for m in said.replies] == ["pong, buyer"]
    assert said.replies[0]["channel_id"] == said.message["channel_id"]  # the bot's DM
    assert "guild_id" not in said.message


@pytest.mark.anyio
async def test_a_user_who_is_not_a_member_cannot_write(discord_emulator):
    with pytest.raises(InvocationFailed, match="user 1 .*|no user 1 in the emulator"):
        await discord_emulator.send_message("hello", user="1")
'''


def test_a_discordpy_bot_reads_users_messages(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_messages=PREFIX_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=6)
