"""The read-only routes a bot calls at start-up and in a command handler (issue 23,
part 3), over real HTTP: users, guild members, channels and roles from the seed's
fixtures, who may read them, and a route the emulator does not serve answering 404
with a message that names it as not emulated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Emulator
from cmdsync.emulator.seed import default_seed
from tests.support.emulator import APP, BOT, GUILD, USER, emulator, http_client, http_server

MEMBER = "333333333333333334"
OWNER = "333333333333333333"
GENERAL = "222222222222222223"
ELSEWHERE = "777777777777777777"  # a guild the application is not installed in
HIDDEN = "777777777777777778"  # its channel


def seed() -> dict[str, Any]:
    data = default_seed()
    guild = data["guilds"][0]
    guild["members"][1].update(nick="Mem", roles=["222222222222222225"])
    guild["channels"] += [{"id": "222222222222222227", "name": "Lobby", "type": 4},
                          {"id": "222222222222222228", "name": "Stage", "type": 13},
                          {"id": "222222222222222229", "name": "Ideas", "type": 15},
                          {"id": "222222222222222230", "name": "Thread", "type": 11}]
    data["guilds"].append({"id": ELSEWHERE, "name": "Elsewhere", "applications": [],
                           "channels": [{"id": HIDDEN, "name": "secret"}]})
    return data


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    instance = emulator(seed=seed())
    with http_server(instance) as url:
        yield instance, url


@pytest.fixture
def api(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    with http_client(f"{served[1]}/api/v10", headers=BOT) as client:
        yield client


def test_users_are_the_seeds_users_and_bots(api: httpx.Client) -> None:
    member = api.get(f"/users/{MEMBER}").json()
    assert (member["id"], member["username"], member.get("bot")) == (MEMBER, "member", None)
    bot = api.get(f"/users/{APP}").json()
    assert (bot["id"], bot["username"], bot["bot"]) == (APP, "cmdsync emulator", True)
    assert api.get(f"/users/{MEMBER}", headers=USER).status_code == 200
    assert api.get("/users/1").json() == {"message": "Unknown User", "code": 10013}


def test_a_member_has_its_user_nick_and_roles(api: httpx.Client) -> None:
    member = api.get(f"/guilds/{GUILD}/members/{MEMBER}").json()
    assert (member["user"]["id"], member["nick"], member["roles"], member["joined_at"]) == (
        MEMBER, "Mem", ["222222222222222225"], "2024-01-01T00:00:00+00:00")
    assert api.get(f"/guilds/{GUILD}/members/{APP}").json()["user"]["bot"] is True
    assert api.get(f"/guilds/{GUILD}/members/1").json() == {
        "message": "Unknown Member", "code": 10007}


def test_each_channel_type_carries_its_fields(api: httpx.Client) -> None:
    channels = {c["name"]: c for c in api.get(f"/guilds/{GUILD}/channels").json()}
    assert [c["position"] for c in channels.values() if "position" in c] == [0, 1, 2, 3, 4]
    assert (channels["general"]["topic"], channels["general"]["rate_limit_per_user"]) == (
        None, 0)
    assert (channels["Voice"]["bitrate"], channels["Stage"]["user_limit"]) == (64000, 0)
    assert "last_message_id" not in channels["Lobby"]
    assert channels["Ideas"]["available_tags"] == []
    assert (channels["Thread"]["parent_id"], channels["Thread"]["thread_metadata"]["archived"]
            ) == (GENERAL, False)
    assert api.get(f"/channels/{GENERAL}").json() == channels["general"]
    assert api.get("/channels/1").json() == {"message": "Unknown Channel", "code": 10003}


def test_the_guild_has_its_roles_and_counts(api: httpx.Client) -> None:
    guild = api.get(f"/guilds/{GUILD}", params={"with_counts": "true"}).json()
    assert (guild["id"], guild["name"], guild["owner_id"], guild["preferred_locale"],
            guild["approximate_member_count"]) == (GUILD, "Emulator Guild", OWNER, "en-US", 3)
    assert [r["name"] for r in guild["roles"]] == ["@everyone", "Admin"]
    assert "approximate_member_count" not in api.get(f"/guilds/{GUILD}").json()
    assert api.get(f"/guilds/{ELSEWHERE}").json() == {"message": "Missing Access", "code": 50001}


def test_a_dm_channel_opens_with_a_seeded_user_only(api: httpx.Client) -> None:
    dm = api.post("/users/@me/channels", json={"recipient_id": MEMBER}).json()
    assert (dm["type"], [u["id"] for u in dm["recipients"]]) == (1, [MEMBER])
    assert api.get(f"/channels/{dm['id']}").json() == dm
    sent = api.post(f"/channels/{dm['id']}/messages", json={"content": "psst"}).json()
    assert (sent["channel_id"], sent["content"]) == (dm["id"], "psst")
    refused = api.post("/users/@me/channels", json={"recipient_id": "1"})
    assert (refused.status_code, refused.json()) == (
        400, {"message": "Invalid Recipient(s)", "code": 50033})


def test_roles_start_with_everyone(api: httpx.Client) -> None:
    roles = api.get(f"/guilds/{GUILD}/roles").json()
    assert [(r["id"], r["name"], r["position"]) for r in roles] == [
        (GUILD, "@everyone", 0), ("222222222222222225", "Admin", 1)]


@pytest.mark.parametrize(("path", "headers", "status", "answer"), [
    (f"/guilds/{ELSEWHERE}/members/{OWNER}", BOT, 403,
     {"message": "Missing Access", "code": 50001}),
    (f"/channels/{HIDDEN}", BOT, 403, {"message": "Missing Access", "code": 50001}),
    ("/guilds/1/roles", BOT, 404, {"message": "Unknown Guild", "code": 10004}),
    (f"/guilds/{GUILD}/channels", USER, 403,
     {"message": "Only bots can use this endpoint", "code": 20002}),
    (f"/channels/{GENERAL}", {"Authorization": "Bot nope"}, 401,
     {"message": "401: Unauthorized", "code": 0}),
    ("/users/abc", BOT, 400, {"message": "Invalid Form Body", "code": 50035, "errors": {
        "user_id": {"_errors": [{"code": "NUMBER_TYPE_COERCE",
                                 "message": 'Value "abc" is not snowflake.'}]}}}),
])
def test_who_may_read_what(api: httpx.Client, path: str, headers: dict[str, str], status: int,
                           answer: dict[str, Any]) -> None:
    response = api.get(path, headers=headers)
    assert (response.status_code, response.json()) == (status, answer)


@pytest.mark.parametrize(("method", "path"), [
    ("GET", f"/guilds/{GUILD}/emojis"), ("POST", f"/channels/{GENERAL}/typing"),
    ("GET", "/users/@me/connections"),
])
def test_a_route_not_emulated_is_named_in_its_404(api: httpx.Client, method: str,
                                                  path: str) -> None:
    response = api.request(method, path)
    assert (response.status_code, response.json()) == (404, {
        "message": f"404: Not Found (not emulated by cmdsync: {method} /api/v10{path})",
        "code": 0})


def test_a_token_in_a_path_not_emulated_is_not_repeated(api: httpx.Client) -> None:
    """Interaction tokens are credentials: the 404 shows ``{token}`` instead."""
    for path in (f"/webhooks/{APP}/secret-token/messages/1/reactions",
                 "/interactions/1/secret-token/other"):
        response = api.get(path)
        assert response.status_code == 404
        assert "secret-token" not in response.text
        assert "{token}" in response.json()["message"]


@pytest.mark.parametrize(("method", "path", "route"), [
    ("PATCH", f"/guilds/{GUILD}/channels", "PATCH /guilds/{guild_id}/channels"),
    ("PATCH", f"/guilds/{GUILD}", "PATCH /guilds/{guild_id}"),
    ("PATCH", f"/guilds/{GUILD}/roles", "PATCH /guilds/{guild_id}/roles"),
])
def test_a_discord_route_not_emulated_is_a_404_the_log_shows(
        served: tuple[Emulator, str], api: httpx.Client, method: str, path: str,
        route: str) -> None:
    """Issue 36, item 3: a route whose path is served for GET was 405 (a kick, a nickname
    edit, before they were emulated), and none was in the request log."""
    response = api.request(method, path)
    assert (response.status_code, response.json()) == (404, {
        "message": f"404: Not Found (not emulated by cmdsync: {method} /api/v10{path})",
        "code": 0})
    entry = served[0].log.entries()[-1]
    assert (entry.method, entry.path, entry.route, entry.status, entry.kind) == (
        method, f"/api/v10{path}", route, 404, "unserved")


def test_a_method_discord_has_no_route_for_stays_405_and_is_logged(
        served: tuple[Emulator, str], api: httpx.Client) -> None:
    response = api.request("PUT", f"/users/{MEMBER}")
    assert (response.status_code, response.json()) == (405, {
        "message": "405: Method Not Allowed", "code": 0})
    entry = served[0].log.entries()[-1]
    assert (entry.route, entry.status) == ("PUT (not a Discord route)", 405)
