"""A server that accepts and never answers (issue 33, item 8): the commands that make
requests say what they wait for, and fail within ``--timeout`` with a message naming
the host, the request, the timeout and how to change it; never a hang.

The server is a real socket (:func:`tests.support.silent.silent_server`). Each attempt
waits its timeout, then the client retries once: a run takes about twice the timeout
and a backoff of 0.5 s, bounded generously so that a slow machine passes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import clean_environment, run
from tests.support.processes import cmdsync
from tests.support.silent import silent_server

APP = "111111111111111111"
MANIFEST = "commands:\n  - {name: ping, description: Replies with pong}\n"
SETTINGS = ("--timeout SECONDS (or CMDSYNC_TIMEOUT, or timeout = SECONDS in cmdsync.toml)")


def expected(base: str, timeout: str, notice: str, path: str = "/applications/@me") -> str:
    """What standard error holds: a note per attempt of the first request (the
    application's, but for ``check --live``), then the error."""
    host = base.removeprefix("http://").removesuffix("/api/v10")
    return (f"waiting for {host}: GET {path} (attempt 1) for {notice} s...\n"
            f"waiting for {host}: GET {path} (attempt 2) for {notice} s...\n"
            f"error: GET {path}: no answer from {host} within {timeout} s "
            f"(2 attempts): allow it more time with {SETTINGS}\n")


@pytest.fixture
def silent() -> Iterator[str]:
    with silent_server() as base:
        yield base


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory with bot.yaml, and the credentials of one application."""
    clean_environment(monkeypatch)
    monkeypatch.delenv("CMDSYNC_TIMEOUT", raising=False)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "test-token")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", APP)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


def test_plan_against_a_server_that_never_answers_fails_within_the_timeout(
        tmp_path: Path, silent: str) -> None:
    """The real program: before, ``plan`` waited 83 s in silence (5 attempts of 15 s)."""
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    started = time.monotonic()
    done = cmdsync("plan", "--api-url", silent, "--timeout", "1", "bot.yaml", cwd=tmp_path,
                   env={"DISCORD_BOT_TOKEN": "test-token", "DISCORD_APPLICATION_ID": APP},
                   timeout=60)
    took = time.monotonic() - started
    assert (done.returncode, done.stdout, done.stderr) == (1, "", expected(silent, "1", "0.5"))
    assert took < 30


@pytest.mark.parametrize("args", [
    ["apply", "--auto-approve", "bot.yaml"],
    ["pull"],
    ["validate", "--online", "bot.yaml"],
])
def test_every_command_that_reads_the_application_takes_the_timeout(
        project: Path, silent: str, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code, out, err = run(capsys, *args, "--api-url", silent, "--timeout", "0.2")
    assert (code, out, err) == (1, "", expected(silent, "0.2", "0.1"))
    assert time.monotonic() - started < 30


def test_check_live_takes_the_timeout(project: Path, silent: str,
                                      capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "timeout_bot.py").write_text(
        "import discord\nfrom discord import app_commands\n\n"
        "client = discord.Client(intents=discord.Intents.none())\n"
        "tree = app_commands.CommandTree(client)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(project))
    code, out, err = run(capsys, "check", "discord.py:timeout_bot:tree", "--live",
                         "--api-url", silent, "--timeout", "0.2")
    assert (code, out, err) == (1, "", expected(silent, "0.2", "0.1",
                                                f"/applications/{APP}/commands"))


CONFIG = f"""\
manifests = ["bot.yaml"]
timeout = 0.3
default_environment = "dev"

[environments.dev]
application_id = "{APP}"
"""


@pytest.mark.parametrize(("config", "variable", "flag", "chosen"), [
    (CONFIG, None, None, "0.3"),  # the configuration's top-level timeout
    (CONFIG + "timeout = 0.25\n", None, None, "0.25"),  # the environment's beats it
    (CONFIG + "timeout = 0.25\n", "0.2", None, "0.2"),  # the variable beats the file
    (CONFIG + "timeout = 0.25\n", "0.2", "0.15", "0.15"),  # the flag beats them all
], ids=["file", "environment", "variable", "flag"])
def test_the_timeout_comes_from_the_flag_the_variable_then_the_configuration(
        project: Path, silent: str, config: str, variable: str | None, flag: str | None,
        chosen: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "cmdsync.toml").write_text(config, encoding="utf-8")
    if variable is not None:
        monkeypatch.setenv("CMDSYNC_TIMEOUT", variable)
    code, _, err = run(capsys, "plan", "--api-url", silent,
                       *(["--timeout", flag] if flag is not None else []))
    assert code == 1
    assert err.endswith(f" within {chosen} s (2 attempts): allow it more time with "
                        f"{SETTINGS}\n")


@pytest.mark.parametrize(("setting", "message"), [
    (["--timeout", "0"],
     "Invalid value for '--timeout': 0 is not a number of seconds above 0 (such as 30)"),
    (["--timeout", "inf"],
     "Invalid value for '--timeout': inf is not a number of seconds above 0 (such as 30)"),
    ("CMDSYNC_TIMEOUT=soon",
     "error: CMDSYNC_TIMEOUT 'soon' is not a number of seconds above 0 (such as 30)\n"),
    ("timeout = -1",
     ("cmdsync.toml:2: timeout must be a number of seconds above 0 (to wait for each "
      "request), such as timeout = 30\n")),
    ('[environments.dev]\ntimeout = "30"',
     ("cmdsync.toml:3: environments.dev: timeout must be a number of seconds above 0 "
      "(to wait for each request), such as timeout = 30\n")),
], ids=["zero", "infinite", "variable", "file", "environment"])
def test_a_timeout_that_is_no_number_of_seconds_is_a_usage_error_before_any_request(
        project: Path, setting: list[str] | str, message: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    flags: list[str] = []
    if isinstance(setting, list):
        flags = setting
    elif setting.startswith("CMDSYNC_TIMEOUT="):
        monkeypatch.setenv("CMDSYNC_TIMEOUT", setting.split("=", 1)[1])
    else:
        (project / "cmdsync.toml").write_text(f'manifests = ["bot.yaml"]\n{setting}\n',
                                              encoding="utf-8")
    # port 9 (discard) on loopback: nothing listens, and nothing is sent before the error
    code, out, err = run(capsys, "plan", "--api-url", "http://127.0.0.1:9/api/v10", *flags,
                         "bot.yaml")
    assert (code, out) == (2, "")
    assert message in err
    assert "cannot connect" not in err


def test_validate_offline_refuses_the_timeout_without_online(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", "--timeout", "5", "bot.yaml")
    assert code == 2
    assert "connection options need --online" in err


def test_invoke_takes_the_timeout(project: Path, silent: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """invoke waits 60 s for each call by default (the emulator holds a call while the
    bot answers); --timeout bounds it like the other commands."""
    started = time.monotonic()
    code, out, err = run(capsys, "invoke", "--api-url", silent, "--timeout", "1", "/ping")
    host = silent.removeprefix("http://").removesuffix("/api/v10")
    assert code == 1 and out == ""
    assert err == (f"error: POST /_emulator/interactions: no answer from {host} "
                   f"within 1 s (1 attempt): allow it more time with {SETTINGS}\n")
    assert time.monotonic() - started < 30
