"""Helpers for tests that drive the ``cmdsync`` CLI in-process."""

from __future__ import annotations

import os

import pytest

from cmdsync.cli import main

# Variables that change what the CLI does: credentials, the API, colour, CI output.
SETTINGS = ("CMDSYNC_API_URL", "FORCE_COLOR", "NO_COLOR", "GITHUB_ACTIONS")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``cmdsync ARGS``: its exit code, standard output and standard error."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every ``DISCORD_*`` variable and the settings above, for this test."""
    for name in list(os.environ):
        if name.startswith("DISCORD_") or name in SETTINGS:
            monkeypatch.delenv(name)
