"""The GitHub Actions example: a valid workflow that plans pull requests and applies main."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import paths

WORKFLOW = paths.ROOT / "examples" / ".github" / "workflows" / \
    "cmdsync.yml"


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def step(job: str, name: str) -> dict[str, Any]:
    return next(s for s in workflow()["jobs"][job]["steps"] if s.get("name") == name)


def test_the_workflow_is_valid_for_github_actions() -> None:
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(WORKFLOW)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_plan_on_pull_requests_apply_on_main_secrets_from_the_environment() -> None:
    data = workflow()
    jobs = data["jobs"]
    assert jobs["plan"]["if"] == "github.event_name == 'pull_request'"
    assert "cmdsync plan --detailed-exitcode \"$MANIFESTS\"" in step("plan", "Plan")["run"]
    assert jobs["apply"]["if"] == ("github.event_name == 'push' && github.ref == "
                                   "'refs/heads/main'")
    assert step("apply", "Apply")["run"] == 'cmdsync apply --auto-approve "$MANIFESTS"'
    assert {k: v for k, v in data["env"].items() if k.startswith("DISCORD_")} == {
        "DISCORD_APPLICATION_ID": "${{ vars.DISCORD_APPLICATION_ID }}",
        "DISCORD_BOT_TOKEN": "${{ secrets.DISCORD_BOT_TOKEN }}",
        "DISCORD_BEARER_TOKEN": "${{ secrets.DISCORD_BEARER_TOKEN }}"}


@pytest.mark.parametrize(("plan_exit", "step_exit"), [(0, 0), (2, 0), (1, 1)])
def test_the_plan_step_fails_only_on_errors(plan_exit: int, step_exit: int,
                                            tmp_path: Path) -> None:
    """The step's script, run as Actions runs it, with a stand-in cmdsync."""
    fake = tmp_path / "cmdsync"
    fake.write_text(f"#!/bin/sh\necho 'Plan: 1 to create'\nexit {plan_exit}\n",
                    encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(step("plan", "Plan")["run"], encoding="utf-8")
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
           "MANIFESTS": "discord/", "GITHUB_STEP_SUMMARY": str(summary)}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == step_exit, done.stderr
    assert summary.read_text(encoding="utf-8") == (
        "### cmdsync plan\n```\nPlan: 1 to create\n```\n")
