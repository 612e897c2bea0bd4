"""The guild management routes a bot calls (Discord's "Guild Resource", "Channel
Resource", "Message Resource" and "Topics > Permissions"): roles, channels and their
permission overwrites, pins and bulk deletes, each with Discord's permission and
hierarchy checks, its error codes and the gateway event it sends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.domain.permissions import EVERYONE, Permissions
from tests.support.emulator import APP, BOT, GUILD, USER, FakeClock, asgi_client, emulator

pytestmark = pytest.mark.anyio

OWNER, MEMBER = "333333333333333333", "333333333333333334"
LOW, BOTS, HIGH = "222222222222222240", "222222222222222241", "222222222222222242"
GENERAL, VOICE, LOBBY = "222222222222222223", "222222222222222224", "222222222222222250"
OLD_MESSAGE = "222222222222222226"  # the seed's: its id dates it to 2015
BOT_PERMISSIONS = ["manage_roles", "manage_channels", "manage_messages", "pin_messages",
                   "view_channel", "send_messages", "read_message_history"]
FORBIDDEN = {"message": "Missing Permissions", "code": 50013}
EVERYONE_BITS = str(int(EVERYONE))


def seed() -> dict[str, Any]:
    return {
        "applications": [{"id": APP, "name": "Keeper", "bot_token": "emulator-bot-token",
                          "client_secret": "s"}],
        "guilds": [{
            "id": GUILD, "name": "Guild", "owner_id": OWNER,
            "roles": [{"id": GUILD, "name": "@everyone", "permissions": int(EVERYONE)},
                      {"id": LOW, "name": "Low"},
                      {"id": BOTS, "name": "Bots", "permissions": BOT_PERMISSIONS},
                      {"id": HIGH, "name": "High"}],
            "members": [{"user_id": OWNER}, {"user_id": MEMBER, "roles": [LOW]},
                        {"user_id": APP, "roles": [BOTS]}],
            "channels": [{"id": GENERAL, "name": "general", "type": 0},
                         {"id": VOICE, "name": "Voice", "type": 2},
                         {"id": LOBBY, "name": "Lobby", "type": 4}],
            "messages": [{"id": OLD_MESSAGE, "channel_id": GENERAL, "author_id": MEMBER,
                          "content": "hello"}]}],
        "users": [{"id": OWNER, "username": "owner", "application_id": APP,
                   "bearer_token": "emulator-user-token", "scopes": [], "guilds": [GUILD]},
                  {"id": MEMBER, "username": "member"}],
    }


class Recorder:
    """The gateway events the emulator dispatched: ``(event, data, intent)``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, int | None]] = []

    def dispatch(self, application_id: str, event: str, data: Any, *,
                 guild_id: str | None = None, intent: int | None = None, **_: Any) -> int:
        self.sent.append((event, data, intent))
        return 1

    def events(self) -> list[str]:
        return [event for event, _, _ in self.sent]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def instance(clock: FakeClock) -> Emulator:
    return emulator(seed=seed(), clock=clock)


@pytest.fixture
def events(instance: Emulator, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    monkeypatch.setattr(instance.gateway, "dispatch", recorder.dispatch)
    return recorder


@pytest.fixture
async def api(instance: Emulator, events: Recorder) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(instance) as client:
        client.headers.update(BOT)
        yield client


def give_bot(instance: Emulator, *permissions: str) -> None:
    """The Bots role with exactly ``permissions`` (names of Permissions)."""
    bits = sum(int(Permissions[name.upper()]) for name in permissions)
    instance.store.put_fixture(None, "role", GUILD, BOTS,
                               {"id": BOTS, "name": "Bots", "permissions": str(bits)})


async def roles_of(api: httpx.AsyncClient) -> list[tuple[str, int]]:
    return [(r["name"], r["position"]) for r in (await api.get(f"/guilds/{GUILD}/roles")).json()]


# -- roles ---------------------------------------------------------------------------


async def test_a_new_role_sits_above_everyone_and_is_announced(
        api: httpx.AsyncClient, events: Recorder) -> None:
    made = await api.post(f"/guilds/{GUILD}/roles", json={
        "name": "Helpers", "permissions": str(1 << 13), "color": 0x3498DB, "hoist": True,
        "mentionable": True})
    assert made.status_code == 200
    role = made.json()
    assert {k: role[k] for k in ("name", "permissions", "position", "color", "colors",
                                 "hoist", "mentionable", "managed")} == {
        "name": "Helpers", "permissions": str(1 << 13), "position": 1, "color": 0x3498DB,
        "colors": {"primary_color": 0x3498DB, "secondary_color": None,
                   "tertiary_color": None},
        "hoist": True, "mentionable": True, "managed": False}
    assert await roles_of(api) == [("@everyone", 0), ("Helpers", 1), ("Low", 2),
                                   ("Bots", 3), ("High", 4)]
    assert events.sent == [("GUILD_ROLE_CREATE", {"guild_id": GUILD, "role": role}, 0)]
    assert (await api.get(f"/guilds/{GUILD}/roles/{role['id']}")).json() == role


async def test_a_new_role_takes_everyones_permissions_by_default(
        api: httpx.AsyncClient) -> None:
    role = (await api.post(f"/guilds/{GUILD}/roles", json={})).json()
    assert (role["name"], role["permissions"], role["color"]) == (
        "new role", EVERYONE_BITS, 0)


async def test_a_role_may_get_only_permissions_the_bot_has(
        api: httpx.AsyncClient, events: Recorder) -> None:
    refused = await api.post(f"/guilds/{GUILD}/roles",
                             json={"name": "Admins", "permissions": "8"})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    refused = await api.patch(f"/guilds/{GUILD}/roles/{LOW}",
                              json={"permissions": str(1 << 2)})  # BAN_MEMBERS
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert events.sent == []


async def test_a_role_is_edited_only_below_the_bots_highest(
        api: httpx.AsyncClient, events: Recorder) -> None:
    edited = await api.patch(f"/guilds/{GUILD}/roles/{LOW}",
                             json={"name": "Lower", "color": 0xFF0000, "hoist": None})
    assert edited.status_code == 200
    assert (edited.json()["name"], edited.json()["color"], edited.json()["hoist"],
            edited.json()["position"]) == ("Lower", 0xFF0000, False, 1)
    assert events.sent == [("GUILD_ROLE_UPDATE", {"guild_id": GUILD, "role": edited.json()},
                            0)]
    for role_id in (BOTS, HIGH):  # its own highest role, and one above it
        refused = await api.patch(f"/guilds/{GUILD}/roles/{role_id}", json={"name": "x"})
        assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert len(events.sent) == 1


async def test_a_deleted_role_leaves_its_members(
        api: httpx.AsyncClient, events: Recorder) -> None:
    assert (await api.delete(f"/guilds/{GUILD}/roles/{LOW}")).status_code == 204
    assert events.sent == [("GUILD_ROLE_DELETE", {"guild_id": GUILD, "role_id": LOW}, 0)]
    member = (await api.get(f"/guilds/{GUILD}/members/{MEMBER}")).json()
    assert member["roles"] == []
    gone = await api.get(f"/guilds/{GUILD}/roles/{LOW}")
    assert (gone.status_code, gone.json()) == (404, {"message": "Unknown Role",
                                                     "code": 10011})
    again = await api.delete(f"/guilds/{GUILD}/roles/{LOW}")
    assert (again.status_code, again.json()["code"]) == (404, 10011)
    above = await api.delete(f"/guilds/{GUILD}/roles/{HIGH}")
    assert (above.status_code, above.json()) == (403, FORBIDDEN)
    everyone = await api.delete(f"/guilds/{GUILD}/roles/{GUILD}")
    assert (everyone.status_code, everyone.json()) == (400, {"message": "Invalid Role",
                                                             "code": 50028})


async def test_roles_need_manage_roles_and_a_bot_token(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    give_bot(instance, "view_channel")
    for answer in (await api.post(f"/guilds/{GUILD}/roles", json={"name": "x"}),
                   await api.patch(f"/guilds/{GUILD}/roles/{LOW}", json={"name": "x"}),
                   await api.delete(f"/guilds/{GUILD}/roles/{LOW}")):
        assert (answer.status_code, answer.json()) == (403, FORBIDDEN)
    bearer = await api.post(f"/guilds/{GUILD}/roles", json={}, headers=USER)
    assert (bearer.status_code, bearer.json()) == (
        403, {"message": "Only bots can use this endpoint", "code": 20002})
    unknown = await api.post("/guilds/1/roles", json={})
    assert (unknown.status_code, unknown.json()["code"]) == (404, 10004)
    assert events.sent == []


async def test_a_role_body_is_checked_as_discord_checks_it(api: httpx.AsyncClient) -> None:
    long_name = await api.post(f"/guilds/{GUILD}/roles", json={"name": "x" * 101})
    assert (long_name.status_code, long_name.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035, "errors": {"name": {"_errors": [
            {"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}
        ]}}})
    color = await api.post(f"/guilds/{GUILD}/roles", json={"color": 1 << 24})
    assert color.json()["errors"]["color"]["_errors"][0]["code"] == "NUMBER_TYPE_MAX"
    bits = await api.post(f"/guilds/{GUILD}/roles", json={"permissions": "lots"})
    assert bits.json()["errors"]["permissions"]["_errors"][0]["code"] == "NUMBER_TYPE_COERCE"


async def test_the_owners_bot_manages_every_role(
        api: httpx.AsyncClient, instance: Emulator) -> None:
    instance.store.add_guild(GUILD, "Guild", None, {"owner_id": APP})
    edited = await api.patch(f"/guilds/{GUILD}/roles/{HIGH}",
                             json={"permissions": "8"})
    assert (edited.status_code, edited.json()["permissions"]) == (200, "8")


# -- channels and their overwrites -------------------------------------------------


async def test_a_new_channel_is_created_and_announced(
        api: httpx.AsyncClient, events: Recorder) -> None:
    made = await api.post(f"/guilds/{GUILD}/channels", json={
        "name": "Team Room", "type": 0, "topic": "plans", "parent_id": LOBBY,
        "rate_limit_per_user": 5, "permission_overwrites": [
            {"id": GUILD, "type": 0, "deny": str(1 << 10)},
            {"id": MEMBER, "type": 1, "allow": str(1 << 10)}]})
    assert made.status_code == 201
    channel = made.json()
    assert {k: channel[k] for k in ("name", "type", "topic", "parent_id", "position",
                                    "rate_limit_per_user", "permission_overwrites",
                                    "guild_id", "nsfw")} == {
        "name": "team-room", "type": 0, "topic": "plans", "parent_id": LOBBY, "position": 3,
        "rate_limit_per_user": 5, "guild_id": GUILD, "nsfw": False,
        "permission_overwrites": [
            {"id": GUILD, "type": 0, "allow": "0", "deny": str(1 << 10)},
            {"id": MEMBER, "type": 1, "allow": str(1 << 10), "deny": "0"}]}
    assert events.sent == [("CHANNEL_CREATE", channel, 0)]
    assert (await api.get(f"/channels/{channel['id']}")).json() == channel
    voice = (await api.post(f"/guilds/{GUILD}/channels",
                            json={"name": "Big Room", "type": 2, "user_limit": 5})).json()
    assert (voice["name"], voice["user_limit"], voice["bitrate"]) == ("Big Room", 5, 64000)


async def test_creating_a_channel_is_checked_as_discord_checks_it(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    nameless = await api.post(f"/guilds/{GUILD}/channels", json={"type": 0})
    assert nameless.json() == {"message": "Invalid Form Body", "code": 50035, "errors": {
        "name": {"_errors": [{"code": "BASE_TYPE_REQUIRED",
                              "message": "This field is required"}]}}}
    dm_type = await api.post(f"/guilds/{GUILD}/channels", json={"name": "x", "type": 1})
    assert dm_type.json()["errors"]["type"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
    not_a_category = await api.post(f"/guilds/{GUILD}/channels",
                                    json={"name": "x", "parent_id": GENERAL})
    assert list(not_a_category.json()["errors"]) == ["parent_id"]
    unknown = await api.post(f"/guilds/{GUILD}/channels", json={
        "name": "x", "permission_overwrites": [{"id": "1", "type": 0}]})
    assert (unknown.status_code, unknown.json()) == (
        404, {"message": "Unknown Overwrite", "code": 10009})
    beyond = await api.post(f"/guilds/{GUILD}/channels", json={  # BAN_MEMBERS: not the bot's
        "name": "x", "permission_overwrites": [{"id": MEMBER, "type": 1, "allow": "4"}]})
    assert (beyond.status_code, beyond.json()) == (403, FORBIDDEN)
    roles_bit = await api.post(f"/guilds/{GUILD}/channels", json={  # only for administrators
        "name": "x", "permission_overwrites": [
            {"id": MEMBER, "type": 1, "allow": str(1 << 28)}]})
    assert (roles_bit.status_code, roles_bit.json()) == (403, FORBIDDEN)
    give_bot(instance, "view_channel")
    refused = await api.post(f"/guilds/{GUILD}/channels", json={"name": "x"})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert events.sent == []


async def test_a_channel_is_modified_with_manage_channels(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    edited = await api.patch(f"/channels/{GENERAL}", json={
        "name": "Main Hall", "topic": "welcome", "nsfw": True, "parent_id": LOBBY})
    assert edited.status_code == 200
    channel = edited.json()
    assert (channel["name"], channel["topic"], channel["nsfw"], channel["parent_id"]) == (
        "main-hall", "welcome", True, LOBBY)
    assert events.sent == [("CHANNEL_UPDATE", channel, 0)]
    cleared = (await api.patch(f"/channels/{GENERAL}", json={"topic": None})).json()
    assert (cleared["topic"], cleared["name"]) == (None, "main-hall")
    give_bot(instance, "view_channel", "manage_roles")
    refused = await api.patch(f"/channels/{GENERAL}", json={"name": "x"})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    unknown = await api.patch("/channels/1", json={"name": "x"})
    assert (unknown.status_code, unknown.json()) == (
        404, {"message": "Unknown Channel", "code": 10003})


async def test_an_overwrite_is_put_and_deleted_with_manage_roles(
        api: httpx.AsyncClient, events: Recorder) -> None:
    put = await api.put(f"/channels/{GENERAL}/permissions/{LOW}", json={
        "id": LOW, "type": 0, "allow": str(1 << 13), "deny": str(1 << 11)})
    assert (put.status_code, put.content) == (204, b"")
    channel = (await api.get(f"/channels/{GENERAL}")).json()
    assert channel["permission_overwrites"] == [
        {"id": LOW, "type": 0, "allow": str(1 << 13), "deny": str(1 << 11)}]
    assert events.sent == [("CHANNEL_UPDATE", channel, 0)]
    replaced = await api.put(f"/channels/{GENERAL}/permissions/{LOW}", json={"type": 0})
    assert replaced.status_code == 204
    assert (await api.get(f"/channels/{GENERAL}")).json()["permission_overwrites"] == [
        {"id": LOW, "type": 0, "allow": "0", "deny": "0"}]
    deleted = await api.delete(f"/channels/{GENERAL}/permissions/{LOW}")
    assert deleted.status_code == 204
    assert events.sent[-1][1]["permission_overwrites"] == []
    again = await api.delete(f"/channels/{GENERAL}/permissions/{LOW}")
    assert (again.status_code, again.json()) == (
        404, {"message": "Unknown Overwrite", "code": 10009})
    assert events.events() == ["CHANNEL_UPDATE"] * 3


async def test_an_overwrite_needs_its_type_a_known_target_and_the_bots_permissions(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    untyped = await api.put(f"/channels/{GENERAL}/permissions/{LOW}", json={"allow": "0"})
    assert untyped.json()["errors"] == {"type": {"_errors": [
        {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}
    unknown = await api.put(f"/channels/{GENERAL}/permissions/1", json={"type": 1})
    assert (unknown.status_code, unknown.json()["code"]) == (404, 10009)
    beyond = await api.put(f"/channels/{GENERAL}/permissions/{LOW}",
                           json={"type": 0, "allow": "8"})
    assert (beyond.status_code, beyond.json()) == (403, FORBIDDEN)
    give_bot(instance, "view_channel", "manage_channels")
    refused = await api.put(f"/channels/{GENERAL}/permissions/{LOW}", json={"type": 0})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert events.sent == []


async def test_an_overwrite_hiding_the_channel_from_the_bot_shuts_it_out(
        api: httpx.AsyncClient) -> None:
    hidden = await api.put(f"/channels/{GENERAL}/permissions/{BOTS}",
                           json={"type": 0, "deny": str(1 << 10)})
    assert hidden.status_code == 204
    shut = await api.patch(f"/channels/{GENERAL}", json={"name": "x"})
    assert (shut.status_code, shut.json()) == (403, {"message": "Missing Access",
                                                     "code": 50001})


async def test_a_deleted_category_leaves_its_channels_without_a_parent(
        api: httpx.AsyncClient, events: Recorder) -> None:
    await api.patch(f"/channels/{GENERAL}", json={"parent_id": LOBBY})
    before = (await api.get(f"/channels/{LOBBY}")).json()
    deleted = await api.delete(f"/channels/{LOBBY}")
    assert (deleted.status_code, deleted.json()) == (200, before)
    general = (await api.get(f"/channels/{GENERAL}")).json()
    assert general["parent_id"] is None
    assert events.sent[1:] == [("CHANNEL_DELETE", before, 0),
                               ("CHANNEL_UPDATE", general, 0)]
    gone = await api.get(f"/channels/{LOBBY}")
    assert (gone.status_code, gone.json()["code"]) == (404, 10003)
    again = await api.delete(f"/channels/{LOBBY}")
    assert (again.status_code, again.json()["code"]) == (404, 10003)


# -- pins and bulk deletes -----------------------------------------------------------


async def send(api: httpx.AsyncClient, content: str) -> dict[str, Any]:
    sent = await api.post(f"/channels/{GENERAL}/messages", json={"content": content})
    assert sent.status_code == 200
    message: dict[str, Any] = sent.json()
    return message


async def test_a_pinned_message_is_listed_and_announced(
        api: httpx.AsyncClient, clock: FakeClock, events: Recorder) -> None:
    first, second = await send(api, "first"), await send(api, "second")
    events.sent.clear()
    assert (await api.put(f"/channels/{GENERAL}/messages/pins/{first['id']}")).status_code == 204
    clock.advance(60)
    assert (await api.put(f"/channels/{GENERAL}/pins/{OLD_MESSAGE}")).status_code == 204
    assert events.sent == [
        ("CHANNEL_PINS_UPDATE", {"guild_id": GUILD, "channel_id": GENERAL,
                                 "last_pin_timestamp": "2025-06-15T15:06:40+00:00"}, 0),
        ("CHANNEL_PINS_UPDATE", {"guild_id": GUILD, "channel_id": GENERAL,
                                 "last_pin_timestamp": "2025-06-15T15:07:40+00:00"}, 0)]
    listed = (await api.get(f"/channels/{GENERAL}/messages/pins")).json()
    assert [(i["pinned_at"], i["message"]["id"], i["message"]["pinned"])
            for i in listed["items"]] == [
        ("2025-06-15T15:07:40+00:00", OLD_MESSAGE, True),
        ("2025-06-15T15:06:40+00:00", first["id"], True)]
    assert listed["has_more"] is False
    assert [m["id"] for m in (await api.get(f"/channels/{GENERAL}/pins")).json()] == [
        OLD_MESSAGE, first["id"]]
    page = (await api.get(f"/channels/{GENERAL}/messages/pins", params={
        "limit": 1, "before": "2025-06-15T15:07:40+00:00"})).json()
    assert ([i["message"]["id"] for i in page["items"]], page["has_more"]) == (
        [first["id"]], False)
    assert (await api.get(f"/channels/{GENERAL}/messages/pins",
                          params={"limit": 1})).json()["has_more"] is True
    assert (await api.get(f"/channels/{GENERAL}/messages/{first['id']}")).json()["pinned"]
    assert not (await api.get(f"/channels/{GENERAL}/messages/{second['id']}")).json()["pinned"]
    assert (await api.get(f"/channels/{GENERAL}")).json()["last_pin_timestamp"] == (
        "2025-06-15T15:07:40+00:00")


async def test_an_unpinned_message_leaves_the_list(
        api: httpx.AsyncClient, events: Recorder) -> None:
    message = await send(api, "pin me")
    await api.put(f"/channels/{GENERAL}/messages/pins/{message['id']}")
    events.sent.clear()
    again = await api.put(f"/channels/{GENERAL}/messages/pins/{message['id']}")
    assert (again.status_code, events.sent) == (204, [])  # already pinned: nothing changes
    unpinned = await api.delete(f"/channels/{GENERAL}/messages/pins/{message['id']}")
    assert unpinned.status_code == 204
    assert events.sent == [("CHANNEL_PINS_UPDATE", {
        "guild_id": GUILD, "channel_id": GENERAL, "last_pin_timestamp": None}, 0)]
    assert (await api.get(f"/channels/{GENERAL}/messages/pins")).json() == {
        "items": [], "has_more": False}
    assert not (await api.get(f"/channels/{GENERAL}/messages/{message['id']}")).json()[
        "pinned"]


async def test_pinning_needs_pin_messages_and_a_message_of_the_channel(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    message = await send(api, "mine")
    events.sent.clear()
    unknown = await api.put(f"/channels/{GENERAL}/messages/pins/1")
    assert (unknown.status_code, unknown.json()) == (
        404, {"message": "Unknown Message", "code": 10008})
    elsewhere = await api.put(f"/channels/{VOICE}/messages/pins/{message['id']}")
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (404, 10008)
    give_bot(instance, "view_channel", "send_messages", "manage_messages")  # not enough now
    refused = await api.put(f"/channels/{GENERAL}/messages/pins/{message['id']}")
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    give_bot(instance, "view_channel")  # no READ_MESSAGE_HISTORY: the list is empty
    await api.put(f"/channels/{GENERAL}/permissions/{BOTS}", json={"type": 0})
    assert (await api.get(f"/channels/{GENERAL}/messages/pins")).json()["items"] == []
    limit = await api.get(f"/channels/{GENERAL}/messages/pins", params={"limit": 51})
    assert limit.json()["errors"]["limit"]["_errors"][0]["code"] == "NUMBER_TYPE_MAX"
    assert events.sent == []


async def test_a_bulk_delete_deletes_the_channels_messages(
        api: httpx.AsyncClient, events: Recorder) -> None:
    first, second, kept = (await send(api, "a"), await send(api, "b"),
                           await send(api, "c"))
    await api.put(f"/channels/{GENERAL}/messages/pins/{first['id']}")
    events.sent.clear()
    nothing = str(int(kept["id"]) + 1000)  # a recent id of no message: counts, deletes nothing
    deleted = await api.post(f"/channels/{GENERAL}/messages/bulk-delete", json={
        "messages": [first["id"], second["id"], nothing]})
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert events.sent == [("MESSAGE_DELETE_BULK", {
        "ids": [first["id"], second["id"]], "channel_id": GENERAL, "guild_id": GUILD}, 9)]
    left = [m["id"] for m in (await api.get(f"/channels/{GENERAL}/messages")).json()]
    assert left == [kept["id"], OLD_MESSAGE]
    assert (await api.get(f"/channels/{GENERAL}/messages/pins")).json()["items"] == []


@pytest.mark.parametrize(("ids", "leaf"), [
    (["1"], "BASE_TYPE_MIN_LENGTH"),
    ([str(n) for n in range(1, 102)], "BASE_TYPE_MAX_LENGTH"),
    (["1", "1"], "BASE_TYPE_DUPLICATES")])
async def test_a_bulk_delete_takes_2_to_100_ids(
        api: httpx.AsyncClient, ids: list[str], leaf: str) -> None:
    refused = await api.post(f"/channels/{GENERAL}/messages/bulk-delete",
                             json={"messages": ids})
    assert (refused.status_code, refused.json()["code"],
            refused.json()["errors"]["messages"]["_errors"][0]["code"]) == (400, 50035, leaf)


async def test_a_bulk_delete_refuses_old_messages_and_needs_manage_messages(
        api: httpx.AsyncClient, instance: Emulator, clock: FakeClock,
        events: Recorder) -> None:
    first, second = await send(api, "a"), await send(api, "b")
    events.sent.clear()
    seeded = await api.post(f"/channels/{GENERAL}/messages/bulk-delete",
                            json={"messages": [first["id"], OLD_MESSAGE]})
    too_old = {"message": "You can only bulk delete messages that are under 14 days old.",
               "code": 50034}
    assert (seeded.status_code, seeded.json()) == (400, too_old)
    clock.advance(15 * 24 * 3600)
    aged = await api.post(f"/channels/{GENERAL}/messages/bulk-delete",
                          json={"messages": [first["id"], second["id"]]})
    assert (aged.status_code, aged.json()) == (400, too_old)
    clock.advance(-15 * 24 * 3600)
    give_bot(instance, "view_channel", "read_message_history")
    refused = await api.post(f"/channels/{GENERAL}/messages/bulk-delete",
                             json={"messages": [first["id"], second["id"]]})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert events.sent == []
    assert len((await api.get(f"/channels/{GENERAL}/messages")).json()) == 3


async def test_the_new_routes_are_in_the_request_log(
        api: httpx.AsyncClient, instance: Emulator) -> None:
    await api.post(f"/guilds/{GUILD}/roles", json={"name": "Logged"})
    await api.put(f"/channels/{GENERAL}/messages/pins/1")
    assert [(e.route, e.status) for e in instance.log.entries()] == [
        ("POST /guilds/{guild_id}/roles", 200),
        ("PUT /channels/{channel_id}/messages/pins/{message_id}", 404)]
