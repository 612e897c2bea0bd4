"""The install instructions promise only installs that work today.

cmdsync installs from its repository (``pipx install
git+https://github.com/cmdsync/cmdsync``, or a clone and ``pip install -e``);
its name on PyPI works once a release is published there. So the pages a
newcomer installs from lead with an install from the repository, and every
install by the PyPI name, in the README or any page of docs/, says in its own
paragraph, or the one just before its block, that it needs a published release.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.blocks import pages
from tests.support.paths import ROOT

REPOSITORY = "git+https://github.com/cmdsync/cmdsync"
INSTALL = re.compile(r"\b(?:pipx install|uv tool install|uv add(?: --dev)?|uv pip install"
                     r"|pip install|git clone)\b[^\n`]*")
# An install by the name on PyPI: `pip install cmdsync`, `pip install 'cmdsync[extra]'`...
BY_NAME = re.compile(r"\b(?:pipx install|uv tool install|uv add(?: --dev)?|uv pip install"
                     r"|pip install) +['\"]?cmdsync(?:\[[^\]]*\])?['\"]?(?=[\s`]|$)",
                     re.MULTILINE)
ONCE_RELEASED = re.compile(r"once\s+a\s+release\s+is\s+published", re.IGNORECASE)
# Where a newcomer installs from, and the part of the page that installs.
INSTALL_PAGES = {"README.md": "## Install\n", "docs/getting-started/install.md": "",
                 "docs/getting-started/index.md": ""}


def units(text: str) -> list[str]:
    """A page's paragraphs and fenced blocks (a block is one unit), in order."""
    found: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        opens = line.lstrip().startswith("```")
        if not fenced and (opens or not line.strip()):
            if current:
                found.append("\n".join(current))
            current = []
        if fenced or opens or line.strip():
            current.append(line)
        if opens:
            fenced = not fenced
            if not fenced:
                found.append("\n".join(current))
                current = []
    if current:
        found.append("\n".join(current))
    return found


def unkept_promises(text: str) -> list[str]:
    """The installs by the PyPI name that do not say they need a published release."""
    parts = units(text)
    return [match[0] for index, unit in enumerate(parts) for match in BY_NAME.finditer(unit)
            if not ONCE_RELEASED.search(unit if not unit.lstrip().startswith("```")
                                        else parts[index - 1] + unit)]


def first_install(page: str, start: str) -> str:
    text = (ROOT / page).read_text(encoding="utf-8")
    found = INSTALL.search(text, text.index(start))
    assert found is not None, f"{page}: no install line"
    return found[0]


def from_repository(line: str) -> bool:
    return REPOSITORY in line or line.startswith("git clone") or " -e " in f"{line} "


@pytest.mark.parametrize(("page", "start"), INSTALL_PAGES.items())
def test_an_install_page_leads_with_an_install_from_the_repository(page: str,
                                                                   start: str) -> None:
    line = first_install(page, start)
    assert from_repository(line), f"{page} leads with {line!r}"


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in pages()])
def test_an_install_by_the_pypi_name_says_it_needs_a_release(page: str) -> None:
    assert unkept_promises((ROOT / page).read_text(encoding="utf-8")) == []


def test_the_checks_tell_a_kept_promise_from_an_unkept_one(tmp_path: Path) -> None:
    unkept = "Install it:\n\n```console\n$ pipx install cmdsync\n```\n"
    kept = ("Once a release is published on PyPI:\n\n```console\n$ pipx install cmdsync"
            "   # or: uv tool install cmdsync\n```\n\nThe extra: `pip install "
            "'cmdsync[discord.py]'` once a release\nis published.\n")
    assert unkept_promises(unkept) == ["pipx install cmdsync"]
    assert unkept_promises(kept) == []
    assert unkept_promises("`pip install 'cmdsync[discord.py]'` today\n") == [
        "pip install 'cmdsync[discord.py]'"]
    assert from_repository(f"pipx install {REPOSITORY}")
    assert from_repository("python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]'")
    assert not from_repository("pipx install cmdsync")
