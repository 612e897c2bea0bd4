"""The gateway protocol against a real websocket client (the ``websockets`` library):
HELLO, HEARTBEAT, IDENTIFY, READY and GUILD_CREATE, RESUME, the close codes for bad
input, the send limit, REQUEST_GUILD_MEMBERS (issue 23, part 1)."""

from __future__ import annotations

import json
import random
import zlib
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.gateway import GatewayConfig
from cmdsync.emulator.seed import BOT_TOKEN, GUILD_ID, MEMBER_ID, default_seed
from tests.support.emulator import APP, BOT, FakeClock, http_client

pytestmark = pytest.mark.anyio
Served = tuple[Emulator, str, FakeClock]
GUILDS_AND_MESSAGES = (1 << 0) | (1 << 9)
MEMBERS = 1 << 1
OTHER_GUILD = str(int(GUILD_ID) + (1 << 22))  # on the other shard of two


def test_get_gateway_bot_gives_the_websocket_url_shards_and_start_limit(
        served: Served) -> None:
    with http_client(f"{served[1]}/api/v10") as api:
        public = api.get("/gateway")
        bot = api.get("/gateway/bot", headers=BOT)
        anonymous = api.get("/gateway/bot")
    ws = served[1].replace("http://", "ws://") + "/gateway"
    assert public.json() == {"url": ws}
    assert bot.json() == {"url": ws, "shards": 1, "session_start_limit": {
        "total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}
    assert anonymous.status_code == 401


async def test_identify_gets_ready_then_a_guild_create_per_guild(served: Served,
                                                                  raw: Any) -> None:
    client = await raw()
    ready = await client.identify(intents=GUILDS_AND_MESSAGES)
    data = ready["d"]
    assert (ready["op"], ready["s"], data["v"]) == (0, 1, 10)
    assert data["user"]["id"] == APP and data["user"]["bot"] is True
    assert data["guilds"] == [{"id": GUILD_ID, "unavailable": True}]
    assert data["application"] == {"id": APP, "flags": 0}
    assert data["resume_gateway_url"] == served[1].replace("http", "ws") + "/gateway"
    assert "shard" not in data and len(data["session_id"]) == 32
    guild = await client.recv()
    assert (guild["t"], guild["s"]) == ("GUILD_CREATE", 2)
    body = guild["d"]
    assert [r["name"] for r in body["roles"]] == ["@everyone", "Admin"]
    assert [(c["name"], c["type"]) for c in body["channels"]] == [("general", 0),
                                                                 ("Voice", 2)]
    assert body["channels"][1]["bitrate"] == 64000
    # without GUILD_MEMBERS only the bot's own member; presences never
    assert [m["user"]["id"] for m in body["members"]] == [APP]
    assert (body["member_count"], body["presences"], body["unavailable"]) == (3, [], False)
    with http_client(f"{served[1]}/api/v10") as api:
        limit = api.get("/gateway/bot", headers=BOT).json()["session_start_limit"]
    assert (limit["remaining"], limit["reset_after"]) == (999, 86_400_000)


async def test_zlib_stream_compresses_every_message_in_one_context(raw: Any) -> None:
    client = await raw("v=10&encoding=json&compress=zlib-stream")
    ready = await client.identify()  # RawClient inflates with one context, checks the suffix
    assert ready["d"]["v"] == 10


async def test_the_members_intent_sends_every_member(raw: Any, served: Served) -> None:
    with served[0].store.transaction() as db:
        db.execute("UPDATE applications SET flags = ?", (1 << 15,))  # GUILD_MEMBERS_LIMITED
    client = await raw()
    await client.identify(intents=1 | MEMBERS)
    guild = await client.recv()
    assert [m["user"]["username"] for m in guild["d"]["members"]] == [
        "owner", "member", "cmdsync emulator"]


async def test_heartbeats_are_acknowledged_before_and_after_identify(raw: Any) -> None:
    client = await raw()
    assert (await client.recv())["d"] == {"heartbeat_interval": 41250}
    await client.send({"op": 1, "d": None})
    assert await client.recv() == {"op": 11, "d": None, "s": None, "t": None}


@pytest.mark.parametrize(("frame", "code", "reason"), [
    ("not json", 4002, "Decode error: the payload is not JSON"),
    ("[1, 2]", 4002, "Decode error: the payload is not a JSON object"),
    ('{"op": 99}', 4001, "Unknown opcode: 99"),
    ('{"op": "2"}', 4001, "Unknown opcode: 2"),
    ('{"op": 1, "d": "x"}', 4001,
     "Invalid HEARTBEAT payload: d must be the last sequence number or null"),
    ('{"op": 8, "d": {}}', 4003, "Not authenticated: REQUEST_GUILD_MEMBERS before IDENTIFY"),
    ('{"op": 2, "d": {"token": "nope", "intents": 0, "properties": {}}}', 4004,
     "Authentication failed"),
    (f'{{"op": 2, "d": {{"token": "{BOT_TOKEN}", "intents": -1, "properties": {{}}}}}}', 4013,
     "Invalid intent(s): -1"),
    (f'{{"op": 2, "d": {{"token": "{BOT_TOKEN}", "intents": 2, "properties": {{}}}}}}', 4014,
     "Disallowed intent(s): GUILD_MEMBERS not enabled for the application"),
    (f'{{"op": 2, "d": {{"token": "{BOT_TOKEN}", "intents": 0, "properties": {{}}, "shard": [1, 1]}}}}', 4010,
     "Invalid shard: send [shard_id, num_shards] with 0 <= shard_id < num_shards"),
    (f'{{"op": 6, "d": {{"token": "{BOT_TOKEN}", "session_id": "x", "seq": "1"}}}}', 4001,
     "Invalid RESUME payload: seq must be the last sequence number received"),
])
async def test_bad_input_closes_with_the_documented_code(raw: Any, frame: str, code: int,
                                                         reason: str) -> None:
    client = await raw()
    await client.recv()  # HELLO
    await client.send(frame)
    assert await client.closed() == (code, reason)


async def test_a_payload_of_4096_bytes_is_read_and_one_more_is_refused(raw: Any) -> None:
    """Discord's limit is the websocket server's own maximum message size: a longer
    message is refused while read (1009, message too big; Discord closes with 4002)."""
    client = await raw()
    await client.recv()
    at_limit = json.dumps({"op": 1, "d": None, "pad": ""})
    at_limit = json.dumps({"op": 1, "d": None, "pad": "x" * (4096 - len(at_limit))})
    assert len(at_limit) == 4096
    await client.send(at_limit)
    assert (await client.recv())["op"] == 11
    await client.send(at_limit[:-2] + 'x"}')
    assert await client.closed() == (1009, "frame exceeds limit of 4096 bytes")


async def test_garbage_frames_never_hurt_the_emulator(raw: Any, served: Served) -> None:
    for frame in (b"\x00\xff\xfe", "\ud800".encode("utf-8", "surrogatepass"), "{" * 5000,
                  '{"op": 2, "d": null}', '{"op": 6, "d": []}', '{"op": 1e400}'):
        client = await raw()
        await client.recv()
        await client.send(frame)
        code, _ = await client.closed()
        assert code in (4001, 4002, 1009)  # 1009: over 4096 bytes, "{" * 5000
    client = await raw()  # the gateway still serves
    assert (await client.identify())["t"] == "READY"


async def test_identify_twice_is_already_authenticated(raw: Any) -> None:
    client = await raw()
    await client.identify()
    await client.recv()  # GUILD_CREATE
    await client.send({"op": 2, "d": {"token": BOT_TOKEN, "intents": 0, "properties": {}}})
    assert await client.closed() == (4005, "Already authenticated")


@pytest.mark.parametrize(("query", "code", "reason"), [
    ("v=10&encoding=etf", 4002, ("encoding=etf (ETF) is not emulated: connect with "
     "encoding=json")),
    ("v=6&encoding=json", 4012, "Invalid API version: 6; connect with v=10"),
    ("v=10&encoding=json&compress=zstd-stream", 4002,
     "compress=zstd-stream is not emulated: use zlib-stream or none"),
])
async def test_what_is_not_emulated_is_said_in_the_close_reason(raw: Any, query: str,
                                                                code: int, reason: str) -> None:
    client = await raw(query)
    assert await client.closed() == (code, reason)


@pytest.mark.parametrize("gateway_config", [GatewayConfig(send_limit=5)])
async def test_the_send_limit_closes_with_4008(raw: Any, served: Served) -> None:
    client = await raw()
    await client.recv()
    for _ in range(5):
        await client.send({"op": 1, "d": None})
        assert (await client.recv())["op"] == 11
    served[2].advance(59)
    await client.send({"op": 1, "d": None})
    assert await client.closed() == (4008, "Rate limited: more than 5 payloads in 60 seconds")


@pytest.mark.parametrize("gateway_config", [GatewayConfig(send_limit=5)])
async def test_the_send_window_moves_with_the_clock(raw: Any, served: Served) -> None:
    client = await raw()
    await client.recv()
    for _ in range(5):
        await client.send({"op": 1, "d": None})
        await client.recv()
    served[2].advance(60)
    await client.send({"op": 1, "d": None})
    assert (await client.recv())["op"] == 11


@pytest.mark.parametrize("gateway_config", [GatewayConfig(heartbeat_interval=1000)])
async def test_no_heartbeat_in_time_is_session_timed_out(raw: Any, served: Served) -> None:
    client = await raw()
    await client.identify()
    await client.recv()
    served[2].advance(1.6)  # 1.5 heartbeat intervals
    assert await client.closed() == (4009, "Session timed out: no heartbeat within 1.5 seconds")


@pytest.mark.parametrize("seed", [{**default_seed(), "guilds": [
    {"id": GUILD_ID}, {"id": OTHER_GUILD}]}])
@pytest.mark.parametrize("gateway_config", [GatewayConfig(guilds_per_shard=1)])
async def test_sharding_required_and_a_shard_gets_its_guilds(raw: Any) -> None:
    client = await raw()
    await client.recv()
    await client.send({"op": 2, "d": {"token": BOT_TOKEN, "intents": 1, "properties": {}}})
    assert await client.closed() == (4011, ("Sharding required: 2 shards needed "
                                     "(GET /gateway/bot)"))
    shards = []
    for shard in (0, 1):
        client = await raw()
        ready = await client.identify(intents=1, shard=[shard, 2])
        shards.append((ready["d"]["shard"], [g["id"] for g in ready["d"]["guilds"]]))
    # a guild's shard is (guild_id >> 22) % num_shards ("Gateway > Sharding")
    assert shards == [([0, 2], [OTHER_GUILD]), ([1, 2], [GUILD_ID])]


async def resumed_session(raw: Any, served: Served) -> tuple[str, int]:
    client = await raw()
    ready = await client.identify()
    guild = await client.recv()
    with http_client(served[1]) as admin:
        assert admin.post("/_emulator/gateway/drop", json={}).json() == {"connections": 1}
    assert await client.closed() == (4000, "Dropped by the emulator's admin API")
    return ready["d"]["session_id"], guild["s"]


async def test_resume_replays_what_was_dispatched_meanwhile(raw: Any, served: Served) -> None:
    session_id, seq = await resumed_session(raw, served)
    for number in (1, 2):
        assert served[0].gateway.dispatch(APP, "TEST_EVENT", {"n": number}) == 1
    client = await raw()
    await client.recv()
    await client.send({"op": 6, "d": {"token": BOT_TOKEN, "session_id": session_id,
                                      "seq": seq}})
    got = [await client.recv() for _ in range(3)]
    assert [(p["t"], p["s"], p["d"]) for p in got] == [
        ("TEST_EVENT", 3, {"n": 1}), ("TEST_EVENT", 4, {"n": 2}), ("RESUMED", 5, {})]


async def test_resume_of_an_unknown_or_expired_session_is_invalid(raw: Any,
                                                                  served: Served) -> None:
    session_id, seq = await resumed_session(raw, served)
    served[2].advance(61)  # past resume_timeout
    for session in (session_id, "f" * 32):
        client = await raw()
        await client.recv()
        await client.send({"op": 6, "d": {"token": BOT_TOKEN, "session_id": session,
                                          "seq": seq}})
        assert await client.recv() == {"op": 9, "d": False, "s": None, "t": None}


async def test_resume_with_a_seq_never_sent_is_invalid_seq(raw: Any, served: Served) -> None:
    session_id, seq = await resumed_session(raw, served)
    client = await raw()
    await client.recv()
    await client.send({"op": 6, "d": {"token": BOT_TOKEN, "session_id": session_id,
                                      "seq": seq + 5}})
    assert await client.closed() == (4007, f"Invalid seq: {seq + 5} was never sent (last 2)")


async def test_reconnect_and_heartbeat_requests_from_the_admin_api(raw: Any,
                                                                   served: Served) -> None:
    client = await raw()
    await client.identify()
    await client.recv()
    with http_client(served[1]) as admin:
        assert admin.post("/_emulator/gateway/reconnect", json={}).json() == {
            "connections": 1}
        assert admin.post("/_emulator/gateway/heartbeat", json={}).json() == {
            "connections": 1}
        sessions = admin.get("/_emulator/gateway").json()["sessions"]
        bad = admin.post("/_emulator/gateway/drop", json={"code": 3000})
    assert (await client.recv())["op"] == 7
    assert (await client.recv())["op"] == 1
    assert [(s["application_id"], s["connected"], s["ready"]) for s in sessions] == [
        (APP, True, True)]
    assert bad.status_code == 400


async def request_members(client: Any, **fields: Any) -> dict[str, Any]:
    await client.send({"op": 8, "d": {"guild_id": GUILD_ID, **fields}})
    answer: dict[str, Any] = await client.recv()
    return answer


@pytest.fixture
def members_enabled(served: Served) -> None:
    with served[0].store.transaction() as db:
        db.execute("UPDATE applications SET flags = ?", (1 << 14,))  # GATEWAY_GUILD_MEMBERS


async def test_request_guild_members_answers_with_a_chunk(raw: Any, served: Served,
                                                          members_enabled: None) -> None:
    client = await raw()
    await client.identify(intents=1 | MEMBERS)
    await client.recv()
    chunk = await request_members(client, query="mem", limit=10, nonce="n1")
    assert chunk["t"] == "GUILD_MEMBERS_CHUNK"
    assert [m["user"]["id"] for m in chunk["d"]["members"]] == [MEMBER_ID]
    assert (chunk["d"]["nonce"], chunk["d"]["chunk_count"]) == ("n1", 1)
    by_id = await request_members(client, user_ids=[MEMBER_ID, "999"], limit=0)
    assert by_id["d"]["not_found"] == ["999"]
    everyone = await request_members(client, query="", limit=0, nonce="all")
    assert len(everyone["d"]["members"]) == 3
    again = await request_members(client, query="", limit=0, nonce="again")
    assert (again["t"], again["d"]) == ("RATE_LIMITED", {
        "opcode": 8, "retry_after": 30.0, "meta": {"guild_id": GUILD_ID, "nonce": "again"}})
    served[2].advance(30)
    assert (await request_members(client, query="", limit=0))["t"] == "GUILD_MEMBERS_CHUNK"


async def test_the_whole_member_list_needs_the_members_intent(raw: Any) -> None:
    client = await raw()
    await client.identify(intents=1)
    await client.recv()
    await client.send({"op": 8, "d": {"guild_id": GUILD_ID, "query": "", "limit": 0}})
    assert await client.closed() == (4001, ("Invalid REQUEST_GUILD_MEMBERS payload: the whole "
                                     "member list needs the GUILD_MEMBERS intent"))


async def test_payload_compression_when_identify_asks(raw: Any) -> None:
    client = await raw()
    await client.recv()
    await client.send({"op": 2, "d": {"token": BOT_TOKEN, "intents": 1, "properties": {},
                                      "compress": True}})
    frame = await client.socket.recv()
    assert isinstance(frame, bytes)
    assert json.loads(zlib.decompress(frame))["t"] == "READY"


def test_a_dispatch_through_the_admin_api(served: Served) -> None:
    with httpx.Client(base_url=served[1]) as admin:
        answer = admin.post("/_emulator/gateway/dispatch", json={
            "application_id": APP, "event": "GUILD_MEMBER_ADD", "data": {}})
        bad = admin.post("/_emulator/gateway/dispatch", json={"application_id": APP,
                                                              "event": 3})
    assert answer.json() == {"sessions": 0}
    assert bad.status_code == 400 and "event must be" in bad.json()["message"]


def _junk(draw: random.Random, depth: int = 0) -> Any:
    """A random JSON value: what a confused or hostile client might put anywhere."""
    kinds = ["int", "big", "str", "none", "bool", "float"] + (["list", "dict"] if depth < 3
                                                               else [])
    kind = draw.choice(kinds)
    if kind == "int":
        return draw.randint(-5, 50)
    if kind == "big":
        return draw.choice([2**64, -(2**63), 10**30])
    if kind == "str":
        return draw.choice(["", "x", GUILD_ID, BOT_TOKEN, "\u202e", "a" * 40])
    if kind in ("none", "bool"):
        return None if kind == "none" else draw.random() < 0.5
    if kind == "float":
        return draw.choice([0.5, -1.0, 1e300])
    if kind == "list":
        return [_junk(draw, depth + 1) for _ in range(draw.randint(0, 3))]
    keys = ["token", "intents", "properties", "shard", "session_id", "seq", "guild_id",
            "query", "limit", "user_ids", "nonce", "compress", "large_threshold"]
    return {draw.choice(keys): _junk(draw, depth + 1) for _ in range(draw.randint(0, 5))}


async def test_random_payloads_get_an_answer_or_a_documented_close(raw: Any) -> None:
    """Seeded: every run sends the same 60 payloads, each after IDENTIFY."""
    draw = random.Random(23)
    for _ in range(60):
        client = await raw()
        await client.identify(intents=1)
        await client.recv()
        op = draw.choice([1, 2, 3, 4, 6, 8, 31, 43, 5, 99])
        await client.send({"op": op, "d": _junk(draw)})
        await client.send({"op": 1, "d": None})
        while True:
            try:
                answer = await client.recv()
            except Exception:  # noqa: BLE001 - closed: the code is checked below
                code, _ = await client.closed()
                assert 4001 <= code <= 4014, (op, code)
                break
            if answer["op"] == 11:
                break
        await client.socket.close()
    assert (await (await raw()).identify())["t"] == "READY"


async def test_the_gateway_limits_are_set_through_the_admin_config(raw: Any,
                                                                   served: Served) -> None:
    with http_client(served[1]) as admin:
        answer = admin.put("/_emulator/config", json={"gateway": {"send_limit": 2}})
        bad = admin.put("/_emulator/config", json={"gateway": {"heartbeat_interval": 0}})
    assert answer.json()["gateway"]["send_limit"] == 2
    assert bad.json()["message"] == ("bad configuration: gateway.heartbeat_interval must be "
                                     "a whole number from 1, not 0")
    client = await raw()
    await client.recv()
    for _ in range(2):
        await client.send({"op": 1, "d": None})
        await client.recv()
    await client.send({"op": 1, "d": None})
    assert await client.closed() == (4008, "Rate limited: more than 2 payloads in 60 seconds")


@pytest.mark.parametrize("gateway_config", [GatewayConfig(identify_limit=1)])
async def test_identifies_past_the_days_limit_get_invalid_session(raw: Any,
                                                                  served: Served) -> None:
    await (await raw()).identify()
    client = await raw()
    await client.recv()
    await client.send({"op": 2, "d": {"token": BOT_TOKEN, "intents": 1, "properties": {}}})
    assert await client.recv() == {"op": 9, "d": False, "s": None, "t": None}
    with http_client(f"{served[1]}/api/v10") as api:
        limit = api.get("/gateway/bot", headers=BOT).json()["session_start_limit"]
    assert (limit["total"], limit["remaining"]) == (1, 0)
    served[2].advance(86_400)  # a day later
    assert (await (await raw()).identify())["t"] == "READY"


async def test_a_reset_forgets_sessions_waiting_for_a_resume(raw: Any, served: Served) -> None:
    session_id, seq = await resumed_session(raw, served)
    served[0].reset()
    client = await raw()
    await client.recv()
    await client.send({"op": 6, "d": {"token": BOT_TOKEN, "session_id": session_id,
                                      "seq": seq}})
    assert await client.recv() == {"op": 9, "d": False, "s": None, "t": None}
