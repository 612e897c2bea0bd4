"""discord.py through the emulator's session events (issue 23, part 1): a dropped
connection resumes and receives what was dispatched meanwhile, RECONNECT (op 7) and
INVALID_SESSION are handled by the library itself, and a privileged intent the
application has not enabled is discord.py's own ``PrivilegedIntentsRequired``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import discord
import pytest

from cmdsync.emulator import Emulator, Limits, create_app, new_emulator
from cmdsync.emulator.gateway import Close
from cmdsync.emulator.seed import BOT_TOKEN
from cmdsync.emulator.server import BackgroundServer
from tests.emulator.gateway.bots import WAIT, BotThread, discord_py, wait_ready
from tests.support.emulator import APP, GUILD, http_client


class Bot:
    """A discord.py client that records the session events it sees."""

    def __init__(self, intents: discord.Intents | None = None) -> None:
        self.client = discord.Client(intents=intents or discord.Intents.default(),
                                     guild_ready_timeout=0.05)
        self.ready, self.resumed, self.updated = (threading.Event(), threading.Event(),
                                                  threading.Event())
        self.readies = 0
        self.updates: list[Any] = []

        @self.client.event
        async def on_ready() -> None:
            self.readies += 1
            self.ready.set()

        @self.client.event
        async def on_resumed() -> None:
            self.resumed.set()

        @self.client.event
        async def on_raw_app_command_permissions_update(payload: Any) -> None:
            self.updates.append(payload)
            self.updated.set()


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    emulator = new_emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(emulator)) as base:
        yield emulator, base


@pytest.fixture
def bot(served: tuple[Emulator, str]) -> Iterator[tuple[Bot, BotThread]]:
    bot = Bot()
    with discord_py(bot.client, f"{served[1]}/api/v10", BOT_TOKEN) as running:
        wait_ready(served[0], APP, bot.ready, running)
        yield bot, running


def permissions_update(emulator: Emulator, command_id: str) -> int:
    return emulator.gateway.dispatch(APP, "APPLICATION_COMMAND_PERMISSIONS_UPDATE", {
        "id": command_id, "application_id": APP, "guild_id": GUILD,
        "permissions": [{"id": GUILD, "type": 1, "permission": False}]}, guild_id=GUILD)


def test_a_dropped_connection_resumes_and_gets_what_was_dispatched_meanwhile(
        served: tuple[Emulator, str], bot: tuple[Bot, BotThread]) -> None:
    emulator, base = served
    before = emulator.gateway.sessions()
    with http_client(base) as admin:
        assert admin.post("/_emulator/gateway/drop", json={"application_id": APP}).json() == {
            "connections": 1}
    permissions_update(emulator, "1")  # the connection is closing: kept for the RESUME
    assert bot[0].resumed.wait(WAIT) and bot[0].updated.wait(WAIT)
    assert [p.target_id for p in bot[0].updates] == [1]
    after = emulator.gateway.sessions()
    assert [s["session_id"] for s in after] == [s["session_id"] for s in before]
    assert bot[0].readies == 1


def test_reconnect_op_7_is_followed_by_a_resume(served: tuple[Emulator, str],
                                                 bot: tuple[Bot, BotThread]) -> None:
    emulator, base = served
    with http_client(base) as admin:
        assert admin.post("/_emulator/gateway/reconnect", json={}).json() == {
            "connections": 1}
    assert bot[0].resumed.wait(WAIT)
    assert permissions_update(emulator, "2") == 1
    assert bot[0].updated.wait(WAIT)


@pytest.mark.slow  # discord.py waits 5 s before it identifies again (its own back-off)
def test_an_ended_session_is_invalid_and_the_library_identifies_again(
        served: tuple[Emulator, str], bot: tuple[Bot, BotThread]) -> None:
    emulator = served[0]
    first = emulator.gateway.sessions()[0]["session_id"]
    bot[0].ready.clear()
    # 4009 ends the session: discord.py tries to resume, gets INVALID_SESSION false
    assert emulator.gateway.drop(APP, code=Close.SESSION_TIMED_OUT) == 1
    assert bot[0].ready.wait(WAIT)
    sessions = emulator.gateway.sessions()
    assert len(sessions) == 1 and sessions[0]["session_id"] != first
    assert not bot[0].resumed.is_set()


def test_a_privileged_intent_not_enabled_is_privileged_intents_required(
        served: tuple[Emulator, str]) -> None:
    bot = Bot(discord.Intents.all())
    with discord_py(bot.client, f"{served[1]}/api/v10", BOT_TOKEN) as running:
        running.thread.join(WAIT)
    assert isinstance(running.error, discord.PrivilegedIntentsRequired)


def test_privileged_intents_enabled_by_name_in_the_seed_let_the_bot_in() -> None:
    """The seed's application ``flags`` by name, as the Developer Portal's switches."""
    from cmdsync.emulator.seed import DEFAULT_SEED

    seed = {**DEFAULT_SEED, "applications": [
        {**DEFAULT_SEED["applications"][0],
         "flags": ["gateway_guild_members", "gateway_presence", "gateway_message_content"]},
        *DEFAULT_SEED["applications"][1:]]}
    emulator = new_emulator(seed=seed, limits=Limits(interaction_deadline=30))
    app = emulator.store.application(APP)
    assert app is not None and app.flags == (1 << 14) | (1 << 12) | (1 << 18)
    bot = Bot(discord.Intents.all())
    with BackgroundServer(create_app(emulator)) as base, \
            discord_py(bot.client, f"{base}/api/v10", BOT_TOKEN) as running:
        wait_ready(emulator, APP, bot.ready, running)
        assert running.error is None
