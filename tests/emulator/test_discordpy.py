"""discord.py logs in against the emulator over real HTTP on loopback.

``HTTPClient.static_login`` is what every discord.py bot runs first (``GET
/users/@me``); ``Client.login`` then reads the application (``GET
/oauth2/applications/@me``). Both go to ``discord.http.Route.BASE``, pointed
at the emulator here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord.http import HTTPClient, Route

from cmdsync.emulator.seed import BOT_TOKEN
from tests.support.emulator import APP, emulator, http_client, http_server


@pytest.fixture
def base_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with http_server(emulator()) as url:
        monkeypatch.setattr(Route, "BASE", f"{url}/api/v10")
        yield url


def test_static_login_returns_the_bot_user(base_url: str) -> None:
    async def login() -> Any:
        http = HTTPClient(asyncio.get_running_loop())
        try:
            return await http.static_login(BOT_TOKEN)
        finally:
            await http.close()

    user = asyncio.run(login())
    assert (user["id"], user["username"], user["bot"]) == (APP, "cmdsync emulator", True)


def test_a_bad_token_is_a_login_failure(base_url: str) -> None:
    async def login() -> None:
        http = HTTPClient(asyncio.get_running_loop())
        try:
            await http.static_login("not-a-token")
        finally:
            await http.close()

    with pytest.raises(discord.LoginFailure):
        asyncio.run(login())


def test_client_login_reads_the_application_and_its_flags(base_url: str) -> None:
    with http_client(base_url) as admin:
        admin.patch("/api/v10/applications/@me", headers={"Authorization": f"Bot {BOT_TOKEN}"},
                    json={"flags": 1 << 17, "integration_types_config": {"0": {}, "1": {}}})

    async def login() -> tuple[Any, Any]:
        client = discord.Client(intents=discord.Intents.none())
        try:
            await client.login(BOT_TOKEN)
            return client.user, await client.application_info()
        finally:
            await client.close()

    user, info = asyncio.run(login())
    assert (str(user.id), user.bot) == (APP, True)
    assert (str(info.id), info.name, info.flags.embedded) == (APP, "cmdsync emulator", True)
    assert str(info.owner.id) == "333333333333333333"
