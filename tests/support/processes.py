"""Run the real ``cmdsync`` as a subprocess, as a user or CI would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def environment(env: Mapping[str, str] | None) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**base, "NO_COLOR": "1", **(env or {})}


def cmdsync_process(*args: str, cwd: Path, env: Mapping[str, str] | None = None
                    ) -> subprocess.Popen[str]:
    """``python -m cmdsync ARGS`` started, not waited for (to send it a signal)."""
    return subprocess.Popen([sys.executable, "-m", "cmdsync", *args], cwd=cwd,
                            env=environment(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)


def cmdsync(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
            timeout: float = 60, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m cmdsync ARGS`` in ``cwd``, with only ``env`` (and PATH, HOME) set."""
    return subprocess.run([sys.executable, "-m", "cmdsync", *args], cwd=cwd,
                          env=environment(env),
                          capture_output=True, text=True, timeout=timeout, input=stdin,
                          check=False)
