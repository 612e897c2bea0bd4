"""The GitHub Action (`action.yml`) and the example workflow that uses it: valid for
GitHub (check-jsonschema's vendored schemas, actionlint with shellcheck), and its
steps' scripts run as Actions runs them, against a served emulator. The project's
own workflows (`.github/workflows/`: CI, release, docs) pass the same checks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from cmdsync.emulator import create_app, new_emulator
from cmdsync.emulator.seed import APPLICATION_ID, BOT_TOKEN
from cmdsync.emulator.server import BackgroundServer
from tests.support import paths

pytestmark = pytest.mark.slow  # real servers and subprocesses: the full suite runs it

ACTION = paths.ROOT / "action.yml"
WORKFLOW = paths.ROOT / "examples" / ".github" / "workflows" / "cmdsync.yml"
PROJECT_WORKFLOWS = sorted((paths.ROOT / ".github" / "workflows").glob("*.y*ml"))
BIN = Path(sys.executable).parent  # cmdsync, jactionlint and shellcheck of this environment


def load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def action_step(name: str) -> dict[str, Any]:
    return next(s for s in load(ACTION)["runs"]["steps"] if s.get("name") == name)


@pytest.mark.parametrize(("schema", "path"), [
    ("vendor.github-workflows", WORKFLOW), ("vendor.github-actions", ACTION),
    *[("vendor.github-workflows", path) for path in PROJECT_WORKFLOWS]],
    ids=lambda value: paths.label(value) if isinstance(value, Path) else str(value))
def test_valid_for_github(schema: str, path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           schema, str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def actionlint(repository: Path) -> subprocess.CompletedProcess[str]:
    linter = shutil.which("jactionlint", path=str(BIN))
    if linter is None:
        pytest.skip("jactionlint (actionlint) is not installed: pip install jactionlint")
    return subprocess.run([linter, "--profile", "correctness", "--no-color", "--oneline",
                           f"--shellcheck={shutil.which('shellcheck', path=str(BIN)) or ''}"],
                          cwd=repository, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A bot's repository using the action as ``uses: ./`` (actionlint then checks the
    action's inputs at each call, and the action's own steps with shellcheck)."""
    (tmp_path / ".git").mkdir()  # actionlint finds the repository root by it
    shutil.copy(ACTION, tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    text = WORKFLOW.read_text(encoding="utf-8")
    assert text.count("uses: cmdsync/cmdsync@main") == 2
    (workflows / "cmdsync.yml").write_text(text.replace("cmdsync/cmdsync@main", "./"),
                                           encoding="utf-8")
    return tmp_path


def test_actionlint_passes_the_action_and_the_workflow(repository: Path) -> None:
    done = actionlint(repository)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shellcheck was not found" not in done.stdout + done.stderr


def test_actionlint_passes_the_projects_own_workflows() -> None:
    """CI, release and the docs site's workflows, where they are: actionlint run at the
    repository's root checks every file of .github/workflows/."""
    assert {"ci.yml", "release.yml"} <= {path.name for path in PROJECT_WORKFLOWS}
    done = actionlint(paths.ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shellcheck was not found" not in done.stdout + done.stderr


def test_actionlint_catches_an_input_the_action_does_not_take(repository: Path) -> None:
    workflow = repository / ".github" / "workflows" / "cmdsync.yml"
    workflow.write_text(workflow.read_text(encoding="utf-8").replace(
        "manifests: discord/\n          command: plan",
        "manifest: discord/\n          command: plan"), encoding="utf-8")
    done = actionlint(repository)
    assert done.returncode == 1
    assert 'input "manifest" is not defined in action "cmdsync"' in done.stdout


def test_the_workflow_plans_pull_requests_and_applies_main() -> None:
    data = load(WORKFLOW)
    jobs = data["jobs"]
    assert jobs["plan"]["if"] == "github.event_name == 'pull_request'"
    assert jobs["plan"]["permissions"]["pull-requests"] == "write"
    assert jobs["apply"]["if"] == ("github.event_name == 'push' && github.ref == "
                                   "'refs/heads/main'")
    assert [s.get("with", {}).get("command") for s in jobs["plan"]["steps"]] == [None, "plan"]
    assert [s.get("with", {}).get("command") for s in jobs["apply"]["steps"]] == [None, "apply"]
    assert data["env"] == {"DISCORD_APPLICATION_ID": "${{ vars.DISCORD_APPLICATION_ID }}"}
    # each job has the secrets it uses: the refresh token only the apply, which alone
    # exchanges it (one at a time: its concurrency group never cancels)
    assert jobs["plan"]["env"] == {"DISCORD_BOT_TOKEN": "${{ secrets.DISCORD_BOT_TOKEN }}"}
    assert jobs["apply"]["env"] == {
        name: f"${{{{ secrets.{name} }}}}" for name in (
            "DISCORD_BOT_TOKEN", "DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET",
            "DISCORD_REFRESH_TOKEN")}
    assert jobs["apply"]["concurrency"] == {"group": "cmdsync-apply",
                                            "cancel-in-progress": False}


# -- the steps' scripts, as the runner runs them ---------------------------------------


@pytest.fixture
def emulator_url() -> Iterator[str]:
    with BackgroundServer(create_app(new_emulator())) as base:
        yield f"{base}/api/v10"


def run_step(name: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's ``run:`` with its ``env:`` (expressions replaced by ``env``) in bash, as
    the runner runs ``shell: bash`` (``--noprofile --norc -eo pipefail``)."""
    step = action_step(name)
    script = folder / f"{name.replace(' ', '-')}.sh"
    script.write_text(step["run"], encoding="utf-8")
    variables = {key: env.get(key, "") for key in step.get("env", {})}
    full = {"PATH": f"{BIN}{os.pathsep}{folder}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(folder), "GITHUB_OUTPUT": str(folder / "output"),
            "GITHUB_STEP_SUMMARY": str(folder / "summary.md"), "RUNNER_TEMP": str(folder),
            "GITHUB_ACTIONS": "true", **variables, **env}
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=folder, env=full, capture_output=True, text=True, timeout=120,
                          check=False)


def test_the_plan_step_passes_on_changes_and_fails_on_errors(tmp_path: Path,
                                                             emulator_url: str) -> None:
    (tmp_path / "discord").mkdir()
    manifest = tmp_path / "discord" / "bot.yaml"
    manifest.write_text("commands:\n  - {name: ping, description: Check the bot is alive}\n",
                        encoding="utf-8")
    env = {"MANIFESTS": "discord/", "CMDSYNC_API_URL": emulator_url,
           "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_APPLICATION_ID": APPLICATION_ID}
    done = run_step("Plan", tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr  # 2: changes to apply on merge
    assert done.stdout.startswith("::notice file=discord/bot.yaml,line=2,col=5,")
    assert (tmp_path / "output").read_text(encoding="utf-8") == \
        "exitcode=2\nhas-changes=true\n"
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### cmdsync plan\n\n**Plan: 1 to create")
    assert (tmp_path / "cmdsync-plan.md").read_text(encoding="utf-8") in summary
    manifest.write_text("commands:\n  - {name: Ping, description: x}\n", encoding="utf-8")
    (tmp_path / "output").unlink()
    failed = run_step("Plan", tmp_path, env)
    assert failed.returncode == 1
    assert "::error file=discord/bot.yaml,line=2,col=12,title=CS101::" in failed.stdout
    assert (tmp_path / "output").read_text(encoding="utf-8") == \
        "exitcode=1\nhas-changes=false\n"


FAKE_GH = """\
#!/bin/sh
# Records its arguments; answers as GitHub's API would for this test.
echo "$*" >> "$GH_LOG"
case "$*" in
  "api user --jq .login") exit 1 ;;                     # GITHUB_TOKEN cannot read /user
  *"/comments --jq"*) cat "$GH_COMMENTS" ;;
  *) echo "https://github.com/o/r/pull/7#issuecomment-99" ;;
esac
"""


@pytest.mark.parametrize(("comments", "verb"), [
    ("", "POST repos/o/r/issues/7/comments"),
    ("41\tsomeone\t<!-- cmdsync-plan -->\n42\tgithub-actions[bot]\t<!-- cmdsync-plan -->\n",
     "PATCH repos/o/r/issues/comments/42"),
])
def test_the_comment_step_posts_once_then_updates(tmp_path: Path, comments: str,
                                                  verb: str) -> None:
    """GitHub's API is a stand-in here (gh, recording its calls); the script is real."""
    gh = tmp_path / "gh"
    gh.write_text(FAKE_GH, encoding="utf-8")
    gh.chmod(0o755)
    (tmp_path / "comments.tsv").write_text(comments, encoding="utf-8")
    (tmp_path / "cmdsync-plan.md").write_text("### cmdsync plan\n\n**Plan: 1 to create**\n",
                                              encoding="utf-8")
    done = run_step("Comment on the pull request", tmp_path, {
        "GH_TOKEN": "t", "PR_NUMBER": "7", "EXIT_CODE": "2", "RUN_URL": "https://x/run",
        "HEAD_SHA": "0123456789", "GITHUB_REPOSITORY": "o/r",
        "GH_LOG": str(tmp_path / "gh.log"), "GH_COMMENTS": str(tmp_path / "comments.tsv")})
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "gh.log").read_text(encoding="utf-8").splitlines()
    assert calls[-1].startswith(f"api --method {verb} -F body=@")
    body = (tmp_path / "cmdsync-comment.md").read_text(encoding="utf-8")
    assert body.startswith("<!-- cmdsync-plan -->\nChanges to apply when this is merged:\n")
    assert "**Plan: 1 to create**" in body


def test_without_credentials_the_plan_is_skipped_with_a_notice(tmp_path: Path) -> None:
    """A pull request from a fork gets no secrets: no red cross, no empty comment."""
    done = run_step("Plan", tmp_path, {"MANIFESTS": "discord/"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("::notice title=cmdsync::no Discord credentials")
    assert (tmp_path / "output").read_text(encoding="utf-8") == \
        "exitcode=\nhas-changes=false\n"
