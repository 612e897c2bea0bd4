"""Whole-process timings: one child process per run, timed from spawn to exit.

:func:`alternate` runs two commands turn about (cmdsync, peer, cmdsync,
peer...) after one untimed warm-up each (so neither pays for a cold disk
cache or stale bytecode), and returns every sample; the report uses their
medians. :func:`run` also reads the child's own peak resident memory
(``os.wait4``), not the benchmark's.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """One run: wall seconds, the child's peak RSS in MiB, its exit code."""

    seconds: float
    peak_mib: float
    code: int


class CommandFailed(RuntimeError):
    """A benchmarked command exited with an unexpected code: its numbers mean nothing."""


def run(command: Sequence[str], *, expect: Sequence[int] = (0,), cwd: str | None = None,
        env: Mapping[str, str] | None = None) -> Sample:
    """Run ``command`` once, output discarded; raise :class:`CommandFailed` on a bad exit."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(list(command), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=errors, cwd=cwd,
                                 env=dict(env) if env is not None else None)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in expect:
            errors.seek(0)
            tail = errors.read().decode("utf-8", "replace")[-2000:]
            raise CommandFailed(f"{' '.join(command)} exited {code}:\n{tail}")
    return Sample(seconds, usage.ru_maxrss / 1024, code)


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
