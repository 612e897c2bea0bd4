"""Headless Chromium for the tests that click through a page (no tests here).

Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it
when missing), driven with Playwright; never ``playwright install``, which
downloads a browser build. :func:`chromium` finds it, :data:`ARGS` launches
it headless with nothing fetched in the background.
"""

from __future__ import annotations

import os
import shutil

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    """Debian's Chromium (``CMDSYNC_CHROMIUM`` names another), or None."""
    for candidate in (os.environ.get("CMDSYNC_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None
