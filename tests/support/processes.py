"""Run the real ``cmdsync`` as a subprocess, as a user or CI would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def cmdsync(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
            timeout: float = 60, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m cmdsync ARGS`` in ``cwd``, with only ``env`` (and PATH, HOME) set."""
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    base.update({"NO_COLOR": "1", **(env or {})})
    return subprocess.run([sys.executable, "-m", "cmdsync", *args], cwd=cwd, env=base,
                          capture_output=True, text=True, timeout=timeout, input=stdin,
                          check=False)
