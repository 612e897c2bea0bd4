"""The fenced code blocks of the README and of every page in ``docs/``.

Each block is an example the documentation promises; ``test_examples.py`` runs
or checks every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)(?P<attrs>[^\n`]*)$")
TITLE = re.compile(r'title="(?P<title>[^"]+)"')


@dataclass(frozen=True)
class Block:
    """One fenced block: its page (relative to the repository), the line of its
    opening fence (1-based), language, ``title="..."`` attribute and text."""

    page: str
    line: int
    lang: str
    title: str | None
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.lang or 'plain'})"


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of one Markdown file (in a list item too), in order."""
    page = path.relative_to(ROOT).as_posix()
    found: list[Block] = []
    opened: tuple[int, str, str | None] | None = None
    indent = ""
    body: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if opened is None:
            match = FENCE.match(line)
            if match:
                title = TITLE.search(match["attrs"])
                opened = (number, match["lang"], title["title"] if title else None)
                indent = match["indent"]
                body = []
        elif line == indent + "```":
            found.append(Block(page, opened[0], opened[1], opened[2],
                               "".join(f"{text}\n" for text in body)))
            opened = None
        else:
            body.append(line.removeprefix(indent))
    assert opened is None, f"{page}:{opened[0]}: a fence that is never closed"
    return found


def all_blocks() -> list[Block]:
    return [block for path in pages() for block in blocks_of(path)]
