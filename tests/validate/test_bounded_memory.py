"""A manifest of a million small nodes is refused in bounded memory.

``commands: [1, 2, 3, ... 1000000]`` (8 MB, under the 10 MB cap) gives a hundred
schema errors and one CS003; their lines and columns once cost the position
of every node (PyYAML's composed tree: 615 to 880 MB), now only those of the
hundred (a pass over the text's events). The real CLI runs in a subprocess;
its peak resident memory is measured by a small parent process of its own,
so that no other test's child counts (``RUSAGE_CHILDREN`` keeps the largest).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("resource", reason="needs POSIX: getrusage(RUSAGE_CHILDREN)")

pytestmark = [pytest.mark.posix, pytest.mark.slow]  # a subprocess run of ~2 s each

PEAK_LIMIT_MB = 500
TIME_LIMIT = 120  # seconds: boundedness, not speed
NUMBERS = ", ".join(str(n) for n in range(1, 1_000_001))
# A parent of its own, so that the peak is validate's alone: its exit code, output and
# peak resident set (ru_maxrss: kilobytes on Linux, bytes on macOS) as JSON.
MEASURE = """\
import json, resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "cmdsync", "validate", sys.argv[1]],
                      capture_output=True, text=True, check=False)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": done.returncode, "output": done.stdout + done.stderr,
                  "peak_kb": peak // 1024 if sys.platform == "darwin" else peak}))
"""
MANIFESTS = {
    "ints.yaml": f"commands: [{NUMBERS}]\n",
    "ints.json": f'{{"commands": [{NUMBERS}]}}',
    # json keeps the last of two equal keys: finding them again once composed it all
    "duplicate.json": f'{{"x-a": 1, "x-a": 2, "commands": [{NUMBERS}]}}',
}


def validate_measured(path: Path) -> tuple[int, str, int]:
    """``cmdsync validate PATH``: its exit code, output and peak memory in MB."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True,
                          text=True, env=env, timeout=TIME_LIMIT, check=True)
    result = json.loads(done.stdout)
    return result["code"], result["output"], result["peak_kb"] // 1024


@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_a_million_integers_are_refused_in_bounded_memory(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(MANIFESTS[name], encoding="utf-8")
    code, output, peak = validate_measured(path)
    assert "Traceback" not in output and "internal error" not in output, output
    lines = output.splitlines()
    assert code == 1, output
    assert f"{path}:1:1: CS003 more than 100 schema errors in this file: the first 100 are " \
           "shown and the rest was not checked; fix these and validate again" in lines
    assert sum(" CS011 item of 'commands' must be an object, not an integer (" in line
               for line in lines) == 100
    if name == "duplicate.json":
        assert f"{path}:1:12: CS002 duplicate key 'x-a' (first at line 1): the last value " \
               "would win silently; remove one" in lines
    assert lines[-1] == f"Found {102 if name == 'duplicate.json' else 101} errors in 1 of 1 file."
    assert peak < PEAK_LIMIT_MB, f"validate peaked at {peak} MB"
