"""No secret in anything cmdsync writes, and none accepted on its command line.

Known, random token values (a bot token, a client secret, a user's Bearer
token, and the Bearer token the client-credentials exchange hands out) are
given to cmdsync the ways CI gives them (environment variables, token files)
and used against the emulator on loopback. Then every byte cmdsync wrote is
scanned: the text, JSON and GitHub output of validate, plan, apply and pull,
their logs at DEBUG (cmdsync has no ``-v`` flag: its loggers, and httpx's and
httpcore's, are captured), saved plans, backups, the ledger, pulled
manifests, the recorded Discord answers in ``tests/cassettes/``, and the
message of a forced internal error that carries a token (also with
``CMDSYNC_DEBUG=1``, which prints the traceback). Finally, a token given as
an argument, where ``ps`` shows it, is refused.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.cli import TOKEN_ON_COMMAND_LINE, main
from cmdsync.client.redact import BOT_TOKEN, CREDENTIAL
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.server import BackgroundServer
from cmdsync.errors import CmdsyncError
from tests.support import paths
from tests.support.secrets import FAKE_BEARER, FAKE_TOKEN

APP = "111111111111111111"
GUILD = "222222222222222222"
BOT = "bot-" + secrets.token_hex(20)
CLIENT_SECRET = "secret-" + secrets.token_hex(16)
BEARER = "bearer-" + secrets.token_hex(20)
WRONG_BOT = "wrong-bot-" + secrets.token_hex(16)
WRONG_SECRET = "wrong-secret-" + secrets.token_hex(16)
# What a real bot token looks like (id.timestamp.hmac, base64url): made up.
BOT_SHAPED = "MTExMTExMTExMTExMTExMTEx.GAbCdE." + secrets.token_urlsafe(29)
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "bot_token": BOT, "client_secret": CLIENT_SECRET}],
    "guilds": [{"id": GUILD}],
    "users": [{"id": "333333333333333333", "application_id": APP, "bearer_token": BEARER,
               "scopes": ["applications.commands.permissions.update"], "guilds": [GUILD]}],
}
MANIFEST = f"""\
commands:
  - {{name: ping, description: Ping}}
  - {{name: Bad Name, description: Not a valid chat input name}}
guilds:
  "{GUILD}":
    commands:
      - {{name: mod, description: Moderation}}
    permissions:
      mod: [{{type: role, id: everyone, permission: false}}]
"""


@pytest.fixture(scope="module")
def emulator() -> Iterator[tuple[Emulator, str]]:
    instance = new_emulator(seed=SEED)
    with BackgroundServer(create_app(instance)) as base_url:
        yield instance, base_url


@pytest.fixture
def cwd(emulator: tuple[Emulator, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> Path:
    """A fresh emulator state, the variables CI would set, and every log at DEBUG."""
    instance, base_url = emulator
    instance.reset(SEED)
    for name in ("DISCORD_BOT_TOKEN", "DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET",
                 "DISCORD_BEARER_TOKEN", "CMDSYNC_DEBUG", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name + "_FILE", raising=False)
    monkeypatch.setenv("CMDSYNC_API_URL", f"{base_url}/api/v10")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", APP)
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    return tmp_path


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI; its exit code and everything it printed."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out + err


def issued_tokens(instance: Emulator) -> list[str]:
    """The Bearer tokens the emulator handed out for client credentials."""
    with instance.store.transaction() as db:
        return [row["token"] for row in db.execute("SELECT token FROM tokens")
                if row["token"] not in (BOT, BEARER)]


def leaks(text: str, extra: tuple[str, ...] = ()) -> list[str]:
    every = (BOT, CLIENT_SECRET, BEARER, WRONG_BOT, WRONG_SECRET, BOT_SHAPED, *extra)
    return [secret[:12] + "..." for secret in every if secret in text]


def written_files(root: Path, *, besides: tuple[str, ...] = ()) -> dict[str, str]:
    """Every file cmdsync wrote under ``root``, but the token files the test wrote."""
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
            for p in root.rglob("*") if p.is_file() and p.name not in besides}


def test_no_token_in_any_output_file_or_log(emulator: tuple[Emulator, str], cwd: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            caplog: pytest.LogCaptureFixture,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    instance, _ = emulator
    (cwd / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    (cwd / "good.yaml").write_text(MANIFEST.replace(
        "  - {name: Bad Name, description: Not a valid chat input name}\n", ""),
        encoding="utf-8")
    printed: list[tuple[str, int, str]] = []

    def run(*args: str) -> int:
        code, text = run_cli(capsys, *args)
        printed.append((" ".join(args), code, text))
        return code

    # a bot token and the user's Bearer token from the environment
    monkeypatch.setenv("DISCORD_BOT_TOKEN", BOT)
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", BEARER)
    for output in ("text", "json", "github"):
        assert run("validate", "--online", "-f", output, "bot.yaml") == 1  # diagnostics too
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run("validate", "--online", "bot.yaml") == 1
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert run("plan", "good.yaml") == 0
    assert run("plan", "-f", "json", "--detailed-exitcode", "good.yaml") == 2
    assert run("plan", "--out", "saved.json", "good.yaml") == 0
    assert run("apply", "saved.json") == 0  # a saved plan, a backup, the ledger
    assert run("pull", "--guild", GUILD) == 0
    assert run("pull", "--guild", GUILD, "-o", "pulled.yaml") == 0
    (cwd / "good.yaml").write_text((cwd / "good.yaml").read_text(encoding="utf-8").replace(
        "permission: false", "permission: true").replace("description: Ping",
                                                          "description: Pong"),
        encoding="utf-8")
    assert run("apply", "--auto-approve", "-f", "json", "good.yaml") == 0

    # a bot token from --token-file, the Bearer token from --bearer-token-file
    monkeypatch.delenv("DISCORD_BOT_TOKEN")
    monkeypatch.delenv("DISCORD_BEARER_TOKEN")
    (cwd / "bot.token").write_text(BOT + "\n", encoding="utf-8")
    (cwd / "bearer.token").write_text(BEARER + "\n", encoding="utf-8")
    assert run("plan", "--token-file", "bot.token", "--bearer-token-file", "bearer.token",
               "-f", "json", "good.yaml") == 0

    # client credentials: exchanged for a Bearer token the emulator makes up
    monkeypatch.setenv("DISCORD_CLIENT_ID", APP)
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", CLIENT_SECRET)
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", BEARER)
    assert run("validate", "--online", "-f", "json", "good.yaml") == 0
    assert run("plan", "good.yaml") == 0
    (cwd / "good.yaml").write_text((cwd / "good.yaml").read_text(encoding="utf-8").replace(
        "description: Pong", "description: Ping pong"), encoding="utf-8")
    assert run("apply", "--auto-approve", "good.yaml") == 0
    assert run("pull", "-o", "pulled-again.yaml") == 0

    # wrong credentials: the errors name the variable, never the value
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", WRONG_SECRET)
    assert run("plan", "good.yaml") == 1
    monkeypatch.setenv("DISCORD_BOT_TOKEN", WRONG_BOT)
    assert run("apply", "--auto-approve", "good.yaml") == 1
    assert run("validate", "--online", "good.yaml") == 1
    assert "Discord did not accept the Bot token from DISCORD_BOT_TOKEN" in printed[-1][2]

    exchanged = tuple(issued_tokens(instance))
    assert exchanged  # the client-credentials runs did get a token
    for command, _, text in printed:
        assert leaks(text, exchanged) == [], command
    assert leaks(caplog.text, exchanged) == []
    assert "HTTP Request: GET" in caplog.text  # httpx's own log was captured
    files = written_files(cwd, besides=("bot.token", "bearer.token"))
    assert {"saved.json", "pulled.yaml", "pulled-again.yaml", ".cmdsync/ledger.json"} <= set(
        files)
    assert any(name.startswith(".cmdsync/backups/") for name in files)
    for name, text in files.items():
        assert leaks(text, exchanged) == [], name


def test_no_credential_in_the_cassettes() -> None:
    root = paths.CASSETTES
    texts = {p.name: p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file()}
    assert texts
    for name, text in texts.items():
        assert leaks(text, (FAKE_TOKEN, FAKE_BEARER)) == [], name
        assert not re.search(r"(?im)^\s*authorization\s*:", text), name  # no such header
        assert not CREDENTIAL.search(text) and not BOT_TOKEN.search(text), name


class CarriesRequest(httpx.HTTPStatusError):
    """An httpx error whose message holds the request's headers, token included."""


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "CMDSYNC_DEBUG"])
def test_a_forced_internal_error_never_prints_a_token(
        debug: bool, cwd: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import cmdsync.runners.plan

    monkeypatch.setenv("DISCORD_BOT_TOKEN", BOT)
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", CLIENT_SECRET)
    if debug:
        monkeypatch.setenv("CMDSYNC_DEBUG", "1")

    def broken(*args: object, **kwargs: object) -> None:
        request = httpx.Request("GET", f"https://discord.com/api/v10/applications/{APP}",
                                headers={"Authorization": f"Bot {BOT}"})
        response = httpx.Response(500, request=request)
        raise CarriesRequest(f"boom: {dict(request.headers)}; secret {CLIENT_SECRET}; "
                             f"also {BOT_SHAPED} and Bearer abcdefghij0123456789abcd",
                             request=request, response=response)

    monkeypatch.setattr(cmdsync.runners.plan, "plan_paths", broken)
    (cwd / "bot.yaml").write_text("commands: [{name: ping, description: Ping}]\n",
                                  encoding="utf-8")
    code, text = run_cli(capsys, "plan", "bot.yaml")
    assert code == 70
    assert leaks(text) == []
    assert "Bearer abcdefghij0123456789abcd" not in text
    assert text.count("internal error: CarriesRequest: boom: {") == 1
    assert "'authorization': 'Bot [redacted]'" in text and "secret [redacted]" in text
    assert ("Traceback (most recent call last)" in text) is debug


def test_an_expected_error_never_prints_a_token(cwd: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import cmdsync.runners.plan

    monkeypatch.setenv("DISCORD_BEARER_TOKEN", BEARER)

    def refused(*args: object, **kwargs: object) -> None:
        raise CmdsyncError(f"the server said: bad token {BEARER}")

    monkeypatch.setattr(cmdsync.runners.plan, "plan_paths", refused)
    code, text = run_cli(capsys, "plan", "bot.yaml")
    assert (code, text) == (1, "error: the server said: bad token [redacted]\n")


@pytest.mark.parametrize("args", [
    ["plan", "--token", BOT, "bot.yaml"],
    ["plan", f"--token={BOT}", "bot.yaml"],
    ["apply", "--auto-approve", "--bot-token", BOT, "bot.yaml"],
    ["pull", f"--client-secret={CLIENT_SECRET}"],
    ["plan", "--bearer-token", BEARER, "bot.yaml"],
    ["validate", "--online", "bot.yaml", BOT_SHAPED],  # a bot token where a path goes
    ["plan", f"Bot {BOT}"],
    ["plan", "--application-id", BEARER, "bot.yaml"],  # the value of a secret variable
], ids=["--token", "--token=", "--bot-token", "--client-secret", "--bearer-token",
        "bot-token-shaped", "authorization-value", "secret-variable-value"])
def test_a_token_on_the_command_line_is_refused(args: list[str], cwd: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                emulator: tuple[Emulator, str]) -> None:
    instance, _ = emulator
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", BEARER)
    (cwd / "bot.yaml").write_text("commands: [{name: ping, description: Ping}]\n",
                                  encoding="utf-8")
    code, text = run_cli(capsys, *args)
    assert (code, text) == (2, f"error: {TOKEN_ON_COMMAND_LINE}\n")
    assert "DISCORD_BOT_TOKEN" in text and "--token-file" in text
    assert instance.log.counts()["requests"] == 0  # refused before anything else


def test_token_files_and_ordinary_arguments_are_accepted(
        cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    (cwd / "bot.token").write_text(BOT, encoding="utf-8")
    (cwd / "bot.yaml").write_text("commands: [{name: ping, description: Ping}]\n",
                                  encoding="utf-8")
    code, text = run_cli(capsys, "plan", "--token-file", "bot.token", "--application-id",
                         APP, "bot.yaml")
    assert code == 0 and leaks(text) == [], text
    assert json.loads(run_cli(capsys, "validate", "-f", "json", "bot.yaml")[1])
