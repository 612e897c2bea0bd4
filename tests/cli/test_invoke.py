"""`cmdsync invoke` against a served emulator and a real bot: hikari's RESTBot
(examples/hikari/bot.py), which checks the Ed25519 signatures itself and reads
the interactions with its own models.

hikari needs Python 3.11 or newer; these tests are skipped without it.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator import Limits, create_app, new_emulator
from cmdsync.emulator.seed import (
    ADMIN_ROLE_ID,
    BOT_TOKEN,
    MEMBER_ID,
    USER_TOKEN,
    default_seed,
)
from cmdsync.emulator.server import BackgroundServer
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, GUILD, USER_ID, http_client
from tests.support.hikari import RunningBot, example_bot
from tests.support.paths import EXAMPLES, ROOT

pytestmark = pytest.mark.slow  # real servers and subprocesses: the full suite runs it

if sys.version_info < (3, 11):
    pytest.skip("hikari needs Python 3.11 or newer", allow_module_level=True)
hikari = pytest.importorskip("hikari", reason="hikari[server] is not installed")

ADMIN_ID = "333333333333333335"
MANIFEST = EXAMPLES / "hikari" / "commands.yaml"


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, str]]:
    """A served emulator (with an administrator member), the example's commands applied
    through its API, and the example hikari bot answering at its endpoint."""
    seed = default_seed()
    seed["users"].append({"id": ADMIN_ID, "username": "admin"})
    seed["guilds"][0]["members"].append({"user_id": ADMIN_ID, "roles": [ADMIN_ROLE_ID]})
    # Discord's 3 s is tested with a stand-in; here a busy machine must not fail hikari
    emulator = new_emulator(seed=seed, limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(emulator)) as base, \
            http_client(f"{base}/api/v10", headers={"Authorization": f"Bot {BOT_TOKEN}"}) as api:
        verify_key = api.get("/applications/@me").json()["verify_key"]
        bot = example_bot().build_bot(BOT_TOKEN, verify_key, f"{base}/api/v10")
        with RunningBot(bot) as running:
            yield {"api_url": f"{base}/api/v10", "endpoint": running.url, "base": base}


@pytest.fixture
def cli(world: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", BOT_TOKEN)
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", USER_TOKEN)

    def invoke(*args: str) -> tuple[int, str, str]:
        return run(capsys, "invoke", "--api-url", world["api_url"], *args)

    return invoke


@pytest.fixture(scope="module", autouse=True)
def applied(world: dict[str, str]) -> None:
    """The example manifest applied with cmdsync itself, and the endpoint set (verified
    by the emulator with hikari's own signature check)."""
    with pytest.MonkeyPatch.context() as patch:
        clean_environment(patch)
        patch.setenv("DISCORD_BOT_TOKEN", BOT_TOKEN)
        patch.setenv("DISCORD_APPLICATION_ID", APP)
        with pytest.raises(SystemExit) as exited:
            from cmdsync.cli import main

            main(["apply", "--auto-approve", "--api-url", world["api_url"], str(MANIFEST)])
        assert exited.value.code == 0
    set_url = httpx.patch(f"{world['api_url']}/applications/@me",
                          json={"interactions_endpoint_url": world["endpoint"]},
                          headers={"Authorization": f"Bot {BOT_TOKEN}"})
    assert set_url.status_code == 200, set_url.text


def test_a_slash_command_sets_the_endpoint_and_gets_hikaris_reply(
        cli: Any, world: dict[str, str]) -> None:
    code, out, err = cli("--endpoint", world["endpoint"], "--guild", GUILD, "/ping")
    assert (code, err) == (0, "")
    assert out == (f"Invoked /ping in guild {GUILD}, channel 222222222222222223 as owner "
                   f"({USER_ID})\n"
                   "Response: CHANNEL_MESSAGE_WITH_SOURCE\n"
                   "Reply:\n"
                   "  pong\n")


def test_a_subcommand_with_options(cli: Any) -> None:
    code, out, _ = cli("--guild", GUILD, "/shop buy item:apple amount:3")
    assert code == 0
    assert out.endswith("Reply:\n  You bought 3 x apple.\n")


def test_autocomplete_focuses_the_option_being_typed(cli: Any) -> None:
    code, out, _ = cli("--guild", GUILD, "--autocomplete", "/shop buy item:ap")
    assert code == 0
    assert out.endswith("Response: APPLICATION_COMMAND_AUTOCOMPLETE_RESULT\n"
                        '  Apple = "apple"\n'
                        '  Apricot = "apricot"\n')


def test_a_deferred_reply_and_its_follow_up(cli: Any) -> None:
    # --follow-ups 1 ends the wait when the follow-up is there (30 s only if it never comes)
    code, out, _ = cli("--guild", GUILD, "--wait", "30", "--follow-ups", "1", "/report")
    assert code == 0
    assert out.endswith("Response: DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE\n"
                        "Reply (edited):\n"
                        "  Report ready: 3 new members.\n"
                        "Follow-up:\n"
                        "  Details were sent to the moderators.\n")


def test_json_is_the_whole_exchange(cli: Any) -> None:
    code, out, _ = cli("--guild", GUILD, "--format", "json", "/ban user:<@333333333333333334>")
    document = json.loads(out)
    assert code == 0 and document["ok"] is True
    assert document["interaction"]["data"]["resolved"]["users"][MEMBER_ID]["username"] == \
        "member"
    assert document["response"]["data"]["content"] == f"Banned <@{MEMBER_ID}> (no reason)."
    assert [m["content"] for m in document["messages"]] == [document["response"]["data"][
        "content"]]


def test_an_everyone_overwrite_refuses_a_member_and_allows_an_administrator(
        cli: Any, world: dict[str, str]) -> None:
    with http_client(world["api_url"], headers={"Authorization": f"Bearer {USER_TOKEN}"}) as api:
        commands = httpx.get(f"{world['api_url']}/applications/{APP}/guilds/{GUILD}/commands",
                             headers={"Authorization": f"Bot {BOT_TOKEN}"}).json()
        ping = next(c["id"] for c in commands if c["name"] == "ping")
        path = f"/applications/{APP}/guilds/{GUILD}/commands/{ping}/permissions"
        assert api.put(path, json={"permissions": [
            {"id": GUILD, "type": 1, "permission": False}]}).status_code == 200
        try:
            code, out, err = cli("--guild", GUILD, "--user", MEMBER_ID, "/ping")
            assert (code, out) == (1, "")
            assert err == (f"Refused: user {MEMBER_ID} may not use /ping: the command-level "
                           "overwrite for @everyone denies it\n")
            code, out, _ = cli("--guild", GUILD, "--user", ADMIN_ID, "/ping")
            assert code == 0 and out.endswith("Reply:\n  pong\n")
        finally:
            api.put(path, json={"permissions": []})


def test_an_outdated_global_command_is_repaired(cli: Any, world: dict[str, str]) -> None:
    bot = {"Authorization": f"Bot {BOT_TOKEN}"}
    commands = f"{world['api_url']}/applications/{APP}/commands"
    body = {"name": "hello", "description": "Say hello", "contexts": [0, 1]}
    assert httpx.put(commands, json=[body], headers=bot).status_code == 200
    try:
        code, out, _ = cli("/hello")  # in a DM with the bot
        assert code == 0 and out.endswith("Reply:\n  No handler for /hello yet.\n")
        changed = {**body, "description": "Say hello again"}
        assert httpx.put(commands, json=[changed], headers=bot).status_code == 200
        code, out, err = cli("/hello")
        assert (code, out) == (1, "")
        assert err == ("This command is outdated, please try again in a few minutes (the "
                       "client has the new version now: run the same invoke again)\n")
        assert cli("/hello")[0] == 0
    finally:
        httpx.put(commands, json=[], headers=bot)


def test_verification_refuses_a_bot_that_skips_signature_checks(cli: Any) -> None:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def trusting(request: Any) -> JSONResponse:  # answers every PING, signed or not
        return JSONResponse({"type": 1})

    with BackgroundServer(Starlette(routes=[Route("/", trusting, methods=["POST"])])) as url:
        code, out, err = cli("--endpoint", f"{url}/", "--guild", GUILD, "/ping")
    assert (code, out) == (1, "")
    assert "cannot set the interactions endpoint URL" in err
    assert "a badly signed PING got HTTP 200: the endpoint must check X-Signature-Ed25519" in err


def test_local_runs_the_embedded_emulator(world: dict[str, str], tmp_path: Any,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """--local: the same application (and so the same verify_key) in .cmdsync/local.sqlite."""
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "apply", "--local", "--auto-approve", str(MANIFEST))[0] == 0
    code, out, _ = run(capsys, "invoke", "--local", "--endpoint", world["endpoint"],
                       "--guild", GUILD, "/shop buy item:pear")
    assert code == 0 and out.endswith("Reply:\n  You bought 1 x pear.\n")
    code, out, _ = run(capsys, "invoke", "--local", "--guild", GUILD, "/ping")
    assert code == 0 and out.endswith("Reply:\n  pong\n")  # the endpoint was kept


def test_invoke_needs_the_emulator(cli: Any, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "invoke", "--api-url", "https://discord.com/api/v10", "/ping")
    assert code == 2 and "invoke runs commands against the cmdsync emulator only" in err
    code, _, err = run(capsys, "invoke", "/ping", "--user-command", "Profile")
    assert code == 2 and "give one of: a command line" in err


def docs_invocations() -> list[tuple[list[str], str]]:
    """The ``$ cmdsync invoke`` lines of docs/testing/invoke.md and of the README's tour,
    and what each prints."""
    section = (ROOT / "docs" / "testing" / "invoke.md").read_text(encoding="utf-8") + (
        ROOT / "README.md").read_text(encoding="utf-8")
    examples: list[tuple[list[str], str]] = []
    for block in section.split("```console\n")[1:]:
        lines = block.split("```", 1)[0].splitlines()
        for index, line in enumerate(lines):
            if line.startswith("$ cmdsync invoke "):
                output = []
                for follower in lines[index + 1:]:
                    if follower.startswith("$ "):
                        break
                    output.append(follower + "\n")
                examples.append((shlex.split(line[len("$ cmdsync invoke "):]),
                                 "".join(output)))
    return examples


def test_the_docs_invoke_examples_print_what_they_show(cli: Any, world: dict[str, str]) -> None:
    examples = docs_invocations()
    assert len(examples) == 6
    for args, shown in examples:
        args = [world["endpoint"] if a == "http://127.0.0.1:8000/" else a for a in args]
        code, out, err = cli(*args)
        assert out + err == shown, args
        assert code == (1 if shown.startswith("Refused") else 0)
