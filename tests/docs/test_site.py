"""The documentation site builds with no broken link, and the README fits a first visit."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import blocks_of
from tests.support.paths import ROOT

README = ROOT / "README.md"


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250


def test_readme_setup_block_is_what_ci_runs() -> None:
    """The first ``sh`` block holds the two set-up commands, which ``.ci/run`` runs as
    they are, in a clone with nothing beside it (the promise is kept by CI itself)."""
    first = next(b for b in blocks_of(README) if b.lang == "sh")
    commands = first.text.splitlines()
    assert len(commands) == 2
    assert commands[0].startswith("python3 -m venv .venv && .venv/bin/pip install")
    assert commands[1] == ".venv/bin/python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "/^```sh$/{found=1; next}" in ci and 'bash -euo pipefail -c "$command"' in ci


def test_readme_links_resolve() -> None:
    """Every relative link of the README names a file or folder of the repository,
    and an anchor into a docs page names one of its headings."""
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(#[^)]*)?\)", text):
        path, anchor = target
        if path.startswith(("http://", "https://")):
            continue
        assert (ROOT / path).exists(), path
        if anchor:
            headings = re.findall(r"^#+ (.+)$", (ROOT / path).read_text(encoding="utf-8"),
                                  re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                     for h in headings}
            assert anchor[1:] in slugs, f"{path}{anchor}"


def test_every_docs_page_is_in_the_navigation() -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8")
                            .replace("!!python/name:", ""))
    listed: set[str] = set()

    def walk(items: object) -> None:
        if isinstance(items, list):
            for item in items:
                walk(item)
        elif isinstance(items, dict):
            for value in items.values():
                walk(value)
        elif isinstance(items, str):
            listed.add(items)

    walk(config["nav"])
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
             if "hooks" not in p.parts}
    assert pages - listed == set()
    assert listed - pages == set()


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """``mkdocs build --strict``: no warning, so no broken link or anchor (mkdocs.yml's
    ``validation`` makes every link and anchor problem a warning)."""
    pytest.importorskip("mkdocs", reason="mkdocs is in the dev extra")
    pytest.importorskip("material", reason="mkdocs-material is in the dev extra")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(site)], cwd=ROOT, check=False, capture_output=True,
                          text=True, timeout=300, env={"NO_MKDOCS_2_WARNING": "1",
                                                       "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    reference = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("validate", "plan", "apply", "pull", "invoke", "emulator", "login"):
        assert f'id="cmdsync-{command}"' in reference
    for option in ("--auto-approve", "--detailed-exitcode", "--local", "--follow-ups"):
        assert option in reference  # every option of every command, as --help shows it
    assert (site / "search" / "search_index.json").exists()
    shutil.rmtree(site)


def test_readme_screenshots_are_the_console_tests_own() -> None:
    """Each console screenshot the README shows is one the browser tests make
    (tests/console/test_pages.py writes them with CMDSYNC_WRITE_SCREENSHOTS=1)."""
    text = README.read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]+\]\(docs/images/console-(\w+)\.png\)", text)
    made = (ROOT / "tests" / "console" / "test_pages.py").read_text(encoding="utf-8")
    assert shown == ["commands", "permissions", "run", "log", "messages"]
    for name in shown:
        assert f'"{name}": url(world, "{name}"' in made
        assert (ROOT / "docs" / "images" / f"console-{name}.png").read_bytes()[:4] == b"\x89PNG"
