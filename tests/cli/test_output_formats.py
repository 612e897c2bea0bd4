"""Each format of pull and apply, on failure too (issue 28, item 28): `pull --format
json` prints one JSON document with the error; pull has no github format (it writes a
manifest, not findings) and says so; `apply --format github` annotates an invalid
manifest at its lines, as plan does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import clean_environment, run

BAD = """\
commands:
  - name: Ping
    description: Upper case is refused
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_pull_json_prints_a_document_on_an_error(workspace: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "pull", "--format", "json", "--application-id",
                         "123456789012345678")
    assert code == 1
    message = err.removeprefix("error: ").rstrip("\n")
    assert message.startswith("no credentials")
    assert json.loads(out) == {"ok": False, "exit_code": 1, "error": message,
                               "diagnostics": [], "summary": message}


def test_pull_json_prints_a_document_on_a_usage_error(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "pull", "--format", "json", "--local", "--guild", "abc")
    document = json.loads(out)
    assert code == 2 and document["exit_code"] == 2
    assert document["error"] == "--guild 'abc' is not a guild id (a snowflake)"


def test_pull_refuses_the_github_format(workspace: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "pull", "--local", "--format", "github")
    assert (code, out) == (2, "")
    assert "'github' is not one of 'text', 'json'" in err


def test_apply_github_annotates_an_invalid_manifest(
        workspace: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(workspace / "summary.md"))
    (workspace / "bot.yaml").write_text(BAD, encoding="utf-8")
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "--format", "github",
                         "bot.yaml")
    assert code == 1
    diagnostic = "command name 'Ping' has upper-case letters: write 'ping'"
    assert out == (f"::error file=bot.yaml,line=2,col=11,title=CS101::{diagnostic}\n"
                   "Found 1 error in 1 of 1 file.\n")
    assert err == f"bot.yaml:2:11: CS101 {diagnostic}\n\nFound 1 error in 1 of 1 file.\n"
    assert (workspace / "summary.md").read_text(encoding="utf-8") == (
        "### cmdsync apply\n\n**Failed:** the manifests do not validate: Found 1 error in 1 "
        f"of 1 file.\n\n```\nbot.yaml:2:11: CS101 {diagnostic}\n\nFound 1 error in 1 of 1 "
        "file.\n```\n\n")
