"""Click, choose, submit (issue 36, item 1): a real discord.py bot's confirm button,
paginator, select and modal, driven through the pytest plugin as a bot's own test
suite would, in a pytester session of its own."""

from __future__ import annotations

import re

import pytest

from tests.support import paths

pytest_plugins = ["pytester"]
pytest.importorskip("discord")

COMPONENT_BOT = '''
import discord
import pytest

from cmdsync.testing import InvocationFailed

OWNER, MEMBER = "777777777777777777", "777777777777777778"
SEED = {
    "applications": [{"id": "555555555555555555", "name": "Shop",
                      "bot_token": "shop-token", "client_secret": "shop-secret"}],
    "guilds": [{"id": "666666666666666666", "name": "Shop guild", "owner_id": OWNER,
                "roles": [{"id": "666666666666666666", "name": "@everyone",
                           "permissions": ["view_channel", "send_messages",
                                           "use_application_commands"]},
                          {"id": "666666666666666670", "name": "Buyers"}],
                "members": [{"user_id": OWNER}, {"user_id": MEMBER},
                            {"user_id": "555555555555555555"}],
                "channels": [{"id": "666666666666666667", "name": "shop", "type": 0}]}],
    "users": [{"id": OWNER, "username": "shopkeeper"}, {"id": MEMBER, "username": "buyer"}],
}
PAGES = ["page one", "page two", "page three"]


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def discord_seed():
    return SEED


class Confirm(discord.ui.View):
    @discord.ui.button(label="Yes", style=discord.ButtonStyle.success, custom_id="yes")
    async def yes(self, interaction, button):
        await interaction.response.edit_message(content="confirmed", view=None)

    @discord.ui.button(label="No", style=discord.ButtonStyle.danger, custom_id="no",
                       disabled=True)
    async def no(self, interaction, button):
        await interaction.response.edit_message(content="cancelled", view=None)


class Pages(discord.ui.View):
    def __init__(self):
        super().__init__()
        self.page = 0

    @discord.ui.button(label="Next", custom_id="next")
    async def next(self, interaction, button):
        self.page += 1
        await interaction.response.edit_message(content=PAGES[self.page], view=self)


class Flavour(discord.ui.View):
    @discord.ui.select(custom_id="flavour", options=[
        discord.SelectOption(label="Vanilla", value="v"),
        discord.SelectOption(label="Chocolate", value="c")], max_values=2)
    async def flavour(self, interaction, select):
        await interaction.response.send_message("you chose " + ",".join(select.values))

    @discord.ui.select(cls=discord.ui.RoleSelect, custom_id="role")
    async def role(self, interaction, select):
        await interaction.response.send_message("role " + select.values[0].name)


class Size(discord.ui.View):
    @discord.ui.select(options=[discord.SelectOption(label="Small"),
                                discord.SelectOption(label="Large")])  # a random custom_id
    async def size(self, interaction, select):
        await interaction.response.send_message("size " + select.values[0])


class Broken(discord.ui.View):
    @discord.ui.button(label="Break", custom_id="break")
    async def broken(self, interaction, button):
        raise RuntimeError("the button broke")


class Feedback(discord.ui.Modal, title="Feedback"):
    text = discord.ui.TextInput(label="Your words", custom_id="words", max_length=20)

    def __init__(self):
        super().__init__(custom_id="feedback-form")

    async def on_submit(self, interaction):
        await interaction.response.send_message(f"thanks for: {self.text.value}",
                                                ephemeral=True)


def make_bot():
    bot = discord.Client(intents=discord.Intents.default())
    bot.tree = discord.app_commands.CommandTree(bot)

    @bot.tree.command()
    async def buy(interaction: discord.Interaction) -> None:
        """Buy, after a confirmation"""
        await interaction.response.send_message("sure?", view=Confirm())

    @bot.tree.command()
    async def browse(interaction: discord.Interaction) -> None:
        """Page through the catalogue"""
        await interaction.response.send_message(PAGES[0], view=Pages())

    @bot.tree.command()
    async def pick(interaction: discord.Interaction) -> None:
        """Pick flavours and a role"""
        await interaction.response.send_message("pick", view=Flavour(), ephemeral=True)

    @bot.tree.command()
    async def size(interaction: discord.Interaction) -> None:
        """Pick a size"""
        await interaction.response.send_message("which size?", view=Size())

    @bot.tree.command()
    async def broken(interaction: discord.Interaction) -> None:
        """Fails"""
        raise ValueError("out of stock")

    @bot.tree.command()
    async def fragile(interaction: discord.Interaction) -> None:
        """A button that fails"""
        await interaction.response.send_message("careful", view=Broken())

    @bot.tree.command()
    async def feedback(interaction: discord.Interaction) -> None:
        """Open a feedback form"""
        await interaction.response.send_modal(Feedback())

    return bot


@pytest.mark.anyio
async def test_a_confirm_button_updates_its_message(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        asked = await discord_emulator.invoke("/buy")
        with pytest.raises(InvocationFailed, match="button 'No' is disabled"):
            await discord_emulator.click(asked, label="No")
        with pytest.raises(InvocationFailed, match="no component with a button labelled "
                                                   "'Maybe': it has button 'Yes', button 'No'"):
            await discord_emulator.click(asked, label="Maybe")
        clicked = await discord_emulator.click(asked, label="Yes")
    assert asked.content == "sure?" and len(asked.components) == 1
    assert clicked.response_type == "UPDATE_MESSAGE"
    assert (clicked.content, clicked.components) == ("confirmed", [])
    assert clicked.interaction["type"] == 3
    assert clicked.interaction["data"] == {"custom_id": "yes", "component_type": 2}
    assert clicked.interaction["message"]["id"] == asked.message["id"]
    assert clicked.message["edited_timestamp"] is not None


@pytest.mark.anyio
async def test_a_paginator_turns_its_pages(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        shown = await discord_emulator.invoke("/browse")
        second = await discord_emulator.click(shown, custom_id="next")
        third = await discord_emulator.click(second, custom_id="next")
    assert [shown.content, second.content, third.content] == PAGES
    assert third.message["id"] == shown.message["id"]


@pytest.mark.anyio
async def test_choosing_in_selects(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        menu = await discord_emulator.invoke("/pick")
        both = await discord_emulator.select(menu, ["Vanilla", "c"], custom_id="flavour")
        with pytest.raises(InvocationFailed, match="'mint' is not an option of string "
                                                   "select 'flavour'"):
            await discord_emulator.select(menu, ["mint"], custom_id="flavour")
        with pytest.raises(InvocationFailed, match="takes 1 to 2 values, not 3"):
            await discord_emulator.select(menu, ["v", "c", "v"], custom_id="flavour")
        with pytest.raises(InvocationFailed, match="is ephemeral: only user "
                                                   "777777777777777777 sees it"):
            await discord_emulator.select(menu, ["v"], custom_id="flavour",
                                          user=int(MEMBER))  # an id as an int
        role = await discord_emulator.select(menu, ["666666666666666670"], custom_id="role")
        with pytest.raises(InvocationFailed, match="a select's custom_id, unless it is the "
                                                   "message's only select"):
            await discord_emulator.select(menu, ["v"])  # two selects: which one?
        size = await discord_emulator.select(await discord_emulator.invoke("/size"), ["Large"])
    assert size.content == "size Large"  # the only select, its custom_id discord.py's own
    assert both.content == "you chose v,c"
    assert both.interaction["data"]["values"] == ["v", "c"]
    assert role.content == "role Buyers"
    assert role.interaction["data"]["resolved"]["roles"]["666666666666666670"]["name"] == (
        "Buyers")


@pytest.mark.anyio
async def test_a_handler_that_raises_fails_the_test_with_its_exception(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        with pytest.raises(InvocationFailed) as command:
            await discord_emulator.invoke("/broken")
        fragile = await discord_emulator.invoke("/fragile")
        with pytest.raises(InvocationFailed) as button:
            await discord_emulator.click(fragile, label="Break")
    said = str(command.value)
    assert said.startswith("This interaction failed: the bot's handler raised "
                           "ValueError: out of stock")
    assert 'raise ValueError("out of stock")' in said  # the bot's own traceback
    # the emulator heard it too, and stopped waiting for an answer (not Discord's 3 s)
    assert said.startswith("This interaction failed: the bot's handler raised ValueError: "
                           "out of stock (the emulator stopped waiting for its answer)\\n")
    assert said.count("out of stock") == 3  # the message, and the traceback's two lines
    assert isinstance(command.value.__cause__, ValueError)
    assert "RuntimeError: the button broke" in str(button.value)
    assert command.value.__cause__.__traceback__ is not None


@pytest.mark.anyio
async def test_a_modal_is_submitted(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        opened = await discord_emulator.invoke("/feedback")
        with pytest.raises(InvocationFailed, match="text input 'words' is required"):
            await discord_emulator.submit_modal(opened, {})
        with pytest.raises(InvocationFailed, match="takes 0 to 20 characters, not 21"):
            await discord_emulator.submit_modal(opened, {"words": "x" * 21})
        with pytest.raises(InvocationFailed, match="was shown to user 777777777777777777"):
            await discord_emulator.submit_modal(opened, {"words": "hi"}, user=MEMBER)
        with pytest.raises(InvocationFailed, match="has no text input 'nope': it has "
                                                   "'words' [(]label 'Your words'[)]"):
            await discord_emulator.submit_modal(opened, {"nope": "x"})
        sent = await discord_emulator.submit_modal(opened, {"words": "great shop"})
        with pytest.raises(InvocationFailed, match="the modal 'feedback-form' was submitted "
                                                   "already, and the client closed it"):
            await discord_emulator.submit_modal(opened, {"words": "once more"})
        labelled = await discord_emulator.submit_modal(
            await discord_emulator.invoke("/feedback"), {"Your words": "by its label"})
    assert labelled.content == "thanks for: by its label"
    assert opened.response_type == "MODAL" and opened.modal["title"] == "Feedback"
    assert sent.interaction["type"] == 5
    assert sent.content == "thanks for: great shop" and sent.ephemeral
'''


def docs_example() -> str:
    """The buttons example of docs/testing/pytest.md (a promise: it runs here, with the
    bot above as its ``make_bot``)."""
    page = (paths.ROOT / "docs" / "testing" / "pytest.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    return blocks[1]


def test_a_discordpy_bot_is_clicked_chosen_and_submitted(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_components=COMPONENT_BOT + "\n\n@pytest.mark.anyio\n"
                        + docs_example())
    result = pytester.runpytest_subprocess("-q", "-p", "no:asyncio")
    result.assert_outcomes(passed=6)
