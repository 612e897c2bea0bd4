"""A discord.py bot with buttons, a select and a modal.

- /colour: choose your favourite colour in a select; the bot remembers it.
- /reset: forget every saved colour, after a Confirm / Cancel dialog.
- /pages: the rules, one page at a time, with Previous / Next buttons.
- /feedback: a form (a modal) with a required subject and optional details.

Run it: DISCORD_BOT_TOKEN=... python bot.py. Register its commands once with
`cmdsync apply discord.py:bot:make_bot` (or `await bot.tree.sync()`).
test_bot.py runs it against cmdsync's Discord emulator: `pytest`.
"""

from __future__ import annotations

import os

import discord
from discord import app_commands
from discord.ext import commands

RULES = [
    "Be kind to one another.",
    "No spam, no self-promotion.",
    "Keep each channel on its topic.",
]
COLOURS = {"red": "Red", "green": "Green", "blue": "Blue"}


def saved_colours(count: int) -> str:
    return f"{count} saved colour{'' if count == 1 else 's'}"


class ComponentsBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.colours: dict[int, str] = {}  # user id -> colour value
        self.feedback: list[tuple[str, str]] = []  # (subject, details)


class ConfirmReset(discord.ui.View):
    """Ask first; either button ends the dialog, and the message then says how."""

    def __init__(self, bot: ComponentsBot) -> None:
        super().__init__(timeout=60)
        self.bot = bot

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction,
                      button: discord.ui.Button[ConfirmReset]) -> None:
        forgotten = len(self.bot.colours)
        self.bot.colours.clear()
        self.stop()
        await interaction.response.edit_message(
            content=f"Done: {saved_colours(forgotten)} forgotten.", view=None)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction,
                     button: discord.ui.Button[ConfirmReset]) -> None:
        self.stop()
        await interaction.response.edit_message(content="Cancelled: nothing was reset.",
                                                view=None)


class Paginator(discord.ui.View):
    """One page at a time; the message is edited in place."""

    def __init__(self, pages: list[str]) -> None:
        super().__init__(timeout=300)
        self.pages = pages
        self.index = 0
        self.update_buttons()

    def page(self) -> str:
        return f"Page {self.index + 1} of {len(self.pages)}: {self.pages[self.index]}"

    def update_buttons(self) -> None:
        self.previous.disabled = self.index == 0
        self.next.disabled = self.index == len(self.pages) - 1

    async def turn(self, interaction: discord.Interaction, by: int) -> None:
        self.index += by
        self.update_buttons()
        await interaction.response.edit_message(content=self.page(), view=self)

    @discord.ui.button(label="Previous", style=discord.ButtonStyle.secondary)
    async def previous(self, interaction: discord.Interaction,
                       button: discord.ui.Button[Paginator]) -> None:
        await self.turn(interaction, -1)

    @discord.ui.button(label="Next", style=discord.ButtonStyle.primary)
    async def next(self, interaction: discord.Interaction,
                   button: discord.ui.Button[Paginator]) -> None:
        await self.turn(interaction, +1)


class ColourPicker(discord.ui.View):
    def __init__(self, bot: ComponentsBot) -> None:
        super().__init__(timeout=120)
        self.bot = bot

    @discord.ui.select(custom_id="colour", placeholder="Pick a colour", options=[
        discord.SelectOption(label=label, value=value) for value, label in COLOURS.items()])
    async def colour(self, interaction: discord.Interaction,
                     select: discord.ui.Select[ColourPicker]) -> None:
        (value,) = select.values
        self.bot.colours[interaction.user.id] = value
        await interaction.response.edit_message(
            content=f"Your colour is now {COLOURS[value]}.", view=None)


class Feedback(discord.ui.Modal, title="Feedback"):
    subject = discord.ui.TextInput(label="Subject", custom_id="subject", max_length=100)
    details = discord.ui.TextInput(label="Details", custom_id="details", required=False,
                                   style=discord.TextStyle.paragraph, max_length=1000)

    def __init__(self, bot: ComponentsBot) -> None:
        super().__init__()
        self.bot = bot

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.bot.feedback.append((self.subject.value, self.details.value))
        await interaction.response.send_message(
            f"Thanks for your feedback on {self.subject.value!r}!", ephemeral=True)


def make_bot() -> ComponentsBot:
    bot = ComponentsBot()

    @bot.tree.command()
    async def colour(interaction: discord.Interaction) -> None:
        """Choose your favourite colour"""
        await interaction.response.send_message("Which colour?", view=ColourPicker(bot),
                                                ephemeral=True)

    @bot.tree.command()
    @app_commands.allowed_contexts(guilds=True)
    @app_commands.default_permissions(manage_guild=True)
    async def reset(interaction: discord.Interaction) -> None:
        """Forget every saved colour"""
        await interaction.response.send_message(
            f"Forget {saved_colours(len(bot.colours))}?", view=ConfirmReset(bot))

    @bot.tree.command()
    async def pages(interaction: discord.Interaction) -> None:
        """Read the rules, a page at a time"""
        view = Paginator(RULES)
        await interaction.response.send_message(view.page(), view=view)

    @bot.tree.command()
    async def feedback(interaction: discord.Interaction) -> None:
        """Tell us what you think"""
        await interaction.response.send_modal(Feedback(bot))

    return bot


if __name__ == "__main__":
    make_bot().run(os.environ["DISCORD_BOT_TOKEN"])
