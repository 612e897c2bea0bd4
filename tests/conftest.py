"""Fixtures and hooks for every test; emulator fixtures are in ``tests/emulator/conftest.py``."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.support import paths

# Property tests draw the same examples on every run (a seeded search), so a
# test fails for the code, never for the draw; CMDSYNC_HYPOTHESIS_RANDOM=1
# explores new examples on a developer's machine.
settings.register_profile("seeded", derandomize=True, database=None)
settings.register_profile("random")
settings.load_profile("random" if os.environ.get("CMDSYNC_HYPOTHESIS_RANDOM") else "seeded")

# `cmdsync login`'s store: a file in a directory of this run's, never the user's keyring
# or config directory (tests that log in point CMDSYNC_CONFIG_DIR at their tmp_path).
os.environ["CMDSYNC_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cmdsync-config-")


# Tests that need a POSIX system (Linux, macOS), by node id (a module: all its tests),
# with the reason: marked ``posix`` and skipped on Windows. Found by reading the tests;
# CI (.github/workflows/ci.yml) runs the rest on Windows. Modules that cannot even be
# imported there (pty, resource) skip themselves with pytest.importorskip.
POSIX_ONLY = {
    "tests/cli/test_failure_paths.py::test_validate_refuses_dev_zero_at_once":
        "/dev/zero is a POSIX device",
    "tests/cli/test_failure_paths.py::test_validate_refuses_a_fifo_without_waiting_for_a_writer":
        "os.mkfifo: Windows has no FIFOs",
    "tests/cli/test_failure_paths.py::test_validate_refuses_a_pipe_past_the_size_cap":
        "bash process substitution reading /dev/zero",
    "tests/cli/test_failure_paths.py::test_plan_out_refuses_a_fifo_and_a_device":
        "os.mkfifo and /dev/null: Windows has neither",
    "tests/cli/test_failure_paths.py::test_a_signal_mid_apply_stops_cleanly_and_reports":
        "SIGINT/SIGTERM sent to a child process (on Windows, send_signal(SIGTERM) kills it)",
    "tests/cli/test_failure_paths.py::test_the_emulator_state_file_is_readable_by_its_owner_only":
        "Unix mode bits (0600): Windows files have ACLs",
    "tests/cli/test_login.py::test_login_stores_the_token_in_a_0600_file_and_prints_none":
        "Unix mode bits (0600): Windows files have ACLs",
    "tests/cli/test_login.py::test_login_with_no_browser_prints_the_url_for_another_client":
        "Unix mode bits (0600): Windows files have ACLs",
    "tests/cli/test_login.py::test_ctrl_c_while_waiting_stops_cleanly_and_frees_the_port":
        "SIGINT sent to a child process, and os.execv (Windows has no exec)",
    "tests/emulator/test_cli.py::test_it_serves_http_and_prints_the_default_credentials":
        "the served emulator stops on SIGINT sent to it, and os.execv (Windows has no exec)",
    "tests/emulator/test_cli.py::test_the_state_file_survives_a_restart_and_the_seed_file_is_used":
        "the served emulator stops on SIGINT sent to it, and os.execv (Windows has no exec)",
    "tests/emulator/test_hostile.py::test_the_admin_api_answers_only_loopback_host_names":
        "the served emulator stops on SIGINT sent to it, and os.execv (Windows has no exec)",
    "tests/cli/test_precommit_repository.py":
        "git and pre-commit run with POSIX variables only (no SYSTEMROOT), the hook's "
        "entry a bin/cmdsync path",
    "tests/cli/test_workflow.py::test_the_plan_step_passes_on_changes_and_fails_on_errors":
        "the action's bash steps run as on a Linux runner (the action supports Linux runners)",
    "tests/cli/test_workflow.py::test_the_comment_step_posts_once_then_updates":
        "the action's bash steps with a stand-in gh shell script (a #! script)",
    "tests/cli/test_workflow.py::test_without_credentials_the_plan_is_skipped_with_a_notice":
        "the action's bash steps run as on a Linux runner (the action supports Linux runners)",
}


def posix_only(nodeid: str) -> str | None:
    """The reason ``nodeid`` needs a POSIX system, or None."""
    for key, reason in POSIX_ONLY.items():
        if nodeid == key or nodeid.startswith((key + "::", key + "[")):
            return reason
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``corpus`` every test that reads the real-world corpus (CMDSYNC_TEST_SHARED)
    (a corpus file among its parameters, or marked so by its module), so that
    ``pytest -m corpus`` runs just those against a corpus found elsewhere. Mark
    ``posix`` the tests of POSIX_ONLY, skipped on Windows with their reason."""
    for item in items:
        reason = posix_only(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.posix(reason=reason))
            if sys.platform == "win32":
                item.add_marker(pytest.mark.skip(reason=f"needs POSIX: {reason}"))
        callspec = getattr(item, "callspec", None)
        values = callspec.params.values() if callspec is not None else ()
        if any(isinstance(v, Path) and v.is_relative_to(paths.CORPUS) for v in values):
            item.add_marker(pytest.mark.corpus)


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


@pytest.fixture(autouse=True, scope="session")
def _no_configuration_above_the_tests(tmp_path_factory: pytest.TempPathFactory) -> None:
    """cmdsync looks for cmdsync.toml (or [tool.cmdsync]) in the working directory and
    each parent, as ruff does: one left above the tests' temporary directories would
    change what every test that runs cmdsync there does. Say so instead."""
    from cmdsync.errors import CmdsyncError
    from cmdsync.runners.project_file import find_config

    base = tmp_path_factory.getbasetemp()
    try:
        found = find_config(str(base))
    except CmdsyncError as exc:
        pytest.exit(f"a configuration above {base} cannot be read: {exc}", returncode=4)
    if found is not None:
        pytest.exit(f"{found.path} is a cmdsync configuration above the tests' temporary "
                    f"directory {base}: the tests would read it; move it away", returncode=4)
