"""Whole-process timings: one child process per run, timed from spawn to exit.

:func:`alternate` runs two commands turn about (cmdsync, peer, cmdsync,
peer...) after one untimed warm-up each (so neither pays for a cold disk
cache or stale bytecode), and returns every sample; the report uses their
medians. :func:`run` also reads the child's own peak resident memory
(``os.wait4``), not the benchmark's, and notes when the child was spawned
and when it exited on the epoch clock (``time.time()``), the clock the
emulator's request log uses, so a run splits into phases around its requests.

The child is forked by a small launcher process (:data:`LAUNCHER`), never by
the benchmark itself: Linux carries a process's peak RSS over ``exec`` from
the image it replaces, so a child forked by the benchmark (which holds the
emulator and its store, hundreds of MiB at full size) would report the
benchmark's peak whenever its own is lower. The launcher is a bare
interpreter (``python -I -S``, about 5 MiB), which is then the floor of
every peak reported. It times the child itself, from fork to exit, so its
own start is not counted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """One run: wall seconds, the child's peak RSS in MiB, its exit code, and
    when it was spawned and when it exited (epoch seconds, ``time.time()``)."""

    seconds: float
    peak_mib: float
    code: int
    spawned: float = 0.0
    exited: float = 0.0


class CommandFailed(RuntimeError):
    """A benchmarked command exited with an unexpected code: its numbers mean nothing."""


# argv: the file descriptor to report on, then the command. Reports wall
# seconds (perf_counter), ru_maxrss (KiB on Linux), the exit code, and the
# epoch seconds of the fork and of the exit, separated by spaces.
LAUNCHER = """\
import os, sys, time
report, command = int(sys.argv[1]), sys.argv[2:]
spawned, start = time.time(), time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(command[0], command)
    except OSError as error:
        os.write(2, f"{command[0]}: {error}\\n".encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
seconds, exited = time.perf_counter() - start, time.time()
figures = (seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), spawned, exited)
os.write(report, " ".join(map(repr, figures)).encode())
"""


def run(command: Sequence[str], *, expect: Sequence[int] = (0,), cwd: str | None = None,
        env: Mapping[str, str] | None = None) -> Sample:
    """Run ``command`` once, output discarded; raise :class:`CommandFailed` on a bad exit.

    Through :data:`LAUNCHER`: see the module docstring.
    """
    reading, writing = os.pipe()
    with tempfile.TemporaryFile() as errors, os.fdopen(reading, "rb") as report:
        try:
            launcher = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", LAUNCHER, str(writing), *command],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, cwd=cwd,
                env=dict(env) if env is not None else None, pass_fds=(writing,))
        finally:
            os.close(writing)
        launcher.wait()
        figures = report.read().decode("ascii").split()
        if launcher.returncode != 0 or len(figures) != 5:
            errors.seek(0)
            tail = errors.read().decode("utf-8", "replace")[-2000:]
            raise CommandFailed(f"the launcher of {' '.join(command)} exited "
                                f"{launcher.returncode}:\n{tail}")
        seconds, peak_kib, spawned, exited = (float(figures[i]) for i in (0, 1, 3, 4))
        code = int(figures[2])
        if code not in expect:
            errors.seek(0)
            tail = errors.read().decode("utf-8", "replace")[-2000:]
            raise CommandFailed(f"{' '.join(command)} exited {code}:\n{tail}")
    return Sample(seconds, peak_kib / 1024, code, spawned, exited)


def alternate(ours: Sequence[str], peer: Sequence[str], *, runs: int,
              cwd: str | None = None) -> tuple[list[Sample], list[Sample]]:
    """``runs`` timed runs of each command, turn about, after one warm-up each."""
    run(ours, cwd=cwd)
    run(peer, cwd=cwd)
    mine: list[Sample] = []
    theirs: list[Sample] = []
    for _ in range(runs):
        mine.append(run(ours, cwd=cwd))
        theirs.append(run(peer, cwd=cwd))
    return mine, theirs


def median(samples: Sequence[Sample]) -> float:
    return statistics.median(s.seconds for s in samples)
