"""``cmdsync emulator --open`` and ``--local``, as a user runs them (subprocesses), and the
commands docs/console.md shows, run as written.

The browser ``--open`` starts is a stand-in named by ``BROWSER`` (Python's
webbrowser module honours it) that fetches the URL it is given and writes
what it got, so the test sees the console answered at that address.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.support.paths import ROOT
from tests.support.processes import cmdsync, running

pytestmark = pytest.mark.slow  # subprocesses and a served emulator

DOC = ROOT / "docs" / "console.md"
BROWSER = """\
import sys, urllib.request
with urllib.request.urlopen(sys.argv[2]) as page:
    text = page.read().decode()
title = text.split("<title>")[1].split("</title>")[0]
open(sys.argv[1], "w").write(f"{sys.argv[2]} {page.status} {page.url} {title}")
"""
MANIFEST = """\
commands:
  - name: ping
    description: Check the bot is alive
"""


def _browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script, opened = tmp_path / "browser.py", tmp_path / "opened.txt"
    script.write_text(BROWSER, encoding="utf-8")
    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} {opened} %s")
    return opened


def _wait_for(path: Path) -> str:
    deadline = time.monotonic() + 30
    while not path.exists() or not path.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, f"{path} was not written"
        time.sleep(0.05)
    return path.read_text(encoding="utf-8")


def test_open_starts_a_browser_on_the_console(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _browser(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    with running("--open") as (base_url, _):
        assert _wait_for(opened) == (f"{base_url}/ 200 {base_url}/console/commands "
                                     "Commands · cmdsync emulator console")


def test_local_serves_the_state_of_apply_local_and_shows_its_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "commands.yaml").write_text(MANIFEST, encoding="utf-8")
    applied = cmdsync("apply", "--local", "--auto-approve", "commands.yaml", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    opened = _browser(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    with running("--local", "--open") as (base_url, _):
        _wait_for(opened)
        page = httpx.get(f"{base_url}/console/commands").text
        assert re.findall(r'class="command-name"[^>]*>([^<]+)<', page) == ["ping"]
        origin = {"origin": base_url}
        with connect(f"{base_url.replace('http', 'ws')}/console/live",
                     additional_headers=origin) as live:
            assert json.loads(live.recv(timeout=30)) == {"type": "hello"}
            (tmp_path / "commands.yaml").write_text(
                MANIFEST + "  - name: stats\n    description: Server statistics\n",
                encoding="utf-8")
            again = cmdsync("apply", "--local", "--auto-approve", "commands.yaml",
                            cwd=tmp_path)
            assert again.returncode == 0, again.stderr
            assert json.loads(live.recv(timeout=30)) == {"type": "change"}
        page = httpx.get(f"{base_url}/console/commands").text
        assert re.findall(r'class="command-name"[^>]*>([^<]+)<', page) == ["ping", "stats"]


def test_local_and_state_are_one_or_the_other(tmp_path: Path) -> None:
    result = cmdsync("emulator", "--local", "--state", "x.sqlite", cwd=tmp_path)
    assert result.returncode == 2
    assert "--local serves .cmdsync/local.sqlite: drop --state" in result.stderr


def test_the_docs_commands_are_these() -> None:
    """docs/console.md shows only the commands the tests above run."""
    shown = re.findall(r"^\$ (.+)$", DOC.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert shown == ["cmdsync emulator --open",
                     "cmdsync apply --local --auto-approve commands.yaml",
                     "cmdsync emulator --local --open"]
