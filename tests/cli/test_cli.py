"""The validate and rules commands end to end: formats, exit codes, selection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import paths
from tests.support.cli import run

DATA = paths.DATA / "cli"
BAD = str(DATA / "bad.yaml")
GOOD = str(DATA / "good.yaml")
ROOT = paths.ROOT


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def test_text_output_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", BAD, GOOD)
    assert code == 1
    assert out == (
        f"{BAD}:2:11: CS101 command name 'Ping' has upper-case letters: write 'ping'\n"
        f"{BAD}:4:5: CS014 warning: 'version' is response-only: Discord sets it and "
        "ignores it on write; remove it\n"
        "\n"
        "Found 1 error and 1 warning in 1 of 2 files.\n"
    )
    assert err == ""


def test_valid_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", GOOD)
    assert (code, out) == (0, "All 1 file valid (1 command).\n")


def test_warnings_alone_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--ignore", "CS101", BAD)
    assert code == 0
    assert out.endswith("Found 1 warning in 1 of 1 file.\n")


def test_select_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--select", "CS0", BAD)
    assert code == 0
    assert "CS101" not in out and "CS014" in out


def test_unknown_rule_in_select_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", "--select", "XX9", GOOD)
    assert code == 2
    assert "no rule id starts with 'XX9'" in err


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--format", "json", BAD, GOOD)
    assert code == 1
    document = json.loads(out)
    assert document["files"] == [BAD, GOOD]
    assert document["diagnostics"][0] == {
        "file": BAD, "line": 2, "column": 11, "path": "/commands/0/name", "rule": "CS101",
        "severity": "error", "message": "command name 'Ping' has upper-case letters: write 'ping'",
        "related": [],
    }
    assert document["diagnostics"][1]["path"] == "/commands/0/version"
    assert document["summary"] == {"files": 2, "commands": 2, "errors": 1, "warnings": 1,
                                   "valid": False}


def test_github_output_is_default_on_actions(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = run(capsys, "validate", BAD)
    assert code == 1
    assert out.splitlines() == [
        (f"::error file={BAD},line=2,col=11,title=CS101::command name 'Ping' has upper-case "
        "letters: write 'ping'"),
        (f"::warning file={BAD},line=4,col=5,title=CS014::'version' is response-only: Discord "
        "sets it and ignores it on write; remove it"),
        "Found 1 error and 1 warning in 1 of 1 file.",
    ]


def test_github_escapes_properties_and_data() -> None:
    from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
    from cmdsync.render.diagnostics import to_github
    from cmdsync.validate import ValidationResult

    diag = Diagnostic("CS001", Severity.ERROR, "50%\nbad", Location("a,b:c.yaml", 1, 2))
    out = to_github(ValidationResult(["a,b:c.yaml"], [diag]))
    assert out.splitlines()[0] == "::error file=a%2Cb%3Ac.yaml,line=1,col=2,title=CS001::50%25%0Abad"


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "does-not-exist.yaml")
    assert code == 2
    assert out.startswith("does-not-exist.yaml: CS001 no such file or directory\n")


def test_syntax_error_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("commands: [\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(broken))
    assert code == 1
    assert f"{broken}:2:1: CS001 invalid YAML" in out


def test_no_colour_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", BAD)
    assert "\x1b[" not in out


def test_colour_forced(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run(capsys, "validate", BAD)
    assert "\x1b[" in out


def test_no_color_beats_force(capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = run(capsys, "validate", BAD)
    assert "\x1b[" not in out


def test_rules_list_and_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert "CS101  error    chat-input-name" in out
    code, out, _ = run(capsys, "rules", "chat-input-name")
    assert code == 0
    assert out.startswith("CS101 chat-input-name (error, checked by cmdsync's rules)\n")
    assert "\nFailing:\n" in out and "\nPassing:\n" in out
    assert "``" not in out and "`APPLICATION_COMMAND_INVALID_NAME`" in out  # no RST markup


def test_rules_unknown_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "rules", "CS999")
    assert code == 1
    assert err == "error: no rule 'CS999': `cmdsync rules` lists them all\n"


def test_docs_rules_md_in_sync(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "--format", "markdown")
    assert code == 0
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == out, (
        "docs/rules.md is stale: run `cmdsync rules --format markdown > docs/rules.md`")


def test_internal_error_is_reported_not_traced(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import cmdsync.runners.validate

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(cmdsync.runners.validate, "validate_paths", boom)
    monkeypatch.delenv("CMDSYNC_DEBUG", raising=False)
    code, _, err = run(capsys, "validate", GOOD)
    assert code == 70
    assert err.startswith("internal error: RuntimeError: kaput\nThis is a bug in cmdsync.")
    assert "Traceback" not in err


def test_python_dash_m_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "cmdsync", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stdout.startswith("cmdsync ")


PLACEHOLDER = """\
application_id: ${DISCORD_APPLICATION_ID}
guilds:
  "${DEV_GUILD_ID}":
    commands:
      - {name: ping, description: Check the bot is alive}
"""


def test_offline_an_unset_variable_is_a_placeholder(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """As ``terraform validate``: no variable values needed; plan and apply need them."""
    for name in ("DISCORD_APPLICATION_ID", "DEV_GUILD_ID"):
        monkeypatch.delenv(name, raising=False)
    manifest = tmp_path / "bot.yaml"
    manifest.write_text(PLACEHOLDER, encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(manifest))
    assert code == 0
    assert out == (
        f"{manifest}:1:17: CS004 note: environment variable DISCORD_APPLICATION_ID is not set: "
        "a placeholder here, but plan and apply need it (export it, or write "
        "${DISCORD_APPLICATION_ID:-default})\n"
        f"{manifest}:3:3: CS004 note: environment variable DEV_GUILD_ID is not set: a "
        "placeholder here, but plan and apply need it (export it, or write "
        "${DEV_GUILD_ID:-default})\n"
        "\n"
        "All 1 file valid (1 command); 2 notes.\n")
    code, out, _ = run(capsys, "validate", "--format", "json", str(manifest))
    document = json.loads(out)
    assert code == 0 and [d["severity"] for d in document["diagnostics"]] == ["note", "note"]
    code, out, _ = run(capsys, "validate", "--format", "github", str(manifest))
    assert code == 0 and out.startswith(f"::notice file={manifest},line=1,col=17,title=CS004::")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "plan", "--local", str(manifest))
    assert code == 1 and out == ""
    assert "CS004 environment variable DEV_GUILD_ID is not set: export it" in err
