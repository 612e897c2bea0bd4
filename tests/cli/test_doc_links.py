"""Where cmdsync's own words send a user: the documentation site's pages, which exist in
docs/, never a README heading (the README no longer holds the reference)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cmdsync.runners.starter import STARTER_CONFIG
from tests.support.cli import run
from tests.support.paths import ROOT

SITE = "https://cmdsync.github.io/cmdsync/"
SOURCES = sorted((ROOT / "src" / "cmdsync").rglob("*.py"))


def page(address: str) -> Path | None:
    """The docs/ file a site address is built from, or None."""
    path = address.removeprefix(SITE).strip("/")
    for candidate in (ROOT / "docs" / f"{path}.md", ROOT / "docs" / path / "index.md"):
        if candidate.is_file():
            return candidate
    return None


def test_the_starter_configuration_links_the_configuration_page() -> None:
    first = STARTER_CONFIG.splitlines()[0]
    assert first == ("# cmdsync's project configuration "
                     "(https://cmdsync.github.io/cmdsync/configuration/).")
    assert page(f"{SITE}configuration/") == ROOT / "docs" / "configuration.md"


def test_the_emulators_seed_help_names_the_seed_page(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "emulator", "--help")
    assert code == 0
    out = " ".join(out.split())
    assert ("--seed FILE YAML file of applications, guilds, users and tokens (see "
            "docs/emulator/seed.md, https://cmdsync.github.io/cmdsync/emulator/seed/).") in out
    assert page(f"{SITE}emulator/seed/") == ROOT / "docs" / "emulator" / "seed.md"


def test_no_source_sends_to_the_readme() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}" for path in SOURCES
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "README" in line or "github.com/cmdsync/cmdsync#" in line]
    assert found == []


def test_every_site_address_in_the_sources_is_a_page_of_docs() -> None:
    addresses = {address for path in SOURCES for address in re.findall(
        re.escape(SITE) + r"[\w/.-]*", path.read_text(encoding="utf-8"))}
    assert f"{SITE}configuration/" in addresses
    assert sorted(a for a in addresses if page(a) is None) == []
