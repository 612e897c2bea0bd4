"""py-cord and nextcord through the pytest plugin (issue 36, item 4): each installs a
package named ``discord`` beside or instead of discord.py, so each runs in an
environment of its own (tests/support/library_env.py) with its current release for
this Python; a bot of it answers a slash command, gets a button click and a modal
submitted, and a handler that raises fails the test with the bot's own exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import library_env

pytestmark = pytest.mark.slow  # a first run makes each environment (pip, about a minute)

SCENARIO = '''
async def test_slash_click_modal_and_a_raising_handler(discord_emulator):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await sync(bot)
        pinged = await discord_emulator.invoke("/ping")
        clicked = await discord_emulator.click(pinged, label="Press")
        opened = await discord_emulator.click(await discord_emulator.invoke("/ping"),
                                              label="Form")
        sent = await discord_emulator.submit_modal(opened, {"Your name": "Ada"})
        with pytest.raises(InvocationFailed) as failed:
            await discord_emulator.invoke("/boom")
    assert pinged.content == "pong"
    assert (clicked.response_type, clicked.content, clicked.components) == (
        "UPDATE_MESSAGE", "pressed", [])
    assert opened.response_type == "MODAL" and opened.modal["title"] == "Feedback"
    assert sent.content == "thanks Ada"
    assert str(failed.value).startswith(
        "This interaction failed: the bot's handler raised ValueError: kaboom")
    assert isinstance(failed.value.__cause__, ValueError)
    assert discord_emulator.gateway.sessions() == []  # its session ended with it
'''

PYCORD = '''
import discord
import pytest

from cmdsync.testing import InvocationFailed

pytestmark = pytest.mark.asyncio


class Buttons(discord.ui.View):
    @discord.ui.button(label="Press", custom_id="press")
    async def press(self, button, interaction):
        await interaction.response.edit_message(content="pressed", view=None)

    @discord.ui.button(label="Form", custom_id="form")
    async def form(self, button, interaction):
        await interaction.response.send_modal(Feedback())


class Feedback(discord.ui.Modal):
    def __init__(self):
        super().__init__(discord.ui.InputText(label="Your name", custom_id="name"),
                         title="Feedback", custom_id="feedback")

    async def callback(self, interaction):
        await interaction.response.send_message(f"thanks {self.children[0].value}")


def make_bot():
    bot = discord.Bot(intents=discord.Intents.default())

    @bot.slash_command(description="Check the bot")
    async def ping(ctx):
        await ctx.respond("pong", view=Buttons())

    @bot.slash_command(description="Fails")
    async def boom(ctx):
        raise ValueError("kaboom")

    return bot


async def sync(bot):
    await bot.sync_commands()  # py-cord syncs as it connects too; once more is a no-op
''' + SCENARIO

NEXTCORD = '''
import nextcord
import pytest

from cmdsync.testing import InvocationFailed

pytestmark = pytest.mark.asyncio


class Buttons(nextcord.ui.View):
    @nextcord.ui.button(label="Press", custom_id="press")
    async def press(self, button, interaction):
        await interaction.response.edit_message(content="pressed", view=None)

    @nextcord.ui.button(label="Form", custom_id="form")
    async def form(self, button, interaction):
        await interaction.response.send_modal(Feedback())


class Feedback(nextcord.ui.Modal):
    def __init__(self):
        super().__init__("Feedback", custom_id="feedback")
        self.name = nextcord.ui.TextInput(label="Your name", custom_id="name")
        self.add_item(self.name)

    async def callback(self, interaction):
        await interaction.response.send_message(f"thanks {self.name.value}")


def make_bot():
    bot = nextcord.Client(intents=nextcord.Intents.default())

    @bot.slash_command(description="Check the bot")
    async def ping(interaction: nextcord.Interaction):
        await interaction.response.send_message("pong", view=Buttons())

    @bot.slash_command(description="Fails")
    async def boom(interaction: nextcord.Interaction):
        raise ValueError("kaboom")

    return bot


async def sync(bot):
    await bot.sync_all_application_commands()
''' + SCENARIO


@pytest.mark.parametrize(("name", "requirement", "module", "suite", "needs"), [
    ("py-cord", "py-cord", "discord", PYCORD, (3, 10)),
    ("nextcord", "nextcord", "nextcord", NEXTCORD, (3, 12)),  # its 3.x releases need 3.12
])
def test_a_fork_of_discordpy_is_clicked_and_submitted(tmp_path: Path, name: str,
                                                      requirement: str, module: str,
                                                      suite: str, needs: tuple[int, int]
                                                      ) -> None:
    python = library_env.library_python(name, requirement,
                                        interpreter=library_env.newer_python(needs))
    (tmp_path / f"test_{module}_bot.py").write_text(suite, encoding="utf-8")
    done = library_env.run_suite(python, tmp_path)
    said = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, f"{name} {library_env.version(python, module)}:\n{said}"
    assert "1 passed" in done.stdout, said
