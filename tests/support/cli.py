"""Helpers for tests that drive the ``cmdsync`` CLI in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cmdsync.cli import main
from cmdsync.emulator import seed as emulator_seed

# Variables that change what the CLI does: credentials, the API, colour, CI output.
SETTINGS = ("CMDSYNC_API_URL", "CMDSYNC_TIMEOUT", "FORCE_COLOR", "NO_COLOR", "GITHUB_ACTIONS")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``cmdsync ARGS``: its exit code, standard output and standard error."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def run_secretly(capsys: pytest.CaptureFixture[str], secrets: tuple[str, ...], *args: str
                 ) -> tuple[int, str, str]:
    """:func:`run`, failing if any of ``secrets`` appears in what cmdsync printed."""
    code, out, err = run(capsys, *args)
    assert not any(secret in out + err for secret in secrets)
    return code, out, err


def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every ``DISCORD_*`` variable and the settings above, for this test."""
    for name in list(os.environ):
        if name.startswith("DISCORD_") or name in SETTINGS:
            monkeypatch.delenv(name)


def login_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, client_id: str,
               client_secret: str) -> Path:
    """The environment of a user who logs in with an application's client id and secret,
    in ``tmp_path``; the token store's directory (``CMDSYNC_CONFIG_DIR``)."""
    clean_environment(monkeypatch)
    monkeypatch.setenv("CMDSYNC_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("DISCORD_CLIENT_ID", client_id)
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", client_secret)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "config"


GUILD = emulator_seed.GUILD_ID
MANIFEST = f"""\
commands:
  - name: ping
    description: Check the bot is alive
    options:
      - {{type: string, name: target, description: Who, required: false}}
guilds:
  "{GUILD}":
    commands:
      - {{type: message, name: Report}}
    permissions:
      Report: [{{type: role, id: everyone, permission: false}}]
"""


FIRST_PLAN = (
    "cmdsync will perform the following actions on application cmdsync emulator "
    "(111111111111111111):\n"
    "\n"
    "global:\n"
    '  + chat_input "ping"\n'
    "  after apply: 1/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE, 0/1 PRIMARY_ENTRY_POINT\n"
    "\n"
    f"guild {GUILD}:\n"
    '  + message "Report"\n'
    '  + permissions of "Report" (command created by this plan)\n'
    "      + role @everyone: deny\n"
    "  1 create counts toward Discord's limit of 200 per guild per day; after apply: "
    "0/100 CHAT_INPUT, 0/15 USER, 1/15 MESSAGE\n"
    "\n"
    "Plan: 2 to create, 0 to update, 0 to delete, 1 permission set to change.\n"
)
