"""A discord.py bot whose commands live in code (the test of `discord.py:` sources).

Global commands, a guild group with subcommands, a context menu, choices and
ranges, and names localized through a Translator. Importing it runs nothing.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

GUILD = 222222222222222222

client = discord.Client(intents=discord.Intents.none())
tree = app_commands.CommandTree(client)


@tree.command(name="ping", description="Check the bot is alive")
async def ping(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("pong")


@tree.command(name="roll", description="Roll dice")
@app_commands.describe(sides="How many sides", mode="Sum the dice or list each")
async def roll(interaction: discord.Interaction, sides: app_commands.Range[int, 2, 100] = 6,
               mode: Literal["sum", "each"] = "sum") -> None:
    await interaction.response.send_message(str(sides))


shop = app_commands.Group(name="shop", description="The shop",
                          guild_ids=[GUILD])


@shop.command(name="buy", description="Buy an item")
@app_commands.describe(item="What to buy", count="How many")
async def buy(interaction: discord.Interaction, item: str,
              count: app_commands.Range[int, 1, 10] = 1) -> None:
    await interaction.response.send_message(item)


@shop.command(name="list", description="List the items")
async def list_items(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("...")


tree.add_command(shop)


@tree.context_menu(name="Profile")
async def profile(interaction: discord.Interaction, user: discord.User) -> None:
    await interaction.response.send_message(user.name)


class French(app_commands.Translator):
    """French names for two commands."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContext) -> str | None:
        names = {"ping": "sonde", "roll": "lancer"}
        if locale is discord.Locale.french and str(string) in names:
            return names[str(string)]
        return None


async def translated() -> app_commands.CommandTree:
    """The tree with its translator, as a bot's setup_hook would set it."""
    await tree.set_translator(French())
    return tree
