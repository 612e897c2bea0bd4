"""The gateway's round trip: an invocation, INTERACTION_CREATE to a connected bot, its callback.

A bot of a few lines on a plain websocket (``websockets``, as Discord's
"Gateway" documentation describes a connection): it reads HELLO, sends
IDENTIFY (as the shard of its guild, of as many as ``GET /gateway/bot``
says, as a bot in thousands of guilds must), heartbeats at the interval HELLO gives, and answers every
INTERACTION_CREATE with ``POST /interactions/{id}/{token}/callback`` (type 4,
the option it was given echoed back), from its own HTTP client. The invoker
runs a command as a user would, through the admin API (``POST
/_emulator/interactions``, what ``cmdsync invoke`` sends), which answers once
the callback has been taken, with the whole exchange.

Measured for each invocation, from the invoker's sending it (one at a time,
each with its own option value, after a few untimed ones):

- ``round_trip``: until the admin API's answer is read, the callback recorded;
- ``to_event``: until the bot has read INTERACTION_CREATE;
- ``callback``: the bot's callback request alone (sent to answered);
- ``recorded``: until the emulator has answered the callback (it stored it).

The seed needs :func:`seed_fixtures`: a guild with an owner (the user who
invokes) and a text channel, apart from the benchmark's other guilds.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

GUILD, CHANNEL, USER = "699999999999999999", "699999999999999998", "699999999999999997"
COMMAND = {"name": "ping", "description": "Check the bot answers",
           "options": [{"type": 3, "name": "text", "description": "Anything to echo"}]}
WARM_UP = 3  # untimed invocations first
WAIT = 30.0  # seconds to wait for any one step at most (a bound, never a pause)


def seed_fixtures() -> dict[str, list[dict[str, Any]]]:
    """The seed's ``guilds`` and ``users`` the round trip needs (merge them into yours)."""
    return {"guilds": [{"id": GUILD, "owner_id": USER, "members": [{"user_id": USER}],
                        "channels": [{"id": CHANNEL, "name": "general"}]}],
            "users": [{"id": USER, "username": "invoker"}]}


class Bot:
    """A gateway bot: IDENTIFY, heartbeats, a callback for every INTERACTION_CREATE,
    noting when each arrived and when its callback went and was answered."""

    def __init__(self, socket: ClientConnection, http: httpx.AsyncClient) -> None:
        self.socket, self.http = socket, http
        self.sequence: int | None = None
        self.arrived: dict[str, float] = {}  # interaction id -> perf_counter
        self.called_back: dict[str, tuple[float, float]] = {}  # id -> (sent, answered)
        self._answered = asyncio.Condition()
        self._tasks: set[asyncio.Task[None]] = set()

    async def identify(self, token: str, shards: int) -> float:
        """HELLO read, IDENTIFY sent as the shard of :data:`GUILD` among ``shards``, READY
        read; the heartbeat interval in seconds."""
        hello = json.loads(await asyncio.wait_for(self.socket.recv(), WAIT))
        if hello["op"] != 10:
            raise RuntimeError(f"the gateway sent {hello} before HELLO")
        shard = [(int(GUILD) >> 22) % shards, shards]  # Discord's "Sharding" formula
        await self.socket.send(json.dumps({"op": 2, "d": {
            "token": token, "intents": 0, "shard": shard,
            "properties": {"os": "linux", "browser": "bench", "device": "bench"}}}))
        while True:
            event = json.loads(await asyncio.wait_for(self.socket.recv(), WAIT))
            self.sequence = event.get("s") or self.sequence
            if event.get("t") == "READY":
                return float(hello["d"]["heartbeat_interval"]) / 1000
            if event["op"] == 9:
                raise RuntimeError("the gateway refused IDENTIFY (INVALID_SESSION)")

    async def listen(self) -> None:
        """Read events until the socket closes; answer every interaction at once."""
        async for frame in self.socket:
            event = json.loads(frame)
            self.sequence = event.get("s") or self.sequence
            if event["op"] == 1:  # the gateway asks for a heartbeat now
                await self.socket.send(json.dumps({"op": 1, "d": self.sequence}))
            elif event.get("t") == "INTERACTION_CREATE":
                self.arrived[event["d"]["id"]] = time.perf_counter()
                task = asyncio.create_task(self._answer(event["d"]))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def heartbeat(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            await self.socket.send(json.dumps({"op": 1, "d": self.sequence}))

    async def _answer(self, interaction: dict[str, Any]) -> None:
        echoed = interaction["data"]["options"][0]["value"]
        sent = time.perf_counter()
        answer = await self.http.post(
            f"/interactions/{interaction['id']}/{interaction['token']}/callback",
            json={"type": 4, "data": {"content": f"pong {echoed}"}})
        async with self._answered:
            self.called_back[interaction["id"]] = (sent, time.perf_counter())
            self._answered.notify_all()
        answer.raise_for_status()

    async def callback_of(self, interaction_id: str) -> tuple[float, float]:
        """When the callback of ``interaction_id`` was sent and answered (the invoker may
        read its own answer before the bot reads the callback's)."""
        async with self._answered:
            await asyncio.wait_for(self._answered.wait_for(
                lambda: interaction_id in self.called_back), WAIT)
        return self.called_back[interaction_id]


async def round_trips(api_url: str, *, application_id: str, bot_token: str, count: int
                      ) -> dict[str, list[float]]:
    """``count`` timed invocations of a connected bot's command; the samples of each
    figure in the module docstring, in seconds."""
    root = api_url.rsplit("/api/", 1)[0]
    auth = {"Authorization": f"Bot {bot_token}"}
    async with httpx.AsyncClient(base_url=api_url, timeout=WAIT) as bot_http, \
            httpx.AsyncClient(base_url=root, timeout=WAIT) as invoker:
        registered = await bot_http.put(
            f"/applications/{application_id}/guilds/{GUILD}/commands", json=[COMMAND],
            headers=auth)
        registered.raise_for_status()
        gateway = await bot_http.get("/gateway/bot", headers=auth)  # how many shards
        gateway.raise_for_status()
        async with connect(root.replace("http", "ws", 1) + "/gateway?v=10&encoding=json",
                           open_timeout=WAIT, max_size=None) as socket:
            bot = Bot(socket, bot_http)
            interval = await bot.identify(bot_token, int(gateway.json()["shards"]))
            tasks = [asyncio.create_task(bot.listen()), asyncio.create_task(bot.heartbeat(
                interval))]
            try:
                return await _invoke(invoker, bot, application_id, count)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)


async def _invoke(invoker: httpx.AsyncClient, bot: Bot, application_id: str, count: int
                  ) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {"round_trip": [], "to_event": [], "callback": [],
                                     "recorded": []}
    for index in range(-WARM_UP, count):
        started = time.perf_counter()
        answer = await invoker.post("/_emulator/interactions", json={
            "application_id": application_id, "guild_id": GUILD,
            "line": f"/ping text:n{index}"})
        ended = time.perf_counter()
        exchange = answer.json()
        content = ((exchange.get("response") or {}).get("data") or {}).get("content")
        if answer.status_code != 200 or exchange["failure"] or content != f"pong n{index}":
            raise RuntimeError(f"invocation {index} failed: {answer.status_code} {exchange}")
        if index < 0:
            continue
        interaction = exchange["interaction"]["id"]
        sent, answered = await bot.callback_of(interaction)
        found["round_trip"].append(ended - started)
        found["to_event"].append(bot.arrived[interaction] - started)
        found["callback"].append(answered - sent)
        found["recorded"].append(answered - started)
    return found
