"""A bot's own test suite against the emulator: how long one test, a reset and an answer take.

Measured in-process with a real discord.py bot, as the ``discord_emulator``
fixture runs it (``cmdsync.testing``): a test that serves the emulator,
connects the bot through the gateway, registers its commands and invokes
one (fixture start included); a reset between tests; and answers per second
from one connected bot, four invokers at once (each the answer alone, ``settle=False``:
four invokers keep the bot busy, so none would see it idle). Targets (issue 23): at most
1 s per test, 50 ms per reset, at least 100 answers per second.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

TEST_TARGET_S, RESET_TARGET_S, ANSWERS_TARGET = 1.0, 0.050, 100.0


def _bot() -> Any:
    import discord
    from discord.ext import commands

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())

    @bot.tree.command()
    async def ping(interaction: discord.Interaction, text: str = "") -> None:
        """Check the bot is alive"""
        await interaction.response.send_message(f"Pong {text}".strip())

    return bot


async def _one_test() -> float:
    from cmdsync.testing import DiscordEmulator

    started = time.perf_counter()
    with DiscordEmulator() as emulator:
        bot = _bot()
        async with emulator.connect(bot):
            await bot.tree.sync()
            result = await emulator.invoke("/ping")
            assert result.content == "Pong", result
    return time.perf_counter() - started


async def _answers(count: int, invokers: int) -> tuple[float, float]:
    """Answers per second, and the median seconds per answer, from one connected bot."""
    from cmdsync.testing import DiscordEmulator

    with DiscordEmulator() as emulator:
        bot = _bot()
        async with emulator.connect(bot):
            await bot.tree.sync()
            loop = asyncio.get_running_loop()
            timings: list[float] = []

            def one(index: int) -> None:  # distinct options: no answer repeats another
                began = time.perf_counter()
                result = asyncio.run_coroutine_threadsafe(
                    emulator.invoke(f"/ping text:n{index}", settle=False), loop).result(30)
                assert result.content == f"Pong n{index}", result
                timings.append(time.perf_counter() - began)

            started = time.perf_counter()
            with ThreadPoolExecutor(invokers) as pool:
                await asyncio.gather(*(loop.run_in_executor(pool, one, i)
                                       for i in range(count)))
            elapsed = time.perf_counter() - started
    return count / elapsed, statistics.median(timings)


def _resets(count: int) -> float:
    from cmdsync.testing import DiscordEmulator

    emulator = DiscordEmulator()
    timings = []
    for _ in range(count):
        began = time.perf_counter()
        emulator.reset()
        timings.append(time.perf_counter() - began)
    return statistics.median(timings)


def bot_tests(*, runs: int, answers: int) -> dict[str, Any]:
    """The three figures, medians of ``runs`` tests, and their targets."""
    tests = [asyncio.run(_one_test()) for _ in range(runs + 1)][1:]  # one warm-up
    reset = _resets(50)
    per_second, latency = asyncio.run(_answers(answers, invokers=4))
    test = statistics.median(tests)
    return {"test_s": test, "tests_s": tests, "reset_s": reset, "answers_per_s": per_second,
            "answer_median_s": latency, "answers": answers,
            "targets": {"test_s": TEST_TARGET_S, "reset_s": RESET_TARGET_S,
                        "answers_per_s": ANSWERS_TARGET},
            "met": test <= TEST_TARGET_S and reset <= RESET_TARGET_S
            and per_second >= ANSWERS_TARGET}


if __name__ == "__main__":
    import json

    print(json.dumps(bot_tests(runs=3, answers=200), indent=2))
