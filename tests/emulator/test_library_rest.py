"""Real libraries' REST clients against a served emulator (issue 23, part 3): what a
bot calls at start-up and in a command handler beside the interaction.

discord.py's ``HTTPClient`` (``discord.http.Route.BASE`` pointed at the emulator)
logs in and sends, edits, reads and deletes a message (a file too: discord.py sends
that as multipart/form-data with ``payload_json``), reads a member, a user and a
channel and the guild, and opens a DM. hikari's ``RESTApp`` (``url``) does the same through its own client
(hikari from Python 3.11, as pyproject.toml installs it)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from typing import Any

import discord
import httpx
import pytest
from discord.http import HTTPClient, Route, handle_message_parameters

from cmdsync.emulator.seed import BOT_TOKEN
from tests.support.emulator import APP, GUILD, emulator, http_client, http_server

GENERAL = "222222222222222223"
MEMBER = "333333333333333334"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with http_server(emulator()) as url:
        yield url


@pytest.fixture
def admin(base_url: str) -> Iterator[httpx.Client]:
    with http_client(f"{base_url}/_emulator") as client:
        assert client.post("/reset").status_code == 204
        yield client


def test_discordpy_http_client_logs_in_and_handles_messages(
        base_url: str, admin: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Route, "BASE", f"{base_url}/api/v10")

    async def handler() -> dict[str, Any]:
        http = HTTPClient(asyncio.get_running_loop())
        try:
            seen: dict[str, Any] = {"me": await http.static_login(BOT_TOKEN)}
            with handle_message_parameters(content="hello", embed=discord.Embed(
                    title="Result")) as params:
                sent = await http.send_message(GENERAL, params=params)
            with handle_message_parameters(content="edited") as params:
                seen["edited"] = await http.edit_message(GENERAL, sent["id"], params=params)
            seen["read"] = await http.get_message(GENERAL, sent["id"])
            with handle_message_parameters(content="a file", file=discord.File(
                    io.BytesIO(b"12345"), filename="log.txt")) as params:
                seen["file"] = await http.send_message(GENERAL, params=params)
            await http.delete_message(GENERAL, seen["file"]["id"])
            seen["member"] = await http.get_member(GUILD, MEMBER)
            seen["user"] = await http.get_user(MEMBER)
            seen["channel"] = await http.get_channel(GENERAL)
            seen["guild"] = await http.get_guild(GUILD, with_counts=True)
            dm = await http.start_private_message(MEMBER)
            with handle_message_parameters(content="in your DMs") as params:
                seen["dm"] = await http.send_message(dm["id"], params=params)
            try:
                await http.get_message(GENERAL, seen["file"]["id"])
            except discord.NotFound as exc:
                seen["gone"] = (exc.status, exc.code)
            return seen
        finally:
            await http.close()

    seen = asyncio.run(handler())
    assert (seen["me"]["id"], seen["me"]["bot"]) == (APP, True)
    assert (seen["edited"]["content"], seen["edited"]["embeds"][0]["title"]) == (
        "edited", "Result")
    assert seen["read"] == seen["edited"]
    assert [(a["filename"], a["size"]) for a in seen["file"]["attachments"]] == [("log.txt", 5)]
    assert (seen["member"]["user"]["id"], seen["user"]["username"], seen["channel"]["name"]) \
        == (MEMBER, "member", "general")
    assert (seen["guild"]["name"], seen["guild"]["approximate_member_count"]) == (
        "Emulator Guild", 3)
    assert seen["gone"] == (404, 10008)
    assert [m["content"] for m in admin.get("/messages").json()["messages"]] == [
        "edited", "in your DMs"]


def test_hikari_rest_client_fetches_and_creates(base_url: str, admin: httpx.Client) -> None:
    hikari = pytest.importorskip("hikari")

    async def handler() -> tuple[Any, ...]:
        app = hikari.RESTApp(url=f"{base_url}/api/v10")
        await app.start()
        try:
            async with app.acquire(BOT_TOKEN, hikari.TokenType.BOT) as rest:
                me = await rest.fetch_my_user()
                message = await rest.create_message(int(GENERAL), "from hikari", embed=hikari.Embed(
                    title="Embedded"), attachment=hikari.Bytes(b"abc", "data.txt"))
                member = await rest.fetch_member(int(GUILD), int(MEMBER))
                channel = await rest.fetch_channel(int(GENERAL))
                edited = await rest.edit_message(int(GENERAL), message, "edited by hikari")
                return me, message, member, channel, edited
        finally:
            await app.close()

    me, message, member, channel, edited = asyncio.run(handler())
    assert (str(me.id), me.is_bot) == (APP, True)
    assert (message.content, message.embeds[0].title, [a.filename for a in message.attachments]
            ) == ("from hikari", "Embedded", ["data.txt"])
    assert (str(member.user.id), member.username, channel.name) == (MEMBER, "member", "general")
    assert edited.content == "edited by hikari"
    assert [m["content"] for m in admin.get("/messages").json()["messages"]] == [
        "edited by hikari"]
