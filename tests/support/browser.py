"""Headless Chromium for the tests that click through a page (no tests here).

Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it
when missing), driven with Playwright; never ``playwright install``, which
downloads a browser build. :func:`chromium` finds it, :data:`ARGS` launches
it headless with nothing fetched in the background, :func:`launched` gives it to
a fixture.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    """Debian's Chromium (``CMDSYNC_CHROMIUM`` names another), or None."""
    for candidate in (os.environ.get("CMDSYNC_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def launched() -> Iterator[Any]:
    """A launched headless Chromium (Playwright's ``Browser``), closed afterwards; skips
    the test, saying why, without Playwright or a Chromium. For a fixture to yield from."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[dev]')")
    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium found: apt-get install chromium (or set CMDSYNC_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
