"""What a new user meets first, in-process (no browser): the Commands page on the scope
that has commands, an empty scope naming those that have some, and the Log page saying
whose requests it holds when the state file is shared with other processes."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cmdsync.emulator import create_app, new_emulator
from cmdsync.emulator.console import pages
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.seed import APPLICATION_ID, GUILD_ID
from cmdsync.emulator.server import BackgroundServer
from tests.support.emulator import BOT, emulator

GLOBAL = f"/api/v10/applications/{APPLICATION_ID}/commands"
GUILD = f"/api/v10/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands"
TWO = [{"name": "ping", "description": "Ping"}, {"name": "shop", "description": "Shop"}]


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with served(emulator()) as test_client:
        yield test_client


def put(client: httpx.Client, path: str, commands: list[dict[str, str]]) -> None:
    answer = client.put(path, headers=BOT, json=commands)
    assert answer.status_code == 200, answer.text


def text(page: str, pattern: str) -> str:
    """The text (tags dropped, spaces joined) of the first match of ``pattern``."""
    found = re.search(pattern, page, re.DOTALL)
    assert found is not None, pattern
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", found.group(0))).split())


def selected_scope(page: str) -> list[str]:
    found = re.search(r'<select id="scope".*?</select>', page, re.DOTALL)
    assert found is not None
    return re.findall(r'<option value="([^"]+)" selected>', found.group(0))


def names(page: str) -> list[str]:
    return re.findall(r'<span class="command-name"[^>]*>([^<]+)</span>', page)


def test_with_no_scope_chosen_the_guild_with_commands_is_shown(client: httpx.Client) -> None:
    """The hikari example's commands are all in one guild: the root URL shows them."""
    put(client, GUILD, TWO)
    page = client.get("/").text  # to /console/commands, no scope in the query
    assert selected_scope(page) == [GUILD_ID]
    assert names(page) == ["ping", "shop"]
    assert "No commands" not in page


def test_global_commands_come_first_when_there_are_some(client: httpx.Client) -> None:
    put(client, GUILD, TWO)
    put(client, GLOBAL, [{"name": "help", "description": "Help"}])
    page = client.get("/console/commands").text
    assert selected_scope(page) == ["global"]
    assert names(page) == ["help"]


def test_an_empty_scope_names_the_scopes_that_have_commands(client: httpx.Client) -> None:
    put(client, GUILD, TWO)
    page = client.get("/console/commands", params={"scope": "global", "locale": "fr"}).text
    assert text(page, r'<p class="empty">.*?</p>') == \
        "No commands in the global scope. cmdsync emulator's commands are in:"
    assert text(page, r'<ul class="elsewhere">.*?</ul>') == \
        f"Emulator Guild ({GUILD_ID}): 2 commands"
    assert re.findall(r'<ul class="elsewhere">\s*<li><a href="([^"]+)"', page) == [
        f"/console/commands?application={APPLICATION_ID}&amp;scope={GUILD_ID}&amp;locale=fr"]


def test_with_no_command_anywhere_the_page_says_how_to_apply(client: httpx.Client) -> None:
    page = client.get("/console/commands").text
    assert selected_scope(page) == ["global"]
    assert text(page, r'<p class="empty">.*?</p>') == (
        "No commands in this scope yet. Apply a manifest: cmdsync apply --api-url "
        f"{client.base_url.scheme}://{client.base_url.host}:{client.base_url.port}/api/v10 "
        "commands.yaml")


# -- the Log of a shared state file ------------------------------------------------------


@contextmanager
def served(instance: Emulator) -> Iterator[httpx.Client]:
    """The app under a real server on loopback, and a client that follows its redirects."""
    with BackgroundServer(create_app(instance)) as base, \
            httpx.Client(base_url=base, follow_redirects=True) as client:
        yield client


def test_the_log_of_local_state_says_other_processes_requests_are_not_in_it(
        tmp_path: Path) -> None:
    """``cmdsync emulator --local`` beside an ``apply --local`` (an emulator of its own,
    in-process, on the same file): the commands show, the requests are the other's."""
    os.makedirs(tmp_path / ".cmdsync")
    state = str(tmp_path / pages.LOCAL_STATE)
    console, applier = new_emulator(state=state), new_emulator(state=state)
    try:
        with served(applier) as other:
            put(other, GUILD, TWO)
        with served(console) as client:
            assert names(client.get("/console/commands").text) == ["ping", "shop"]
            log = client.get("/console/log").text
        assert text(log, r'<p class="note" id="log-scope">.*?</p>') == (
            "The request counts and API requests below are those this emulator served. "
            "Requests made by other processes on the same state file (cmdsync plan --local, "
            "apply --local and invoke --local) are not logged here; the commands they "
            "change and the interactions they run show, as they are kept in the state file.")
        assert text(log, r'<p class="counts">Requests.*?</p>').startswith("Requests 0 ·")
    finally:
        console.store.close()
        applier.store.close()


def test_the_log_of_another_state_file_names_it(tmp_path: Path) -> None:
    state = str(tmp_path / "state.sqlite")
    instance = new_emulator(state=state)
    try:
        with served(instance) as client:
            log = client.get("/console/log").text
        assert f"on the same state file ({state}: another emulator, or a program using it " \
               "in-process) are not logged here" in text(log, r'<p class="note".*?</p>')
    finally:
        instance.store.close()


def test_an_emulator_in_memory_has_no_such_note(client: httpx.Client) -> None:
    assert 'id="log-scope"' not in client.get("/console/log").text


def test_the_local_state_is_the_one_the_local_runs_use() -> None:
    from cmdsync.runners.session import LOCAL_STATE

    assert pages.LOCAL_STATE == LOCAL_STATE
