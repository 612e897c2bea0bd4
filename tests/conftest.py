import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line for the faults tests/test_faults.py's runs survived (their
    ``faults_survived`` property), so CI logs show it without ``-s``."""
    survived = [value for report in terminalreporter.stats.get("passed", [])
                for name, value in getattr(report, "user_properties", [])
                if name == "faults_survived"]
    if survived:
        terminalreporter.write_line(
            f"faults survived: {sum(survived)} injected faults and 429s across "
            f"{len(survived)} apply runs under fault injection (tests/test_faults.py)")
