"""The ``cmdsync`` process: how it starts and how it ends.

Run as a program (the console script, ``python -m cmdsync``), cmdsync
builds only the command it runs, tunes the garbage collector while it
starts (``cmdsync.runners.startup``) and ends without freeing its objects one by one
(``cmdsync.cli._end_process``). None of that may change what a user sees:
the whole output, the exit code, the ``atexit`` handlers, a thread's work.
"""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cmdsync.cli import _for, app, main
from cmdsync.cli._shared import KEPT, keep_until_exit
from cmdsync.runners import startup
from tests.support.processes import cmdsync, environment

# A program that records what ends it: os._exit (the fast end) or not, then runs cmdsync.
RECORDING = """\
import atexit, os, sys, threading, time
from pathlib import Path

out = Path(sys.argv[1])
real_exit = os._exit

def fast_exit(code):
    (out / "fast").write_text(str(code))
    real_exit(code)

os._exit = fast_exit
atexit.register(lambda: (out / "atexit").write_text("ran"))
if sys.argv[2] == "thread":  # a thread that is no daemon: the process must wait for it
    threading.Thread(target=lambda: (time.sleep(0.2), (out / "thread").write_text("done"))
                     ).start()
sys.argv = ["cmdsync", *sys.argv[3:]]
from cmdsync.__main__ import main
main()
"""


def _recorded(tmp_path: Path, thread: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RECORDING, str(tmp_path), thread, *args],
                          cwd=tmp_path, env=environment(None), capture_output=True, text=True,
                          timeout=60, check=False)


def test_the_program_ends_fast_after_its_atexit_handlers(tmp_path: Path) -> None:
    done = _recorded(tmp_path, "no-thread", "--version")
    assert (done.returncode, done.stdout.startswith("cmdsync ")) == (0, True), done.stderr
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "fast").read_text() == "0"


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    done = _recorded(tmp_path, "thread", "--version")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread").read_text() == "done"
    assert (tmp_path / "atexit").read_text() == "ran"
    assert not (tmp_path / "fast").exists()  # the normal exit, which waits for the thread


def test_the_exit_code_of_a_failure_survives_the_fast_end(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("application_id: '1'\ncommands: [{name: Bad}]\n")
    done = _recorded(tmp_path, "no-thread", "validate", "bad.yaml")
    assert done.returncode == 1
    assert (tmp_path / "fast").read_text() == "1"
    assert "bad.yaml:2:19: CS101 command name 'Bad' has upper-case letters" in done.stdout
    assert done.stdout.rstrip().endswith("Found 3 errors in 1 of 1 file.")


@pytest.mark.parametrize("args", [["rules", "--format", "markdown"], ["schema"]])
def test_a_long_output_is_whole_through_a_pipe(tmp_path: Path, args: list[str]) -> None:
    """50 KB through a pipe: every byte is flushed before the fast end."""
    fast = cmdsync(*args, cwd=tmp_path)
    normal = subprocess.run(
        [sys.executable, "-c", "import sys; from cmdsync.cli import main; main(sys.argv[1:])",
         *args], cwd=tmp_path, env=environment(None), capture_output=True, text=True,
        timeout=60, check=False)
    assert fast.returncode == normal.returncode == 0
    assert len(fast.stdout) > 20_000
    assert fast.stdout == normal.stdout


def test_only_the_command_named_is_built() -> None:
    def names(args: list[str]) -> list[str]:
        one = _for(args)
        return [c.name or getattr(c.callback, "__name__", "") for c in one.registered_commands]

    assert names(["plan", "commands.yaml"]) == ["plan"]
    assert names(["--no-color", "-q", "apply", "--auto-approve"]) == ["apply"]
    assert names(["diff"]) == ["diff"]
    auth = _for(["auth", "status"])
    assert (auth.registered_commands, [g.name for g in auth.registered_groups]) == ([], ["auth"])


@pytest.mark.parametrize("args", [[], ["--help"], ["--help", "plan"], ["plna"],
                                  ["--show-completion", "bash"]])
def test_the_whole_app_runs_without_a_known_command_name(args: list[str]) -> None:
    assert _for(args) is app


def test_a_shell_completing_gets_the_whole_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_CMDSYNC_COMPLETE", "complete_bash")
    assert _for(["plan"]) is app


def test_a_misspelt_command_is_still_suggested(tmp_path: Path) -> None:
    done = cmdsync("plna", cwd=tmp_path)
    assert done.returncode == 2
    assert "No such command 'plna'. Did you mean 'plan'?" in done.stderr


def test_an_option_of_the_command_after_a_global_flag(tmp_path: Path) -> None:
    done = cmdsync("validate", "--bogus", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "Usage: cmdsync validate" in done.stderr and "--bogus" in done.stderr


def test_in_process_main_lets_kept_objects_go() -> None:
    keep_until_exit(object())
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert KEPT == []


def test_started_changes_nothing_outside_the_program() -> None:
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    startup.started()
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)


SESSION = """\
import atexit, gc, sys
atexit.register(lambda: print("gc", gc.get_threshold(), gc.get_freeze_count() > 0,
                              file=sys.stderr))
print("starting", gc.get_threshold(), file=sys.stderr)
sys.argv = ["cmdsync", *sys.argv[1:]]
from cmdsync.__main__ import main
main()
"""


def test_the_program_starts_with_few_collections_then_collects_as_usual(
        tmp_path: Path) -> None:
    """A plan opens a session: from then on the start's objects are frozen and the
    default thresholds are back."""
    (tmp_path / "commands.yaml").write_text(
        "application_id: '111111111111111111'\n"
        "commands:\n  - name: ping\n    description: Replies with pong\n")
    default = gc.get_threshold()
    done = subprocess.run([sys.executable, "-c", SESSION, "plan", "--local", "commands.yaml"],
                          cwd=tmp_path, env=environment(None), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert f"starting {default}" in done.stderr  # before main: the interpreter's default
    assert f"gc {default} True" in done.stderr
    assert startup.STARTING_THRESHOLD != default


def test_begin_then_started_in_a_fresh_process() -> None:
    code = ("import gc; from cmdsync.runners import startup; default = gc.get_threshold(); "
            "startup.begin(); during = gc.get_threshold(); startup.started(); "
            "print(during == startup.STARTING_THRESHOLD, gc.get_threshold() == default, "
            "gc.get_freeze_count() > 0)")
    done = subprocess.run([sys.executable, "-c", code], env=environment(None),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


FULL = Path("/dev/full")  # Linux's device that refuses every write: "No space left on device"
needs_full = pytest.mark.skipif(not FULL.exists(),
                                reason="/dev/full, a device that is always full, is Linux's")
NO_SPACE = ("error: cannot write (standard output or error): No space left on device: "
            "free space or choose another place for the output, then run the command again")


@needs_full
@pytest.mark.parametrize("program", [
    ["-m", "cmdsync"],  # the program: its output refused at the last flush
    ["-c", "import sys; from cmdsync.cli import main; main(sys.argv[1:])"],  # in-process main
])
@pytest.mark.parametrize("args", [["rules"], ["--version"], ["schema"]])
def test_a_full_disk_is_said_and_is_no_bug(tmp_path: Path, program: list[str],
                                           args: list[str]) -> None:
    with FULL.open("w") as full:
        done = subprocess.run([sys.executable, *program, *args], cwd=tmp_path,
                              env=environment(None), stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [NO_SPACE]  # no "internal error", no traceback


def test_a_reader_that_leaves_the_pipe_early_gets_no_noise(tmp_path: Path) -> None:
    """``cmdsync schema | head -c 10``: 26 KB written, 10 read, the pipe closed."""
    process = subprocess.Popen([sys.executable, "-m", "cmdsync", "schema"], cwd=tmp_path,
                               env=environment(None), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b'{\n  "$sche'
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=60) in (0, 1)
    assert stderr == b""


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, port: str) -> None:
    done = cmdsync("emulator", "--port", port, cwd=tmp_path, timeout=30)
    assert done.returncode == 2
    assert f"Invalid value for '--port': {port} is not in the range 0<=x<=65535." in done.stderr
    assert "internal error" not in done.stderr


def test_a_host_that_is_no_address_names_the_host(tmp_path: Path) -> None:
    done = cmdsync("emulator", "--host", "999.1.1.1", "--port", "0", cwd=tmp_path, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot listen on 999.1.1.1:0: ")
    assert done.stderr.rstrip().endswith(
        "choose another --host (127.0.0.1 listens on this machine only)")


@pytest.mark.parametrize(("args", "usage"), [
    (["-h"], "Usage: cmdsync [OPTIONS] COMMAND [ARGS]..."),
    (["plan", "-h"], "Usage: cmdsync plan [OPTIONS] [MANIFEST]..."),
    (["auth", "status", "-h"], "Usage: cmdsync auth status [OPTIONS]"),
])
def test_h_is_help_as_in_ruff_and_git(tmp_path: Path, args: list[str], usage: str) -> None:
    done = cmdsync(*args, cwd=tmp_path)
    assert (done.returncode, done.stdout.splitlines()[0]) == (0, usage)
    assert "-h, --help" in done.stdout


def test_ctrl_c_while_a_request_waits_says_interrupted(tmp_path: Path) -> None:
    """SIGINT during ``plan``'s first request (the server accepts and never answers):
    exit 130 and "Interrupted.", not typer's silent 130."""
    import socket

    from tests.support.processes import WITH_CTRL_C

    (tmp_path / "bot.yaml").write_text(
        "application_id: '111111111111111111'\n"
        "commands:\n  - name: ping\n    description: Replies with pong\n")
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(30)
        port = server.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, "-c", WITH_CTRL_C, "plan", "bot.yaml"], cwd=tmp_path,
            env=environment({"CMDSYNC_API_URL": f"http://127.0.0.1:{port}/api/v10",
                             "DISCORD_BOT_TOKEN": "test-token"}),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        connection, _ = server.accept()  # the request is sent and waits for its answer
        with connection:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr.endswith("\nInterrupted.\n")
