"""`--format github` for plan and apply: annotations at the manifest lines and the
plan or result in `$GITHUB_STEP_SUMMARY`; the default under GITHUB_ACTIONS=true."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import clean_environment, run

MANIFEST = """\
commands:
  - name: ping
    description: Check the bot is alive
  - name: echo
    description: Say it back
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # github is then the default format
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


def test_plan_annotates_each_change_at_its_line(workspace: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 0
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert annotations == [
        ('::notice file=bot.yaml,line=4,col=5,title=cmdsync plan::chat_input "echo" will be '
        "created (global)"),
        ('::notice file=bot.yaml,line=2,col=5,title=cmdsync plan::chat_input "ping" will be '
        "created (global)")]
    assert out.endswith("Plan: 2 to create, 0 to update, 0 to delete, 0 permission sets to "
                        "change.\n")
    summary = (workspace / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### cmdsync plan\n\n**Plan: 2 to create, 0 to update, 0 to "
                              "delete, 0 permission sets to change.**\n\n```diff\n")
    assert '\n+   chat_input "ping"\n' in summary  # the glyph first: GitHub colours it


def test_apply_writes_its_result_to_the_summary(workspace: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert code == 0 and "::error" not in out
    summary = (workspace / "summary.md").read_text(encoding="utf-8")
    assert "### cmdsync apply\n\n**Apply complete: 2 created" in summary
    (workspace / "bot.yaml").write_text(MANIFEST.replace("echo", "echo") + """\
  - name: shout
    description: Say it loud
""", encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--local", "--format", "text", "bot.yaml")
    assert code == 0 and "::notice" not in out  # --format text overrides the default


def test_validation_errors_are_annotations_too(workspace: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "bot.yaml").write_text(MANIFEST.replace("name: ping", "name: Ping"),
                                        encoding="utf-8")
    code, out, err = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 1
    assert out.startswith("::error file=bot.yaml,line=2,col=11,title=CS101::command name "
                          "'Ping' has upper-case letters")
    assert "CS101" in err


def test_apply_annotates_what_failed_and_what_is_unknown() -> None:
    from cmdsync.apply.result import (
        ApplyResult,
        ChangeKind,
        ChangeResult,
        ChangeStatus,
        ScopeResult,
        ScopeStatus,
    )
    from cmdsync.manifest.diagnostics import Location
    from cmdsync.plan import Action
    from cmdsync.render.apply import to_github

    changes = (ChangeResult("global", ChangeKind.COMMAND, Action.CREATE, "ping", 1, None,
                            ChangeStatus.FAILED),
               ChangeResult("global", ChangeKind.COMMAND, Action.UPDATE, "echo", 1, "5",
                            ChangeStatus.UNKNOWN),
               ChangeResult("global", ChangeKind.COMMAND, Action.DELETE, "old", 1, "6",
                            ChangeStatus.NOT_APPLIED))
    result = ApplyResult("1", "local", (ScopeResult(
        "global", "per-command", ScopeStatus.FAILED, changes, error="POST ...: 400 50035"),))
    located = {("global", 1, "ping"): Location("bot.yaml", 2, 5, "/commands/0")}
    assert to_github(result, located).splitlines() == [
        "::error title=cmdsync apply::global: POST ...: 400 50035",
        ('::error file=bot.yaml,line=2,col=5,title=cmdsync apply::command "ping" (global): '
        "failed"),
        '::warning title=cmdsync apply::command "echo" (global): unknown']


def test_a_failure_before_the_plan_is_an_annotation_and_a_summary(
        workspace: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "123456789012345678")
    code, out, _ = run(capsys, "plan", "bot.yaml")  # no credentials (a fork's pull request)
    assert code == 1
    assert out.startswith("::error title=cmdsync plan::no credentials: set DISCORD_BOT_TOKEN")
    summary = (workspace / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### cmdsync plan\n\n**Failed:**\n\n```\nno credentials")


def test_names_cannot_break_out_of_their_line() -> None:
    from cmdsync.plan import Action, CommandChange, FieldChange, Plan, ScopePlan
    from cmdsync.render.plan import to_markdown, to_text

    change = CommandChange(Action.UPDATE, "global", 1, "pick", id="1", changes=(FieldChange(
        "options[x].choices[c\n::error title=fake::injected ```\n# HEADING].value", "v", "w"),))
    plan = Plan("1", (ScopePlan("global", (change,)),))
    text = to_text(plan)
    assert "\n::error" not in text and "\n# HEADING" not in text
    assert "choices[c\\n::error title=fake::injected ```\\n# HEADING].value" in text
    markdown = to_markdown(plan)
    assert "\n````diff\n" in markdown and markdown.endswith("\n````\n")  # a longer fence
