"""What responses carry: fields, defaults and key order (Discord's application command object), localizations and the requester's locale; in-process."""

from __future__ import annotations

import httpx
import pytest

from tests.support.emulator import (
    APP,
    BOT,
    EMBEDDED_SEED,
    GLOBAL,
    GUILD,
    GUILD_COMMANDS,
    asgi_client,
    chat,
    emulator,
    option,
)

pytestmark = pytest.mark.anyio


def without_ids(command: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in command.items() if k not in ("id", "version")}


async def test_a_global_slash_command_with_every_default(api: httpx.AsyncClient) -> None:
    body = chat(options=[option("count", 4, required=True), option("target", required=False)])
    created = (await api.post(GLOBAL, json=body)).json()
    assert without_ids(created) == {
        "application_id": APP, "default_member_permissions": None, "type": 1,
        "name": "ping", "name_localizations": None,
        "description": "Check the bot is alive", "description_localizations": None,
        # integration_types: the application's installation contexts, both for a new
        # one (discord/discord-api-docs#7396, fixed 2025-03)
        "dm_permission": True, "contexts": None, "integration_types": [0, 1],
        "options": [
            {"type": 4, "name": "count", "name_localizations": None,
             "description": "The count", "description_localizations": None,
             "required": True},
            {"type": 3, "name": "target", "name_localizations": None,
             "description": "The target", "description_localizations": None}],
        "nsfw": False}
    assert list(created)[:5] == ["id", "application_id", "version",
                                 "default_member_permissions", "type"]


async def test_a_guild_context_menu_command(api: httpx.AsyncClient) -> None:
    created = (await api.post(GUILD_COMMANDS, json={
        "type": 2, "name": "High Five", "default_member_permissions": "0",
        "nsfw": True, "dm_permission": False, "contexts": [0],
        "integration_types": [0]})).json()
    assert without_ids(created) == {
        "application_id": APP, "default_member_permissions": "0", "type": 2,
        "name": "High Five", "name_localizations": None, "description": "",
        "description_localizations": None, "guild_id": GUILD, "nsfw": True}


async def test_set_global_fields_come_back_and_choices_keep_their_values(
        api: httpx.AsyncClient) -> None:
    created = (await api.post(GLOBAL, json=chat(
        contexts=[2, 0], integration_types=[0], dm_permission=False,
        options=[option("size", 3, choices=[{"name": "Big", "value": "big"}],
                        min_length=1, max_length=10),
                 option("room", 7, channel_types=[2, 0])]))).json()
    assert (created["contexts"], created["integration_types"], created["dm_permission"]) == (
        [0, 2], [0], False)
    size, room = created["options"]
    assert size["choices"] == [{"name": "Big", "name_localizations": None, "value": "big"}]
    assert (size["min_length"], size["max_length"], room["channel_types"]) == (1, 10, [0, 2])


async def test_integration_types_follow_the_application() -> None:
    async with asgi_client(emulator(seed=EMBEDDED_SEED)) as api:
        headers = {"Authorization": "Bot activity-bot-token"}
        path = "/applications/444444444444444444/commands"
        created = (await api.post(path, json=chat(), headers=headers)).json()
        assert created["integration_types"] == [0, 1]
        refused = await api.post(GLOBAL, json=chat(integration_types=[1]), headers=BOT)
        assert refused.status_code == 400
        assert refused.json()["errors"] == {"integration_types": {"_errors": [{
            "code": "APPLICATION_COMMAND_INTEGRATION_TYPES_UNSUPPORTED",
            "message": "A command's integration_types must already be supported at "
                       "application level"}]}}


LOCALIZED = chat(
    name_localizations={"fr": "salut", "en-GB": "hullo", "es-ES": "hola"},
    description_localizations={"fr": "Dis bonjour"},
    options=[option("who", name_localizations={"fr": "qui"},
                    choices=[{"name": "Me", "value": "me", "name_localizations": {"fr": "Moi"}}])])


async def test_lists_carry_localizations_only_when_asked(api: httpx.AsyncClient) -> None:
    await api.post(GLOBAL, json=LOCALIZED)
    plain = (await api.get(GLOBAL)).json()[0]
    assert not [k for k in plain if "locali" in k]
    assert not [k for k in plain["options"][0] if "locali" in k]
    full = (await api.get(GLOBAL, params={"with_localizations": "true"})).json()[0]
    assert full["name_localizations"] == {"en-GB": "hullo", "es-ES": "hola", "fr": "salut"}
    assert full["options"][0]["description_localizations"] is None
    assert full["options"][0]["choices"][0]["name_localizations"] == {"fr": "Moi"}


@pytest.mark.parametrize(("headers", "name", "description"), [
    ({"X-Discord-Locale": "fr"}, "salut", "Dis bonjour"),
    ({"Accept-Language": "fr-FR,en;q=0.5"}, "salut", "Dis bonjour"),
    ({"X-Discord-Locale": "en-US", "Accept-Language": "fr"}, "hullo", None),
    ({"Accept-Language": "tlh;q=0.9, es-419;q=0.8"}, "hola", None),
    ({"X-Discord-Locale": "klingon", "Accept-Language": "fr"}, "salut", "Dis bonjour"),
    ({"X-Discord-Locale": "ja"}, None, None),
    ({}, None, None),
])
async def test_localized_names_follow_the_requesters_locale(
        api: httpx.AsyncClient, headers: dict[str, str], name: str | None,
        description: str | None) -> None:
    await api.post(GLOBAL, json=LOCALIZED)
    listed = (await api.get(GLOBAL, headers=headers)).json()[0]
    assert listed.get("name_localized") == name
    assert listed.get("description_localized") == description
    assert listed["name"] == "ping"
    if name == "salut":
        assert listed["options"][0]["name_localized"] == "qui"
        assert listed["options"][0]["choices"][0]["name_localized"] == "Moi"


async def test_entry_points_carry_their_handler() -> None:
    async with asgi_client(emulator(seed=EMBEDDED_SEED)) as api:
        listed = (await api.get("/applications/444444444444444444/commands",
                                headers={"Authorization": "Bot activity-bot-token"})).json()
    assert [(c["type"], c["name"], c["handler"]) for c in listed] == [(4, "Launch", 2)]
