"""The client's checks before an interaction is sent, and the interaction built
(emulator.invocation): visibility, permission overwrites, options, read-repair."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions.invocation import (
    Invocation,
    Prepared,
    Refused,
    parse_line,
    prepare,
)
from cmdsync.emulator.seed import ADMIN_ROLE_ID, CHANNEL_ID, MEMBER_ID, default_seed
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    USER,
    USER_ID,
    asgi_client,
    chat,
    emulator,
    guild_install_only,
    option,
)

pytestmark = pytest.mark.anyio
ADMIN_ID = "333333333333333335"
VOICE_ID = "222222222222222224"
MESSAGE_ID = "222222222222222226"
EVERYONE = 2_248_473_465_835_073  # the default seed's @everyone permissions
SHOP = chat("shop", "The shop", options=[
    option("buy", 1, options=[
        option("item", required=True, choices=[{"name": "Apple", "value": "apple"},
                                               {"name": "Pear", "value": "pear"}]),
        option("amount", 4, min_value=1, max_value=10),
        option("note", min_length=2, max_length=5),
        option("where", 7, channel_types=[0]),
        option("who", 6), option("role", 8), option("maybe", 5), option("ratio", 10),
        option("search", autocomplete=True)]),
    option("admin", 2, options=[option("reset", 1)])])


def seed() -> dict[str, Any]:
    data = default_seed()
    data["users"].append({"id": ADMIN_ID, "username": "admin"})
    data["guilds"][0]["members"].append({"user_id": ADMIN_ID, "roles": [ADMIN_ROLE_ID],
                                         "nick": "Boss"})
    return data


@pytest.fixture
def instance() -> Emulator:
    return emulator(seed=seed())


@pytest.fixture
async def api(instance: Emulator) -> Any:
    async with asgi_client(instance) as client:
        client.headers.update(BOT)
        yield client


async def put(api: httpx.AsyncClient, path: str, commands: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    response = await api.put(path, json=commands)
    assert response.status_code == 200, response.text
    return list(response.json())


def run(instance: Emulator, line: str | None = None, **fields: Any) -> Prepared:
    fields.setdefault("guild_id", GUILD)
    with instance.store.transaction() as db:
        return prepare(instance.store, db, Invocation(APP, line=line, **fields),
                       interaction_id="1")


def refused(instance: Emulator, line: str | None = None, **fields: Any) -> str:
    with pytest.raises(Refused) as caught:
        run(instance, line, **fields)
    return str(caught.value)


async def test_the_interaction_carries_what_libraries_require(instance: Emulator,
                                                              api: httpx.AsyncClient) -> None:
    [shop] = await put(api, GUILD_COMMANDS, [SHOP])
    prepared = run(instance, f'/shop buy item:Apple amount:3 note:"a b" where:<#{CHANNEL_ID}> '
                             f"who:<@{MEMBER_ID}> role:<@&{ADMIN_ROLE_ID}> maybe:true ratio:0.5",
                   locale="fr")
    payload = prepared.payload
    # hikari 2.7 answers 500 without any of these (its entity factory reads them with [...])
    for key in ("id", "application_id", "type", "token", "version", "locale", "app_permissions",
                "context", "attachment_size_limit", "authorizing_integration_owners",
                "channel", "data", "guild_id", "member"):
        assert key in payload, key
    assert "user" not in payload  # in a guild the user is member.user
    assert payload["type"] == 2 and payload["context"] == 0 and payload["locale"] == "fr"
    assert payload["guild_locale"] == "en-US"
    assert payload["authorizing_integration_owners"] == {"0": GUILD}
    assert payload["member"]["user"]["username"] == "owner"
    assert payload["app_permissions"] == str(EVERYONE)  # the bot member holds @everyone only
    assert payload["channel"]["id"] == CHANNEL_ID and payload["channel_id"] == CHANNEL_ID
    data = payload["data"]
    assert (data["id"], data["name"], data["type"], data["guild_id"]) == (
        shop["id"], "shop", 1, GUILD)
    [buy] = data["options"]
    assert (buy["name"], buy["type"]) == ("buy", 1)
    assert {o["name"]: o["value"] for o in buy["options"]} == {
        "item": "apple", "amount": 3, "note": "a b", "where": CHANNEL_ID, "who": MEMBER_ID,
        "role": ADMIN_ROLE_ID, "maybe": True, "ratio": 0.5}
    resolved = data["resolved"]
    assert resolved["users"][MEMBER_ID]["username"] == "member"
    assert "user" not in resolved["members"][MEMBER_ID]
    assert resolved["roles"][ADMIN_ROLE_ID]["permissions"] == "8"
    assert resolved["channels"][CHANNEL_ID]["name"] == "general"


async def test_autocomplete_focuses_the_last_option(instance: Emulator,
                                                    api: httpx.AsyncClient) -> None:
    await put(api, GUILD_COMMANDS, [SHOP])
    payload = run(instance, "/shop buy amount:2 search:ap", autocomplete=True).payload
    assert payload["type"] == 4
    options = payload["data"]["options"][0]["options"]
    assert options == [{"name": "amount", "type": 4, "value": 2},
                       {"name": "search", "type": 3, "focused": True, "value": "ap"}]
    assert "has no autocomplete" in refused(instance, "/shop buy item:ap", autocomplete=True)


@pytest.mark.parametrize(("line", "reason"), [
    ("/nothing", "has no CHAT_INPUT command named 'nothing'"),
    ("/shop", "/shop needs a subcommand: buy, admin"),
    ("/shop sell", "/shop has no subcommand 'sell': choose buy, admin"),
    ("/shop admin", "/shop admin needs a subcommand: reset"),
    ("/shop buy", "/shop buy needs option item"),
    ("/shop buy item:plum", "option item must be one of: Apple, Pear"),
    ("/shop buy item:apple amount:11", "option amount must be between 1 and 10, not 11"),
    ("/shop buy item:apple amount:x", "option amount: 'x' is not an integer"),
    ("/shop buy item:apple amount:1_0", "option amount: '1_0' is not an integer"),
    ("/shop buy item:apple amount:\u0663", "is not an integer"),  # an Arabic-Indic digit
    ("/shop buy item:apple ratio:nan", "option ratio: 'nan' is not a number"),
    ("/shop buy item:apple ratio:inf", "option ratio: 'inf' is not a number"),
    ("/shop buy item:apple ratio:1e309", "option ratio: '1e309' is not a number"),
    ("/shop buy item:apple ratio:1e300", "is not a number between -9007199254740992 and"),
    ("/shop buy item:", "option item has no value"),
    ('/shop buy item:"" note:ab', "option item has no value"),
    ("/shop buy item:apple search:" + "x" * 6001,
     "option search must be 1 to 6000 characters long, not 6001"),
    ("/shop buy item:apple note:x", "option note must be 2 to 5 characters long"),
    ("/shop buy item:apple maybe:yes", "option maybe: write true or false, not 'yes'"),
    (f"/shop buy item:apple where:{VOICE_ID}",
     f"option where takes channels of type guild_text, not guild_voice ({VOICE_ID})"),
    ("/shop buy item:apple who:<@1>", "option who: no user 1 in the emulator"),
    ("/shop buy item:apple color:red", "/shop buy has no option 'color'"),
    ("/shop buy item:apple item:pear", "option item is given twice"),
    ("/shop buy item:apple stray", "'stray' after the options"),
    ('/shop buy item:"apple', "cannot read the command line: No closing quotation"),
    ("/shop buy item:it's", "put a value holding ' in double quotes"),
    ("shop", "a command line starts with /NAME"),
])
async def test_the_options_are_checked_as_the_client_does(
        instance: Emulator, api: httpx.AsyncClient, line: str, reason: str) -> None:
    await put(api, GUILD_COMMANDS, [SHOP])
    assert reason in refused(instance, line)


async def test_a_missing_command_gets_a_hint(instance: Emulator,
                                             api: httpx.AsyncClient) -> None:
    await put(api, GUILD_COMMANDS, [chat("ping"), {"type": 3, "name": "Quote"}])
    assert "no CHAT_INPUT command named 'pnig' in guild 2" in refused(instance, "/pnig")
    assert "did you mean 'ping'?" in refused(instance, "/pnig")
    assert "it is a command of guild 222222222222222222: add --guild 2" in refused(
        instance, "/ping", guild_id=None)
    assert "'Quote' is a MESSAGE command: run it with --message-command NAME" in refused(
        instance, kind="user", name="Quote", target_id=MEMBER_ID)
    assert "unknown locale 'xx-YY'" in refused(instance, "/ping", locale="xx-YY")


async def test_where_a_command_shows(instance: Emulator, api: httpx.AsyncClient) -> None:
    guild_install_only(instance)
    await put(api, GUILD_COMMANDS, [chat("local")])
    await put(api, GLOBAL, [chat("everywhere"), chat("guilds", contexts=[0]),
                            chat("nodm", dm_permission=False)])
    assert run(instance, "/everywhere", guild_id=None).payload["context"] == 1
    dm = run(instance, "/everywhere", guild_id=None).payload
    assert dm["user"]["id"] == USER_ID and "member" not in dm and dm["channel"]["type"] == 1
    assert dm["authorizing_integration_owners"] == {"0": "0"}
    assert "does not show in a bot_dm: its contexts are guild" in refused(
        instance, "/guilds", guild_id=None)
    assert "does not show in a bot_dm: its contexts are guild, private_channel" in refused(
        instance, "/nodm", guild_id=None)
    # a private channel needs a user-installed command; this app is guild-install only
    assert "is not installed where it would show in a private_channel" in refused(
        instance, "/everywhere", guild_id=None, context="private_channel")
    assert "has no CHAT_INPUT command named 'local' globally" in refused(
        instance, "/local", guild_id=None)
    assert "user 9 " in refused(instance, "/local", user_id="9")
    assert "no channel 5 in guild" in refused(instance, "/local", channel_id="5")


async def test_an_application_not_installed_in_the_guild(instance: Emulator,
                                                         api: httpx.AsyncClient) -> None:
    guild_install_only(instance)  # a user-installed command shows in any guild
    await put(api, GLOBAL, [chat("everywhere")])
    instance.store.add_guild(GUILD, "Emulator Guild", [], {"owner_id": USER_ID})
    assert "is not installed in guild 2" in refused(instance, "/everywhere")


async def test_context_menu_commands_take_their_target(instance: Emulator,
                                                       api: httpx.AsyncClient) -> None:
    await put(api, GUILD_COMMANDS, [{"type": 2, "name": "Profile"},
                                    {"type": 3, "name": "Report"}])
    user = run(instance, kind="user", name="Profile", target_id=f"<@{MEMBER_ID}>").payload
    assert user["data"]["target_id"] == MEMBER_ID
    assert user["data"]["resolved"]["members"][MEMBER_ID]["roles"] == []
    message = run(instance, kind="message", name="Report", target_id=MESSAGE_ID).payload
    assert message["data"]["resolved"]["messages"][MESSAGE_ID]["content"] == "hello"
    assert message["channel_id"] == CHANNEL_ID  # run from the message, in its channel
    assert f"message {MESSAGE_ID} is in channel {CHANNEL_ID}, not {VOICE_ID}" in refused(
        instance, kind="message", name="Report", target_id=MESSAGE_ID, channel_id=VOICE_ID)
    assert "needs a target" in refused(instance, kind="message", name="Report")
    assert "no message 5 in this guild" in refused(instance, kind="message", name="Report",
                                                   target_id="5")


async def test_permission_overwrites_decide_who_may_use_a_command(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    [ping, ban] = await put(api, GUILD_COMMANDS, [chat("ping"),
                                                  chat("ban", default_member_permissions="4")])

    async def overwrite(target: str, entries: list[dict[str, Any]]) -> None:
        response = await api.put(f"{GUILD_COMMANDS}/{target}/permissions",
                                 json={"permissions": entries}, headers=USER)
        assert response.status_code == 200, response.text

    # default_member_permissions: BAN_MEMBERS; the member lacks it, admins and the owner pass
    assert "default_member_permissions asks for ban_members" in refused(
        instance, "/ban", user_id=MEMBER_ID)
    run(instance, "/ban", user_id=ADMIN_ID)
    run(instance, "/ban", user_id=USER_ID)
    # a command-level overwrite denying @everyone: the member is refused, an admin is not
    await overwrite(ping["id"], [{"id": GUILD, "type": 1, "permission": False}])
    assert "the command-level overwrite for @everyone denies it" in refused(
        instance, "/ping", user_id=MEMBER_ID)
    run(instance, "/ping", user_id=ADMIN_ID)
    # a user allow beats @everyone's deny; an overwrite allow skips default_member_permissions
    await overwrite(ping["id"], [{"id": GUILD, "type": 1, "permission": False},
                                 {"id": MEMBER_ID, "type": 2, "permission": True}])
    run(instance, "/ping", user_id=MEMBER_ID)
    await overwrite(ban["id"], [{"id": MEMBER_ID, "type": 2, "permission": True}])
    run(instance, "/ban", user_id=MEMBER_ID)
    # application-level: a channel deny for all channels (guild id - 1)
    await overwrite(APP, [{"id": str(int(GUILD) - 1), "type": 3, "permission": False}])
    assert "the application-level overwrite for all channels denies it" in refused(
        instance, "/ping", user_id=MEMBER_ID)
    # a command-level allow for this channel beats it
    await overwrite(ping["id"], [{"id": CHANNEL_ID, "type": 3, "permission": True}])
    run(instance, "/ping", user_id=MEMBER_ID)


async def test_read_repair_of_an_outdated_global_command(instance: Emulator,
                                                         api: httpx.AsyncClient) -> None:
    await put(api, GLOBAL, [chat("ping")])
    assert not run(instance, "/ping").outdated
    assert not run(instance, "/ping").outdated
    await put(api, GLOBAL, [chat("ping", "A new description")])  # a new version
    assert run(instance, "/ping").outdated  # the client's copy was older
    assert not run(instance, "/ping").outdated  # ...and it has the new one now
    assert not run(instance, "/ping", user_id=MEMBER_ID).outdated  # never saw the old one


@pytest.mark.parametrize(("line", "parsed"), [
    ("/ping", ("ping", (), ())),
    ('/mod ban user:<@123> reason:"spam and eggs"',
     ("mod", ("ban",), (("user", "<@123>"), ("reason", "spam and eggs")))),
    ("/a b c x:1 y:", ("a", ("b", "c"), (("x", "1"), ("y", "")))),
    ("/t url:https://x.y/z", ("t", (), (("url", "https://x.y/z"),))),
])
def test_command_lines_are_split_as_a_shell_does(
        line: str, parsed: tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]) -> None:
    result = parse_line(line)
    assert (result.name, result.path, result.options) == parsed


async def test_in_a_dm_a_guild_channel_or_message_says_which_guild_has_it(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    """The CLI runs a command in a DM unless --guild is given: a refusal names the guild
    that holds the channel or message, not "this guild" (found by a new-user trial)."""
    await put(api, GLOBAL, [chat("paint", options=[option("where", 7)]),
                            {"type": 3, "name": "Quote"}])
    assert refused(instance, f"/paint where:<#{CHANNEL_ID}>", guild_id=None) == (
        f"option where: channel {CHANNEL_ID} is not in this DM with the bot: run the command "
        f"in its guild: --guild {GUILD}")
    assert refused(instance, kind="message", name="Quote", target_id=MESSAGE_ID,
                   guild_id=None) == (
        f"message {MESSAGE_ID} is not in this DM with the bot: run the command in its guild: "
        f"--guild {GUILD}")
