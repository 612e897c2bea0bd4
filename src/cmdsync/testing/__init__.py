"""What a bot's own tests import: the ``discord_emulator`` pytest fixture's types.

Installing cmdsync registers the pytest plugin (:mod:`cmdsync.testing.plugin`,
the ``pytest11`` entry point); a test then runs a command against its bot in
a few lines::

    async def test_ping(discord_emulator):
        bot = make_bot()                                   # the bot, unchanged
        async with discord_emulator.connect(bot):          # logs in to the emulator
            result = await discord_emulator.invoke("/ping")
        assert result.content == "Pong!"

See :class:`DiscordEmulator` and :class:`Invocation`.
"""

from cmdsync.emulator.gateway.clients import discord_shaped_token
from cmdsync.testing.emulator import DiscordEmulator
from cmdsync.testing.results import Invocation, InvocationFailed, Said

__all__ = ["DiscordEmulator", "Invocation", "InvocationFailed", "Said", "discord_shaped_token"]
