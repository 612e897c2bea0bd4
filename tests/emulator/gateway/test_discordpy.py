"""A real discord.py bot logs in through the emulator's gateway and answers commands run
with ``cmdsync invoke`` (issue 23, parts 1, 2 and 4): READY and GUILD_CREATE fill its
cache; INTERACTION_CREATE reaches its CommandTree; its answers come back through the
callback and webhook routes and invoke prints them as for an HTTP bot."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import discord
import httpx
import pytest
from discord import app_commands

from cmdsync.emulator.seed import BOT_TOKEN, MEMBER_ID, USER_TOKEN
from tests.emulator.gateway.bots import (
    BotThread,
    discord_py_bot,
    discord_py_client,
    invoker,
    ping_answered,
)
from tests.support.emulator import APP, BOT, GUILD, GUILD_COMMANDS, chat, http_client
from tests.support.emulator import option as option_body

MESSAGE_ID = "222222222222222226"
COMMANDS = [
    chat("ping"), chat("echo", options=[option_body("text", required=True)]),
    chat("slow"), chat("secret"), chat("form"),
    chat("fruit", options=[option_body("name", autocomplete=True)]),
    {"type": 2, "name": "Inspect"}, {"type": 3, "name": "Quote"}]


def build_bot() -> tuple[discord.Client, threading.Event]:
    """A discord.py bot with the commands above as guild commands."""
    client, ready = discord_py_client()
    tree = app_commands.CommandTree(client)
    guild = discord.Object(int(GUILD))

    @tree.command(guild=guild)
    async def ping(interaction: discord.Interaction) -> None:
        """Check the bot is alive"""
        await interaction.response.send_message("pong")

    @tree.command(guild=guild)
    async def echo(interaction: discord.Interaction, text: str) -> None:
        """Echo"""
        await interaction.response.send_message(f"{interaction.user.name} said {text}")

    @tree.command(guild=guild)
    async def slow(interaction: discord.Interaction) -> None:
        """Defer, then follow up"""
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done thinking")
        await interaction.followup.send("and one more thing")

    @tree.command(guild=guild)
    async def secret(interaction: discord.Interaction) -> None:
        """Ephemeral"""
        await interaction.response.send_message("only you", ephemeral=True)

    class Feedback(discord.ui.Modal, title="Feedback"):
        text: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Your feedback")

    @tree.command(guild=guild)
    async def form(interaction: discord.Interaction) -> None:
        """A modal"""
        await interaction.response.send_modal(Feedback())

    @tree.command(guild=guild)
    async def fruit(interaction: discord.Interaction, name: str) -> None:
        """Autocomplete"""
        await interaction.response.send_message(name)

    @fruit.autocomplete("name")
    async def fruit_names(interaction: discord.Interaction, current: str
                          ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n.title(), value=n)
                for n in ("apple", "apricot", "banana") if n.startswith(current)]

    @tree.context_menu(name="Inspect", guild=guild)
    async def inspect(interaction: discord.Interaction, user: discord.Member) -> None:
        await interaction.response.send_message(f"{user.name} has {len(user.roles)} role(s)")

    @tree.context_menu(name="Quote", guild=guild)
    async def quote(interaction: discord.Interaction, message: discord.Message) -> None:
        await interaction.response.send_message(f'"{message.content}"')

    return client, ready


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    """A served emulator with the commands, and the discord.py bot connected to it."""
    client, ready = build_bot()
    with discord_py_bot(COMMANDS, client, ready) as (emulator, base, running):
        yield {"base": base, "client": client, "bot": running, "emulator": emulator}


@pytest.fixture
def invoke(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Any:
    return invoker(world["base"], monkeypatch, capsys, token=BOT_TOKEN)


def test_the_cache_holds_the_seeded_guild_its_roles_and_channels(
        world: dict[str, Any]) -> None:
    client: discord.Client = world["client"]
    running: BotThread = world["bot"]

    async def cached() -> tuple[Any, ...]:
        guild = client.get_guild(int(GUILD))
        assert guild is not None
        return (guild.name, [r.name for r in guild.roles],
                [(c.name, c.type) for c in guild.channels], guild.me.id, client.user.id
                if client.user else None, client.application_id)

    assert running.call(cached()) == (
        "Emulator Guild", ["@everyone", "Admin"],
        [("general", discord.ChannelType.text), ("Voice", discord.ChannelType.voice)],
        int(APP), int(APP), int(APP))


def test_a_slash_command_arrives_and_its_answer_is_printed(invoke: Any) -> None:
    code, out, err = invoke("--guild", GUILD, "/ping")
    assert (code, out, err) == (0, ping_answered("pong"), "")


def test_options_and_the_invoking_member(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "--user", MEMBER_ID, '/echo text:"hi there"')
    assert code == 0 and out.endswith("Reply:\n  member said hi there\n")


def test_a_deferral_its_edit_and_a_follow_up(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "--wait", "30", "--follow-ups", "1", "/slow")
    assert code == 0
    assert out.endswith("Response: DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE\n"
                        "Reply (edited):\n"
                        "  done thinking\n"
                        "Follow-up:\n"
                        "  and one more thing\n")


def test_an_ephemeral_reply(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "--format", "json", "/secret")
    assert code == 0
    assert '"flags": 64' in out and '"content": "only you"' in out


def test_a_modal(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "/form")
    assert code == 0 and "Response: MODAL" in out and "Feedback" in out


def test_autocomplete(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "--autocomplete", "/fruit name:ap")
    assert code == 0
    assert out.endswith("Response: APPLICATION_COMMAND_AUTOCOMPLETE_RESULT\n"
                        '  Apple = "apple"\n'
                        '  Apricot = "apricot"\n')


def test_user_and_message_commands(invoke: Any) -> None:
    code, out, _ = invoke("--guild", GUILD, "--user-command", "Inspect", "--target", MEMBER_ID)
    assert code == 0 and out.endswith("Reply:\n  member has 1 role(s)\n")
    code, out, _ = invoke("--guild", GUILD, "--message-command", "Quote", "--target",
                          MESSAGE_ID)
    assert code == 0 and out.endswith('Reply:\n  "hello"\n')


def test_the_checks_made_for_an_http_bot_still_refuse(invoke: Any) -> None:
    code, out, err = invoke("--guild", GUILD, "/echo")
    assert (code, out, err) == (1, "", "Refused: /echo needs option text\n")


def test_a_permission_put_reaches_the_bot(world: dict[str, Any]) -> None:
    client: discord.Client = world["client"]
    seen: list[Any] = []
    arrived = threading.Event()

    async def on_raw_app_command_permissions_update(payload: Any) -> None:
        seen.append(payload)
        arrived.set()

    client.event(on_raw_app_command_permissions_update)
    with http_client(f"{world['base']}/api/v10", headers=BOT) as api:
        ping = next(c["id"] for c in api.get(GUILD_COMMANDS).json() if c["name"] == "ping")
    answer = httpx.put(
        f"{world['base']}/api/v10{GUILD_COMMANDS}/{ping}/permissions",
        headers={"Authorization": f"Bearer {USER_TOKEN}"},
        json={"permissions": [{"id": GUILD, "type": 1, "permission": False}]})
    assert answer.status_code == 200
    assert arrived.wait(30)
    assert (seen[0].target_id, seen[0].guild.id,
            [(p.id, p.permission) for p in seen[0].permissions]) == (
        int(ping), int(GUILD), [(int(GUILD), False)])
