"""examples/hikari/bot.py as a user starts it: its docstring gives the commands
docs/testing/invoke.md gives, and a missing variable is one line naming it (exit 2)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import pytest

from tests.support.paths import EXAMPLES, ROOT

BOT = EXAMPLES / "hikari" / "bot.py"


def docs_lines() -> list[str]:
    """The ``$`` lines of docs/testing/invoke.md's block that starts the bot, up to its
    first ``cmdsync invoke``."""
    page = (ROOT / "docs" / "testing" / "invoke.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```console\n(.*?)```", page, re.DOTALL)
                 if "python examples/hikari/bot.py" in b)
    lines = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    return lines[:next(i for i, line in enumerate(lines) if "cmdsync invoke" in line) + 1]


def test_the_docstring_gives_the_commands_of_the_invoke_page() -> None:
    docstring = ast.get_docstring(ast.parse(BOT.read_text(encoding="utf-8"))) or ""
    shown = [line.strip() for line in docstring.splitlines()]
    wanted = docs_lines()
    assert [line.split()[0] for line in wanted] == [
        "export", "cmdsync", ("DISCORD_PUBLIC_KEY=cee21bdaa4cc4d64a13b77459e5816ae5d4143290aeb55"
        "12a3901dbb4da11d73"), "cmdsync"]
    assert [line for line in wanted if line not in shown] == []
    assert all(name in wanted[0] for name in ("DISCORD_BOT_TOKEN=", "CMDSYNC_API_URL="))


@pytest.mark.parametrize(("given", "message"), [
    ({}, ("examples/hikari/bot.py: DISCORD_BOT_TOKEN is not set: set it to the bot token "
         "`cmdsync emulator` prints (emulator-bot-token)")),
    ({"DISCORD_BOT_TOKEN": "emulator-bot-token"},
     ("examples/hikari/bot.py: DISCORD_PUBLIC_KEY is not set: set it to the public key "
     "(verify_key) `cmdsync emulator` prints")),
])
def test_a_missing_variable_is_one_line_naming_it(given: dict[str, str], message: str) -> None:
    pytest.importorskip("hikari", reason="hikari[server] is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CMDSYNC_"))}
    ran = subprocess.run([sys.executable, str(BOT)], env={**env, **given}, cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert (ran.returncode, ran.stdout, ran.stderr) == (2, "", message + "\n")
