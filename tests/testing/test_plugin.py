"""The pytest plugin as a bot's own test suite uses it (issue 23, part 5): pytester runs
the example of docs/testing/pytest.md, and variants, in a test session of their own."""

from __future__ import annotations

import re

import pytest

from tests.support import paths

pytest_plugins = ["pytester"]
pytest.importorskip("discord")


def docs_example() -> str:
    """The example of docs/testing/pytest.md (a promise: it is run here)."""
    section = (paths.ROOT / "docs" / "testing" / "pytest.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_docs_example_passes(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_asyncio")
    pytester.makepyfile(test_bot=docs_example())
    result = pytester.runpytest_subprocess("-p", "asyncio", "-q")
    result.assert_outcomes(passed=1)


ANYIO_BOT = '''
import asyncio

import discord
import pytest
from discord.ext import commands

from cmdsync.testing import InvocationFailed

SEED = {
    "applications": [{"id": "555555555555555555", "name": "Shop",
                      "bot_token": "shop-token", "client_secret": "shop-secret"}],
    "guilds": [{"id": "666666666666666666", "name": "Shop guild",
                "owner_id": "777777777777777777",
                "roles": [{"id": "666666666666666666", "name": "@everyone",
                           "permissions": ["view_channel", "send_messages",
                                           "use_application_commands"]}],
                "members": [{"user_id": "777777777777777777"},
                            {"user_id": "555555555555555555"}],  # the bot: it may post
                "channels": [{"id": "666666666666666667", "name": "shop", "type": 0}]}],
    "users": [{"id": "777777777777777777", "username": "shopkeeper"}],
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def discord_seed():
    return SEED


class ShopBot(commands.Bot):  # most bots subclass commands.Bot
    pass


def make_bot():
    bot = ShopBot(command_prefix="!", intents=discord.Intents.default())

    @bot.tree.command()
    async def announce(interaction: discord.Interaction) -> None:
        """Post to the channel, then answer"""
        await interaction.channel.send("the shop is open")
        await interaction.response.send_message("announced", ephemeral=True)

    @bot.tree.command()
    async def long(interaction: discord.Interaction) -> None:
        """Too long for Discord"""
        await interaction.response.send_message("x" * 2001)

    @bot.tree.command()
    async def slow(interaction: discord.Interaction) -> None:
        """Defer, edit, follow up"""
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done")
        await interaction.followup.send("one more thing")

    @bot.tree.command()
    async def later(interaction: discord.Interaction) -> None:
        """Defer, then edit the reply a moment later"""
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.2)
        await interaction.edit_original_response(content="edited")

    @bot.tree.command()
    async def chatty(interaction: discord.Interaction) -> None:
        """Answer, then post and follow up unasked"""
        await interaction.response.send_message("hello")
        await interaction.channel.send("posted after the answer")
        await interaction.followup.send("and a follow-up")

    @bot.tree.command()
    async def silent(interaction: discord.Interaction) -> None:
        """Never answers"""

    return bot


@pytest.mark.anyio
async def test_deferred_then_follow_up(discord_emulator):
    assert discord_emulator.application_id == "555555555555555555"
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke("/slow", follow_ups=1,
                                               guild=666666666666666666)  # an int id
    assert result.response_type == "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE"
    assert result.deferred and result.content == "done"
    assert [m["content"] for m in result.follow_ups] == ["one more thing"]
    assert result.interaction["guild_id"] == "666666666666666666"


@pytest.mark.anyio
async def test_more_follow_ups_than_came_is_an_error_naming_how_many(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/slow", follow_ups=2, wait=1)
    assert str(failed.value).startswith(
        "asked for 2 follow-ups, 1 came within 1 s: ['one more thing']")


@pytest.mark.anyio
async def test_settling_waits_for_a_deferred_reply_s_edit(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        answer = await discord_emulator.invoke("/later", settle=False)  # the deferral alone
        edited = await discord_emulator.invoke("/later")  # settles once the edit came
        waited = await discord_emulator.invoke("/later", settle=False, wait=2)
    assert (answer.deferred, answer.content) == (True, "")
    assert (edited.deferred, edited.content, edited.follow_ups) == (True, "edited", [])
    assert (waited.deferred, waited.content) == (True, "edited")


@pytest.mark.anyio
async def test_an_invocation_settles_with_what_the_bot_did_after_its_answer(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke("/chatty")  # no count asked: it settles
    assert result.content == "hello"
    assert [m["content"] for m in result.channel_messages] == ["posted after the answer"]
    assert [m["content"] for m in result.follow_ups] == ["and a follow-up"]


@pytest.mark.anyio
async def test_a_command_changed_and_synced_again_is_outdated_once(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        await discord_emulator.invoke("/announce")
        bot.tree.get_command("announce").description = "Open the shop"
        await bot.tree.sync()
        with pytest.raises(InvocationFailed, match=r"outdated.*: invoke it again[)]$"):
            await discord_emulator.invoke("/announce")
        again = await discord_emulator.invoke("/announce")
    assert again.content == "announced"


@pytest.mark.anyio
async def test_no_answer_fails_clearly(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        with pytest.raises(InvocationFailed, match="This interaction failed"):
            await discord_emulator.invoke("/silent")


@pytest.mark.anyio
async def test_each_test_starts_from_the_seed(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        with pytest.raises(InvocationFailed, match="the client would not send it.*await "
                                                   "bot.tree.sync") as caught:
            await discord_emulator.invoke("/slow")  # not synced in this test: unknown
    assert "cmdsync apply" not in str(caught.value), caught.value  # not for a bot's test
    assert str(caught.value).endswith(": register the bot's commands in this test first: "
                                      "`await bot.tree.sync()`, or your library's sync")


@pytest.mark.anyio
async def test_channel_messages_and_a_refused_answer(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke("/announce")
        with pytest.raises(InvocationFailed, match="This interaction failed: the bot's "
                           "callback was refused: HTTP 400 50035") as caught:
            await discord_emulator.invoke("/long")
    assert "did not respond" not in str(caught.value)  # it did: Discord refused the answer
    assert "no other response came within 3 seconds of INTERACTION_CREATE" in str(
        caught.value)
    assert result.content == "announced" and result.ephemeral
    assert [m["content"] for m in result.channel_messages] == ["the shop is open"]
    assert result.channel_messages[0]["channel_id"] == "666666666666666667"
    assert "exchange" not in repr(result)
'''


def test_anyio_a_seed_from_python_values_follow_ups_and_failures(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_shop=ANYIO_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=8)


KINDS_BOT = '''
import discord
import pytest
from discord import app_commands
from discord.ext import commands

MEMBER = "333333333333333334"  # the default seed's member, and its message
MESSAGE = "222222222222222226"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Feedback(discord.ui.Modal, title="Feedback"):
    text = discord.ui.TextInput(label="Your feedback")


def make_bot():
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())
    mod = app_commands.Group(name="mod", description="Moderation")

    @mod.command()
    async def warn(interaction: discord.Interaction, user: discord.User, reason: str) -> None:
        """Warn a member"""
        await interaction.response.send_message(f"warned {user.id}: {reason}")

    bot.tree.add_command(mod)

    @bot.tree.context_menu(name="Inspect")
    async def inspect(interaction: discord.Interaction, user: discord.User) -> None:
        await interaction.response.send_message(f"user {user.id}", ephemeral=True)

    @bot.tree.context_menu(name="Quote")
    async def quote(interaction: discord.Interaction, message: discord.Message) -> None:
        await interaction.response.send_message(
            embed=discord.Embed(title="Quote", description=message.content))

    @bot.tree.command()
    async def fruit(interaction: discord.Interaction, name: str) -> None:
        """Pick a fruit"""
        await interaction.response.send_message(name)

    @fruit.autocomplete("name")
    async def fruits(interaction: discord.Interaction, current: str):
        return [app_commands.Choice(name=f, value=f) for f in ("apple", "apricot", "banana")
                if f.startswith(current)]

    @bot.tree.command()
    async def form(interaction: discord.Interaction) -> None:
        """Open a modal"""
        await interaction.response.send_modal(Feedback())

    return bot


@pytest.mark.anyio
async def test_every_kind_of_command(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        warned = await discord_emulator.invoke(f"/mod warn user:<@{MEMBER}> reason:spam")
        inspected = await discord_emulator.invoke(user_command="Inspect", target=MEMBER)
        quoted = await discord_emulator.invoke(message_command="Quote", target=MESSAGE)
        choices = await discord_emulator.invoke("/fruit name:ap", autocomplete=True)
        modal = await discord_emulator.invoke("/form")
    assert warned.content == f"warned {MEMBER}: spam"
    assert inspected.content == f"user {MEMBER}" and inspected.ephemeral
    assert quoted.embeds[0]["title"] == "Quote" and quoted.embeds[0]["description"] == "hello"
    assert choices.response_type == "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT"
    assert [c["name"] for c in choices.choices] == ["apple", "apricot"]
    assert modal.response_type == "MODAL" and modal.modal["title"] == "Feedback"
'''


def test_subcommands_context_menus_autocomplete_and_modals(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_kinds=KINDS_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=1)


DISNAKE_BOT = '''
import disnake
import pytest
from disnake.ext import commands

GUILD = 222222222222222222  # the default seed's guild, member and message
MEMBER = "333333333333333334"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def make_bot():
    bot = commands.InteractionBot(test_guilds=[GUILD],
                                  command_sync_flags=commands.CommandSyncFlags.none())

    @bot.slash_command(description="Tags")
    async def tag(inter: disnake.ApplicationCommandInteraction) -> None:
        pass

    @tag.sub_command(description="Show a tag")
    async def show(inter: disnake.ApplicationCommandInteraction, name: str) -> None:
        await inter.response.send_message(f"tag {name}", ephemeral=True)

    @bot.slash_command(description="Defer, edit, follow up")
    async def slow(inter: disnake.ApplicationCommandInteraction) -> None:
        await inter.response.defer()
        await inter.edit_original_response(content="done")
        await inter.followup.send("one more thing")

    @bot.user_command(name="Inspect")
    async def inspect(inter: disnake.ApplicationCommandInteraction,
                      user: disnake.Member) -> None:
        await inter.response.send_message(f"{user.name} has {len(user.roles)} role(s)")

    return bot


@pytest.mark.anyio
async def test_a_disnake_bot(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.bulk_overwrite_guild_commands(
            GUILD, [c.body for c in (*bot.slash_commands, *bot.user_commands)])
        shown = await discord_emulator.invoke("/tag show name:rules")
        slow = await discord_emulator.invoke("/slow", follow_ups=1)
        inspected = await discord_emulator.invoke(user_command="Inspect", target=MEMBER)
    assert (shown.content, shown.ephemeral) == ("tag rules", True)
    assert slow.deferred and slow.content == "done"
    assert [m["content"] for m in slow.follow_ups] == ["one more thing"]
    assert inspected.content == "member has 1 role(s)"
'''


def test_a_disnake_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("disnake")
    pytester.makepyfile(test_disnake_bot=DISNAKE_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=1)


HIKARI_BOT = '''
import hikari
import pytest

from cmdsync.emulator.seed import default_seed
from cmdsync.testing import discord_shaped_token

TOKEN = discord_shaped_token("111111111111111111")


@pytest.fixture
def discord_seed():
    seed = default_seed()
    seed["applications"][0]["bot_token"] = TOKEN
    return seed


@pytest.mark.asyncio
async def test_hikari_gateway_bot(discord_emulator):
    bot = hikari.GatewayBot(TOKEN, rest_url=discord_emulator.api_url, banner=None,
                            intents=hikari.Intents.GUILDS)

    @bot.listen(hikari.InteractionCreateEvent)
    async def on_interaction(event):
        await event.interaction.create_initial_response(
            hikari.ResponseType.MESSAGE_CREATE, "pong from hikari")

    async with discord_emulator.connect(bot):
        await bot.rest.set_application_commands(
            discord_emulator.application_id,
            [bot.rest.slash_command_builder("ping", "Check the bot is alive")])
        result = await discord_emulator.invoke("/ping")
    assert result.content == "pong from hikari"
'''


def test_a_hikari_gateway_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("hikari")  # hikari needs Python 3.11 or newer
    pytest.importorskip("pytest_asyncio")
    pytester.makepyfile(test_hikari_bot=HIKARI_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=1)


def test_a_missing_seed_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ndiscord_seed = seeds/missing.yaml\n")
    pytester.makepyfile(test_it="def test_it(discord_emulator):\n    pass\n")
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    assert "discord_seed = 'seeds/missing.yaml' (pytest's ini options): no such file" in \
        result.stdout.str() + result.stderr.str()


def test_the_fixture_object_has_the_gateway_the_docs_name() -> None:
    """docs/emulator/gateway.md: "an emulator's `gateway` attribute" (sessions, drop,
    reconnect), on the object the ``discord_emulator`` fixture gives too."""
    from cmdsync.testing import DiscordEmulator

    with DiscordEmulator() as emulator:
        assert emulator.gateway is emulator.emulator.gateway
        assert emulator.gateway.sessions() == []
