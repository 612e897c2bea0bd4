"""A real discord.py gateway bot calls the REST beside the interaction in its command
handlers (issue 23, part 3): it sends, edits and deletes channel messages, fetches a
member, a user and a channel, opens a DM, and answers with a file (discord.py sends
that response as multipart/form-data with ``payload_json``). Commands are run with
``cmdsync invoke``; what the handlers sent is read back from ``GET /_emulator/messages``."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord import app_commands

from cmdsync.emulator.seed import BOT_TOKEN, CHANNEL_ID, MEMBER_ID
from tests.emulator.gateway.bots import discord_py_bot, discord_py_client, invoker
from tests.support.emulator import APP, GUILD, chat, http_client
from tests.support.emulator import option as option_body

COMMANDS = [chat("announce"), chat("whois", options=[option_body("who", 6, required=True)]),
            chat("whisper"), chat("scratch"), chat("report")]


def build_bot() -> tuple[discord.Client, threading.Event]:
    client, ready = discord_py_client()
    tree = app_commands.CommandTree(client)
    guild = discord.Object(int(GUILD))

    @tree.command(guild=guild)
    async def announce(interaction: discord.Interaction) -> None:
        """Post in the channel, then answer"""
        assert isinstance(interaction.channel, discord.abc.Messageable)
        await interaction.channel.send("hear ye", embed=discord.Embed(title="News"))
        await interaction.response.send_message("announced")

    @tree.command(guild=guild)
    async def whois(interaction: discord.Interaction, who: discord.Member) -> None:
        """Fetch a member, a user and a channel"""
        assert interaction.guild is not None
        member = await interaction.guild.fetch_member(who.id)
        user = await client.fetch_user(who.id)
        channel = await client.fetch_channel(int(CHANNEL_ID))
        assert isinstance(channel, discord.TextChannel)
        await interaction.response.send_message(
            f"{member.display_name} ({user.name}) in #{channel.name}")

    @tree.command(guild=guild)
    async def whisper(interaction: discord.Interaction) -> None:
        """DM the invoking user"""
        await interaction.user.send("psst")
        await interaction.response.send_message("sent you a DM", ephemeral=True)

    @tree.command(guild=guild)
    async def scratch(interaction: discord.Interaction) -> None:
        """Send, edit, delete"""
        assert isinstance(interaction.channel, discord.abc.Messageable)
        note = await interaction.channel.send("draft")
        await note.edit(content="final")
        kept = await interaction.channel.send("kept")
        await note.delete()
        await interaction.response.send_message(f"kept {kept.id}")

    @tree.command(guild=guild)
    async def report(interaction: discord.Interaction) -> None:
        """Answer with a file"""
        await interaction.response.send_message("the report", file=discord.File(
            io.BytesIO(b"a,b\n1,2\n"), filename="report.csv"))

    return client, ready


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    client, ready = build_bot()
    with discord_py_bot(COMMANDS, client, ready) as (_, base, _):
        yield {"base": base}


@pytest.fixture
def invoke(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Any:
    return invoker(world["base"], monkeypatch, capsys, "--guild", GUILD, token=BOT_TOKEN)


def sent(world: dict[str, Any], **query: str) -> list[dict[str, Any]]:
    with http_client(world["base"]) as admin:
        messages: list[dict[str, Any]] = admin.get("/_emulator/messages",
                                                   params=query).json()["messages"]
    return messages


def test_a_handler_posts_in_the_channel_beside_its_answer(world: dict[str, Any],
                                                          invoke: Any) -> None:
    before = sent(world)
    code, out, err = invoke("/announce")
    assert (code, err) == (0, "") and out.endswith("Reply:\n  announced\n")
    [posted] = sent(world)[len(before):]
    assert (posted["channel_id"], posted["content"], posted["embeds"][0]["title"],
            posted["author"]["id"]) == (CHANNEL_ID, "hear ye", "News", APP)


def test_a_handler_fetches_a_member_a_user_and_a_channel(invoke: Any) -> None:
    code, out, err = invoke("--user", MEMBER_ID, f"/whois who:<@{MEMBER_ID}>")
    assert (code, err) == (0, "")
    assert out.endswith("Reply:\n  member (member) in #general\n")


def test_a_handler_opens_a_dm(world: dict[str, Any], invoke: Any) -> None:
    code, _, err = invoke("--user", MEMBER_ID, "/whisper")
    assert (code, err) == (0, "")
    dms = [m for m in sent(world) if m["content"] == "psst"]
    assert len(dms) == 1 and dms[0]["channel_id"] != CHANNEL_ID


def test_a_handler_edits_and_deletes_what_it_sent(world: dict[str, Any], invoke: Any) -> None:
    before = {m["id"] for m in sent(world)}
    code, out, _ = invoke("/scratch")
    assert code == 0
    [kept] = [m for m in sent(world) if m["id"] not in before]
    assert kept["content"] == "kept" and out.endswith(f"Reply:\n  kept {kept['id']}\n")


def test_a_response_with_a_file_comes_through_the_callback_as_multipart(invoke: Any) -> None:
    code, out, err = invoke("--format", "json", "/report")
    assert (code, err) == (0, "")
    assert '"filename": "report.csv"' in out and '"size": 8' in out
