"""Rough edges a new user hit that need real processes (issue 28): two commands
starting at once on a fresh ``.cmdsync/``, and Ctrl-C at apply's question.

Processes are synchronized with barriers, never sleeps; the timeouts below only
stop a test that hangs (the bug it guards against), they assert nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pty = pytest.importorskip(
    "pty", reason="needs POSIX: a pseudo-terminal and SIGINT sent to a child process")

from cmdsync.apply.backup import write_backup
from cmdsync.emulator import seed as emulator_seed
from tests.support.cli import MANIFEST
from tests.support.processes import environment

APP = emulator_seed.APPLICATION_ID
PROCESSES = 4
ROUNDS = 4
HANG = 60  # seconds before a hung child is called hung


def _plan_in(directories: list[str], barrier: Any, results: Any) -> None:
    """In a spawned process: for each directory, wait for the others, then run
    ``cmdsync plan --local bot.yaml`` there (the CLI's main, in this process)."""
    from cmdsync.cli import main

    for directory in directories:
        os.chdir(directory)
        out, err = io.StringIO(), io.StringIO()
        barrier.wait(timeout=HANG)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(["plan", "--local", "bot.yaml"])
            except SystemExit as exited:
                code = exited.code
        results.put((directory, code, err.getvalue()))


@pytest.mark.slow
def test_processes_starting_on_a_fresh_state_all_plan(tmp_path: Path) -> None:
    """Each round, four processes start on one new ``.cmdsync/``: each creates it,
    makes ``local.sqlite`` and seeds it, under its lock (item 14)."""
    directories = []
    for number in range(ROUNDS):
        directory = tmp_path / f"round{number}"
        directory.mkdir()
        (directory / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
        directories.append(str(directory))
    context = multiprocessing.get_context("spawn")  # no fork of a threaded pytest
    barrier, results = context.Barrier(PROCESSES), context.Queue()
    children = [context.Process(target=_plan_in, args=(directories, barrier, results))
                for _ in range(PROCESSES)]
    for child in children:
        child.start()
    try:
        outcomes = [results.get(timeout=HANG) for _ in range(PROCESSES * ROUNDS)]
    finally:
        for child in children:
            child.join(timeout=HANG)
    assert [(code, err) for _, code, err in outcomes if (code, err) != (0, "")] == []
    assert sorted({directory for directory, _, _ in outcomes}) == directories


def test_backups_taken_in_the_same_second_each_get_a_name(tmp_path: Path) -> None:
    """Eight applies back up in the same second at once: eight files, no refusal (item
    14: the name is taken by exclusive creation, the next one tried when taken)."""
    manifest = {"application_id": APP, "commands": [{"name": "ping", "description": "P"}]}
    barrier = threading.Barrier(8)
    written: list[str] = []
    failures: list[BaseException] = []

    def back_up() -> None:
        barrier.wait(timeout=HANG)
        try:
            written.append(write_backup(manifest, cwd=str(tmp_path), application_id=APP,
                                        now=1_750_000_000.0, api_url="local:x"))
        except Exception as exc:  # noqa: BLE001 - what the test reports
            failures.append(exc)

    threads = [threading.Thread(target=back_up) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG)
    assert failures == []
    stem = f".cmdsync/backups/20250615T150640Z-{APP}"
    assert sorted(written) == sorted([f"{stem}.json"] + [f"{stem}-{n}.json"
                                                         for n in range(2, 9)])
    for path in written:
        assert json.loads((tmp_path / path).read_text(encoding="utf-8"))["commands"]


def _read_until(fd: int, needle: bytes, seen: bytearray) -> None:
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], HANG)
        assert ready, f"no {needle!r} within {HANG} s: {bytes(seen)!r}"
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            chunk = b""
        assert chunk, f"the terminal closed before {needle!r}: {bytes(seen)!r}"
        seen += chunk


@pytest.mark.slow
def test_ctrl_c_at_the_question_cancels_at_once(tmp_path: Path) -> None:
    """SIGINT while apply waits at "Apply these changes to Discord? [y/N]" on a real
    terminal ends it at once, exit 130, nothing written (item 23: it waited for Enter).

    A SIGINT that lands in the instant between the prompt's last character and the
    terminal read is only noticed at the next signal (CPython checks its signal flag
    around a blocking read, not inside it): a user who presses Ctrl-C then sees
    nothing presses it again. The test does the same, once a second, until the child
    ends (at most HANG seconds), so it asserts the outcome, not the timing."""
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "cmdsync", "apply", "--local",
                                "bot.yaml"], cwd=tmp_path, env=environment(None),
                               stdin=terminal, stdout=terminal, stderr=terminal,
                               start_new_session=True)
    os.close(terminal)
    seen = bytearray()
    try:
        _read_until(controller, b"Apply these changes to Discord? [y/N]: ", seen)
        code = None
        for _ in range(HANG):
            process.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = process.wait(timeout=1)
                break
        with contextlib.suppress(AssertionError):
            _read_until(controller, b"Interrupted.", seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert code == 130
    assert bytes(seen).replace(b"\r\n", b"\n").endswith(
        b"Apply these changes to Discord? [y/N]: \nInterrupted.\n")
    assert not (tmp_path / ".cmdsync" / "backups").exists()  # nothing was written
