"""Run the real ``cmdsync`` as a subprocess, as a user or CI would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path


def environment(env: Mapping[str, str] | None) -> dict[str, str]:
    # SYSTEMROOT: Python does not start on Windows without it; TEMP, TMP: its TMPDIR
    kept = ("PATH", "HOME", "LANG", "TMPDIR", "SYSTEMROOT", "TEMP", "TMP",
            "CMDSYNC_CONFIG_DIR")  # tests/conftest.py's: never the user's login store
    base = {k: v for k, v in os.environ.items() if k in kept}
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


# ``python -m cmdsync ARGS`` with Ctrl-C as in a terminal, even when pytest itself
# runs as a background job (a shell without job control starts those with SIGINT
# ignored, and an exec keeps an ignored signal ignored).
WITH_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
               "os.execv(sys.executable, [sys.executable, '-m', 'cmdsync', *sys.argv[1:]])")


@contextmanager
def running(*args: str) -> Iterator[tuple[str, list[str]]]:
    """``cmdsync emulator --port 0 ARGS``; yields its base URL and banner lines."""
    process = subprocess.Popen(
        [sys.executable, "-c", WITH_CTRL_C, "emulator", "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NO_COLOR": "1"})
    assert process.stdout is not None
    lines: list[str] = []
    timer = threading.Timer(20, process.kill)
    timer.start()
    try:
        while not lines or "admin API" not in lines[-1]:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else "no output"
            lines.append(line.rstrip("\n"))
        yield lines[0].split(" at ")[1].removesuffix("/api/v10"), lines
    finally:
        timer.cancel()
        process.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop, exit code 130
        assert process.wait(timeout=10) == 130
