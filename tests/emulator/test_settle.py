"""Waiting until the bots are idle (issue 36, item 6): the emulator's :class:`Activity`,
:meth:`Emulator.idle_for` and the admin API's held poll, ``GET
/_emulator/interactions/{id}?follow_ups=&settle=&within=``. Clocks are injected: a
poll that slept instead of settling would hang on a clock that never reaches its
deadline."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from cmdsync.emulator.app import IN_PROCESS_HOST, create_app
from cmdsync.emulator.gateway.hub import Outlet
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.reference.log import Activity
from cmdsync.model import LOADING
from tests.support.emulator import APP, emulator

pytestmark = pytest.mark.anyio
INTERACTION = "1300000000000000001"


class Ticking:
    """Monotonic seconds that move ``step`` at each reading (a clock that always runs)."""

    def __init__(self, step: float = 0.0) -> None:
        self.now, self.step = 100.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_activity_is_quiet_only_with_nothing_in_flight() -> None:
    clock = Ticking()
    activity = Activity(clock)
    assert activity.quiet_for() == 0.0
    activity.begin()
    clock.now += 5
    assert (activity.in_flight, activity.quiet_for()) == (1, 0.0)  # in flight: never quiet
    activity.end()
    clock.now += 0.25
    assert (activity.in_flight, activity.quiet_for()) == (0, 0.25)
    activity.touch()  # a gateway dispatch went out
    clock.now += 0.1
    assert activity.quiet_for() == pytest.approx(0.1)
    activity.end()  # an end without a begin never makes it negative
    assert activity.in_flight == 0


def test_a_queued_gateway_payload_is_not_idle() -> None:
    instance = emulator()
    clock = _clocked(instance, Ticking())
    outlet = Outlet(lambda: None, instance.activity)
    instance.gateway.opened(outlet)
    clock.now += 1
    assert instance.idle_for() == 1.0
    outlet.send({"op": 0, "t": "MESSAGE_CREATE", "d": {}})
    clock.now += 1
    assert (instance.gateway.queued(), instance.idle_for()) == (1, 0.0)
    outlet.take()  # written to the bot
    assert (instance.gateway.queued(), instance.idle_for()) == (0, 1.0)
    outlet.send({"op": 11})  # a HEARTBEAT_ACK is not the bots' activity, though queued
    outlet.take()
    assert instance.idle_for() == 1.0


async def test_an_api_request_is_activity(api: httpx.AsyncClient) -> None:
    clock = _clocked(_instance(api), Ticking())
    instance = _instance(api)
    clock.now += 3
    assert instance.idle_for() == 3.0
    assert (await api.get("/users/@me")).status_code == 200
    assert (instance.activity.in_flight, instance.idle_for()) == (0, 0.0)


def _clocked(instance: Emulator, clock: Ticking) -> Ticking:
    """``instance``'s activity read on ``clock``, last active now."""
    instance.activity.clock = clock
    instance.activity.touch()
    return clock


def _instance(api: httpx.AsyncClient) -> Emulator:
    transport = api._transport  # the ASGI app's state holds the emulator
    assert isinstance(transport, httpx.ASGITransport)
    found: Emulator = transport.app.state.emulator  # type: ignore[attr-defined]
    return found


def _interaction(instance: Emulator, *messages: dict[str, Any]) -> None:
    """A stored interaction answered with a deferral, and its ``messages``."""
    store = instance.store
    with store.transaction() as db:
        store.save_interaction(db, INTERACTION, APP, "token", 0.0, {"id": INTERACTION},
                               {"type": 5})
        for number, message in enumerate(messages):
            store.save_message(db, INTERACTION, {"id": f"14000000000000000{number:02}",
                                                 **message}, original=message["type"] == 20)


@pytest.fixture
async def admin() -> Any:
    instance = emulator()
    transport = httpx.ASGITransport(app=create_app(instance))  # the admin API's own host
    async with httpx.AsyncClient(transport=transport,
                                 base_url=f"http://{IN_PROCESS_HOST}/_emulator") as client:
        yield instance, client


async def poll(client: httpx.AsyncClient, **query: Any) -> dict[str, Any]:
    response = await client.get(f"/interactions/{INTERACTION}", params=query)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_settling_returns_once_idle_not_after_the_bound(admin: Any) -> None:
    instance, client = admin
    _clocked(instance, Ticking(step=0.01))  # never reaches a 10 s bound in this test
    _interaction(instance, {"type": 20, "content": "done", "flags": 0})
    result = await poll(client, settle=0.03, within=10)
    assert (result["done"], [m["content"] for m in result["messages"]]) == (True, ["done"])


async def test_a_deferred_reply_still_loading_is_not_settled(admin: Any) -> None:
    instance, client = admin
    _clocked(instance, Ticking(step=1.0))  # each look is a second later
    _interaction(instance, {"type": 20, "content": "", "flags": LOADING})
    result = await poll(client, settle=0.03, within=5)
    assert result["done"] is False  # the bound passed: the edit never came


async def test_follow_ups_asked_for_are_waited_for(admin: Any) -> None:
    instance, client = admin
    _clocked(instance, Ticking(step=1.0))
    _interaction(instance, {"type": 20, "content": "first", "flags": 0})
    assert (await poll(client, follow_ups=1, within=5))["done"] is False
    _interaction(instance, {"type": 20, "content": "first", "flags": 0},
                 {"type": 0, "content": "more", "flags": 0})
    result = await poll(client, follow_ups=1, settle=0.03, within=5)
    assert (result["done"], [m["content"] for m in result["messages"]]) == (
        True, ["first", "more"])


async def test_a_plain_poll_answers_now_without_done(admin: Any) -> None:
    instance, client = admin
    _interaction(instance, {"type": 20, "content": "now", "flags": 0})
    result = await poll(client)
    assert "done" not in result and result["messages"][0]["content"] == "now"


@pytest.mark.parametrize(("query", "said"), [
    ({"settle": "soon"}, "follow_ups is a count; settle and within are seconds"),
    ({"within": "11"}, "settle and within are seconds from 0 to 10"),
    ({"follow_ups": "-1"}, "follow_ups is a count of 0 or more"),
])
async def test_bad_waits_are_refused(admin: Any, query: dict[str, str], said: str) -> None:
    _, client = admin
    response = await client.get(f"/interactions/{INTERACTION}", params=query)
    assert response.status_code == 400 and said in response.json()["message"]
