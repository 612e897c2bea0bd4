"""Each Python library besides discord.py (test_components.py) through the pytest plugin:
a real disnake bot, hikari ``GatewayBot``, hikari ``RESTBot`` and interactions.py
``Client``, written the library's own way, connected with ``discord_emulator.connect``
in a bot's own test suite (a pytester session of its own per library). Each answers a
slash command, gets a button click, opens a modal that is submitted, and has a handler
that raises fail the test with the bot's own exception."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

# Every suite below has one test per step: test_1_... to test_4_...
STEPS = 4


DISNAKE_BOT = '''
import disnake
import pytest
from disnake.ext import commands

from cmdsync.testing import InvocationFailed

GUILD = 222222222222222222  # the default seed's guild, and its owner
OWNER = "333333333333333333"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Order(disnake.ui.View):
    def __init__(self):
        super().__init__(timeout=None)

    @disnake.ui.button(label="Confirm", style=disnake.ButtonStyle.success,
                       custom_id="order:confirm")
    async def confirm(self, button: disnake.ui.Button, inter: disnake.MessageInteraction):
        await inter.response.edit_message(content="order confirmed", view=None)


class Feedback(disnake.ui.Modal):
    def __init__(self):
        super().__init__(title="Feedback", custom_id="feedback", components=[
            disnake.ui.TextInput(label="Your name", custom_id="name", max_length=30)])

    async def callback(self, inter: disnake.ModalInteraction):
        await inter.response.send_message(f"thanks, {inter.text_values['name']}",
                                          ephemeral=True)


def make_bot():
    bot = commands.InteractionBot(test_guilds=[GUILD])  # synced to the guild at connect

    @bot.slash_command(description="Check the bot is alive")
    async def ping(inter: disnake.ApplicationCommandInteraction) -> None:
        await inter.response.send_message("pong from disnake")

    @bot.slash_command(description="Place an order")
    async def order(inter: disnake.ApplicationCommandInteraction) -> None:
        await inter.response.send_message("confirm your order?", view=Order())

    @bot.slash_command(description="Leave feedback")
    async def feedback(inter: disnake.ApplicationCommandInteraction) -> None:
        await inter.response.send_modal(Feedback())

    @bot.slash_command(description="Fails")
    async def broken(inter: disnake.ApplicationCommandInteraction) -> None:
        raise LookupError("no such order")

    return bot


@pytest.mark.anyio
async def test_1_a_slash_command(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        # disnake syncs its commands in a task of its own as it connects: let it finish
        assert await discord_emulator.settle()
        result = await discord_emulator.invoke("/ping")
    assert result.response_type == "CHANNEL_MESSAGE_WITH_SOURCE"
    assert result.content == "pong from disnake"
    assert result.interaction["data"]["name"] == "ping"
    assert result.interaction["guild_id"] == str(GUILD)


@pytest.mark.anyio
async def test_2_a_button_click_updates_its_message(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        assert await discord_emulator.settle()
        asked = await discord_emulator.invoke("/order")
        clicked = await discord_emulator.click(asked, label="Confirm")
    assert asked.content == "confirm your order?"
    assert asked.components[0]["components"][0]["custom_id"] == "order:confirm"
    assert clicked.response_type == "UPDATE_MESSAGE"
    assert clicked.interaction["data"]["custom_id"] == "order:confirm"
    assert (clicked.content, clicked.components) == ("order confirmed", [])
    assert clicked.message["id"] == asked.message["id"]
    assert clicked.message["content"] == "order confirmed"
    assert clicked.message["edited_timestamp"] is not None


@pytest.mark.anyio
async def test_3_a_modal_is_submitted(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        assert await discord_emulator.settle()
        opened = await discord_emulator.invoke("/feedback")
        sent = await discord_emulator.submit_modal(opened, {"Your name": "Ada"})
    assert opened.response_type == "MODAL"
    assert (opened.modal["title"], opened.modal["custom_id"]) == ("Feedback", "feedback")
    assert sent.interaction["type"] == 5
    assert sent.interaction["data"]["custom_id"] == "feedback"
    assert sent.content == "thanks, Ada" and sent.ephemeral


@pytest.mark.anyio
async def test_4_a_handler_that_raises_fails_with_its_exception(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        assert await discord_emulator.settle()
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/broken")
    said = str(failed.value)
    # heard through disnake's on_slash_command_error, unwrapped from CommandInvokeError
    assert said.startswith("This interaction failed: the bot's handler raised "
                           "LookupError: no such order ("), said
    assert 'raise LookupError("no such order")' in said  # the bot's own traceback
    assert isinstance(failed.value.__cause__, LookupError)
    assert failed.value.__cause__.args == ("no such order",)
'''


def test_a_disnake_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("disnake", reason="disnake is not installed")
    pytester.makepyfile(test_disnake_bot=DISNAKE_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=STEPS)


# pytest-asyncio warns when a suite leaves it unset
LOOP_SCOPE = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"

HIKARI_SEED = '''
from cmdsync.emulator.seed import default_seed
from cmdsync.testing import discord_shaped_token

APPLICATION_ID = "111111111111111111"  # the default seed's application
TOKEN = discord_shaped_token(APPLICATION_ID)  # hikari reads the application id from it


@pytest.fixture
def discord_seed():
    seed = default_seed()
    seed["applications"][0]["bot_token"] = TOKEN
    return seed
'''

HIKARI_GATEWAY_BOT = '''
import hikari
import pytest

from cmdsync.testing import InvocationFailed
''' + HIKARI_SEED + '''

def make_bot(api_url):
    bot = hikari.GatewayBot(TOKEN, rest_url=api_url, banner=None,
                            intents=hikari.Intents.GUILDS)

    @bot.listen()
    async def on_interaction(event: hikari.InteractionCreateEvent) -> None:
        interaction = event.interaction
        if isinstance(interaction, hikari.CommandInteraction):
            if interaction.command_name == "ping":
                await interaction.create_initial_response(
                    hikari.ResponseType.MESSAGE_CREATE, "pong from hikari")
            elif interaction.command_name == "order":
                row = bot.rest.build_message_action_row()
                row.add_interactive_button(hikari.ButtonStyle.SUCCESS, "order:confirm",
                                           label="Confirm")
                row.add_interactive_button(hikari.ButtonStyle.SECONDARY, "order:note",
                                           label="Add a note")
                await interaction.create_initial_response(
                    hikari.ResponseType.MESSAGE_CREATE, "confirm your order?", component=row)
            elif interaction.command_name == "broken":
                raise LookupError("no such order")
        elif isinstance(interaction, hikari.ComponentInteraction):
            if interaction.custom_id == "order:confirm":
                await interaction.create_initial_response(
                    hikari.ResponseType.MESSAGE_UPDATE, "order confirmed", components=[])
            elif interaction.custom_id == "order:note":
                row = bot.rest.build_modal_action_row().add_text_input(
                    "note", "Your note", max_length=50)
                await interaction.create_modal_response("Order note", "order:note-form",
                                                        component=row)
        elif isinstance(interaction, hikari.ModalInteraction):
            note = interaction.components[0].components[0].value
            await interaction.create_initial_response(
                hikari.ResponseType.MESSAGE_CREATE, f"noted: {note}",
                flags=hikari.MessageFlag.EPHEMERAL)

    return bot


async def register(bot):
    await bot.rest.set_application_commands(APPLICATION_ID, [
        bot.rest.slash_command_builder("ping", "Check the bot is alive"),
        bot.rest.slash_command_builder("order", "Place an order"),
        bot.rest.slash_command_builder("broken", "Fails")])


@pytest.mark.asyncio
async def test_1_a_slash_command(discord_emulator):
    bot = make_bot(discord_emulator.api_url)
    async with discord_emulator.connect(bot):
        await register(bot)
        result = await discord_emulator.invoke("/ping")
    assert result.response_type == "CHANNEL_MESSAGE_WITH_SOURCE"
    assert result.content == "pong from hikari"
    assert result.interaction["data"]["name"] == "ping"


@pytest.mark.asyncio
async def test_2_a_button_click_updates_its_message(discord_emulator):
    bot = make_bot(discord_emulator.api_url)
    async with discord_emulator.connect(bot):
        await register(bot)
        asked = await discord_emulator.invoke("/order")
        clicked = await discord_emulator.click(asked, label="Confirm")
    assert asked.content == "confirm your order?"
    assert [b["label"] for b in asked.components[0]["components"]] == ["Confirm",
                                                                      "Add a note"]
    assert clicked.response_type == "UPDATE_MESSAGE"
    assert clicked.interaction["data"]["custom_id"] == "order:confirm"
    assert (clicked.content, clicked.components) == ("order confirmed", [])
    assert clicked.message["id"] == asked.message["id"]
    assert clicked.message["content"] == "order confirmed"
    assert clicked.message["edited_timestamp"] is not None


@pytest.mark.asyncio
async def test_3_a_button_opens_a_modal_that_is_submitted(discord_emulator):
    bot = make_bot(discord_emulator.api_url)
    async with discord_emulator.connect(bot):
        await register(bot)
        asked = await discord_emulator.invoke("/order")
        opened = await discord_emulator.click(asked, custom_id="order:note")
        sent = await discord_emulator.submit_modal(opened, {"note": "no onions"})
    assert opened.response_type == "MODAL"
    assert (opened.modal["title"], opened.modal["custom_id"]) == ("Order note",
                                                                  "order:note-form")
    assert sent.interaction["type"] == 5
    assert sent.content == "noted: no onions" and sent.ephemeral


@pytest.mark.asyncio
async def test_4_a_handler_that_raises_fails_with_its_exception(discord_emulator):
    bot = make_bot(discord_emulator.api_url)
    async with discord_emulator.connect(bot):
        await register(bot)
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/broken")
    said = str(failed.value)
    # heard through hikari's ExceptionEvent
    assert said.startswith("This interaction failed: the bot's handler raised "
                           "LookupError: no such order ("), said
    assert 'raise LookupError("no such order")' in said  # the bot's own traceback
    assert isinstance(failed.value.__cause__, LookupError)
    assert failed.value.__cause__.args == ("no such order",)
'''


def test_a_hikari_gateway_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("hikari", reason="hikari is not installed (it needs Python 3.11+)")
    pytest.importorskip("pytest_asyncio", reason="pytest-asyncio is not installed")
    pytester.makeini(LOOP_SCOPE)
    pytester.makepyfile(test_hikari_gateway_bot=HIKARI_GATEWAY_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=STEPS)


HIKARI_REST_BOT = '''
import hikari
import pytest

from cmdsync.testing import InvocationFailed
''' + HIKARI_SEED + '''

async def on_command(interaction: hikari.CommandInteraction):
    if interaction.command_name == "ping":
        return interaction.build_response().set_content("pong from a hikari RESTBot")
    if interaction.command_name == "order":
        row = hikari.impl.MessageActionRowBuilder()
        row.add_interactive_button(hikari.ButtonStyle.SUCCESS, "order:confirm",
                                   label="Confirm")
        return interaction.build_response().set_content("confirm your order?").add_component(row)
    if interaction.command_name == "feedback":
        row = hikari.impl.ModalActionRowBuilder().add_text_input("name", "Your name")
        # through the callback route: hikari 2.7's InteractionModalBuilder, returned as the
        # HTTP answer, sends each row as [payload, files] (ModalActionRowBuilder.build()
        # is a pair), which Discord, and the emulator, refuse
        await interaction.create_modal_response("Feedback", "feedback", component=row)
        return None
    raise LookupError("no such order")


async def on_component(interaction: hikari.ComponentInteraction):
    assert interaction.custom_id == "order:confirm"
    return (interaction.build_response(hikari.ResponseType.MESSAGE_UPDATE)
            .set_content("order confirmed").clear_components())


async def on_modal(interaction: hikari.ModalInteraction):
    name = interaction.components[0].components[0].value
    return interaction.build_response().set_content(f"thanks, {name}")


def make_bot(discord_emulator):
    bot = hikari.RESTBot(TOKEN, "Bot", public_key=discord_emulator.public_key,
                         rest_url=discord_emulator.api_url, banner=None)
    bot.set_listener(hikari.CommandInteraction, on_command)
    bot.set_listener(hikari.ComponentInteraction, on_component)
    bot.set_listener(hikari.ModalInteraction, on_modal)
    return bot


async def register(bot):
    await bot.rest.set_application_commands(APPLICATION_ID, [
        bot.rest.slash_command_builder("ping", "Check the bot is alive"),
        bot.rest.slash_command_builder("order", "Place an order"),
        bot.rest.slash_command_builder("feedback", "Leave feedback"),
        bot.rest.slash_command_builder("broken", "Fails")])


@pytest.mark.asyncio
async def test_1_a_slash_command(discord_emulator):
    bot = make_bot(discord_emulator)
    async with discord_emulator.connect(bot):
        await register(bot)
        result = await discord_emulator.invoke("/ping")
    assert result.response_type == "CHANNEL_MESSAGE_WITH_SOURCE"
    assert result.content == "pong from a hikari RESTBot"
    assert result.interaction["data"]["name"] == "ping"


@pytest.mark.asyncio
async def test_2_a_button_click_updates_its_message(discord_emulator):
    bot = make_bot(discord_emulator)
    async with discord_emulator.connect(bot):
        await register(bot)
        asked = await discord_emulator.invoke("/order")
        clicked = await discord_emulator.click(asked, label="Confirm")
    assert asked.content == "confirm your order?"
    assert asked.components[0]["components"][0]["custom_id"] == "order:confirm"
    assert clicked.response_type == "UPDATE_MESSAGE"
    assert clicked.interaction["data"]["custom_id"] == "order:confirm"
    assert (clicked.content, clicked.components) == ("order confirmed", [])
    assert clicked.message["id"] == asked.message["id"]
    assert clicked.message["content"] == "order confirmed"
    assert clicked.message["edited_timestamp"] is not None


@pytest.mark.asyncio
async def test_3_a_modal_is_submitted(discord_emulator):
    bot = make_bot(discord_emulator)
    async with discord_emulator.connect(bot):
        await register(bot)
        opened = await discord_emulator.invoke("/feedback")
        sent = await discord_emulator.submit_modal(opened, {"Your name": "Ada"})
    assert opened.response_type == "MODAL"
    assert (opened.modal["title"], opened.modal["custom_id"]) == ("Feedback", "feedback")
    assert sent.interaction["type"] == 5
    assert sent.content == "thanks, Ada"


@pytest.mark.asyncio
async def test_4_a_handler_that_raises_fails_with_its_exception(discord_emulator):
    bot = make_bot(discord_emulator)
    async with discord_emulator.connect(bot):
        await register(bot)
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/broken")
    said = str(failed.value)
    # heard as libraries.py wraps the RESTBot's listeners (hikari itself answers HTTP 500)
    assert said.startswith("This interaction failed: the bot's handler raised "
                           "LookupError: no such order ("), said
    assert 'raise LookupError("no such order")' in said  # the bot's own traceback
    assert isinstance(failed.value.__cause__, LookupError)
    assert failed.value.__cause__.args == ("no such order",)
'''


def test_a_hikari_rest_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("hikari", reason="hikari is not installed (it needs Python 3.11+)")
    pytest.importorskip("pytest_asyncio", reason="pytest-asyncio is not installed")
    pytester.makeini(LOOP_SCOPE)
    pytester.makepyfile(test_hikari_rest_bot=HIKARI_REST_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "asyncio")
    result.assert_outcomes(passed=STEPS)


INTERACTIONS_BOT = '''
import logging

import interactions as ipy
import pytest

from cmdsync.testing import InvocationFailed

GUILD = 222222222222222222  # the default seed's guild


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Shop(ipy.Extension):
    @ipy.slash_command(name="ping", description="Check the bot is alive")
    async def ping(self, ctx: ipy.SlashContext) -> None:
        await ctx.send("pong from interactions.py")

    @ipy.slash_command(name="order", description="Place an order")
    async def order(self, ctx: ipy.SlashContext) -> None:
        await ctx.send("confirm your order?", components=[
            ipy.Button(style=ipy.ButtonStyle.SUCCESS, label="Confirm",
                       custom_id="order:confirm"),
            ipy.Button(style=ipy.ButtonStyle.SECONDARY, label="Add a note",
                       custom_id="order:note")])

    @ipy.component_callback("order:confirm")
    async def confirm(self, ctx: ipy.ComponentContext) -> None:
        await ctx.edit_origin(content="order confirmed", components=[])

    @ipy.component_callback("order:note")
    async def note(self, ctx: ipy.ComponentContext) -> None:
        await ctx.send_modal(ipy.Modal(
            ipy.ShortText(label="Your note", custom_id="note", max_length=50),
            title="Order note", custom_id="order:note-form"))

    @ipy.modal_callback("order:note-form")
    async def noted(self, ctx: ipy.ModalContext, note: str) -> None:
        await ctx.send(f"noted: {note}", ephemeral=True)

    @ipy.slash_command(name="broken", description="Fails")
    async def broken(self, ctx: ipy.SlashContext) -> None:
        raise LookupError("no such order")


def make_bot():
    # its commands are synced to the guild as it starts (debug_scope); tracebacks are not
    # sent to the channel, as in production
    bot = ipy.Client(intents=ipy.Intents.DEFAULT, debug_scope=GUILD,
                     send_command_tracebacks=False, logging_level=logging.WARNING)
    Shop(bot)
    return bot


@pytest.mark.anyio
async def test_1_a_slash_command(discord_emulator):
    async with discord_emulator.connect(make_bot()):
        result = await discord_emulator.invoke("/ping")
    assert result.response_type == "CHANNEL_MESSAGE_WITH_SOURCE"
    assert result.content == "pong from interactions.py"
    assert result.interaction["data"]["name"] == "ping"
    assert result.interaction["data"]["guild_id"] == str(GUILD)  # a guild command


@pytest.mark.anyio
async def test_2_a_button_click_updates_its_message(discord_emulator):
    async with discord_emulator.connect(make_bot()):
        asked = await discord_emulator.invoke("/order")
        clicked = await discord_emulator.click(asked, label="Confirm")
    assert asked.content == "confirm your order?"
    assert [b["label"] for b in asked.components[0]["components"]] == ["Confirm",
                                                                      "Add a note"]
    assert clicked.response_type == "UPDATE_MESSAGE"
    assert clicked.interaction["data"]["custom_id"] == "order:confirm"
    assert (clicked.content, clicked.components) == ("order confirmed", [])
    assert clicked.message["id"] == asked.message["id"]
    assert clicked.message["content"] == "order confirmed"
    assert clicked.message["edited_timestamp"] is not None


@pytest.mark.anyio
async def test_3_a_button_opens_a_modal_that_is_submitted(discord_emulator):
    async with discord_emulator.connect(make_bot()):
        asked = await discord_emulator.invoke("/order")
        opened = await discord_emulator.click(asked, label="Add a note")
        sent = await discord_emulator.submit_modal(opened, {"Your note": "no onions"})
    assert opened.response_type == "MODAL"
    assert (opened.modal["title"], opened.modal["custom_id"]) == ("Order note",
                                                                  "order:note-form")
    assert sent.interaction["type"] == 5
    assert sent.content == "noted: no onions" and sent.ephemeral


@pytest.mark.anyio
async def test_4_a_handler_that_raises_fails_with_its_exception(discord_emulator):
    async with discord_emulator.connect(make_bot()):
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/broken")
    said = str(failed.value)
    # heard through interactions.py's command error event
    assert said.startswith("This interaction failed: the bot's handler raised "
                           "LookupError: no such order ("), said
    assert 'raise LookupError("no such order")' in said  # the bot's own traceback
    assert isinstance(failed.value.__cause__, LookupError)
    assert failed.value.__cause__.args == ("no such order",)
'''


def test_an_interactions_py_bot(pytester: pytest.Pytester) -> None:
    pytest.importorskip("interactions", reason="interactions.py (discord-py-interactions) "
                        "is not installed")
    pytester.makepyfile(test_interactions_bot=INTERACTIONS_BOT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=STEPS)
