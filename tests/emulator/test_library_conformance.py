"""What py-cord 2.8.1, interactions.py 5.16.0 and hikari 2.7.0 need of the emulator, as
Discord answers it (each found by running the library against the emulator):

- interactions.py: the application object's ``summary`` (""), undocumented intent bits
  (its default intents set bit 17), null option fields in a command body, and
  ``contexts: [0, 1, 2]`` on guild commands;
- py-cord: ``GET /soundboard-default-sounds`` before it is ready;
- hikari: an ``id`` on every component of a message and of a MODAL_SUBMIT, and a 50035
  for the modal its builder garbles (``[[{row}, []]]``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator.domain.payloads import numbered_components
from cmdsync.emulator.gateway.connection import Connection
from cmdsync.emulator.gateway.hub import Outlet
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions.invocation import Invocation, prepare
from cmdsync.emulator.seed import BOT_TOKEN, CHANNEL_ID, default_seed
from cmdsync.validate import validate_api_commands
from tests.support.emulator import (
    APP,
    BOT,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    USER,
    FakeClock,
    asgi_client,
    chat,
    emulator,
)

pytestmark = pytest.mark.anyio
MODEL_TYPE_CONVERT = {"code": "MODEL_TYPE_CONVERT",
                      "message": "Only dictionaries may be used in a ModelType"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def instance(clock: FakeClock) -> Emulator:
    return emulator(seed=default_seed(), clock=clock)


@pytest.fixture
async def api(instance: Emulator) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(instance) as client:
        client.headers.update(BOT)
        yield client


def button(custom_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": custom_id.title(), "custom_id": custom_id,
            **fields}


def row(*children: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"type": 1, "components": list(children), **fields}


def opened(instance: Emulator, **fields: Any) -> dict[str, Any]:
    """The payload of an interaction the user started (``Invocation`` fields), stored
    unanswered as the emulator stores it before delivering it."""
    store = instance.store
    with store.transaction() as db:
        interaction_id = store.next_snowflake(db, instance.clock())
        prepared = prepare(store, db, Invocation(APP, **fields), interaction_id=interaction_id)
        store.save_interaction(db, interaction_id, APP, prepared.token, instance.clock(),
                               prepared.payload, None)
    return prepared.payload


async def callback(api: httpx.AsyncClient, interaction: dict[str, Any],
                   body: Any) -> httpx.Response:
    return await api.post(f"/interactions/{interaction['id']}/{interaction['token']}/callback",
                          json=body, headers={"Authorization": ""},
                          params={"with_response": "true"})


async def pinged(instance: Emulator, api: httpx.AsyncClient) -> dict[str, Any]:
    """A /ping interaction in the seed's guild (the command registered first)."""
    assert (await api.put(GUILD_COMMANDS, json=[chat("ping")])).status_code == 200
    return opened(instance, line="/ping", guild_id=GUILD)


async def answered_with(instance: Emulator, api: httpx.AsyncClient,
                        components: list[Any]) -> dict[str, Any]:
    """The message /ping's CHANNEL_MESSAGE_WITH_SOURCE response with ``components`` made."""
    interaction = await pinged(instance, api)
    response = await callback(api, interaction, {"type": 4, "data": {
        "content": "pong", "components": components}})
    assert response.status_code == 200, response.text
    message: dict[str, Any] = response.json()["resource"]["message"]
    return message


# -- 1. the application object's summary ------------------------------------------------


async def test_the_application_object_carries_the_deprecated_empty_summary(
        api: httpx.AsyncClient) -> None:
    """interactions.py's ``Application(**data)`` requires ``summary`` at login."""
    for path in ("/applications/@me", f"/applications/{APP}", "/oauth2/applications/@me"):
        body = (await api.get(path)).json()
        assert body["summary"] == "", path
        assert list(body)[:5] == ["id", "name", "icon", "description", "summary"]


# -- 2. gateway intents -------------------------------------------------------------------


def identify(instance: Emulator, intents: Any) -> tuple[tuple[int, str] | None, list[str]]:
    """IDENTIFY on a new connection: its close (code, reason) if any, and the dispatches
    sent (their ``t``)."""
    outlet = Outlet(lambda: None)
    connection = Connection(instance.gateway, outlet, url="ws://emulator/gateway", version=10)
    connection.hello()
    connection.receive(json.dumps({"op": 2, "d": {
        "token": BOT_TOKEN, "intents": intents,
        "properties": {"os": "linux", "browser": "test", "device": "test"}}}))
    closing = outlet.closing
    sent = [item["t"] for item in outlet.take() if item.get("op") == 0]
    return ((closing.code, closing.reason) if closing else None), sent


IPY_DEFAULT_INTENTS = 53706493  # interactions.py 5.16's Intents.DEFAULT: bits 0, 2-7,
# 9-14, 16, 17, 20, 21, 24, 25 (17 is undocumented)


@pytest.mark.parametrize("intents", [IPY_DEFAULT_INTENTS, 1 << 17, (1 << 26) - 1 - (
    (1 << 1) | (1 << 8) | (1 << 15)), 0])
def test_undocumented_intent_bits_below_the_highest_are_taken(instance: Emulator,
                                                              intents: int) -> None:
    assert identify(instance, intents) == (None, ["READY", "GUILD_CREATE"])


@pytest.mark.parametrize(("intents", "reason"), [
    (1 << 26, "Invalid intent(s): 67108864"),
    (-1, "Invalid intent(s): -1"),
    ("513", "Invalid intent(s): 513"),
    (1.0, "Invalid intent(s): 1.0"),
    (True, "Invalid intent(s): True"),
    (None, "Invalid intent(s): None"),
])
def test_intents_that_are_not_bits_up_to_the_highest_documented_close_4013(
        instance: Emulator, intents: Any, reason: str) -> None:
    assert identify(instance, intents) == ((4013, reason), [])


def test_a_privileged_intent_beside_undocumented_bits_still_closes_4014(
        instance: Emulator) -> None:
    assert identify(instance, IPY_DEFAULT_INTENTS | (1 << 1)) == (
        (4014, "Disallowed intent(s): GUILD_MEMBERS not enabled for the application"), [])


# -- 3. null fields in a command body ------------------------------------------------------

IPY_OPTION_NULLS = {"autocomplete": False, "choices": [], "channel_types": None,
                    "min_value": None, "max_value": None, "min_length": None,
                    "max_length": None, "name_localizations": None,
                    "description_localizations": None}
IPY_ECHO = {  # what interactions.py 5.16 PUTs for /echo text:<str> [where:<channel>]
    "nsfw": False, "integration_types": [0], "contexts": [0, 1, 2], "name": "echo",
    "description": "Echo text",
    "options": [
        {"name": "text", "type": 3, "description": "What to say", "required": True,
         **IPY_OPTION_NULLS},
        {"name": "where", "type": 7, "description": "A channel", "required": False,
         **IPY_OPTION_NULLS}],
    "name_localizations": None, "default_member_permissions": None,
    "description_localizations": None}


def without_ids(command: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in command.items() if k not in ("id", "version")}


async def test_null_option_fields_read_as_absent(api: httpx.AsyncClient) -> None:
    response = await api.put(GLOBAL, json=[IPY_ECHO])
    assert response.status_code == 200, response.text
    [echo] = response.json()
    assert without_ids(echo) == {
        "application_id": APP, "default_member_permissions": None, "type": 1,
        "name": "echo", "name_localizations": None, "description": "Echo text",
        "description_localizations": None, "dm_permission": True, "contexts": [0, 1, 2],
        "integration_types": [0],
        "options": [
            {"type": 3, "name": "text", "name_localizations": None,
             "description": "What to say", "description_localizations": None,
             "required": True},
            {"type": 7, "name": "where", "name_localizations": None,
             "description": "A channel", "description_localizations": None}],
        "nsfw": False}
    # the same command, sent with the nulls, is no change: the same version
    again = (await api.put(GLOBAL, json=[{k: v for k, v in IPY_ECHO.items()
                                          if v is not None}])).json()
    assert (again[0]["id"], again[0]["version"]) == (echo["id"], echo["version"])


async def test_null_fields_at_every_depth_and_on_post(api: httpx.AsyncClient) -> None:
    body = chat("shop", type=None, contexts=None, integration_types=None, dm_permission=None,
                handler=None, options=[{
                    "type": 1, "name": "buy", "description": "Buy", "required": None,
                    "options": [{"type": 4, "name": "amount", "description": "How many",
                                 "min_value": None, "max_value": 10,
                                 "choices": [{"name": "one", "value": 1,
                                              "name_localizations": None}]}]}])
    response = await api.post(GLOBAL, json=body)
    assert response.status_code == 201, response.text
    assert response.json()["options"] == [{
        "type": 1, "name": "buy", "name_localizations": None, "description": "Buy",
        "description_localizations": None, "options": [{
            "type": 4, "name": "amount", "name_localizations": None,
            "description": "How many", "description_localizations": None,
            "choices": [{"name": "one", "name_localizations": None, "value": 1}],
            "max_value": 10}]}]
    # the application's installation contexts, as for any command that names none
    assert (response.json()["contexts"], response.json()["integration_types"]) == (
        None, [0, 1])


async def test_a_null_in_a_patch_resets_the_field(api: httpx.AsyncClient) -> None:
    created = (await api.post(GLOBAL, json=chat(default_member_permissions="8",
                                                contexts=[0]))).json()
    patched = await api.patch(f"{GLOBAL}/{created['id']}", json={
        "default_member_permissions": None, "contexts": None})
    assert patched.status_code == 200, patched.text
    assert (patched.json()["default_member_permissions"], patched.json()["contexts"]) == (
        None, None)


async def test_a_null_where_discord_allows_none_is_still_refused(
        api: httpx.AsyncClient) -> None:
    response = await api.put(GLOBAL, json=[chat(options=[
        {"type": 3, "name": None, "description": "d"}])])
    assert (response.status_code, response.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035, "errors": {"0": {"options": {"0": {
            "name": {"_errors": [{"code": "BASE_TYPE_INVALID",
                                  "message": "'name' must be a string, not a null (null)"}]},
        }}}}})


def test_the_manifest_rules_still_refuse_the_nulls() -> None:
    """Only the emulator reads a request's nulls as absent: ``cmdsync rules`` (the schema a
    manifest is checked with) still says a list or number belongs there."""
    found = sorted((d.rule, d.location.pointer) for d in validate_api_commands(
        [IPY_ECHO], scope="global") if d.rule == "CS011")
    assert found == [("CS011", f"/0/options/{index}/{key}") for index in (0, 1) for key in (
        "channel_types", "max_length", "max_value", "min_length", "min_value")]


# -- 4. contexts on a guild command --------------------------------------------------------


async def test_a_guild_command_may_list_every_context_and_keeps_none(
        api: httpx.AsyncClient) -> None:
    """interactions.py's guild sync sends ``contexts: [0, 1, 2]``; Discord takes it and
    keeps no contexts, integration_types or dm_permission on a guild command."""
    response = await api.put(GUILD_COMMANDS, json=[IPY_ECHO])
    assert response.status_code == 200, response.text
    [echo] = response.json()
    assert without_ids(echo) == {
        "application_id": APP, "default_member_permissions": None, "type": 1,
        "name": "echo", "name_localizations": None, "description": "Echo text",
        "description_localizations": None, "guild_id": GUILD,
        "options": [
            {"type": 3, "name": "text", "name_localizations": None,
             "description": "What to say", "description_localizations": None,
             "required": True},
            {"type": 7, "name": "where", "name_localizations": None,
             "description": "A channel", "description_localizations": None}],
        "nsfw": False}
    bot_dm = await api.post(GUILD_COMMANDS, json=chat("dm", contexts=[1]))
    assert (bot_dm.status_code, "contexts" in bot_dm.json()) == (201, False)


def test_the_manifest_rule_against_bot_dm_in_a_guild_command_stays_an_error() -> None:
    assert [(d.rule, d.location.pointer) for d in validate_api_commands(
        [chat(contexts=[0, 1, 2])], scope=GUILD) if d.rule == "CS306"] == [
        ("CS306", "/0/contexts/1")]


# -- 5. the default soundboard sounds ------------------------------------------------------


async def test_the_default_soundboard_sounds_for_a_bot(api: httpx.AsyncClient) -> None:
    response = await api.get("/soundboard-default-sounds")
    assert response.status_code == 200
    assert response.json() == [{"name": "quack", "sound_id": "1", "volume": 1.0,
                                "emoji_id": None, "emoji_name": "\N{DUCK}",
                                "available": True}]
    bearer = await api.get("/soundboard-default-sounds", headers=USER)
    assert (bearer.status_code, bearer.json()) == (
        403, {"message": "Only bots can use this endpoint", "code": 20002})
    anonymous = await api.get("/soundboard-default-sounds", headers={"Authorization": ""})
    assert anonymous.status_code == 401


# -- 6. component ids ----------------------------------------------------------------------


def test_ids_are_sequential_depth_first_around_those_the_bot_gave() -> None:
    sent = [row(button("a", id=1), button("b")), row(button("c", id=0)),
            {"type": 17, "components": [
                {"type": 9, "components": [{"type": 10, "content": "x"}],
                 "accessory": button("d", id=7)},
                {"type": 10, "content": "y"}]}]
    assert numbered_components(sent) == [
        row(button("a", id=1), button("b", id=3), id=2), row(button("c", id=5), id=4),
        {"type": 17, "id": 6, "components": [
            {"type": 9, "id": 8, "components": [{"type": 10, "content": "x", "id": 9}],
             "accessory": button("d", id=7)},
            {"type": 10, "content": "y", "id": 10}]}]
    assert sent[0]["components"][1] == button("b")  # the bot's body is left as it was
    assert numbered_components(None) is None
    assert numbered_components([["x"], {"type": 10}]) == [["x"], {"type": 10, "id": 1}]


async def test_a_response_message_numbers_its_components(instance: Emulator,
                                                         api: httpx.AsyncClient) -> None:
    message = await answered_with(instance, api, [row(button("yes"), button("no"))])
    assert message["components"] == [row(button("yes", id=2), button("no", id=3), id=1)]


async def test_a_follow_up_and_an_edit_number_theirs(instance: Emulator,
                                                      api: httpx.AsyncClient) -> None:
    interaction = await pinged(instance, api)
    assert (await callback(api, interaction, {"type": 5})).status_code == 200
    hook = f"/webhooks/{APP}/{interaction['token']}"
    follow_up = await api.post(hook, json={"content": "more", "components": [
        row(button("a", id=2), button("b"))]})
    assert follow_up.json()["components"] == [row(button("a", id=2), button("b", id=3),
                                                 id=1)]
    edited = await api.patch(f"{hook}/messages/@original", json={
        "content": "done", "components": [row(button("c"))]})
    assert edited.json()["components"] == [row(button("c", id=2), id=1)]
    kept = await api.patch(f"{hook}/messages/@original", json={"content": "again"})
    assert kept.json()["components"] == [row(button("c", id=2), id=1)]


async def test_a_channel_message_numbers_its_components(api: httpx.AsyncClient) -> None:
    sent = await api.post(f"/channels/{CHANNEL_ID}/messages", json={
        "content": "hi", "components": [row(button("a"))]})
    assert sent.status_code == 200, sent.text
    assert sent.json()["components"] == [row(button("a", id=2), id=1)]
    edited = await api.patch(f"/channels/{CHANNEL_ID}/messages/{sent.json()['id']}",
                             json={"components": [row(button("b"), button("c"))]})
    assert edited.json()["components"] == [row(button("b", id=2), button("c", id=3), id=1)]
    read = await api.get(f"/channels/{CHANNEL_ID}/messages/{sent.json()['id']}")
    assert read.json()["components"] == edited.json()["components"]


async def test_the_clicked_message_and_its_update_carry_ids(instance: Emulator,
                                                             api: httpx.AsyncClient) -> None:
    message = await answered_with(instance, api, [row(button("yes"))])
    click = opened(instance, kind="component", message_id=message["id"], custom_id="yes")
    assert click["message"]["components"] == [row(button("yes", id=2), id=1)]
    update = await callback(api, click, {"type": 7, "data": {
        "components": [row(button("yes", disabled=True), button("undo"))]}})
    assert update.status_code == 200, update.text
    clicked_again = opened(instance, kind="component", message_id=message["id"],
                           custom_id="undo")
    assert clicked_again["message"]["components"] == [
        row(button("yes", disabled=True, id=2), button("undo", id=3), id=1)]


async def modal_submitted(instance: Emulator, api: httpx.AsyncClient,
                          modal: dict[str, Any]) -> dict[str, Any]:
    """The MODAL_SUBMIT data of ``modal`` (the answer to a click), its text input "name"
    given "Ada"."""
    message = await answered_with(instance, api, [row(button("form"))])
    click = opened(instance, kind="component", message_id=message["id"], custom_id="form")
    shown = await callback(api, click, {"type": 9, "data": modal})
    assert shown.status_code == 200, shown.text
    submit = opened(instance, kind="modal_submit", modal_of=click["id"],
                    fields=(("name", "Ada"),))
    data: dict[str, Any] = submit["data"]
    return data


async def test_a_modal_submit_carries_each_components_id(instance: Emulator,
                                                          api: httpx.AsyncClient) -> None:
    data = await modal_submitted(instance, api, {
        "custom_id": "form", "title": "Feedback", "components": [
            row({"type": 4, "custom_id": "name", "style": 1, "label": "Your name"})]})
    assert data == {"custom_id": "form", "components": [
        {"type": 1, "id": 1, "components": [
            {"type": 4, "id": 2, "custom_id": "name", "value": "Ada"}]}]}


async def test_a_modal_submit_keeps_the_ids_of_labels_and_text_displays(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    data = await modal_submitted(instance, api, {
        "custom_id": "form", "title": "Feedback", "components": [
            {"type": 10, "content": "Tell us"},
            {"type": 18, "label": "Your name", "id": 1,
             "component": {"type": 4, "custom_id": "name", "style": 1}}]})
    assert data["components"] == [
        {"type": 10, "id": 2},
        {"type": 18, "id": 1, "component": {
            "type": 4, "id": 3, "custom_id": "name", "value": "Ada"}}]


# -- 7. a garbled modal ---------------------------------------------------------------------


@pytest.mark.parametrize(("components", "leaf"), [
    # hikari 2.7.0's InteractionModalBuilder: each row a (payload, files) pair
    ([[row({"type": 4, "custom_id": "name", "style": 1, "label": "Name"}), []]],
     MODEL_TYPE_CONVERT),
    (["row"], MODEL_TYPE_CONVERT),
    ([button("a")], {"code": "UNION_TYPE_CHOICES",
                     "message": 'Value of field "type" must be one of (1, 10, 18).'}),
    ([{"components": []}], {"code": "UNION_TYPE_CHOICES",
                            "message": 'Value of field "type" must be one of (1, 10, 18).'}),
])
async def test_a_modal_component_that_is_not_one_a_modal_holds_is_refused(
        instance: Emulator, api: httpx.AsyncClient, components: list[Any],
        leaf: dict[str, str]) -> None:
    message = await answered_with(instance, api, [row(button("form"))])
    click = opened(instance, kind="component", message_id=message["id"], custom_id="form")
    refused = await callback(api, click, {"type": 9, "data": {
        "custom_id": "form", "title": "Feedback", "components": components}})
    assert (refused.status_code, refused.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035,
        "errors": {"data": {"components": {"0": {"_errors": [leaf]}}}}})
