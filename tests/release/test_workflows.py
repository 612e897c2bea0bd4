"""The project's CI and release workflows say what the package promises: the tests on
every supported Python on Linux, macOS and Windows (the Pythons of pyproject.toml's
classifiers, from its requires-python up), and a release from a version tag that
checks the installed wheel before publishing with trusted publishing.

actionlint checks them as GitHub reads them (tests/cli/test_workflow.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 CI jobs
    import tomli as tomllib

from tests.support import paths

WORKFLOWS = paths.ROOT / ".github" / "workflows"
SYSTEMS = ["ubuntu-latest", "macos-latest", "windows-latest"]


def load(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    on = workflow[True]  # YAML 1.1 reads the key `on` as a boolean
    assert isinstance(on, dict)
    return on


def supported_pythons() -> list[str]:
    with open(paths.ROOT / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    listed = [c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert project["requires-python"] == f">={listed[0]}"
    return listed


def test_the_supported_pythons_are_3_10_to_3_14() -> None:
    assert supported_pythons() == ["3.10", "3.11", "3.12", "3.13", "3.14"]


def test_ci_runs_the_whole_suite_on_every_python_and_system() -> None:
    workflow = load("ci.yml")
    assert set(triggers(workflow)) >= {"push", "pull_request"}
    test = workflow["jobs"]["test"]
    assert test["strategy"]["matrix"] == {"os": SYSTEMS, "python": supported_pythons()}
    assert test["strategy"]["fail-fast"] is False
    runs = [step["run"] for step in test["steps"] if "run" in step]
    assert 'python -m pip install -e ".[dev]"' in runs
    assert "python -m pytest -q" in runs  # no -m filter: slow tests run too


def test_ci_lints() -> None:
    runs = [step.get("run", "") for step in load("ci.yml")["jobs"]["lint"]["steps"]]
    assert any(run.startswith("ruff check") for run in runs)
    assert "mypy" in runs


def test_a_release_checks_the_installed_wheel_before_publishing() -> None:
    workflow = load("release.yml")
    assert triggers(workflow)["push"] == {"tags": ["v*"]}
    jobs = workflow["jobs"]
    build = "\n".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "python -m build" in build
    assert "twine check --strict dist/*" in build
    check = "\n".join(step.get("run", "") for step in jobs["check"]["steps"])
    assert jobs["check"]["strategy"]["matrix"]["os"] == SYSTEMS
    assert "python -m venv" in check and "pip install" in check and "dist/*.whl" in check
    for command in ("cmdsync --version", "cmdsync validate quickstart.yaml",
                    "cmdsync plan --local quickstart.yaml"):
        assert command in check
    publish = jobs["publish"]
    assert publish["needs"] == ["build", "check"]
    assert publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1] == {"uses": "pypa/gh-action-pypi-publish@release/v1"}
    assert "with" not in publish["steps"][-1]  # no password: trusted publishing
    assert workflow["permissions"] == {"contents": "read"}  # id-token only where it publishes


def test_mutation_scores_run_weekly_and_on_changes_to_the_pure_core() -> None:
    """Not in every CI run (too slow): weekly, and on pull requests touching each module
    scripts/mutation.py scores, or its tests."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mutation", paths.ROOT / "scripts" /
                                                  "mutation.py")
    assert spec is not None and spec.loader is not None
    mutation = importlib.util.module_from_spec(spec)
    sys.modules["mutation"] = mutation  # its dataclass looks its module up there
    try:
        spec.loader.exec_module(mutation)
    finally:
        del sys.modules["mutation"]
    workflow = yaml.safe_load((WORKFLOWS / "mutation.yml").read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"] == [{"cron": "17 4 * * 1"}]
    watched = triggers["pull_request"]["paths"]
    for module, (tests, _) in mutation.TARGETS.items():
        assert module in watched or module.startswith("src/cmdsync/validate/rules/"), module
        assert all(f"{folder}/**" in watched for folder in tests), module
    assert "src/cmdsync/validate/rules/**" in watched
    (job,) = workflow["jobs"].values()
    assert "python scripts/mutation.py --markdown scores.md --json scores.json" in [
        step.get("run") for step in job["steps"]]
    assert "mutation" not in (paths.ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.y*ml")), ids=paths.label)
def test_every_action_is_pinned_to_a_major_version_at_least(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    uses = re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)", text, flags=re.MULTILINE)
    assert uses
    for action in uses:
        ref = action.partition("@")[2]
        assert re.fullmatch(r"(release/)?v\d+(\.\d+)*|[0-9a-f]{40}", ref), action
