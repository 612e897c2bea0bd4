"""A fixture gives the same object over REST and the gateway: GUILD_CREATE's channels
(every type), threads, members and roles are what ``GET /channels/{id}``,
``GET /guilds/{id}/members/{user}`` and ``GET /guilds/{id}/roles`` answer."""

from __future__ import annotations

from typing import Any

import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.seed import ADMIN_ROLE_ID, GUILD_ID, MEMBER_ID, default_seed
from cmdsync.model import ChannelType
from tests.support.emulator import BOT, FakeClock, http_client

pytestmark = pytest.mark.anyio
Served = tuple[Emulator, str, FakeClock]
GUILDS_AND_MEMBERS = (1 << 0) | (1 << 1)
IN_A_GUILD = [kind for kind in ChannelType if kind not in (ChannelType.DM, ChannelType.GROUP_DM)]


@pytest.fixture
def seed() -> dict[str, Any]:
    seeded = default_seed()
    guild = seeded["guilds"][0]
    guild["channels"] = [{"id": str(int(GUILD_ID) + 100 + kind), "name": kind.name.lower(),
                          "type": int(kind)} for kind in IN_A_GUILD]
    guild["messages"] = []
    guild["members"][1].update(nick="Mem", roles=[ADMIN_ROLE_ID])
    return seeded


async def test_guild_create_and_rest_give_the_same_objects(served: Served, raw: Any
                                                           ) -> None:
    with served[0].store.transaction() as db:
        db.execute("UPDATE applications SET flags = ?", (1 << 14,))  # GATEWAY_GUILD_MEMBERS
    client = await raw()
    await client.identify(intents=GUILDS_AND_MEMBERS)
    body = (await client.recv())["d"]
    sent = {c["id"]: c for c in body["channels"] + body["threads"]}
    with http_client(f"{served[1]}/api/v10", headers=BOT) as api:
        answered = {i: api.get(f"/channels/{i}").json() for i in sent}
        member = api.get(f"/guilds/{GUILD_ID}/members/{MEMBER_ID}").json()
        roles = api.get(f"/guilds/{GUILD_ID}/roles").json()
    assert sorted(c["type"] for c in sent.values()) == sorted(IN_A_GUILD)
    assert answered == sent
    assert member == next(m for m in body["members"] if m["user"]["id"] == MEMBER_ID)
    assert (member["nick"], member["roles"]) == ("Mem", [ADMIN_ROLE_ID])
    assert roles == body["roles"]
    assert [r["name"] for r in roles] == ["@everyone", "Admin"]
