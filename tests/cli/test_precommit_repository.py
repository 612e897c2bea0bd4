"""The pre-commit hook in a bot's real repository: the real `pre-commit`, installed as
the git hook, with a docker-compose.yml, a workflow and a package.json beside two
manifests; commits made one by one, as a developer makes them.

The hook is declared with `repo: local` (the README's pin) and this environment's
cmdsync, so no hook environment is built; `test_precommit.py` builds the published
hook's own environment with `pre-commit try-repo`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]

COMPOSE = """\
services:
  bot:
    image: python:3.12
    command: python bot.py
"""
WORKFLOW = """\
name: CI
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo ok
"""
PING = """\
commands:
  - name: ping
    description: Check the bot is alive
"""
PING_AGAIN = """\
commands:
  - name: ping
    description: The same command, declared in a second file
"""
BAD = """\
commands:
  - name: Ping
    description: Upper case is refused
"""


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=check, env=environment(cwd))


def environment(repo: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    return {**{k: v for k, v in os.environ.items() if k in keep}, "NO_COLOR": "1",
            "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@cmdsync.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@cmdsync.invalid"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A bot's repository with the hook installed and its other files committed."""
    repo = tmp_path / "bot"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "commit.gpgsign", "false", cwd=repo)
    cmdsync = Path(sys.executable).parent / "cmdsync"
    (repo / ".pre-commit-config.yaml").write_text(f"""\
repos:
  - repo: local
    hooks:
      - id: cmdsync-validate
        name: cmdsync validate
        entry: {cmdsync} validate --pre-commit
        language: system
        files: \\.(ya?ml|json)$
        require_serial: true
""", encoding="utf-8")
    (repo / "docker-compose.yml").write_text(COMPOSE, encoding="utf-8")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW, encoding="utf-8")
    (repo / "package.json").write_text('{"name": "bot", "version": "1.0.0"}\n',
                                       encoding="utf-8")
    (repo / "discord").mkdir()
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo,
                               capture_output=True, text=True, env=environment(repo),
                               check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return repo


def commit(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    git("add", *files, cwd=repo)
    return git("commit", "-q", "-m", f"add {' '.join(files)}", cwd=repo, check=False)


def test_other_yaml_and_json_files_are_never_manifests(repo: Path) -> None:
    done = commit(repo, ".pre-commit-config.yaml", "docker-compose.yml", ".github",
                  "package.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CS010" not in done.stdout + done.stderr


def test_a_valid_then_an_invalid_manifest(repo: Path) -> None:
    (repo / "discord" / "ping.yaml").write_text(PING, encoding="utf-8")
    done = commit(repo, ".")
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / "discord" / "bad.yaml").write_text(BAD, encoding="utf-8")
    done = commit(repo, "discord/bad.yaml")
    output = done.stdout + done.stderr  # git shows the hook's output on standard error
    assert done.returncode == 1
    assert "discord/bad.yaml:2:11: CS101 command name 'Ping' has upper-case letters" in output
    assert "docker-compose.yml" not in output


def test_a_duplicate_across_files_committed_in_two_steps(repo: Path) -> None:
    (repo / "discord" / "ping.yaml").write_text(PING, encoding="utf-8")
    assert commit(repo, ".").returncode == 0
    (repo / "discord" / "more.yaml").write_text(PING_AGAIN, encoding="utf-8")
    done = commit(repo, "discord/more.yaml")  # only the second file is staged
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    # the duplicate across files, though ping.yaml was committed before
    assert "CS3" in output and "discord/more.yaml:2:11" in output and "ping.yaml" in output


def test_with_a_configuration_untracked_files_are_not_read(repo: Path) -> None:
    (repo / "cmdsync.toml").write_text('manifests = ["discord/"]\n', encoding="utf-8")
    (repo / "discord" / "ping.yaml").write_text(PING, encoding="utf-8")
    (repo / "discord" / "scratch.yaml").write_text(BAD, encoding="utf-8")  # never added
    done = commit(repo, ".pre-commit-config.yaml", "cmdsync.toml", "discord/ping.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / "discord" / "more.yaml").write_text(PING_AGAIN, encoding="utf-8")
    done = commit(repo, "discord/more.yaml")  # the configured set holds ping.yaml too
    assert done.returncode == 1 and "CS3" in done.stdout + done.stderr
    assert "scratch.yaml" not in done.stdout + done.stderr
