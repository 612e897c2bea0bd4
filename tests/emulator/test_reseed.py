"""``POST /_emulator/seed`` on what the emulator has already: keys left out stay.

A seed added to a running emulator is partial: a guild or fixture already
there keeps every key the seed leaves out and takes those it gives; a new
one gets a fresh seed's defaults. A reset is complete: what it leaves out
takes the defaults again.
"""

from __future__ import annotations

from cmdsync.emulator.seed import ADMIN_ROLE_ID, CHANNEL_ID, GUILD_ID, MEMBER_ID, USER_ID
from tests.support.emulator import emulator as new_emulator
from tests.support.emulator import http_client, http_server

NEW_GUILD = "444444444444444444"


def test_a_partial_guild_keeps_its_name_owner_locale_and_installed_applications() -> None:
    emulator = new_emulator()
    emulator.add_seed({"guilds": [{"id": GUILD_ID, "name": "Renamed", "preferred_locale": "fr",
                                   "applications": []}]})
    assert emulator.store.guild(GUILD_ID) == {"id": GUILD_ID, "name": "Renamed",
                                              "owner_id": USER_ID, "preferred_locale": "fr"}
    emulator.add_seed({"guilds": [{"id": GUILD_ID, "roles": [{"id": "444444444444444445"}]}]})
    assert emulator.store.guild(GUILD_ID) == {"id": GUILD_ID, "name": "Renamed",
                                              "owner_id": USER_ID, "preferred_locale": "fr"}
    assert emulator.store.guilds_of("111111111111111111") == []  # still installed nowhere


def test_a_new_guild_gets_a_fresh_seeds_defaults() -> None:
    emulator = new_emulator()
    emulator.add_seed({"guilds": [{"id": NEW_GUILD}]})
    assert emulator.store.guild(NEW_GUILD) == {"id": NEW_GUILD, "name": "Guild"}
    assert NEW_GUILD in emulator.store.guilds_of("111111111111111111")


def test_partial_fixtures_keep_the_keys_left_out() -> None:
    emulator = new_emulator()
    emulator.add_seed({"guilds": [{"id": GUILD_ID, "members": [
        {"user_id": MEMBER_ID, "nick": "Memb", "roles": [ADMIN_ROLE_ID]}]}]})
    emulator.add_seed({
        "guilds": [{"id": GUILD_ID,
                    "roles": [{"id": ADMIN_ROLE_ID, "name": "Boss"}],
                    "members": [{"user_id": MEMBER_ID, "roles": []}],
                    "channels": [{"id": CHANNEL_ID, "type": 5}]}],
        "users": [{"id": MEMBER_ID, "global_name": "Member One"}]})
    store = emulator.store
    assert store.role(GUILD_ID, ADMIN_ROLE_ID) == {
        "id": ADMIN_ROLE_ID, "name": "Boss", "permissions": "8"}
    assert store.member(GUILD_ID, MEMBER_ID) == {
        "user_id": MEMBER_ID, "nick": "Memb", "roles": []}
    assert store.channel(GUILD_ID, CHANNEL_ID) == {
        "id": CHANNEL_ID, "name": "general", "type": 5}
    user = store.user(MEMBER_ID)
    assert user is not None and (user["username"], user["global_name"]) == (
        "member", "Member One")


def test_the_admin_route_keeps_the_owner_and_a_reset_brings_the_defaults_back() -> None:
    emulator = new_emulator()
    with http_server(emulator) as url, http_client(url) as admin:
        assert admin.post("/_emulator/seed", json={"guilds": [
            {"id": GUILD_ID, "preferred_locale": "de"}]}).status_code == 204
        guild = emulator.store.guild(GUILD_ID)
        assert guild is not None and (guild["name"], guild["owner_id"]) == (
            "Emulator Guild", USER_ID)
        reset = admin.post("/_emulator/reset", json={
            "applications": [{"id": "111111111111111111", "bot_token": "t0ken-bot",
                              "client_secret": "s3cret"}],
            "guilds": [{"id": GUILD_ID}]})
        assert reset.status_code == 204, reset.text
    assert emulator.store.guild(GUILD_ID) == {"id": GUILD_ID, "name": "Guild"}
