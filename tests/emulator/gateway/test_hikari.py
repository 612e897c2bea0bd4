"""hikari's ``GatewayBot`` logs in through the emulator's gateway (``rest_url`` pointed
at it; the gateway URL from ``GET /gateway/bot``, zlib-stream), caches the seeded guild
and answers commands run with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4): slash
commands, a subcommand and a subcommand group, user and message commands, autocomplete,
a modal, a deferral with its edit and a follow-up, and an ephemeral reply, each read from
the interaction as hikari gives it (hikari has no command framework); its handler must
not raise on what the emulator answers.

hikari needs Python 3.11 or newer; these tests are skipped without it.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from cmdsync.emulator.gateway.clients import discord_shaped_token
from cmdsync.emulator.seed import CHANNEL_ID, USER_ID, default_seed
from tests.emulator.gateway.bots import (
    KINDS,
    BotThread,
    Handlers,
    Invoke,
    invoker,
    kind_answered,
    ping_answered,
    served_with,
    wait_ready,
)
from tests.support.emulator import APP, GUILD, chat
from tests.support.emulator import option as option_body

if sys.version_info < (3, 11):
    pytest.skip("hikari needs Python 3.11 or newer", allow_module_level=True)
hikari = pytest.importorskip("hikari")
# hikari's GatewayBot reads the application id from the token's first part, as in
# Discord's tokens (base64 of the id): the seed gives its bot such a token.
BOT_TOKEN = discord_shaped_token(APP)


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
SENT = f"in guild {GUILD}, channel {CHANNEL_ID} as owner ({USER_ID})"


def words(options: Any) -> list[str]:
    """The names of the subcommands, group and options of a hikari interaction's
    ``options``, then each option's ``name=value``, in order."""
    out: list[str] = []
    for option in options or ():
        if option.type in (hikari.OptionType.SUB_COMMAND, hikari.OptionType.SUB_COMMAND_GROUP):
            out += [option.name, *words(option.options)]
        else:
            out.append(f"{option.name}={option.value}")
    return out


async def answer(interaction: Any) -> None:
    """What the bot does with a command interaction (hikari has no command framework: the
    handler reads the interaction as Discord sent it)."""
    reply = hikari.ResponseType.MESSAGE_CREATE
    name = interaction.command_name
    if name == "ping":
        await interaction.create_initial_response(
            reply, f"pong from hikari to {interaction.user.username}")
    elif name in ("tag", "config"):
        await interaction.create_initial_response(
            reply, f"{name} {' '.join(words(interaction.options))}")
    elif name == "slow":
        await interaction.create_initial_response(hikari.ResponseType.DEFERRED_MESSAGE_CREATE)
        await interaction.edit_initial_response("done thinking")
        await interaction.execute("and one more thing")
    elif name == "secret":
        await interaction.create_initial_response(reply, "only you",
                                                  flags=hikari.MessageFlag.EPHEMERAL)
    elif name == "form":
        await interaction.create_modal_response(
            "Feedback", "feedback", components=[
                interaction.app.rest.build_modal_action_row().add_text_input(
                    "text", "Your feedback")])
    elif name == "Inspect":
        member = interaction.resolved.members[interaction.target_id]
        await interaction.create_initial_response(
            reply, f"{member.username} has {len(member.role_ids)} role(s)")
    elif name == "Quote":
        message = interaction.resolved.messages[interaction.target_id]
        await interaction.create_initial_response(
            reply, f'"{message.content}" by {message.author.username}')


def build_bot(api_url: str, handlers: Handlers) -> tuple[Any, threading.Event]:
    """The bot, and an event set once the seeded guild is cached."""
    bot = hikari.GatewayBot(BOT_TOKEN, rest_url=api_url, intents=hikari.Intents.GUILDS,
                            banner=None, suppress_optimization_warning=True)
    started = threading.Event()  # once the seeded guild's GUILD_CREATE is cached

    @bot.listen(hikari.GuildAvailableEvent)
    async def on_guild(event: Any) -> None:
        if event.guild_id == int(GUILD):
            started.set()

    @bot.listen(hikari.InteractionCreateEvent)
    async def on_interaction(event: Any) -> None:
        interaction = event.interaction
        handlers.begin()
        error: BaseException | None = None
        try:
            if isinstance(interaction, hikari.AutocompleteInteraction):
                typed = str(interaction.options[0].value)
                await interaction.create_response([
                    hikari.impl.AutocompleteChoiceBuilder(name=n.title(), value=n)
                    for n in ("apple", "apricot", "banana") if n.startswith(typed)])
            elif isinstance(interaction, hikari.CommandInteraction):
                await answer(interaction)
        except Exception as exc:
            error = exc
            raise
        finally:
            handlers.end(error)

    return bot, started


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    seed = default_seed()
    seed["applications"][0]["bot_token"] = BOT_TOKEN
    with served_with(COMMANDS, seed=seed, token=BOT_TOKEN) as (emulator, base):
        handlers = Handlers()
        bot, started = build_bot(f"{base}/api/v10", handlers)

        async def start() -> None:
            await bot.start(check_for_updates=False)
            await bot.join()

        with BotThread(start, bot.close) as running:
            wait_ready(emulator, APP, started, running)
            yield {"base": base, "bot": bot, "running": running,
                   "handlers": handlers}


def test_hikari_caches_the_seeded_guild(world: dict[str, Any]) -> None:
    guild = world["bot"].cache.get_guild(int(GUILD))
    assert guild is not None and guild.name == "Emulator Guild"
    assert sorted(r.name for r in guild.get_roles().values()) == ["@everyone", "Admin"]
    assert sorted(c.name for c in guild.get_channels().values()) == ["Voice", "general"]


@pytest.fixture
def invoke(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Iterator[Invoke]:
    """``cmdsync invoke --guild GUILD ...``; afterwards, the bot's handlers raised
    nothing."""
    handlers: Handlers = world["handlers"]
    handlers.finished()
    yield invoker(world["base"], monkeypatch, capsys, "--guild", GUILD)
    assert handlers.finished() == []


def test_hikari_answers_an_invoked_command(invoke: Invoke) -> None:
    assert invoke("/ping") == (0, ping_answered("pong from hikari to owner"), "")


def test_a_subcommand_and_a_subcommand_group(invoke: Invoke) -> None:
    assert invoke("/tag show name:rules") == (0, (
        f"Invoked /tag show name:rules {SENT}\n"
        "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply:\n"
        "  tag show name=rules\n"), "")
    assert invoke("/config colour set value:teal") == (0, (
        f"Invoked /config colour set value:teal {SENT}\n"
        "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
        "Reply:\n"
        "  config colour set value=teal\n"), "")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_command(invoke: Invoke, kind: str) -> None:
    """User and message commands, autocomplete, a modal, a deferral with its edit and a
    follow-up, an ephemeral reply: the same answers as discord.py's bot gives."""
    args, printed = kind_answered(kind)
    code, out, err = invoke(*args)
    assert (code, err) == (0, "") and re.fullmatch(printed, out), out
