"""`cmdsync invoke` without a bot: usage errors (exit 2), refusals (exit 1), an
interrupted wait, output on a terminal that is not UTF-8, the emulator's port."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.seed import BOT_TOKEN, parse_seed
from cmdsync.emulator.server import BackgroundServer, serve
from cmdsync.errors import UsageError
from cmdsync.render import console
from cmdsync.runners.invoke import Request as InvokeRequest
from cmdsync.runners.invoke import invoke
from cmdsync.runners.session import Connection
from tests.support.cli import clean_environment, run
from tests.support.emulator import GUILD, GUILD_COMMANDS, chat, emulator, http_client


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    clean_environment(monkeypatch)
    return lambda *args: run(capsys, "invoke", *args)


@pytest.mark.parametrize(("args", "message"), [
    (["--guild", GUILD, "--context", "bot_dm", "/ping"],
     "--guild contradicts --context bot_dm: leave one out"),
    (["--context", "guild", "/ping"], "--context guild needs --guild ID"),
    (["--channel", "222222222222222224", "/ping"], "--channel is a guild's channel"),
    (["ping"], "a command line starts with /NAME"),
    (['/ping x:"open'], "No closing quotation"),
    (["--autocomplete", "--user-command", "Profile", "--target", "1"],
     "--autocomplete is for a command line's options, not a user command"),
    (["--follow-ups", "1", "/ping"], "--follow-ups N ends a --wait early"),
    (["--wait", "nan", "/ping"], "--wait takes seconds from 0 to 900"),
    (["--wait", "901", "/ping"], "--wait takes seconds from 0 to 900"),
    (["--settle", "0.1", "/ping"], "--settle ends a --wait early: give --wait SECONDS too"),
    (["--wait", "5", "--settle", "11", "/ping"], "--settle takes seconds from 0 to 10"),
    (["--guild", "abc", "/ping"], "--guild 'abc' is not an id"),
    (["/ping", "--target", "1"], "--target is for --user-command and --message-command"),
    ([], "give one of: a command line"),
])
def test_usage_errors_exit_2(cli: Any, args: list[str], message: str) -> None:
    code, out, err = cli("--local", *args)
    assert (code, out) == (2, "")
    assert message in err


@pytest.mark.parametrize(("args", "bad", "formats"), [
    (["invoke", "--local", "/ping"], "github", "'text', 'json'"),
    (["pull", "--local"], "github", "'text', 'json'"),
    (["rules"], "json", "'text', 'markdown'"),
])
def test_a_format_a_command_does_not_take_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        args: list[str], bad: str, formats: str) -> None:
    """`invoke --format github` printed text while --help says "text, or json"."""
    clean_environment(monkeypatch)
    code, out, err = run(capsys, *args, "--format", bad)
    assert (code, out) == (2, "")
    assert f"Invalid value for '--format' / '-f': '{bad}' is not one of {formats}." in err


def test_a_refusal_exits_1_and_says_why(cli: Any, tmp_path: Any,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("--local", "--guild", GUILD, "/nothing")
    assert (code, out) == (1, "")
    assert err.startswith("Refused: application 111111111111111111 has no CHAT_INPUT command "
                          "named 'nothing'")
    code, out, _ = cli("--local", "--guild", GUILD, "--format", "json", "/nothing")
    document = json.loads(out)
    assert code == 1 and document["ok"] is False and "nothing" in document["refused"]


@pytest.fixture
def deferring() -> Iterator[str]:
    """A served emulator whose application's endpoint answers every command with a
    deferred response (and never follows up)."""
    instance = emulator(limits=Limits(interaction_deadline=30))  # never the test's bottleneck
    key = ""

    async def endpoint(request: Request) -> JSONResponse:
        return JSONResponse({"type": 1} if (await request.json())["type"] == 1
                            else {"type": 5})

    async def refuse_unsigned(request: Request) -> JSONResponse:
        from cmdsync.emulator.interactions.signing import verify

        body = await request.body()
        if not verify(key, body, request.headers["x-signature-timestamp"],
                      request.headers["x-signature-ed25519"]):
            return JSONResponse({"error": "bad signature"}, status_code=401)
        return await endpoint(request)

    with BackgroundServer(create_app(instance)) as base, \
            BackgroundServer(Starlette(routes=[Route("/", refuse_unsigned,
                                                     methods=["POST"])])) as bot, \
            http_client(f"{base}/api/v10", headers={"Authorization": f"Bot {BOT_TOKEN}"}) as api:
        key = api.get("/applications/@me").json()["verify_key"]
        api.put(GUILD_COMMANDS, json=[chat("ping")])
        assert api.patch("/applications/@me",
                         json={"interactions_endpoint_url": f"{bot}/"}).status_code == 200
        yield f"{base}/api/v10"


@pytest.mark.slow
def test_ctrl_c_while_waiting_keeps_what_arrived(deferring: str) -> None:
    async def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    result = invoke(Connection(api_url=deferring),
                    InvokeRequest(line="/ping", guild=GUILD, wait=30), application_id=None,
                    env={}, sleep=interrupted)
    assert result.interrupted and result.exchange["response"] == {"type": 5}
    assert [m["flags"] & 128 for m in result.exchange["messages"]] == [128]


@pytest.mark.slow
def test_waiting_ends_at_the_deadline_of_an_injected_clock(deferring: str) -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        await asyncio.sleep(0)

    result = invoke(Connection(api_url=deferring),
                    InvokeRequest(line="/ping", guild=GUILD, wait=1), application_id=None,
                    env={}, sleep=sleep, clock=lambda: now[0])
    assert not result.interrupted and result.ok
    assert sum(slept) == pytest.approx(1.0) and len(slept) == 5  # polled every 0.2 s


def test_output_on_a_terminal_that_is_not_utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.BytesIO()
    ascii_stdout = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr("sys.stdout", ascii_stdout)
    console.out("pomme \U0001f34e \u221e\n")
    ascii_stdout.flush()
    assert raw.getvalue() == b"pomme \\U0001f34e \\u221e\n"


def test_the_emulator_says_when_its_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"cannot listen on 127.0.0.1:{port}: .*choose "
                                             "another --port"):
            serve(emulator(), host="127.0.0.1", port=port, on_start=lambda url: None)


@pytest.mark.parametrize(("guild", "message"), [
    ({"owner_id": "9"}, "owner_id 9 is not one of the seed's users"),
    ({"members": [{"user_id": "9"}]}, "members[0]: user 9 is not one of the seed's users"),
    ({"members": [{"user_id": "3", "roles": ["7"]}]}, "role 7 is not one of the guild's roles"),
    ({"messages": [{"id": "5", "channel_id": "6", "author_id": "3"}]},
     "messages[0]: channel 6 is not one of the guild's channels"),
    ({"roles": [{"id": "7", "permissions": ["fly"]}]}, "unknown permission 'fly'"),
    ({"channels": [{"id": "6", "type": 99}]}, "type must be a channel type"),
])
def test_a_seed_file_names_only_what_it_declares(guild: dict[str, Any], message: str) -> None:
    seed = {"applications": [{"id": "1", "bot_token": "t", "client_secret": "s"}],
            "users": [{"id": "3"}], "guilds": [{"id": "2", **guild}]}
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_seed(json.dumps(seed))


def test_the_admin_seed_adds_fixtures_without_an_application() -> None:
    instance = emulator()
    with BackgroundServer(create_app(instance)) as base, \
            http_client(f"{base}/_emulator") as admin:
        added = admin.post("/seed", json={"users": [{"id": "900000000000000001"}], "guilds": [
            {"id": GUILD, "members": [{"user_id": "900000000000000001"}]}]})
        assert added.status_code == 204, added.text
        state = httpx.get(f"{base}/_emulator/state").json()
    assert [a["name"] for a in state["applications"]] == ["cmdsync emulator"]  # kept
    assert instance.store.member(GUILD, "900000000000000001") is not None
