"""Guild management as a real discord.py bot does it from a slash command: it creates a
role, denies it a permission in a channel with an overwrite, and pins a message; the
REST answers, the gateway events (GUILD_ROLE_CREATE, CHANNEL_UPDATE,
CHANNEL_PINS_UPDATE) and discord.py's cache all agree; without PIN_MESSAGES the pin is
refused with 50013."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

MANAGING_BOT = '''
import asyncio

import discord
import pytest

OWNER, BOT = "777777777777777777", "555555555555555555"
GUILD, GENERAL, BOTS = 666666666666666666, 666666666666666667, "666666666666666671"
SEED = {
    "applications": [{"id": BOT, "name": "Steward", "bot_token": "steward-token",
                      "client_secret": "s"}],
    "guilds": [{"id": str(GUILD), "name": "Guild", "owner_id": OWNER,
                "roles": [{"id": str(GUILD), "name": "@everyone",
                           "permissions": ["view_channel", "send_messages",
                                           "read_message_history",
                                           "use_application_commands"]},
                          {"id": BOTS, "name": "Bots", "permissions": [
                              "manage_roles", "manage_channels", "pin_messages"]}],
                "members": [{"user_id": OWNER}, {"user_id": BOT, "roles": [BOTS]}],
                "channels": [{"id": str(GENERAL), "name": "general", "type": 0}]}],
    "users": [{"id": OWNER, "username": "owner"}],
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
    async def on_guild_role_create(role):
        bot.events.append(("role", role.name))

    @bot.event
    async def on_guild_channel_update(before, after):
        bot.events.append(("channel", after.id))

    @bot.event
    async def on_guild_channel_pins_update(channel, last_pin):
        bot.events.append(("pins", channel.id, last_pin is not None))

    @bot.tree.command()
    async def setup(interaction: discord.Interaction) -> None:
        guild = interaction.guild
        role = await guild.create_role(name="Quiet", colour=discord.Colour(0x123456),
                                       mentionable=True)
        channel = guild.get_channel(GENERAL)
        await channel.set_permissions(role, send_messages=False, read_message_history=True)
        notice = await channel.send("house rules")
        await notice.pin()
        bot.made.update(role=role, notice=notice)
        await interaction.response.send_message(f"made {role.name}")

    @bot.tree.command()
    async def pin_last(interaction: discord.Interaction) -> None:
        notice = await interaction.channel.send("try to pin")
        try:
            await notice.pin()
        except discord.Forbidden as refused:
            await interaction.response.send_message(f"refused {refused.code}")
        else:
            await interaction.response.send_message("pinned")

    return bot


async def until(condition, seconds=5.0):
    """Wait for ``condition()`` to hold (a gateway event's effect), at most ``seconds``."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


@pytest.mark.anyio
async def test_a_command_makes_a_role_an_overwrite_and_a_pin(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/setup")
        role, notice = bot.made["role"], bot.made["notice"]
        guild = bot.get_guild(GUILD)
        channel = guild.get_channel(GENERAL)
        assert await until(lambda: guild.get_role(role.id) is not None)
        assert await until(lambda: channel.overwrites_for(role).send_messages is False)
        assert await until(lambda: any(e[0] == "pins" for e in bot.events))
        pins = [message async for message in channel.pins()]
        fetched = await guild.fetch_roles()
    assert answer.content == "made Quiet"
    assert (role.name, role.colour.value, role.mentionable, role.position) == (
        "Quiet", 0x123456, True, 1)
    assert [(r.name, r.position) for r in sorted(fetched)] == [
        ("@everyone", 0), ("Quiet", 1), ("Bots", 2)]
    overwrite = channel.overwrites_for(role)
    assert (overwrite.send_messages, overwrite.read_message_history,
            overwrite.view_channel) == (False, True, None)
    assert [(m.id, m.content, m.pinned) for m in pins] == [(notice.id, "house rules", True)]
    assert ("role", "Quiet") in bot.events
    assert ("channel", GENERAL) in bot.events
    assert ("pins", GENERAL, True) in bot.events


@pytest.mark.anyio
async def test_pinning_without_pin_messages_is_refused(discord_emulator):
    seed = {**SEED, "guilds": [{**SEED["guilds"][0], "roles": [
        SEED["guilds"][0]["roles"][0],
        {"id": BOTS, "name": "Bots", "permissions": ["manage_messages"]}]}]}
    discord_emulator.reset(seed)
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/pin_last")
    assert answer.content == "refused 50013"
'''


def test_a_discordpy_bot_manages_its_guild(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_guild_management=MANAGING_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=2)
