"""The plugin hears a bot's handler errors through its library's hooks, and leaves the
bot as it was (cmdsync.testing.libraries.errors_heard): a method it wrapped is the
class's again, a handler the bot set on itself is put back, and the library's own
handling still runs."""

from __future__ import annotations

import asyncio
from typing import Any

from cmdsync.testing.libraries import errors_heard, library_of


class Tree:
    def __init__(self) -> None:
        self.handled: list[str] = []

    async def on_error(self, interaction: Any, error: BaseException) -> None:
        self.handled.append(f"tree {error}")


class Bot:
    """A discord.py-family bot: a tree, and an application-command error event."""

    def __init__(self) -> None:
        self.tree = Tree()
        self.handled: list[str] = []

    async def on_application_command_error(self, context: Any, error: BaseException) -> None:
        self.handled.append(f"event {error}")


def test_errors_are_heard_and_the_bot_is_left_as_it_was() -> None:
    bot = Bot()

    async def own(context: Any, error: BaseException) -> None:  # set on the bot itself
        bot.handled.append(f"own {error}")

    bot.on_slash_command_error = own  # type: ignore[attr-defined]
    heard: list[tuple[Any, str]] = []
    with errors_heard(bot, "no-such-library", lambda where, error: heard.append(
            (where, str(error)))):
        asyncio.run(bot.tree.on_error("i1", ValueError("a")))
        asyncio.run(bot.on_application_command_error("c2", ValueError("b")))
        asyncio.run(bot.on_slash_command_error("c3", ValueError("c")))  # type: ignore[attr-defined]
    assert heard == [("i1", "a"), ("c2", "b"), ("c3", "c")]
    assert (bot.tree.handled, bot.handled) == (["tree a"], ["event b", "own c"])
    assert "on_error" not in vars(bot.tree)  # the class's method again
    assert "on_application_command_error" not in vars(bot)
    assert vars(bot)["on_slash_command_error"] is own  # the bot's own, put back


def test_a_bot_of_no_library_is_none() -> None:
    assert library_of(Bot()) is None
    assert library_of(object()) is None
