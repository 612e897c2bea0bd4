"""The pre-commit hook, run for real with ``pre-commit try-repo``.

try-repo clones this repository at its HEAD commit (so the hook definition
tested is the committed ``.pre-commit-hooks.yaml``, as users get it), builds
the hook's virtualenv by pip-installing cmdsync (needs PyPI), and runs the
hook in a scratch git repository. Building the environment takes a few
seconds, so it happens once: both runs share one PRE_COMMIT_HOME and one rev.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import paths

ROOT = paths.ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(not (ROOT / ".git").exists(),
                       reason="pre-commit try-repo needs the cmdsync source as a git clone"),
]

GOOD = """\
commands:
  - name: ping
    description: Check that the bot is alive
"""
BAD = """\
commands:
  - name: Ping
    description: Check that the bot is alive
"""


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A scratch git repository with one valid manifest committed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.name", "cmdsync tests", cwd=repo)
    git("config", "user.email", "tests@cmdsync.invalid", cwd=repo)
    git("config", "commit.gpgsign", "false", cwd=repo)
    (repo / "commands").mkdir()
    (repo / "commands" / "good.yaml").write_text(GOOD, encoding="utf-8")
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "good manifest", cwd=repo)
    return repo


def try_repo(project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    if not (ROOT / ".pre-commit-hooks.yaml").exists():
        pytest.fail(".pre-commit-hooks.yaml is missing at the repository root")
    head = git("rev-parse", "HEAD", cwd=ROOT)
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "FORCE_COLOR")}
    env.update(PRE_COMMIT_HOME=str(home), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "cmdsync-validate",
         "--ref", head, "--all-files", "--color", "never"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_hook_passes_good_and_fails_bad_manifests(project: Path, pre_commit_home: Path) -> None:
    done = try_repo(project, pre_commit_home)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "cmdsync validate" in output and "Passed" in output

    (project / "commands" / "bad.yaml").write_text(BAD, encoding="utf-8")
    git("add", "commands/bad.yaml", cwd=project)
    done = try_repo(project, pre_commit_home)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Failed" in output
    assert "commands/bad.yaml:2:11: CS101 command name 'Ping' has upper-case letters" in output
    assert "good.yaml:" not in output  # only the bad file is reported
