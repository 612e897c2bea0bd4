"""A discord.py bot that syncs its commands with cmdsync at every start."""

import os

import discord
from discord.ext import commands

import cmdsync


class Bot(commands.Bot):
    async def setup_hook(self) -> None:
        # Plans against Discord and applies only what changed: no write request
        # when nothing did, so it is safe at every start (tree.sync() is not).
        result = await cmdsync.sync_async(self.tree)
        print(f"commands in sync; write requests: {result.writes}, creates: {result.creates}")


bot = Bot(command_prefix="!", intents=discord.Intents.default())


@bot.tree.command(description="Check the bot is alive")
async def ping(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("pong")


if __name__ == "__main__":
    bot.run(os.environ["DISCORD_BOT_TOKEN"])
