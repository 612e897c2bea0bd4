"""A bot's whole test suite under pytest: one bot connected for the session against the
same suite reconnecting in every test (issue 36, item 7).

Each suite is a pytest project written to a temporary folder and run by ``python -m
pytest`` in a process of its own, as a bot's developer runs it: a discord.py bot
(``mybot.py``), ``conftest.py`` and ``tests`` tests, each with its own option value so
that no answer repeats another. Three suites:

- ``session``: the bot connects once (``discord_emulator_session``); each test invokes
  ``/ping text:n<i>``. Target: at most 5 s for 100 tests (pytest's own time: the
  session's fixtures, the bot's connection and every test; the process's wall time,
  with the interpreter's start and imports, is reported beside it).
- ``reconnect``: the same tests, each connecting the bot and syncing its commands
  (the way before item 7), reported beside it.
- ``click``: session-connected tests that each run ``/buy item:n<i>`` and click its
  button. Target: at most 100 ms a test (pytest's own time for the suite, divided by
  the tests).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SESSION_TARGET_S, CLICK_TARGET_S, TESTS_FOR_TARGET = 5.0, 0.100, 100

BOT = '''
import discord


class Buy(discord.ui.View):
    def __init__(self, item):
        super().__init__()
        self.item = item

    @discord.ui.button(label="Yes")
    async def yes(self, interaction, button):
        await interaction.response.edit_message(content=f"bought {self.item}", view=None)


def make_bot():
    bot = discord.Client(intents=discord.Intents.default())
    bot.tree = discord.app_commands.CommandTree(bot)

    @bot.tree.command()
    async def ping(interaction: discord.Interaction, text: str) -> None:
        """Check the bot is alive"""
        await interaction.response.send_message(f"Pong {text}")

    @bot.tree.command()
    async def buy(interaction: discord.Interaction, item: str) -> None:
        """Buy, after a confirmation"""
        await interaction.response.send_message(f"buy {item}?", view=Buy(item))

    return bot
'''
SESSION_CONFTEST = '''
import pytest_asyncio

from mybot import make_bot


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def bot(discord_emulator_session):
    async with discord_emulator_session.connect(make_bot()) as bot:
        await bot.tree.sync()
        yield bot
'''
SESSION_TESTS = '''
import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.parametrize("number", range({tests}))
async def test_ping(bot, discord_emulator, number):
    result = await discord_emulator.invoke(f"/ping text:n{{number}}")
    assert result.content == f"Pong n{{number}}"
'''
RECONNECT_TESTS = '''
import pytest

from mybot import make_bot


@pytest.mark.asyncio
@pytest.mark.parametrize("number", range({tests}))
async def test_ping(discord_emulator, number):
    bot = make_bot()
    async with discord_emulator.connect(bot):
        await bot.tree.sync()
        result = await discord_emulator.invoke(f"/ping text:n{{number}}")
    assert result.content == f"Pong n{{number}}"
'''
CLICK_TESTS = '''
import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.parametrize("number", range({tests}))
async def test_buy(bot, discord_emulator, number):
    asked = await discord_emulator.invoke(f"/buy item:n{{number}}")
    clicked = await discord_emulator.click(asked, label="Yes")
    assert clicked.content == f"bought n{{number}}"
'''
SUITES = {"session": (SESSION_CONFTEST, SESSION_TESTS),
          "reconnect": ("", RECONNECT_TESTS),
          "click": (SESSION_CONFTEST, CLICK_TESTS)}


def run_suite(kind: str, tests: int) -> dict[str, float]:
    """One run of suite ``kind`` with ``tests`` tests: ``wall_s`` (the process, from
    start to exit) and ``pytest_s`` (pytest's own "in N s": collection and tests)."""
    conftest, body = SUITES[kind]
    with tempfile.TemporaryDirectory(prefix=f"cmdsync-suite-{kind}-") as folder:
        root = Path(folder)
        (root / "mybot.py").write_text(BOT, encoding="utf-8")
        (root / "conftest.py").write_text(conftest, encoding="utf-8")
        (root / "test_suite.py").write_text(body.format(tests=tests), encoding="utf-8")
        (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = "
                                         "function\n", encoding="utf-8")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "asyncio",
                               "-p", "no:cacheprovider"], cwd=root, capture_output=True,
                              text=True, check=False)
        wall = time.perf_counter() - started
    said = re.search(r"(\d+) passed[^\n]* in ([\d.]+)s", done.stdout)
    if done.returncode != 0 or said is None or int(said.group(1)) != tests:
        raise RuntimeError(f"the {kind} suite failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return {"wall_s": wall, "pytest_s": float(said.group(2))}


def bot_suites(*, runs: int, tests: int = TESTS_FOR_TARGET) -> dict[str, Any]:
    """Medians of ``runs`` runs of each suite, turn about, with the targets scaled to
    ``tests`` (the session target is for 100 tests). A suite's time is pytest's own
    (collection, fixtures, tests); ``*_wall_s`` adds the interpreter's start."""
    samples: dict[str, list[dict[str, float]]] = {kind: [] for kind in SUITES}
    for _ in range(runs):
        for kind in SUITES:
            samples[kind].append(run_suite(kind, tests))
    median = {kind: {key: statistics.median(s[key] for s in found) for key in found[0]}
              for kind, found in samples.items()}
    session_target = SESSION_TARGET_S * tests / TESTS_FOR_TARGET
    session, click_per_test = median["session"]["pytest_s"], median["click"]["pytest_s"] / tests
    return {"tests": tests, "runs": samples, "session_s": session,
            "session_wall_s": median["session"]["wall_s"],
            "reconnect_s": median["reconnect"]["pytest_s"],
            "reconnect_wall_s": median["reconnect"]["wall_s"],
            "click_per_test_s": click_per_test,
            "targets": {"session_s": session_target, "click_per_test_s": CLICK_TARGET_S},
            "met": session <= session_target and click_per_test <= CLICK_TARGET_S}


if __name__ == "__main__":
    import json

    print(json.dumps(bot_suites(runs=1), indent=2))
