"""The thread routes a bot calls (Discord's "Channel Resource": Start Thread from
Message, Start Thread without Message, Start Thread in Forum or Media Channel, the
thread member routes; "Topics > Threads"): statuses, error codes, bodies and the
gateway events each sends, to which bot and under which intent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.permissions import Permissions
from tests.support.emulator import APP, BOT, GUILD, FakeClock, asgi_client, emulator

pytestmark = pytest.mark.anyio

OWNER, MEMBER, STRANGER = "333333333333333333", "333333333333333334", "333333333333333335"
OTHER = "444444444444444444"  # a second bot in the guild, without MANAGE_THREADS
BOTS, OTHERS = "222222222222222241", "222222222222222242"
GENERAL, NEWS, FORUM, VOICE = ("222222222222222223", "222222222222222224",
                               "222222222222222225", "222222222222222226")
HELLO = "222222222222222227"  # the seed's message in #general
BOT_PERMISSIONS = ["view_channel", "send_messages", "read_message_history",
                   "create_public_threads", "create_private_threads",
                   "send_messages_in_threads"]
FORBIDDEN = {"message": "Missing Permissions", "code": 50013}
NO_ACCESS = {"message": "Missing Access", "code": 50001}
WRONG_TYPE = {"message": "Cannot execute action on this channel type", "code": 50024}
GUILDS, MEMBERS = int(Intent.GUILDS), int(Intent.GUILD_MEMBERS)


def seed() -> dict[str, Any]:
    return {
        "applications": [
            {"id": APP, "name": "Keeper", "bot_token": "emulator-bot-token",
             "client_secret": "s", "flags": ["gateway_guild_members"]},
            {"id": OTHER, "name": "Other", "bot_token": "other-bot-token",
             "client_secret": "t"}],
        "guilds": [{
            "id": GUILD, "name": "Guild", "owner_id": OWNER,
            "roles": [{"id": GUILD, "name": "@everyone",
                       "permissions": ["view_channel", "read_message_history"]},
                      {"id": BOTS, "name": "Bots", "permissions": BOT_PERMISSIONS},
                      {"id": OTHERS, "name": "Others", "permissions": ["view_channel"]}],
            "members": [{"user_id": OWNER}, {"user_id": MEMBER},
                        {"user_id": APP, "roles": [BOTS]},
                        {"user_id": OTHER, "roles": [OTHERS]}],
            "channels": [{"id": GENERAL, "name": "general", "type": 0},
                         {"id": NEWS, "name": "news", "type": 5},
                         {"id": FORUM, "name": "ideas", "type": 15},
                         {"id": VOICE, "name": "Voice", "type": 2}],
            "messages": [{"id": HELLO, "channel_id": GENERAL, "author_id": MEMBER,
                          "content": "hello"}]}],
        "users": [{"id": OWNER, "username": "owner"}, {"id": MEMBER, "username": "member"},
                  {"id": STRANGER, "username": "stranger"}],
    }


class Recorder:
    """The gateway events the emulator dispatched: ``(application, event, data, intent)``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, Any, int | None]] = []

    def dispatch(self, application_id: str, event: str, data: Any, *,
                 guild_id: str | None = None, intent: int | None = None, **_: Any) -> int:
        self.sent.append((application_id, event, data, intent))
        return 1

    def to(self, application_id: str) -> list[tuple[str, int | None]]:
        return [(event, intent) for app, event, _, intent in self.sent
                if app == application_id]

    def data(self, application_id: str, event: str) -> Any:
        return next(data for app, name, data, _ in self.sent
                    if app == application_id and name == event)


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


async def start(api: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    made = await api.post(f"/channels/{GENERAL}/threads", json={"name": "talk", **body})
    assert made.status_code == 201, made.text
    return dict(made.json())


# -- Start Thread from Message -------------------------------------------------------


async def test_a_thread_from_a_message_has_its_id_and_is_announced(
        api: httpx.AsyncClient, events: Recorder) -> None:
    made = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                          json={"name": "  About hello ", "auto_archive_duration": 60,
                                "rate_limit_per_user": None})
    assert made.status_code == 201
    thread = made.json()
    assert {k: thread[k] for k in ("id", "type", "guild_id", "parent_id", "owner_id", "name",
                                   "rate_limit_per_user", "member_count")} == {
        "id": HELLO, "type": 11, "guild_id": GUILD, "parent_id": GENERAL, "owner_id": APP,
        "name": "About hello", "rate_limit_per_user": 0, "member_count": 1}
    assert thread["thread_metadata"]["auto_archive_duration"] == 60
    assert (await api.get(f"/channels/{HELLO}")).json() == thread
    assert events.to(APP) == [("THREAD_CREATE", GUILDS), ("THREAD_MEMBERS_UPDATE", GUILDS)]
    assert events.to(OTHER) == [("THREAD_CREATE", GUILDS), ("THREAD_MEMBERS_UPDATE", MEMBERS)]
    assert events.data(APP, "THREAD_CREATE") == {**thread, "newly_created": True}
    update = events.data(APP, "THREAD_MEMBERS_UPDATE")
    assert (update["id"], update["guild_id"], update["member_count"]) == (HELLO, GUILD, 1)
    [added] = update["added_members"]
    assert (added["id"], added["user_id"], added["flags"], added["presence"],
            added["member"]["user"]["id"]) == (HELLO, APP, 0, None, APP)


async def test_an_announcement_channel_starts_an_announcement_thread(
        api: httpx.AsyncClient) -> None:
    message = (await api.post(f"/channels/{NEWS}/messages", json={"content": "news"})).json()
    made = await api.post(f"/channels/{NEWS}/messages/{message['id']}/threads",
                          json={"name": "comments"})
    assert (made.status_code, made.json()["type"], made.json()["parent_id"]) == (
        201, 10, NEWS)


async def test_a_message_starts_one_thread_only(api: httpx.AsyncClient,
                                                events: Recorder) -> None:
    assert (await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                           json={"name": "one"})).status_code == 201
    events.sent.clear()
    again = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                           json={"name": "two"})
    assert (again.status_code, again.json()) == (400, {
        "message": "A thread has already been created for this message", "code": 160004})
    assert events.sent == []


async def test_a_thread_from_a_message_is_checked_as_discord_checks_it(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    unknown = await api.post(f"/channels/{GENERAL}/messages/{GENERAL}/threads",
                             json={"name": "x"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, 10008)
    nameless = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads", json={})
    assert nameless.json()["errors"] == {"name": {"_errors": [
        {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}
    long = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                          json={"name": "x" * 101})
    assert long.json()["errors"]["name"]["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"
    odd = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                         json={"name": "x", "auto_archive_duration": 30})
    assert odd.json()["errors"]["auto_archive_duration"]["_errors"][0]["code"] == (
        "BASE_TYPE_CHOICES")
    slow = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                          json={"name": "x", "rate_limit_per_user": 21601})
    assert slow.status_code == 400 and "rate_limit_per_user" in slow.json()["errors"]
    voice = await api.post(f"/channels/{VOICE}/messages/{HELLO}/threads", json={"name": "x"})
    assert (voice.status_code, voice.json()) == (400, WRONG_TYPE)
    give_bot(instance, "view_channel", "send_messages")
    refused = await api.post(f"/channels/{GENERAL}/messages/{HELLO}/threads",
                             json={"name": "x"})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    assert events.sent == []


async def test_a_message_whose_thread_was_deleted_starts_a_new_one(
        api: httpx.AsyncClient, instance: Emulator) -> None:
    give_bot(instance, *BOT_PERMISSIONS, "manage_threads")
    path = f"/channels/{GENERAL}/messages/{HELLO}/threads"
    assert (await api.post(path, json={"name": "one"})).status_code == 201
    assert (await api.put(f"/channels/{HELLO}/thread-members/{MEMBER}")).status_code == 204
    deleted = await api.delete(f"/channels/{HELLO}")
    assert (deleted.status_code, deleted.json()["parent_id"]) == (200, GENERAL)
    again = await api.post(path, json={"name": "two"})
    assert (again.status_code, again.json()["member_count"]) == (201, 1)
    listed = (await api.get(f"/channels/{HELLO}/thread-members")).json()
    assert [m["user_id"] for m in listed] == [APP]


# -- Start Thread without Message ----------------------------------------------------


async def test_a_thread_without_a_message_is_private_by_default(
        api: httpx.AsyncClient, events: Recorder) -> None:
    thread = await start(api)
    assert (thread["type"], thread["parent_id"], thread["owner_id"]) == (12, GENERAL, APP)
    assert thread["thread_metadata"]["invitable"] is True
    assert thread["thread_metadata"]["auto_archive_duration"] == 4320  # the parent's default
    # a private thread is seen only by its members and the bots with MANAGE_THREADS
    assert events.to(APP) == [("THREAD_CREATE", GUILDS), ("THREAD_MEMBERS_UPDATE", GUILDS)]
    assert events.to(OTHER) == []


async def test_a_public_thread_without_a_message_is_anyones(
        api: httpx.AsyncClient, events: Recorder) -> None:
    thread = await start(api, type=11, invitable=False)
    assert thread["type"] == 11 and "invitable" not in thread["thread_metadata"]
    assert ("THREAD_CREATE", GUILDS) in events.to(OTHER)
    news = await api.post(f"/channels/{NEWS}/threads", json={"name": "n", "type": 11})
    assert (news.status_code, news.json()["type"]) == (201, 10)


async def test_a_thread_type_must_suit_the_channel(api: httpx.AsyncClient,
                                                   instance: Emulator) -> None:
    private_news = await api.post(f"/channels/{NEWS}/threads", json={"name": "n"})
    assert (private_news.status_code, private_news.json()) == (400, WRONG_TYPE)
    not_a_thread = await api.post(f"/channels/{GENERAL}/threads", json={"name": "n", "type": 0})
    assert not_a_thread.json()["errors"]["type"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
    give_bot(instance, "view_channel", "create_public_threads")
    refused = await api.post(f"/channels/{GENERAL}/threads", json={"name": "n", "type": 12})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    allowed = await api.post(f"/channels/{GENERAL}/threads", json={"name": "n", "type": 11})
    assert allowed.status_code == 201


async def test_a_forum_thread_comes_with_its_first_message(
        api: httpx.AsyncClient, events: Recorder) -> None:
    made = await api.post(f"/channels/{FORUM}/threads?use_nested_fields=1", json={
        "name": "Idea", "message": {"content": "what if", "embeds": [{"title": "t"}]}})
    assert made.status_code == 201
    thread = made.json()
    message = thread.pop("message")
    assert (thread["type"], thread["parent_id"]) == (11, FORUM)
    assert (message["id"], message["channel_id"], message["content"],
            message["author"]["id"], message["embeds"][0]["type"]) == (
        thread["id"], thread["id"], "what if", APP, "rich")
    listed = (await api.get(f"/channels/{thread['id']}/messages")).json()
    assert [m["id"] for m in listed] == [thread["id"]]
    assert events.to(APP) == [("THREAD_CREATE", GUILDS), ("THREAD_MEMBERS_UPDATE", GUILDS),
                              ("MESSAGE_CREATE", int(Intent.GUILD_MESSAGES))]


async def test_a_forum_thread_needs_a_message(api: httpx.AsyncClient) -> None:
    missing = await api.post(f"/channels/{FORUM}/threads", json={"name": "Idea"})
    assert missing.json()["errors"] == {"message": {"_errors": [
        {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}
    empty = await api.post(f"/channels/{FORUM}/threads", json={"name": "Idea",
                                                               "message": {}})
    assert (empty.status_code, empty.json()["code"]) == (400, 50006)


# -- thread members ------------------------------------------------------------------


async def test_a_member_is_added_got_listed_and_removed(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder,
        clock: FakeClock) -> None:
    thread = await start(api, type=11)
    events.sent.clear()
    added = await api.put(f"/channels/{thread['id']}/thread-members/{MEMBER}")
    assert added.status_code == 204
    assert events.to(APP) == [("THREAD_MEMBERS_UPDATE", MEMBERS)]
    update = events.data(APP, "THREAD_MEMBERS_UPDATE")
    assert (update["member_count"], [m["user_id"] for m in update["added_members"]]) == (
        2, [MEMBER])
    assert (await api.get(f"/channels/{thread['id']}")).json()["member_count"] == 2
    again = await api.put(f"/channels/{thread['id']}/thread-members/{MEMBER}")
    assert again.status_code == 204 and len(events.sent) == 2  # nothing new
    one = (await api.get(f"/channels/{thread['id']}/thread-members/{MEMBER}")).json()
    assert set(one) == {"id", "user_id", "join_timestamp", "flags"}
    assert (one["id"], one["user_id"], one["flags"]) == (thread["id"], MEMBER, 0)
    full = (await api.get(f"/channels/{thread['id']}/thread-members/{MEMBER}",
                          params={"with_member": "true"})).json()
    assert full["member"]["user"]["id"] == MEMBER
    listed = (await api.get(f"/channels/{thread['id']}/thread-members")).json()
    assert [m["user_id"] for m in listed] == [APP, MEMBER]
    page = (await api.get(f"/channels/{thread['id']}/thread-members",
                          params={"with_member": "true", "after": APP, "limit": 5})).json()
    assert [(m["user_id"], m["member"]["user"]["id"]) for m in page] == [(MEMBER, MEMBER)]
    give_bot(instance, *BOT_PERMISSIONS, "manage_threads")
    events.sent.clear()
    removed = await api.delete(f"/channels/{thread['id']}/thread-members/{MEMBER}")
    assert removed.status_code == 204
    assert events.data(APP, "THREAD_MEMBERS_UPDATE") == {
        "id": thread["id"], "guild_id": GUILD, "member_count": 1,
        "removed_member_ids": [MEMBER]}
    gone = await api.get(f"/channels/{thread['id']}/thread-members/{MEMBER}")
    assert (gone.status_code, gone.json()) == (404, {"message": "Unknown Member",
                                                     "code": 10007})


async def test_adding_and_removing_members_is_checked(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    thread = await start(api, type=11)
    stranger = await api.put(f"/channels/{thread['id']}/thread-members/{STRANGER}")
    assert (stranger.status_code, stranger.json()["code"]) == (404, 10007)
    removing = await api.delete(f"/channels/{thread['id']}/thread-members/{APP}")
    assert (removing.status_code, removing.json()) == (403, FORBIDDEN)  # not MANAGE_THREADS
    not_a_thread = await api.put(f"/channels/{GENERAL}/thread-members/{MEMBER}")
    assert (not_a_thread.status_code, not_a_thread.json()) == (400, WRONG_TYPE)
    unknown = await api.get(f"/channels/{HELLO}/thread-members")
    assert (unknown.status_code, unknown.json()["code"]) == (404, 10003)
    give_bot(instance, "view_channel", "create_public_threads")
    refused = await api.put(f"/channels/{thread['id']}/thread-members/{MEMBER}")
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)


async def test_the_creator_of_a_private_thread_removes_its_members(
        api: httpx.AsyncClient, events: Recorder) -> None:
    thread = await start(api, invitable=False)
    assert (await api.put(f"/channels/{thread['id']}/thread-members/{MEMBER}")).status_code \
        == 403  # not invitable: adding others takes MANAGE_THREADS
    private = await start(api)
    assert (await api.put(f"/channels/{private['id']}/thread-members/{MEMBER}")).status_code \
        == 204
    assert (await api.delete(f"/channels/{private['id']}/thread-members/{MEMBER}")
            ).status_code == 204


async def test_a_bot_joins_and_leaves_a_thread(instance: Emulator, events: Recorder,
                                               api: httpx.AsyncClient) -> None:
    thread = await start(api, type=11)
    events.sent.clear()
    async with asgi_client(instance) as other:
        other.headers.update({"Authorization": "Bot other-bot-token"})
        joined = await other.put(f"/channels/{thread['id']}/thread-members/@me")
        assert joined.status_code == 204
        assert events.to(OTHER) == [("THREAD_CREATE", GUILDS),
                                    ("THREAD_MEMBERS_UPDATE", GUILDS)]
        assert events.to(APP) == [("THREAD_MEMBERS_UPDATE", MEMBERS)]
        created = events.data(OTHER, "THREAD_CREATE")
        assert "newly_created" not in created
        assert (created["member"]["user_id"], created["member_count"]) == (OTHER, 2)
        listing = await other.get(f"/channels/{thread['id']}/thread-members")
        assert (listing.status_code, listing.json()) == (403, NO_ACCESS)  # no GUILD_MEMBERS
        events.sent.clear()
        left = await other.delete(f"/channels/{thread['id']}/thread-members/@me")
        assert left.status_code == 204
        assert events.to(OTHER) == [("THREAD_MEMBERS_UPDATE", GUILDS)]
        assert events.data(OTHER, "THREAD_MEMBERS_UPDATE")["removed_member_ids"] == [OTHER]
        events.sent.clear()
        assert (await other.delete(f"/channels/{thread['id']}/thread-members/@me")
                ).status_code == 204
        assert events.sent == []
        private = await start(api)
        hidden = await other.put(f"/channels/{private['id']}/thread-members/@me")
        assert (hidden.status_code, hidden.json()) == (403, NO_ACCESS)


# -- messages in a thread ------------------------------------------------------------


async def test_a_bot_posts_in_a_thread_with_send_messages_in_threads(
        api: httpx.AsyncClient, instance: Emulator, events: Recorder) -> None:
    thread = await start(api, type=11)
    sent = await api.post(f"/channels/{thread['id']}/messages", json={"content": "inside"})
    assert (sent.status_code, sent.json()["channel_id"]) == (200, thread["id"])
    assert events.data(APP, "MESSAGE_CREATE")["guild_id"] == GUILD
    give_bot(instance, "view_channel", "send_messages")
    refused = await api.post(f"/channels/{thread['id']}/messages", json={"content": "no"})
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
