"""A command line in the user's locale (emulator.command_line, emulator.invocation): the
client shows names in the user's locale (its localization, a fallback's, else the
default) and the interaction carries the default names (Discord's "Application
Commands" documentation, "Localization")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.emulator.application_commands.command_line import shown_name
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions.invocation import Invocation, Prepared, Refused, prepare
from cmdsync.emulator.seed import MEMBER_ID
from tests.support.emulator import (
    APP,
    BOT,
    GUILD,
    GUILD_COMMANDS,
    asgi_client,
    chat,
    emulator,
    option,
)
from tests.support.plan import desired

pytestmark = pytest.mark.anyio
EXAMPLE = Path(__file__).parents[2] / "examples" / "hikari" / "commands.yaml"
# A group, options and choices localized, and locales with fallbacks.
STORE = chat("store", "The store", name_localizations={"fr": "magasin", "en-US": "shop",
                                                        "es-ES": "tienda"}, options=[
    option("stock", 2, name_localizations={"fr": "stock-fr"}, options=[
        option("add", 1, name_localizations={"fr": "ajouter"}, options=[
            option("fruit", required=True, name_localizations={"fr": "fruit-fr"},
                   choices=[{"name": "Apple", "value": "apple",
                             "name_localizations": {"fr": "Pomme", "de": "Apfel"}},
                            {"name": "Pear", "value": "pear"}]),
            option("count", 4, name_localizations={"fr": "nombre"})])])])


@pytest.fixture
def instance() -> Emulator:
    return emulator()


@pytest.fixture
async def api(instance: Emulator) -> Any:
    async with asgi_client(instance) as client:
        client.headers.update(BOT)
        yield client


async def put(api: httpx.AsyncClient, commands: list[dict[str, Any]]) -> None:
    response = await api.put(GUILD_COMMANDS, json=commands)
    assert response.status_code == 200, response.text


def example() -> list[dict[str, Any]]:
    """The hikari example's guild commands as the API takes them."""
    state = desired(EXAMPLE.read_text(encoding="utf-8"))
    return [dict(c.body) for c in state.scopes[GUILD].commands]


def run(instance: Emulator, line: str, **fields: Any) -> Prepared:
    fields.setdefault("guild_id", GUILD)
    with instance.store.transaction() as db:
        return prepare(instance.store, db, Invocation(APP, line=line, **fields),
                       interaction_id="1")


def refused(instance: Emulator, line: str, **fields: Any) -> str:
    with pytest.raises(Refused) as caught:
        run(instance, line, **fields)
    return str(caught.value)


async def test_the_examples_french_names_send_the_default_ones(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    """`cmdsync invoke --locale fr '/boutique acheter item:apple'`, as a fr user types it."""
    await put(api, example())
    payload = run(instance, "/boutique acheter item:apple amount:2", locale="fr").payload
    assert payload["locale"] == "fr"
    data = payload["data"]
    assert data["name"] == "shop"
    assert data["options"] == [{"name": "buy", "type": 1, "options": [
        {"name": "item", "type": 3, "value": "apple"},
        {"name": "amount", "type": 4, "value": 2}]}]
    # the default names are taken in any locale, the localized ones mixed with them too
    for line in ("/shop buy item:apple amount:2", "/boutique buy item:apple amount:2",
                 "/shop acheter item:apple amount:2"):
        assert run(instance, line, locale="fr").payload["data"] == data
    assert run(instance, f"/bannir user:<@{MEMBER_ID}>", locale="fr").payload[
        "data"]["name"] == "ban"


async def test_a_name_of_another_locale_says_which_locale(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    await put(api, example())
    assert refused(instance, "/boutique acheter item:apple").endswith(
        f"has no CHAT_INPUT command named 'boutique' in guild {GUILD} or globally: "
        "'boutique' is the fr name of /shop: add --locale fr")
    assert refused(instance, "/shop acheter item:apple") == (
        "/shop has no subcommand 'acheter': choose buy ('acheter' is the fr name of the "
        "subcommand 'buy': add --locale fr)")
    # in de the command is /laden, the subcommand has no de name: buy
    assert refused(instance, "/laden acheter item:apple", locale="de") == (
        "/laden has no subcommand 'acheter': choose buy ('acheter' is the fr name of the "
        "subcommand 'buy': add --locale fr)")
    assert "'laden' is the de name of /shop: add --locale de" in refused(
        instance, "/laden buy item:apple", locale="fr")


async def test_groups_options_and_choices_in_the_locale(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    await put(api, [STORE])
    data = run(instance, "/magasin stock-fr ajouter fruit-fr:Pomme nombre:3",
               locale="fr").payload["data"]
    assert data["name"] == "store"
    assert data["options"] == [{"name": "stock", "type": 2, "options": [
        {"name": "add", "type": 1, "options": [
            {"name": "fruit", "type": 3, "value": "apple"},
            {"name": "count", "type": 4, "value": 3}]}]}]
    # refusals name what the client shows in the locale
    assert refused(instance, "/magasin stock-fr ajouter fruit-fr:Banane", locale="fr") == (
        "option fruit-fr must be one of: Pomme, Pear")
    assert refused(instance, "/magasin stock-fr ajouter", locale="fr") == (
        "/magasin stock-fr ajouter needs option fruit-fr")
    assert refused(instance, "/magasin stock-fr ajouter fruit-fr:Apfel", locale="fr") == (
        "option fruit-fr must be one of: Pomme, Pear ('Apfel' is the de name of the choice "
        "'Apple': add --locale de)")
    assert refused(instance, "/store stock add nombre:3 fruit:apple", locale="de") == (
        "/store stock add has no option 'nombre' (its options: fruit, count) ('nombre' is "
        "the fr name of the option 'count': add --locale fr)")


@pytest.mark.parametrize(("locale", "line"), [
    ("en-US", "/shop stock add fruit:apple"),
    ("en-GB", "/shop stock add fruit:apple"),  # en-GB falls back to en-US
    ("es-419", "/tienda stock add fruit:apple"),  # es-419 falls back to es-ES
    ("es-ES", "/tienda stock add fruit:apple"),
])
async def test_the_clients_locale_fallbacks(instance: Emulator, api: httpx.AsyncClient,
                                            locale: str, line: str) -> None:
    await put(api, [STORE])
    payload = run(instance, line, locale=locale).payload
    assert (payload["locale"], payload["data"]["name"]) == (locale, "store")
    assert shown_name(STORE, locale) == line.split()[0][1:]


async def test_a_fallback_shadowed_by_the_locales_own_name_is_refused(
        instance: Emulator, api: httpx.AsyncClient) -> None:
    """en-GB with its own name shows it, not en-US's: the en-US name is another locale's."""
    await put(api, [chat("colour", name_localizations={"en-US": "color", "en-GB": "colour-gb"})])
    assert run(instance, "/colour-gb", locale="en-GB").payload["data"]["name"] == "colour"
    assert "'color' is the en-US name of /colour: add --locale en-US" in refused(
        instance, "/color", locale="en-GB")
