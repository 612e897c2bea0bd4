"""Fixtures and hooks for every test; emulator fixtures are in ``tests/emulator/conftest.py``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.support import paths

# Property tests draw the same examples on every run (a seeded search), so a
# test fails for the code, never for the draw; CMDSYNC_HYPOTHESIS_RANDOM=1
# explores new examples on a developer's machine.
settings.register_profile("seeded", derandomize=True, database=None)
settings.register_profile("random")
settings.load_profile("random" if os.environ.get("CMDSYNC_HYPOTHESIS_RANDOM") else "seeded")

# `cmdsync login`'s store: a file in a directory of this run's, never the user's keyring
# or config directory (tests that log in point CMDSYNC_CONFIG_DIR at their tmp_path).
os.environ["CMDSYNC_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cmdsync-config-")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``corpus`` every test that reads the real-world corpus (CMDSYNC_TEST_SHARED)
    (a corpus file among its parameters, or marked so by its module), so that
    ``pytest -m corpus`` runs just those against a corpus found elsewhere."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        values = callspec.params.values() if callspec is not None else ()
        if any(isinstance(v, Path) and v.is_relative_to(paths.CORPUS) for v in values):
            item.add_marker(pytest.mark.corpus)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line for the faults tests/apply/test_faults.py's runs survived (their
    ``faults_survived`` property), so CI logs show it without ``-s``."""
    survived = [value for report in terminalreporter.stats.get("passed", [])
                for name, value in getattr(report, "user_properties", [])
                if name == "faults_survived"]
    if survived:
        terminalreporter.write_line(
            f"faults survived: {sum(survived)} injected faults and 429s across "
            f"{len(survived)} apply runs under fault injection (tests/apply/test_faults.py)")
