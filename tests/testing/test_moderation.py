"""Moderation as a real discord.py bot calls it (issue 36, item 3, in part): kick, ban,
unban and the bans list, a nickname, roles and a timeout, with Discord's permission and
hierarchy checks (50013), its codes (10007, 10026) and the gateway events."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

MODERATION_BOT = '''
import datetime

import discord
import pytest

from cmdsync.testing import InvocationFailed

OWNER, MEMBER, MOD, BOT = ("777777777777777777", "777777777777777778", "777777777777777779",
                           "555555555555555555")
GUILD, MODS, BOTS, MUTED = (666666666666666666, "666666666666666670", "666666666666666671",
                            "666666666666666672")
SEED = {
    "applications": [{"id": BOT, "name": "Warden", "flags": ["gateway_guild_members"],
                      "bot_token": "warden-token", "client_secret": "s"}],
    "guilds": [{"id": str(GUILD), "name": "Guild", "owner_id": OWNER,
                "roles": [{"id": str(GUILD), "name": "@everyone",
                           "permissions": ["view_channel", "send_messages"]},
                          {"id": MUTED, "name": "Muted"},
                          {"id": BOTS, "name": "Bots", "permissions": [
                              "kick_members", "ban_members", "manage_nicknames",
                              "manage_roles", "moderate_members"]},
                          {"id": MODS, "name": "Mods"}],
                "members": [{"user_id": OWNER}, {"user_id": MEMBER},
                            {"user_id": MOD, "roles": [MODS]},
                            {"user_id": BOT, "roles": [BOTS]}],
                "channels": [{"id": "666666666666666667", "name": "general", "type": 0}]}],
    "users": [{"id": OWNER, "username": "owner"}, {"id": MEMBER, "username": "member"},
              {"id": MOD, "username": "mod"}],
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def discord_seed():
    return SEED


def make_bot():
    intents = discord.Intents.default()
    intents.members = True
    bot = discord.Client(intents=intents)
    bot.events = []

    @bot.event
    async def on_member_remove(member):
        bot.events.append(("remove", member.id))

    @bot.event
    async def on_member_ban(guild, user):
        bot.events.append(("ban", user.id))

    @bot.event
    async def on_member_unban(guild, user):
        bot.events.append(("unban", user.id))

    @bot.event
    async def on_member_update(before, after):
        bot.events.append(("update", after.id, after.nick))

    @bot.event
    async def on_member_join(member):
        bot.events.append(("join", member.id, [r.id for r in member.roles]))

    return bot


async def settle(bot, count):
    import asyncio
    for _ in range(200):
        if len(bot.events) >= count:
            return
        await asyncio.sleep(0.01)


@pytest.mark.anyio
async def test_kick_ban_unban_and_the_bans_list(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        guild = bot.get_guild(GUILD)
        member = await guild.fetch_member(int(MEMBER))
        await member.kick(reason="spam")
        with pytest.raises(discord.NotFound) as gone:
            await guild.fetch_member(int(MEMBER))
        await guild.ban(discord.Object(int(MEMBER)), reason="more spam")
        bans = [entry async for entry in guild.bans()]
        ban = await guild.fetch_ban(discord.Object(int(MEMBER)))
        await guild.unban(discord.Object(int(MEMBER)))
        with pytest.raises(discord.NotFound) as unbanned:
            await guild.fetch_ban(discord.Object(int(MEMBER)))
        await settle(bot, 3)
    assert gone.value.code == 10007 and unbanned.value.code == 10026
    assert [(b.user.id, b.reason) for b in bans] == [(int(MEMBER), "more spam")]
    assert ban.reason == "more spam"
    assert bot.events[:3] == [("remove", int(MEMBER)), ("ban", int(MEMBER)),
                              ("unban", int(MEMBER))]


@pytest.mark.anyio
async def test_the_hierarchy_and_permissions_are_discords(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        guild = bot.get_guild(GUILD)
        owner = await guild.fetch_member(int(OWNER))
        mod = await guild.fetch_member(int(MOD))
        with pytest.raises(discord.Forbidden) as on_owner:
            await owner.kick()
        with pytest.raises(discord.Forbidden) as above:
            await mod.add_roles(discord.Object(int(MODS)))  # Mods sits above Bots
        with pytest.raises(discord.NotFound) as unknown_role:
            await mod.add_roles(discord.Object(1))
    assert (on_owner.value.code, above.value.code, unknown_role.value.code) == (
        50013, 50013, 10011)


@pytest.mark.anyio
async def test_users_join_get_roles_and_leave(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await discord_emulator.leave(MEMBER)
        await discord_emulator.join(MEMBER, roles=[MUTED])
        await settle(bot, 2)  # the join heard before the update changes the cached member
        await discord_emulator.give_roles(MEMBER, [])
        with pytest.raises(InvocationFailed, match="no role 1 in guild"):
            await discord_emulator.join(MOD, roles=["1"])
        await settle(bot, 3)
        member = await bot.get_guild(GUILD).fetch_member(int(MEMBER))
    assert bot.events[:3] == [("remove", int(MEMBER)),
                              ("join", int(MEMBER), [GUILD, int(MUTED)]),
                              ("update", int(MEMBER), None)]
    assert [r.id for r in member.roles] == [GUILD]


@pytest.mark.anyio
async def test_a_nickname_a_role_and_a_timeout(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        guild = bot.get_guild(GUILD)
        member = await guild.fetch_member(int(MEMBER))
        renamed = await member.edit(nick="quiet one")
        await member.add_roles(discord.Object(int(MUTED)))
        muted = await guild.fetch_member(int(MEMBER))
        until = discord.utils.utcnow() + datetime.timedelta(hours=1)
        await member.timeout(until)
        timed = await guild.fetch_member(int(MEMBER))
        with pytest.raises(discord.HTTPException) as too_long:
            await member.timeout(discord.utils.utcnow() + datetime.timedelta(days=29))
        await settle(bot, 1)
    assert renamed.nick == "quiet one"
    assert [r.id for r in muted.roles if r.id != GUILD] == [int(MUTED)]
    assert timed.is_timed_out()
    assert too_long.value.status == 400
    assert ("update", int(MEMBER), "quiet one") in bot.events
'''


def test_a_discordpy_bot_moderates(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_moderation=MODERATION_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=4)
