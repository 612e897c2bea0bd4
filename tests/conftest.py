"""Fixtures and hooks for every test; emulator fixtures are in ``tests/emulator/conftest.py``."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import settings

# Property tests draw the same examples on every run (a seeded search), so a
# test fails for the code, never for the draw; CMDSYNC_HYPOTHESIS_RANDOM=1
# explores new examples on a developer's machine.
settings.register_profile("seeded", derandomize=True, database=None)
settings.register_profile("random")
settings.load_profile("random" if os.environ.get("CMDSYNC_HYPOTHESIS_RANDOM") else "seeded")


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
