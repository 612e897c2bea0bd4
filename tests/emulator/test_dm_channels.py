"""A DM is between a user and one bot (Discord's "Channel Resource": a DM channel has the
two users as recipients), so each application's bot has its own DM channel with a user:
``POST /users/@me/channels`` gives each bot its own, a user's message or reaction there
reaches that bot alone, and a bot cannot send to another bot's DM."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.resources import message_events, objects
from tests.support.emulator import APP, EMBEDDED_SEED, USER_ID, asgi_client, emulator

pytestmark = pytest.mark.anyio
OTHER = "444444444444444444"  # the seed's second application (an Activity's bot)


class Recorder:
    """Each dispatch as ``(application, event)``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def dispatch(self, application_id: str, event: str, data: Any, **_: Any) -> int:
        self.sent.append((application_id, event))
        return 1


@pytest.fixture
def instance() -> Emulator:
    return emulator(seed=EMBEDDED_SEED)


async def open_dm(instance: Emulator, token: str) -> dict[str, Any]:
    async with asgi_client(instance) as api:
        answer = await api.post("/users/@me/channels", json={"recipient_id": USER_ID},
                                headers={"Authorization": f"Bot {token}"})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def test_each_bot_has_its_own_dm_with_a_user(instance: Emulator) -> None:
    first = await open_dm(instance, "emulator-bot-token")
    second = await open_dm(instance, "activity-bot-token")
    assert first["id"] == str(int(USER_ID) - 2)  # the first application's, as before
    assert second["id"] == str(int(USER_ID) - 2 - (1 << 40))
    assert objects.dm_of(instance.store, first["id"]) == (APP, first)
    assert objects.dm_of(instance.store, second["id"]) == (OTHER, second)
    assert objects.dm_of(instance.store, "12345") is None


async def test_a_users_dm_message_and_reaction_reach_that_bot_alone(
        instance: Emulator) -> None:
    second = await open_dm(instance, "activity-bot-token")
    recorder = Recorder()
    said = message_events.user_sends(instance.store, recorder, channel_id=second["id"],
                                     user_id=USER_ID, content="hello", now=instance.clock())
    message_events.user_reacts(instance.store, recorder, message_id=said["id"],
                               user_id=USER_ID, emoji="👍", add=True)
    assert recorder.sent == [(OTHER, "MESSAGE_CREATE"), (OTHER, "MESSAGE_REACTION_ADD")]


async def test_a_bot_cannot_send_to_another_bots_dm(instance: Emulator) -> None:
    second = await open_dm(instance, "activity-bot-token")
    async with asgi_client(instance) as api:
        mine = await api.post(f"/channels/{second['id']}/messages", json={"content": "hi"},
                              headers={"Authorization": "Bot activity-bot-token"})
        theirs = await api.post(f"/channels/{second['id']}/messages", json={"content": "hi"},
                                headers={"Authorization": "Bot emulator-bot-token"})
    assert mine.status_code == 200 and mine.json()["channel_id"] == second["id"]
    assert (theirs.status_code, theirs.json()["code"]) == (404, 10003)


async def test_a_dm_interaction_carries_the_bots_own_dm(instance: Emulator) -> None:
    from cmdsync.emulator.interactions.place import Invocation, place_of

    for app, rank in ((APP, 0), (OTHER, 1)):
        where = place_of(instance.store, Invocation(application_id=app, line="/ping",
                                                    user_id=USER_ID))
        assert where.channel["id"] == str(int(USER_ID) - 2 - rank * (1 << 40))
