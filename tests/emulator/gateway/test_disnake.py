"""disnake logs in through the emulator's gateway (``disnake.http.Route.BASE`` pointed at
it; the gateway URL from ``GET /gateway/bot``), caches the seeded guild and answers
commands run with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4): slash commands, a
subcommand and a subcommand group, user and message commands, autocomplete, a modal, a
deferral with its edit and a follow-up, and an ephemeral reply, all through disnake's
own ``InteractionBot`` (its command sync off: the commands are put beforehand); its
handlers must not fail on what the emulator answers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator.gateway.clients import pointed_at
from cmdsync.emulator.seed import BOT_TOKEN, CHANNEL_ID, USER_ID
from tests.emulator.gateway.bots import (
    KINDS,
    BotThread,
    Handlers,
    Invoke,
    disnake_client,
    invoker,
    kind_answered,
    ping_answered,
    served_with,
    wait_ready,
)
from tests.support.emulator import APP, GUILD, chat
from tests.support.emulator import option as option_body

disnake = pytest.importorskip("disnake")
from disnake.ext import commands  # only once disnake is known installed

MESSAGE_ID = "222222222222222226"
COMMANDS = [
    chat("ping"), chat("slow", "Defer, then follow up"), chat("secret", "Ephemeral"),
    chat("form", "A modal"),
    chat("fruit", "Autocomplete", options=[option_body("name", required=True,
                                                       autocomplete=True)]),
    chat("tag", "Tags", options=[option_body("show", 1, options=[
        option_body("name", required=True)])]),
    chat("config", "Settings", options=[option_body("colour", 2, options=[
        option_body("set", 1, options=[option_body("value", required=True)])])]),
    {"type": 2, "name": "Inspect"}, {"type": 3, "name": "Quote"}]
Inter = disnake.ApplicationCommandInteraction  # disnake finds the interaction by its type
SENT = f"in guild {GUILD}, channel {CHANNEL_ID} as owner ({USER_ID})"


class CountedBot(commands.InteractionBot):  # type: ignore[misc]
    """disnake's ``InteractionBot`` whose runs end in ``handlers``: a command's when
    disnake reports it completed or failed (it only logs a failure), autocomplete's when
    its handler returns."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.handlers = Handlers()

    async def on_application_command(self, inter: Inter) -> None:
        self.handlers.begin()
        try:
            await super().on_application_command(inter)
        except Exception as exc:
            self.handlers.end(exc)
            raise

    async def on_application_command_autocomplete(self, inter: Inter) -> None:
        self.handlers.begin()
        error: BaseException | None = None
        try:
            await super().on_application_command_autocomplete(inter)
        except Exception as exc:
            error = exc
            raise
        finally:
            self.handlers.end(error)

    async def on_slash_command_completion(self, inter: Inter) -> None:
        self.handlers.end(None)

    async def on_slash_command_error(self, inter: Inter, error: BaseException) -> None:
        self.handlers.end(error)

    on_user_command_completion = on_message_command_completion = on_slash_command_completion
    on_user_command_error = on_message_command_error = on_slash_command_error


def build_bot() -> tuple[Any, Any, Any]:
    """A disnake ``InteractionBot`` with the commands above as guild commands; its loop
    and ready event."""
    bot, loop, ready = disnake_client(
        disnake, CountedBot, test_guilds=[int(GUILD)],
        command_sync_flags=commands.CommandSyncFlags.none())

    @bot.slash_command(description="Check the bot is alive")
    async def ping(inter: Inter) -> None:
        await inter.response.send_message(f"pong from disnake in {inter.guild.name}")

    @bot.slash_command(description="Defer, then follow up")
    async def slow(inter: Inter) -> None:
        await inter.response.defer()
        await inter.edit_original_response(content="done thinking")
        await inter.followup.send("and one more thing")

    @bot.slash_command(description="Ephemeral")
    async def secret(inter: Inter) -> None:
        await inter.response.send_message("only you", ephemeral=True)

    @bot.slash_command(description="A modal")
    async def form(inter: Inter) -> None:
        await inter.response.send_modal(
            title="Feedback", custom_id="feedback",
            components=[disnake.ui.TextInput(label="Your feedback", custom_id="text")])

    @bot.slash_command(description="Autocomplete")
    async def fruit(inter: Inter, name: str) -> None:
        await inter.response.send_message(name)

    @fruit.autocomplete("name")
    async def fruit_names(inter: Inter, current: str) -> dict[str, str]:
        return {n.title(): n for n in ("apple", "apricot", "banana") if n.startswith(current)}

    @bot.slash_command(description="Tags")
    async def tag(inter: Inter) -> None:
        pass

    @tag.sub_command(description="Show a tag")
    async def show(inter: Inter, name: str) -> None:
        await inter.response.send_message(f"tag {name} for {inter.author.name}")

    @bot.slash_command(description="Settings")
    async def config(inter: Inter) -> None:
        pass

    @config.sub_command_group()
    async def colour(inter: Inter) -> None:
        pass

    @colour.sub_command(name="set", description="Set the colour")
    async def set_colour(inter: Inter, value: str) -> None:
        await inter.response.send_message(f"colour set to {value}")

    @bot.user_command(name="Inspect")
    async def inspect(inter: Inter, user: disnake.Member) -> None:
        await inter.response.send_message(f"{user.name} has {len(user.roles)} role(s)")

    @bot.message_command(name="Quote")
    async def quote(inter: Inter, message: disnake.Message) -> None:
        await inter.response.send_message(f'"{message.content}" by {message.author.name}')

    return bot, loop, ready


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    with served_with(COMMANDS) as (emulator, base):
        client, loop, ready = build_bot()
        with pointed_at(base, libraries=("disnake",)), \
                BotThread(lambda: client.start(BOT_TOKEN), client.close, loop) as running:
            wait_ready(emulator, APP, ready, running)
            yield {"base": base, "client": client, "running": running}


@pytest.fixture
def invoke(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Iterator[Invoke]:
    """``cmdsync invoke --guild GUILD ...``; afterwards, the bot's handlers raised
    nothing."""
    handlers: Handlers = world["client"].handlers
    handlers.finished()
    yield invoker(world["base"], monkeypatch, capsys, "--guild", GUILD)
    assert handlers.finished() == []


def test_disnake_caches_the_seeded_guild(world: dict[str, Any]) -> None:
    guild = world["client"].get_guild(int(GUILD))
    assert guild is not None
    assert [r.name for r in guild.roles] == ["@everyone", "Admin"]
    assert [c.name for c in guild.channels] == ["general", "Voice"]


def test_disnake_answers_an_invoked_command(invoke: Invoke) -> None:
    assert invoke("/ping") == (0, ping_answered("pong from disnake in Emulator Guild"), "")


def test_a_subcommand_and_a_subcommand_group(invoke: Invoke) -> None:
    assert invoke("/tag show name:rules") == (0, (
        f"Invoked /tag show name:rules {SENT}\n"
        "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply:\n"
        "  tag rules for owner\n"), "")
    assert invoke("/config colour set value:teal") == (0, (
        f"Invoked /config colour set value:teal {SENT}\n"
        "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply:\n"
        "  colour set to teal\n"), "")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_command(invoke: Invoke, kind: str) -> None:
    """User and message commands, autocomplete, a modal, a deferral with its edit and a
    follow-up, an ephemeral reply: the same answers as discord.py's bot gives."""
    args, printed = kind_answered(kind)
    code, out, err = invoke(*args)
    assert (code, err) == (0, "") and re.fullmatch(printed, out), out
