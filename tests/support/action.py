"""The GitHub Action's steps (``action.yml``), run as the runner runs them.

- :func:`action_step`: a step of the composite action, by its name.
- :func:`run_step`: its ``run:`` in bash, with the step's ``env:`` as GitHub sets it.
- :func:`fake_gh`: a stand-in for ``gh`` on the ``PATH``, recording its calls.
- :func:`actionlint`: jactionlint (the dev extra's) over a repository, with shellcheck.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import paths

ACTION = paths.ROOT / "action.yml"
BIN = Path(sys.executable).parent  # cmdsync, jactionlint and shellcheck of this environment


def action_step(name: str) -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return next(s for s in data["runs"]["steps"] if s.get("name") == name)


def run_step(name: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's ``run:`` in bash (``--noprofile --norc -eo pipefail``, as ``shell: bash``)
    in ``folder``. ``env`` is the job's environment; the step's ``env:`` goes over it as
    GitHub's does: a value with an expression takes ``env``'s value of that name (empty
    when absent), a literal one stays what the step says."""
    step = action_step(name)
    script = folder / f"{name.replace(' ', '-')}.sh"
    script.write_text(step["run"], encoding="utf-8")
    own = {key: env.get(key, "") if "${{" in str(value) else str(value)
           for key, value in step.get("env", {}).items()}
    full = {"PATH": f"{BIN}{os.pathsep}{folder}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(folder), "GITHUB_OUTPUT": str(folder / "output"),
            "GITHUB_STEP_SUMMARY": str(folder / "summary.md"), "RUNNER_TEMP": str(folder),
            "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r", **env, **own}
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=folder, env=full, capture_output=True, text=True, timeout=120,
                          check=False)


FAKE_GH = """\
#!/bin/sh
# Records its arguments (and its standard input for `secret set`); answers as GitHub's API
# would: GITHUB_TOKEN cannot read /user, the comments are $GH_COMMENTS; exits $GH_EXIT.
echo "$*" >> "$GH_LOG"
case "$*" in
  "api user --jq .login") exit 1 ;;
  *"/comments --jq"*) cat "$GH_COMMENTS" ;;
  "secret set"*) cat > "$GH_STDIN" ;;
  *) echo "https://github.com/o/r/pull/7#issuecomment-99" ;;
esac
exit "${GH_EXIT:-0}"
"""


def fake_gh(folder: Path, *, fails: bool = False, comments: str = "") -> dict[str, str]:
    """``gh`` in ``folder`` (first on the ``PATH`` of :func:`run_step`); the variables
    that tell it where to record (``GH_LOG``, ``GH_STDIN``) and what to answer."""
    gh = folder / "gh"
    gh.write_text(FAKE_GH, encoding="utf-8")
    gh.chmod(0o755)
    (folder / "comments.tsv").write_text(comments, encoding="utf-8")
    return {"GH_LOG": str(folder / "gh.log"), "GH_STDIN": str(folder / "gh.stdin"),
            "GH_COMMENTS": str(folder / "comments.tsv"), "GH_EXIT": "1" if fails else "0"}


def actionlint(repository: Path, *, profile: str = "correctness"
               ) -> subprocess.CompletedProcess[str]:
    linter = shutil.which("jactionlint", path=str(BIN))
    if linter is None:
        pytest.skip("jactionlint (actionlint) is not installed: pip install jactionlint")
    return subprocess.run([linter, "--profile", profile, "--no-color", "--oneline",
                           f"--shellcheck={shutil.which('shellcheck', path=str(BIN)) or ''}"],
                          cwd=repository, capture_output=True, text=True, timeout=120,
                          check=False)
