"""Answers made once and kept (issue 24): a scope's list is rendered once per version
of the scope and each command's JSON once per version, yet every answer is what
the emulator would otherwise write, byte for byte, and never a stale one.

The bytes are compared with what starlette's ``JSONResponse`` writes for the
same data (``json.dumps`` with ``ensure_ascii=False`` and compact separators).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.support.emulator import GLOBAL, GUILD_COMMANDS, chat, option

pytestmark = pytest.mark.anyio
SCOPES = [GLOBAL, GUILD_COMMANDS]


def _as_starlette_writes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def _commands() -> list[dict[str, Any]]:
    first = chat("héllo", "Say “hi” \u2028 with \"quotes\" and \\ slashes")
    first["name_localizations"] = {"fr": "bonjour", "de": None}
    first["description_localizations"] = {"fr": "Dire « salut »"}
    first["options"] = [option("who", 6, required=True)]
    second = chat("count", "Count to a number")
    second["options"] = [{"type": 4, "name": "to", "description": "How far",
                          "min_value": -5, "max_value": 10**15}]
    return [first, second]


@pytest.mark.parametrize("path", SCOPES)
async def test_lists_and_overwrites_answer_the_bytes_json_would(api: httpx.AsyncClient,
                                                                path: str) -> None:
    put = await api.put(path, json=_commands())
    assert put.status_code == 200, put.text
    assert put.content == _as_starlette_writes(put.json())
    asks: list[tuple[dict[str, str], dict[str, str]]] = [
        ({"with_localizations": "true"}, {}), ({}, {}), ({}, {"X-Discord-Locale": "fr"})]
    for params, headers in asks:
        first = await api.get(path, params=params, headers=headers)
        again = await api.get(path, params=params, headers=headers)
        assert first.status_code == 200
        assert first.content == again.content == _as_starlette_writes(first.json())
    localized = (await api.get(path, headers={"X-Discord-Locale": "fr"})).json()
    assert localized[0]["name_localized"] == "bonjour"
    assert "name_localizations" not in localized[0]


@pytest.mark.parametrize("path", SCOPES)
async def test_a_change_is_seen_at_once(api: httpx.AsyncClient, path: str) -> None:
    await api.put(path, json=_commands())
    before = (await api.get(path, params={"with_localizations": "true"})).json()
    changed = _commands()
    changed[1]["description"] = "Count to another number"
    await api.put(path, json=changed)
    after = (await api.get(path, params={"with_localizations": "true"})).json()
    assert [c["description"] for c in after] == [before[0]["description"],
                                                 "Count to another number"]
    assert after[1]["version"] != before[1]["version"] and after[0] == before[0]
    created = await api.post(path, json=chat("third", "A third one"))
    assert created.status_code == 201
    names = [c["name"] for c in (await api.get(path)).json()]
    assert names == ["héllo", "count", "third"]
    deleted = await api.delete(f"{path}/{created.json()['id']}")
    assert deleted.status_code == 204
    assert [c["name"] for c in (await api.get(path)).json()] == ["héllo", "count"]


async def test_a_refused_overwrite_leaves_the_list_as_it_was(api: httpx.AsyncClient) -> None:
    await api.put(GUILD_COMMANDS, json=_commands())
    before = await api.get(GUILD_COMMANDS)
    refused = await api.put(GUILD_COMMANDS, json=[*_commands(), chat("Bad Name", "x")])
    assert refused.status_code == 400
    assert (await api.get(GUILD_COMMANDS)).content == before.content


async def test_the_same_body_in_two_scopes_answers_each_its_own(
        api: httpx.AsyncClient) -> None:
    """Bodies are kept once per distinct text, answers per command: ids, scopes and
    (for global commands) installation contexts stay each command's own."""
    in_guild = (await api.put(GUILD_COMMANDS, json=_commands())).json()
    in_global = (await api.put(GLOBAL, json=_commands())).json()
    assert {c["id"] for c in in_guild}.isdisjoint(c["id"] for c in in_global)
    assert all("guild_id" in c and "integration_types" not in c for c in in_guild)
    assert all("guild_id" not in c and "integration_types" in c for c in in_global)


@pytest.mark.parametrize("path", SCOPES)
async def test_a_body_made_again_answers_its_new_id(api: httpx.AsyncClient, path: str) -> None:
    """A command deleted and made again with the same body: the body's parts are kept,
    its own id and version are the new command's, and the bytes are json's."""
    first = (await api.put(path, json=_commands())).json()
    assert (await api.delete(f"{path}/{first[0]['id']}")).status_code == 204
    again = await api.post(path, json=_commands()[0])
    assert again.status_code == 201
    assert again.content == _as_starlette_writes(again.json())
    made = again.json()
    assert made["id"] != first[0]["id"] and made["version"] != first[0]["version"]
    assert {k: v for k, v in made.items() if k not in ("id", "version")} == {
        k: v for k, v in first[0].items() if k not in ("id", "version")}
    listed = await api.get(path, params={"with_localizations": "true"})
    assert listed.content == _as_starlette_writes(listed.json())
    assert [c["id"] for c in listed.json()] == [first[1]["id"], made["id"]]
