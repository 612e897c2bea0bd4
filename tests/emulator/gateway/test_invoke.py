"""``cmdsync invoke`` for a gateway bot (issue 23, part 4): the interaction arrives as
INTERACTION_CREATE on the bot's session, the same refusals and failures as for an HTTP
bot, and an endpoint URL, when set, still wins (Discord's "Receiving and Responding":
the two are mutually exclusive)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Emulator, Limits
from cmdsync.emulator.seed import GUILD_ID
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, BOT, GUILD_COMMANDS, FakeClock, chat, http_client

pytestmark = pytest.mark.anyio
Served = tuple[Emulator, str, FakeClock]


@pytest.fixture
def cli(served: Served, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    with http_client(f"{served[1]}/api/v10", headers=BOT) as api:
        assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200

    async def invoke(*args: str) -> tuple[int, str, str]:  # the CLI blocks: off the loop
        return await asyncio.to_thread(run, capsys, "invoke", "--api-url",
                                       f"{served[1]}/api/v10", *args)

    return invoke


async def test_without_an_endpoint_or_a_connected_bot_invoke_refuses(cli: Any) -> None:
    code, out, err = await cli("--guild", GUILD_ID, "/ping")
    assert (code, out) == (1, "")
    assert err == (
        f"Refused: no bot is connected for application {APP} (it has no interactions "
        "endpoint URL, and no session of the emulator's gateway has a connection): set one "
        "(PATCH /applications/@me "
        '{"interactions_endpoint_url": URL}, or cmdsync invoke --endpoint URL) where your '
        "bot serves interactions, or start your gateway bot against the emulator (GET "
        "/api/v10/gateway/bot)\n")


async def test_the_interaction_arrives_and_the_callback_answers_it(
        cli: Any, raw: Any, served: Served) -> None:
    bot = await raw()
    await bot.identify(intents=1)
    guild_create = await bot.recv()
    invoked = asyncio.create_task(cli("--guild", GUILD_ID, "/ping"))
    event = await bot.recv()
    assert (event["op"], event["t"], event["s"]) == (0, "INTERACTION_CREATE",
                                                      guild_create["s"] + 1)
    interaction = event["d"]
    assert (interaction["type"], interaction["data"]["name"], interaction["guild_id"]) == (
        2, "ping", GUILD_ID)
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            f"{served[1]}/api/v10/interactions/{interaction['id']}/{interaction['token']}"
            "/callback", json={"type": 4, "data": {"content": "pong over the gateway"}})
    assert answer.status_code == 204
    code, out, _ = await invoked
    assert code == 0 and out.endswith("Reply:\n  pong over the gateway\n")


@pytest.mark.parametrize("limits", [Limits(interaction_deadline=0.2)])
async def test_a_bot_that_does_not_answer_is_a_failure(cli: Any, raw: Any) -> None:
    bot = await raw()
    await bot.identify(intents=1)
    await bot.recv()
    code, out, err = await cli("--guild", GUILD_ID, "/ping")
    assert (code, err) == (1, "")
    assert out == (f"Invoked /ping in guild {GUILD_ID}, channel 222222222222222223 as owner "
                   "(333333333333333333)\n"
                   "This interaction failed: the application did not respond: no POST "
                   "/interactions/{id}/{token}/callback within 0.2 seconds of "
                   "INTERACTION_CREATE\n")


# 5 s: the refused callback must come before the deadline, on however busy a machine
@pytest.mark.parametrize("limits", [Limits(interaction_deadline=5.0)])
async def test_a_refused_callback_is_said_first(cli: Any, raw: Any, served: Served) -> None:
    """The bot did respond; Discord refused the callback (a reply over 2,000 characters),
    which leaves the interaction unanswered: the failure says so, not "did not respond"."""
    bot = await raw()
    await bot.identify(intents=1)
    await bot.recv()
    invoked = asyncio.create_task(cli("--guild", GUILD_ID, "/ping"))
    interaction = (await bot.recv())["d"]
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            f"{served[1]}/api/v10/interactions/{interaction['id']}/{interaction['token']}"
            "/callback", json={"type": 4, "data": {"content": "x" * 2001}})
    assert answer.status_code == 400
    code, out, _ = await invoked
    assert code == 1
    failure = out.split("\n")[1]
    assert failure.startswith("This interaction failed: the bot's callback was refused: "
                              "HTTP 400 50035"), out
    assert failure.endswith("; no other response came within 5 seconds of "
                            "INTERACTION_CREATE, so the interaction stayed unanswered"), out


async def test_an_endpoint_url_wins_over_a_connected_bot(cli: Any, raw: Any,
                                                         served: Served) -> None:
    bot = await raw()
    await bot.identify(intents=1)
    await bot.recv()
    with served[0].store.transaction() as db:  # set without the endpoint check's PINGs
        db.execute("UPDATE applications SET interactions_endpoint_url = ?",
                   ("http://127.0.0.1:9/interactions",))
    code, out, _ = await cli("--guild", GUILD_ID, "/ping")
    assert code == 1 and "cannot reach http://127.0.0.1:9/interactions" in out
    await bot.send({"op": 1, "d": None})
    assert (await bot.recv())["op"] == 11  # no INTERACTION_CREATE came before the ACK


async def test_a_bot_whose_session_only_waits_for_a_resume_is_not_connected(
        cli: Any, raw: Any, served: Served) -> None:
    """Issue 36, item 5: the closed bot's session keeps its dispatches for a RESUME, but
    an interaction is not sent to it: the invocation is refused at once, saying no bot is
    connected, instead of waiting Discord's 3 seconds for an answer that cannot come."""
    bot = await raw()
    await bot.identify(intents=1)
    await bot.recv()
    await bot.socket.close(code=4000)  # not 1000: the session stays resumable
    for _ in range(200):  # the server sees the close: the session waits for a RESUME
        if not any(s["connected"] for s in served[0].gateway.sessions()):
            break
        await asyncio.sleep(0.01)
    assert [s["connected"] for s in served[0].gateway.sessions()] == [False]
    code, out, err = await cli("--guild", GUILD_ID, "/ping")
    assert (code, out) == (1, "")
    assert err.startswith(f"Refused: no bot is connected for application {APP} ")
