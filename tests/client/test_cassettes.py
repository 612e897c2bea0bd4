"""Discord's documented error answers, replayed from cassettes (pytest-recording, vcrpy).

Each cassette in ``tests/cassettes/`` is hand-written from Discord's documentation and says,
in its opening comment, where its content comes from. They replay with
``record_mode: none`` (never the network: a request not in the cassette
fails) and the ``Authorization`` header filtered, through httpx's own
transport, which vcrpy patches: the client is built with no transport of its
own and points at https://discord.com/api/v10 with a fake token. The tests
check that the client, plan and apply react as Discord's documentation says.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.errors import CannotOverwriteExistingCassetteException

from cmdsync.apply.strategy import Strategy
from cmdsync.cli import main
from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import DEFAULT_API_URL, ClientConfig, DiscordClient
from cmdsync.runners.apply import ApplyOptions, apply_paths
from cmdsync.runners.session import Connection
from tests.support import paths
from tests.support.apply import Hooks
from tests.support.secrets import FAKE_BEARER, FAKE_TOKEN

CASSETTES = paths.CASSETTES
APP = "111111111111111111"
GUILD = "222222222222222222"
ENV = {"DISCORD_BOT_TOKEN": FAKE_TOKEN, "DISCORD_BEARER_TOKEN": FAKE_BEARER,
       "DISCORD_APPLICATION_ID": APP}
QUICK = ClientConfig(backoff_base=0.001, backoff_max=0.002)
pytestmark = pytest.mark.block_network  # whatever vcrpy lets through cannot connect


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    return {"record_mode": "none", "filter_headers": ["authorization"]}


@pytest.fixture(scope="module")
def vcr_cassette_dir() -> str:
    return str(CASSETTES)


@pytest.fixture(autouse=True)
def _no_discord_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISCORD_BOT_TOKEN", "DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET",
                 "DISCORD_BEARER_TOKEN", "DISCORD_APPLICATION_ID", "CMDSYNC_API_URL",
                 "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name + "_FILE", raising=False)


def cassette(name: str) -> Callable[[Any], Any]:
    """Replay ``tests/cassettes/<name>`` (and nothing else) in the marked test."""
    def mark(test: Any) -> Any:
        return pytest.mark.vcr(pytest.mark.default_cassette(name)(test))
    return mark


class FakeTime:
    """The client's clock and sleep: waits are recorded, never slept."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


def client(time: FakeTime, **config: Any) -> DiscordClient:
    """A bot-token client on Discord's own URL and httpx's default transport."""
    return DiscordClient(Auth(Token("Bot", FAKE_TOKEN, "DISCORD_BOT_TOKEN")),
                         config=ClientConfig(base_url=DEFAULT_API_URL, **config),
                         clock=time.clock, sleep=time.sleep)


def list_global(time: FakeTime, **config: Any) -> Any:
    async def go() -> Any:
        async with client(time, **config) as api:
            return await endpoints.list_commands(api, APP, "global"), api.exchanges
    return asyncio.run(go())


def apply_manifest(tmp_path: Path, text: str, strategy: Strategy) -> Any:
    path = tmp_path / "bot.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    run = apply_paths([str(path)], connection=Connection(config=QUICK),
                      options=ApplyOptions(strategy), hooks=Hooks(), interactive=False,
                      env=ENV, cwd=str(tmp_path))
    assert run.result is not None, run.validation
    return run.result, str(path)


def sent(result: Any) -> list[tuple[str, int | None]]:
    return [(r.method, r.status) for r in result.requests]


# -- the cassettes themselves -------------------------------------------------------

@pytest.mark.parametrize("path", sorted(CASSETTES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_cassette_says_where_it_comes_from_and_holds_no_credential(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# source: Discord's "), "the first line names the source"
    assert "discord/discord-api-docs" in text.split("interactions:")[0]
    data = yaml.safe_load(text)
    assert data["version"] == 1 and data["interactions"]
    for interaction in data["interactions"]:
        headers = {k.lower() for k in interaction["request"]["headers"]}
        assert "authorization" not in headers
        assert interaction["request"]["uri"].startswith(DEFAULT_API_URL + "/")
    assert FAKE_TOKEN not in text and FAKE_BEARER not in text


# -- 429: wait retry_after, then retry ------------------------------------------------

@cassette("rate-limited-429.yaml")
def test_429_waits_retry_after_then_retries(vcr: Any) -> None:
    time = FakeTime()
    commands, exchanges = list_global(time)
    assert commands == []
    assert time.slept == [64.57]  # the body's retry_after, not Retry-After's 65
    assert [e.status for e in exchanges] == [429, 200]
    assert vcr.all_played and vcr.play_count == 2


@cassette("rate-limited-global-429.yaml")
def test_global_429_pauses_every_route(vcr: Any) -> None:
    time = FakeTime()
    list_global(time)
    assert time.slept == [1.5]
    assert vcr.all_played


@cassette("rate-limited-429.yaml")
def test_429_longer_than_the_client_waits_fails_at_once(vcr: Any) -> None:
    from cmdsync.errors import ApiError

    time = FakeTime()
    with pytest.raises(ApiError) as caught:
        list_global(time, max_retry_after=10.0)
    assert (caught.value.status, caught.value.retry_after, time.slept, vcr.play_count) == (
        429, 64.57, [], 1)


# -- 50035: Discord's nested errors land on the manifest line ------------------------

@cassette("invalid-form-body-50035.yaml")
def test_50035_points_at_the_manifest_line(vcr: Any, tmp_path: Path) -> None:
    result, path = apply_manifest(tmp_path, """\
        commands:
          - {name: ban, description: Ban}
          - name: kick
            description: Kick
            options:
              - {type: user, name: member, description: Who}
        """, Strategy.BULK)
    assert not result.ok and sent(result)[-1] == ("PUT", 400)
    (diagnostic,) = result.scopes[0].diagnostics
    location = diagnostic.location
    assert (location.file, location.line, location.column, diagnostic.rule,
            diagnostic.message) == (
        path, 6, 28, "D50035",  # the value of options[0].name of item 1, "kick"
        ("Discord rejected the request: APPLICATION_COMMAND_INVALID_NAME: Command name is "
         "invalid"))
    assert result.scopes[0].error == (
        f"PUT /applications/{APP}/commands: HTTP 400: Invalid Form Body (code 50035)\n"
        "  1.options.0.name: APPLICATION_COMMAND_INVALID_NAME: Command name is invalid")
    assert vcr.all_played


# -- 401: a clear error naming the credential, no retry -----------------------------

@cassette("unauthorized-401.yaml")
def test_401_is_a_clear_auth_error(vcr: Any, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bot.yaml").write_text("commands: [{name: ping, description: Ping}]\n",
                                       encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        main(["plan", "bot.yaml"])
    out, err = capsys.readouterr()
    assert (exited.value.code, out) == (1, "")
    assert err == ("error: GET /applications/@me: HTTP 401: 401: Unauthorized (code 0): "
                   "Discord did not accept the Bot token from DISCORD_BOT_TOKEN: check that "
                   "it is this application's current token\n")
    assert vcr.play_count == 1  # a 401 is never retried (10,000 of them earn a ban)


# -- 403 code 20001 on a permission PUT: a Bearer token is needed --------------------

@cassette("bots-cannot-use-this-endpoint-20001.yaml")
def test_20001_on_a_permission_put_says_a_bearer_token_is_needed(
        vcr: Any, tmp_path: Path) -> None:
    result, _ = apply_manifest(tmp_path, f"""\
        guilds:
          "{GUILD}":
            commands: [{{name: ping, description: Ping}}]
            permissions:
              ping: [{{type: role, id: everyone, permission: false}}]
        """, Strategy.AUTO)
    assert not result.ok and sent(result)[-1] == ("PUT", 403)
    assert [(c.kind, c.status) for s in result.scopes for c in s.changes] == [
        ("permissions", "failed")]
    assert result.scopes[0].error == (
        f"PUT /applications/{APP}/guilds/{GUILD}/commands/1000000000000000001/permissions: "
        "HTTP 403: Bots cannot use this endpoint (code 20001): editing permission overwrites "
        "needs a user's Bearer token with scope applications.commands.permissions.update "
        "(DISCORD_BEARER_TOKEN, --bearer-token-file or `cmdsync login`): a bot token cannot")
    assert vcr.all_played


# -- 404 code 10063: unknown command ---------------------------------------------------

@cassette("unknown-command-10063.yaml")
def test_10063_is_an_unknown_command(vcr: Any, tmp_path: Path) -> None:
    result, _ = apply_manifest(tmp_path, "commands: [{name: ping, description: Pong}]\n",
                               Strategy.PER_COMMAND)
    assert [(c.name, c.status) for s in result.scopes for c in s.changes] == [
        ("ping", "failed")]  # refused, so not made: not "unknown"
    assert result.scopes[0].error == (
        f"PATCH /applications/{APP}/commands/1000000000000000001: HTTP 404: Unknown "
        "application command (code 10063): the command no longer exists (deleted since the "
        "plan?): plan again")
    assert sent(result)[-1] == ("PATCH", 404) and vcr.all_played  # not retried


# -- 30034: the daily create limit, as 400 or 429; never retried -----------------------

@pytest.mark.parametrize("status", [
    pytest.param(status, marks=[pytest.mark.vcr, pytest.mark.default_cassette(
        f"daily-creates-30034-{status}.yaml")], id=str(status)) for status in (400, 429)])
def test_30034_stops_at_once_without_retrying(status: int, vcr: Any, tmp_path: Path) -> None:
    result, _ = apply_manifest(tmp_path, "commands: [{name: ping, description: Ping}]\n",
                               Strategy.PER_COMMAND)
    assert not result.ok and result.creates == 0
    assert [r for r in sent(result) if r[0] != "GET"] == [("POST", status)]  # one, no retry
    assert result.scopes[0].error == (
        f"POST /applications/{APP}/commands: HTTP {status}: Max number of daily application "
        "command creates has been reached (200) (code 30034)")
    assert vcr.all_played


# -- 50240: a bulk overwrite may not drop the entry point ------------------------------

@cassette("entry-point-50240.yaml")
def test_50240_says_the_entry_point_must_stay(vcr: Any, tmp_path: Path) -> None:
    result, _ = apply_manifest(tmp_path, "commands: [{name: ping, description: Ping}]\n",
                               Strategy.BULK)
    assert result.scopes[0].error == (
        f"PUT /applications/{APP}/commands: HTTP 400: You cannot remove this app's Entry "
        "Point command in a bulk update operation. Please include the Entry Point command "
        "in your update request or delete it separately. (code 50240)")
    assert [(c.name, c.status) for s in result.scopes for c in s.changes] == [
        ("ping", "failed")]
    assert sent(result)[-1] == ("PUT", 400) and vcr.all_played


# -- no network: a request the cassette lacks fails ----------------------------------

@cassette("unauthorized-401.yaml")
def test_a_request_not_in_the_cassette_fails_instead_of_reaching_discord(vcr: Any) -> None:
    with pytest.raises(CannotOverwriteExistingCassetteException):
        list_global(FakeTime())
    assert vcr.play_count == 0 and vcr.record_mode == "none"


@cassette("rate-limited-429.yaml")
def test_the_authorization_header_is_filtered(vcr: Any) -> None:
    """What vcrpy would record carries no Authorization header (filter_headers)."""
    from vcr.request import Request

    request = Request("GET", f"{DEFAULT_API_URL}/applications/{APP}/commands", None,
                      {"Authorization": f"Bot {FAKE_TOKEN}", "User-Agent": "x"})
    filtered = vcr._before_record_request(request)
    assert "authorization" not in {k.lower() for k in filtered.headers}
