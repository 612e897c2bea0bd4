"""Outside text cannot forge output (issue 28, items 15 and 16): file names and live
command text reach the terminal, the CI log and the job summary escaped; GitHub
annotations escape their properties and data as GitHub documents; Markdown fences
are longer than any backtick run they hold."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from cmdsync.emulator.server import BackgroundServer
from cmdsync.render.escape import fenced, printable
from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, BOT, GLOBAL, chat, create_app, emulator, http_client
from tests.support.paths import ROOT

FORGED = "x\n::warning title=FORGED::hi\n.yaml"  # a file name a pull request can add
BAD = """\
commands:
  - name: Ping
    description: Upper case is refused
"""
CS101 = "CS101 command name 'Ping' has upper-case letters: write 'ping'"


def command_lines(text: str) -> list[str]:
    """The lines a GitHub runner reads as workflow commands (``::`` after any leading
    whitespace, ``##[`` anywhere)."""
    return [line for line in text.splitlines()
            if line.lstrip().startswith("::") or "##[" in line]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "discord").mkdir()
    return tmp_path


def test_validate_text_shows_a_forged_file_name_on_one_line(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "discord" / FORGED).write_text(BAD, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--format", "text", "discord")
    assert code == 1
    assert out == (f"discord/x\\n::warning title=FORGED::hi\\n.yaml:2:11: {CS101}\n\n"
                   "Found 1 error in 1 of 1 file.\n")


@pytest.mark.parametrize(("name", "shown"), [
    ("::warning title=FORGED::hi.yaml", "\\u003a:warning title=FORGED::hi.yaml"),
    ("##[error]hi.yaml", "#\\u0023[error]hi.yaml"),
    ("\x1b]0;pwned\x07.yaml", "\\u001b]0;pwned\\u0007.yaml"),
    ("b\udcff\u202e.yaml", "b\\xff\\u202e.yaml"),  # a byte that is not UTF-8, an override
])
def test_a_file_name_cannot_be_a_workflow_command_or_an_escape(
        workspace: Path, capsys: pytest.CaptureFixture[str], name: str, shown: str) -> None:
    (workspace / name).write_text(BAD, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--format", "text", name)
    assert code == 1
    assert out.splitlines()[0] == f"{shown}:2:11: {CS101}"
    assert command_lines(out) == [] and "\x1b" not in out


def test_plan_in_github_format_escapes_the_log_and_the_summary(
        workspace: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(workspace / "summary.md"))
    name = "x\n```\n# Owned: ![img](evil.png)\n.yaml"  # a fence line, then Markdown
    (workspace / "discord" / name).write_text(BAD, encoding="utf-8")
    code, out, err = run(capsys, "plan", "--local", "--format", "github", "discord")
    assert code == 1
    shown = "discord/x\\n```\\n# Owned: ![img](evil.png)\\n.yaml"
    assert err == f"{shown}:2:11: {CS101}\n\nFound 1 error in 1 of 1 file.\n"
    assert out.splitlines()[0] == (
        "::error file=discord/x%0A```%0A# Owned%3A ![img](evil.png)%0A.yaml,"
        "line=2,col=11,title=CS101::command name 'Ping' has upper-case letters: write 'ping'")
    summary = (workspace / "summary.md").read_text(encoding="utf-8")
    assert summary == ("### cmdsync plan\n\n**Failed:** the manifests do not validate: Found 1 "
                       f"error in 1 of 1 file.\n\n````\n{shown}:2:11: {CS101}\n\n"
                       "Found 1 error in 1 of 1 file.\n````\n\n")


def test_plan_annotation_data_and_stderr_hold_no_raw_line_break(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "discord" / FORGED).write_text(BAD, encoding="utf-8")
    code, out, err = run(capsys, "plan", "--local", "--format", "github", "discord")
    assert code == 1
    assert command_lines(err) == []
    assert [line.split("::")[1] for line in command_lines(out)] == [
        ("error file=discord/x%0A%3A%3Awarning title=FORGED%3A%3Ahi%0A.yaml,line=2,col=11,"
         "title=CS101")]


def test_live_text_read_from_discord_is_escaped_in_the_plan(
        workspace: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    live = "evil\u2028::warning::x \u202eabc \x9b2J \x1b[2J"
    with BackgroundServer(create_app(emulator())) as base, \
            http_client(f"{base}/api/v10", headers=BOT) as api:
        assert api.put(GLOBAL, json=[chat("ping", live)]).status_code == 200
        monkeypatch.setenv("DISCORD_BOT_TOKEN", BOT["Authorization"].split()[1])
        monkeypatch.setenv("DISCORD_APPLICATION_ID", APP)
        (workspace / "bot.yaml").write_text(
            "commands:\n  - name: ping\n    description: Check\n", encoding="utf-8")
        code, out, _ = run(capsys, "plan", "--api-url", f"{base}/api/v10", "bot.yaml")
    assert code == 0
    assert ('      ~ description: "evil\\u2028::warning::x \\u202eabc \\u009b2J '
            '\\u001b[2J" -> "Check"\n') in out
    assert "\u2028" not in out and "\u202e" not in out and "\x9b" not in out


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_action_escapes_its_input_in_an_annotation(tmp_path: Path) -> None:
    """The Action's "Choose the command" step, run as the runner runs it."""
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    script = next(step["run"] for step in steps if step["name"] == "Choose the command")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(tmp_path / "output"),
             "CMD": "x\r\n::warning title=FORGED::100%", "EVENT": "push", "REF": "r"},
        capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stdout == ("::error title=cmdsync::input command must be auto, validate, plan "
                           "or apply, not 'x%0D%0A::warning title=FORGED::100%25'\n")


def test_fences_are_longer_than_any_backtick_run() -> None:
    assert fenced("a\n```\nb") == "````\na\n```\nb\n````\n"
    assert fenced("plain\n", "diff") == "```diff\nplain\n```\n"
    text = "`" * 7
    assert re.fullmatch(r"(`{8})\n`{7}\n\1\n", fenced(text))


def test_printable_keeps_letters_emoji_and_spaces() -> None:
    text = "caf\u00e9 \u65e5\u672c \U0001f468\u200d\U0001f469 \u00a0x"
    assert printable(text) == text
