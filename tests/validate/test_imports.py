"""validate runs on every commit: it must import only what it needs."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import paths

GOOD = paths.DATA / "cli" / "good.yaml"
# Heavy modules that validate never needs (network, server, rich when piped, discord.py
# unless a discord.py: source is given).
FORBIDDEN = ("httpx", "rich", "starlette", "uvicorn", "sqlite3", "asyncio", "hypothesis",
             "discord")


def imported_modules(*args: str) -> set[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "cmdsync", *args],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode in (0, 1), done.stderr
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_validate_imports_nothing_heavy() -> None:
    modules = imported_modules("validate", str(GOOD))
    assert "cmdsync.validate" in modules
    heavy = sorted(m for m in modules if m.split(".")[0] in FORBIDDEN)
    assert heavy == []


def test_help_does_not_import_the_validator() -> None:
    modules = imported_modules("--help")
    assert not {"jsonschema", "cmdsync.validate", "regex"} & modules
