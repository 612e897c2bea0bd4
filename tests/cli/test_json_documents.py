"""`--format json` prints one JSON document on standard output whatever happens, and
`--detailed-exitcode` exits as Terraform does: the real CLI, as subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import cmdsync

pytestmark = pytest.mark.slow  # real servers and subprocesses: the full suite runs it

GOOD = """\
commands:
  - {name: ping, description: Check the bot is alive}
"""
BAD = """\
commands:
  - {name: Ping, description: Check the bot is alive}
"""
UNREACHABLE = "http://cmdsync-test.invalid/api/v10"  # .invalid never resolves (RFC 6761)
CREDENTIALS = {"DISCORD_BOT_TOKEN": "emulator-bot-token",
               "DISCORD_APPLICATION_ID": "111111111111111111"}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    return tmp_path


def one_document(stdout: str) -> Any:
    """The single JSON document on standard output (json.loads refuses trailing data)."""
    return json.loads(stdout)


@pytest.mark.parametrize(("args", "env", "code", "error"), [
    (["plan", "--local", "--format", "json", "bad.yaml"], {}, 1, None),
    (["apply", "--local", "--auto-approve", "--format", "json", "bad.yaml"], {}, 1, None),
    (["plan", "--local", "--format", "json", "missing.yaml"], {}, 2, None),
    (["plan", "--format", "json", "--bogus", "good.yaml"], {}, 2, "No such option: --bogus"),
    (["plan", "--format", "json", "good.yaml"], {}, 1, "no application id"),
    (["plan", "--format=json", "--api-url", UNREACHABLE, "good.yaml"], CREDENTIALS, 1,
     "GET /applications/@me"),
    (["apply", "-f", "json", "--auto-approve", "--api-url", UNREACHABLE, "good.yaml"],
     CREDENTIALS, 1, "GET /applications/@me"),
    (["invoke", "--format", "json", "--local", "ping"], {}, 2,
     "a command line starts with /NAME"),
])
def test_a_failure_is_still_one_json_document(folder: Path, args: list[str],
                                              env: dict[str, str], code: int,
                                              error: str | None) -> None:
    done = cmdsync(*args, cwd=folder, env=env)
    document = one_document(done.stdout)
    assert done.returncode == code, done.stderr
    assert document["ok"] is False and document["exit_code"] == code
    if error is None:
        assert document["diagnostics"], document
    else:
        assert error in document["error"]
    assert "Traceback" not in done.stderr


def test_detailed_exitcode_is_terraforms(folder: Path) -> None:
    """0 no changes, 2 changes, 1 anything else, usage errors included."""
    def plan(*args: str) -> int:
        return cmdsync("plan", "--local", "--detailed-exitcode", *args, cwd=folder).returncode

    assert plan("good.yaml") == 2
    assert cmdsync("apply", "--local", "--auto-approve", "good.yaml",
                   cwd=folder).returncode == 0
    assert plan("good.yaml") == 0
    assert plan("bad.yaml") == 1
    assert plan("missing.yaml") == 1
    assert plan("--bogus", "good.yaml") == 1
