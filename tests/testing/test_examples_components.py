"""examples/discordpy-components/ as a user runs it: its own test suite (test_bot.py, with
its pytest.ini) in a pytest session of its own, against the bot beside it; and
docs/testing/examples.md, which shows its files, shows them as they are."""

from __future__ import annotations

import shutil

import pytest

from tests.docs.blocks import blocks_of
from tests.support import paths

pytest_plugins = ["pytester"]

EXAMPLE = paths.EXAMPLES / "discordpy-components"
PAGE = paths.ROOT / "docs" / "testing" / "examples.md"
FILES = ("bot.py", "test_bot.py", "pytest.ini")


def test_the_example_bots_tests_pass(pytester: pytest.Pytester) -> None:
    pytest.importorskip("discord", reason="the example is a discord.py bot")
    for name in FILES:
        shutil.copy(EXAMPLE / name, pytester.path / name)
    result = pytester.runpytest_subprocess("-p", "asyncio", "-q")
    result.assert_outcomes(passed=4)


def test_the_docs_page_shows_the_example_files() -> None:
    """Each fenced block of docs/testing/examples.md is the file its title names, as it
    is: the page cannot drift from the example."""
    blocks = blocks_of(PAGE)
    assert [b.title for b in blocks] == [f"examples/discordpy-components/{name}"
                                         for name in FILES]
    for block in blocks:
        assert block.text == (paths.ROOT / str(block.title)).read_text(encoding="utf-8"), (
            f"{block} differs from {block.title}")
