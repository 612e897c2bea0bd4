"""GUILD_MEMBER_ADD / UPDATE / REMOVE when the guild fixtures change (issue 23, part 2):
members added or changed with ``POST /_emulator/seed``, removed with ``DELETE
/_emulator/guilds/{guild}/members/{user}``; only sessions with GUILD_MEMBERS get them."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.seed import GUILD_ID, MEMBER_ID
from tests.support.emulator import FakeClock, http_client

pytestmark = pytest.mark.anyio
Served = tuple[Emulator, str, FakeClock]
NEWCOMER = "333333333333333399"


async def test_member_fixtures_changing_reach_bots_with_the_members_intent(
        raw: Any, served: Served) -> None:
    with served[0].store.transaction() as db:
        db.execute("UPDATE applications SET flags = ?", (1 << 14,))  # GATEWAY_GUILD_MEMBERS
    watching, blind = await raw(), await raw()
    await watching.identify(intents=1 | 2)
    await watching.recv()
    await blind.identify(intents=1)
    await blind.recv()
    with http_client(served[1]) as admin:
        assert admin.post("/_emulator/seed", json={
            "users": [{"id": NEWCOMER, "username": "newcomer"}],
            "guilds": [{"id": GUILD_ID, "members": [
                {"user_id": NEWCOMER}, {"user_id": MEMBER_ID, "nick": "Renamed"}]}]},
        ).status_code == 204
        removed = admin.delete(f"/_emulator/guilds/{GUILD_ID}/members/{NEWCOMER}")
        missing = admin.delete(f"/_emulator/guilds/{GUILD_ID}/members/{NEWCOMER}")
    got = [await watching.recv() for _ in range(3)]
    assert [(p["t"], p["d"]["user"]["id"]) for p in got] == [
        ("GUILD_MEMBER_UPDATE", MEMBER_ID), ("GUILD_MEMBER_ADD", NEWCOMER),
        ("GUILD_MEMBER_REMOVE", NEWCOMER)]  # fixtures in the order they were added
    update = next(p["d"] for p in got if p["t"] == "GUILD_MEMBER_UPDATE")
    assert (update["guild_id"], update["nick"]) == (GUILD_ID, "Renamed")
    assert got[2]["d"] == {"guild_id": GUILD_ID, "user": got[2]["d"]["user"]}
    assert (removed.status_code, missing.status_code) == (204, 404)
    await blind.send({"op": 1, "d": None})
    assert (await blind.recv())["op"] == 11  # nothing was dispatched to it before the ACK
