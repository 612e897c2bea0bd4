"""The pre-commit hook with awkward file names (issue 28, item 17), in a real git
repository with the real `pre-commit` installed as the git hook: a tracked file
whose name is not UTF-8 (``b\\xff.yaml``), and one named like an option
(``--pong.yaml``), which pre-commit passes after the hook's own ``args``.

The hook is declared with `repo: local` and the entry of the published
`.pre-commit-hooks.yaml`, run by this environment's cmdsync.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
              pytest.mark.skipif(sys.platform in ("win32", "darwin"),
                                 reason="needs a file system that takes any bytes in names")]

PING = """\
commands:
  - name: ping
    description: Check the bot is alive
"""
BAD = """\
commands:
  - name: Pong
    description: Upper case is refused
"""
NOT_UTF8 = os.fsdecode(b"b\xff.yaml")  # "b\udcff.yaml": the name as Python holds it


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          errors="backslashreplace", check=check, env=environment(cwd))


def environment(repo: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    return {**{k: v for k, v in os.environ.items() if k in keep}, "NO_COLOR": "1",
            "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@cmdsync.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@cmdsync.invalid"}


def published_entry() -> str:
    """The published hook's entry, run by this environment's cmdsync."""
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    command, rest = hook["entry"].split(" ", 1)
    assert command == "cmdsync"
    return f"{Path(sys.executable).parent / 'cmdsync'} {rest}"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A bot's repository with the hook installed (``args: [--select, CS1]``, so a
    file name after an option's value is tested too)."""
    repo = tmp_path / "bot"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "commit.gpgsign", "false", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(f"""\
repos:
  - repo: local
    hooks:
      - id: cmdsync-validate
        name: cmdsync validate
        entry: {published_entry()}
        args: [--select, CS1]
        language: system
        files: \\.(ya?ml|json)$
        require_serial: true
""", encoding="utf-8")
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo,
                               capture_output=True, text=True, env=environment(repo),
                               check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git("add", ".pre-commit-config.yaml", cwd=repo)
    git("commit", "-q", "--no-verify", "-m", "config", cwd=repo)
    return repo


def commit(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    git("add", "--", *files, cwd=repo)
    return git("commit", "-q", "-m", "add", cwd=repo, check=False)


def test_a_tracked_name_that_is_not_utf8_is_validated_not_a_crash(repo: Path) -> None:
    (repo / NOT_UTF8).write_text(BAD, encoding="utf-8")
    git("add", "--", NOT_UTF8, cwd=repo)
    git("commit", "-q", "--no-verify", "-m", "tracked", cwd=repo)
    (repo / "ping.yaml").write_text(PING, encoding="utf-8")
    done = commit(repo, "ping.yaml")  # the hook validates the whole set, b\xff.yaml too
    output = done.stdout + done.stderr
    assert done.returncode == 1, output  # was 70: git's listing was decoded as UTF-8
    assert "b\\xff.yaml:2:11: CS101 command name 'Pong' has upper-case letters" in output
    assert "internal error" not in output
    # pre-commit itself stages no such name (it decodes git's as UTF-8): commit it aside
    (repo / NOT_UTF8).write_text(PING.replace("ping", "pong"), encoding="utf-8")
    git("add", "--", NOT_UTF8, cwd=repo)
    git("commit", "-q", "--no-verify", "-m", "fixed", cwd=repo)
    (repo / "more.yaml").write_text(PING.replace("ping", "more"), encoding="utf-8")
    done = commit(repo, "more.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    cmdsync = str(Path(sys.executable).parent / "cmdsync")  # the name passed, as a hook would
    direct = subprocess.run([cmdsync, "validate", "--pre-commit", NOT_UTF8], cwd=repo,
                            capture_output=True, text=True, env=environment(repo), check=False)
    assert (direct.returncode, direct.stderr) == (0, ""), direct.stdout + direct.stderr


def test_a_file_named_like_an_option_is_a_file(repo: Path) -> None:
    (repo / "--pong.yaml").write_text(BAD, encoding="utf-8")
    done = commit(repo, "--pong.yaml")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output  # was 2: "No such option: --pong.yaml"
    assert "--pong.yaml:2:11: CS101 command name 'Pong' has upper-case letters" in output
    (repo / "--pong.yaml").write_text(PING.replace("ping", "pong"), encoding="utf-8")
    done = commit(repo, "--pong.yaml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_direct_use_takes_such_a_name_after_double_dash(repo: Path) -> None:
    (repo / "--pong.yaml").write_text(BAD, encoding="utf-8")
    cmdsync = str(Path(sys.executable).parent / "cmdsync")
    direct = subprocess.run([cmdsync, "validate", "--pong.yaml"], cwd=repo,
                            capture_output=True, text=True, env=environment(repo), check=False)
    assert direct.returncode == 2
    assert direct.stderr.endswith("A file named --pong.yaml? Pass it after -- (cmdsync "
                                  "validate -- --pong.yaml) or as ./--pong.yaml.\n")
    direct = subprocess.run([cmdsync, "validate", "--", "--pong.yaml"], cwd=repo,
                            capture_output=True, text=True, env=environment(repo), check=False)
    assert direct.returncode == 1 and "--pong.yaml:2:11: CS101" in direct.stdout
