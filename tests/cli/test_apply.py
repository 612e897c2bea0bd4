"""``cmdsync apply`` on the command line, against --local: output, prompt, JSON, saved plans."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cmdsync.apply.ledger import record, utc_day
from cmdsync.cli import _apply as apply_command
from cmdsync.cli import app
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.instance import new_emulator
from tests.support.cli import FIRST_PLAN, MANIFEST, clean_environment, run

GUILD = emulator_seed.GUILD_ID
APP = emulator_seed.APPLICATION_ID
LOCAL = "local:.cmdsync/local.sqlite"
SECRETS = (emulator_seed.BOT_TOKEN, emulator_seed.USER_TOKEN, emulator_seed.CLIENT_SECRET)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")


def ids(text: str) -> str:
    """Generated snowflakes and backup timestamps as placeholders."""
    text = re.sub(r"\d{8}T\d{6}Z-", "<TIME>-", text)
    text = re.sub(r"in \d+\.\d\d s", "in <S> s", text)
    return re.sub(r"\b(?!111111111111111111|222222222222222222)\d{17,20}\b", "<ID>", text)


APPLIED = (
    "\n"
    "Backed up the live state of the changed scopes to "
    ".cmdsync/backups/<TIME>-111111111111111111.json\n"
    "(restore it with `cmdsync apply --local .cmdsync/backups/<TIME>-111111111111111111.json`; "
    "without a terminal, add --auto-approve).\n"
    "\n"
    "global: applied (per command)\n"
    '  + chat_input "ping" (id <ID>): created\n'
    "\n"
    f"guild {GUILD}: applied (per command)\n"
    '  + message "Report" (id <ID>): created\n'
    '  + permissions of "Report" (id <ID>): permissions set\n'
    "\n"
    "Apply complete: 2 created, 0 updated, 0 deleted, 1 permission set changed; 3 write "
    "requests in <S> s.\n")
NOTHING = ("No changes. Live commands match the manifest.\n"
           "Nothing to apply: no write requests were made.\n")


def test_without_a_terminal_and_without_auto_approve_apply_refuses(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "apply", "--local", "bot.yaml") == (1, "", (
        "error: refusing to apply without confirmation: standard input is not a terminal. "
        "Review the plan with `cmdsync plan`, then run `cmdsync apply --auto-approve`; or "
        "save it with `cmdsync plan --out plan.json` and run `cmdsync apply plan.json`\n"))
    assert not Path(".cmdsync").exists()  # not a single request


def test_manifest_problems_are_reported_before_the_refusal(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", "--local", "plan.json")  # no such plan file
    assert (code, out) == (2, "")
    assert err.startswith("plan.json: CS001 no such file or directory")
    assert not Path(".cmdsync").exists()


def test_auto_approve_shows_the_plan_applies_and_a_second_run_does_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert (code, err) == (0, "")
    assert ids(out) == FIRST_PLAN + APPLIED
    assert run(capsys, "apply", "--local", "--auto-approve", "bot.yaml") == (0, NOTHING, "")
    assert run(capsys, "plan", "--local", "--detailed-exitcode", "bot.yaml") == (
        0, "No changes. Live commands match the manifest.\n", "")


@pytest.mark.parametrize(("answer", "code"), [("n\n", 1), ("y\n", 0)])
def test_on_a_terminal_apply_asks_first(answer: str, code: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(apply_command, "_stdin_is_terminal", lambda: True)
    result = CliRunner().invoke(app, ["apply", "--local", "bot.yaml"], input=answer,
                                standalone_mode=False)
    assert result.exception is None, result.output
    assert result.return_value == code
    assert result.output.startswith(FIRST_PLAN + "\nApply these changes to Discord? [y/N]: ")
    if code:
        assert result.output.endswith("Apply cancelled: nothing was changed.\n")
        assert not Path(".cmdsync/backups").exists()
    else:
        assert ids(result.output).endswith(APPLIED)


def test_json_prints_the_result_with_every_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "--format", "json",
                         "--strategy", "bulk", "bot.yaml")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert (document["status"], document["api_url"], document["application_id"]) == (
        "applied", LOCAL, APP)
    assert document["summary"] == {"created": 2, "updated": 0, "deleted": 0,
                                   "permission_sets": 1, "not_applied": 0, "unknown": 0,
                                   "requests": 8, "writes": 3, "creates": 2}
    assert [(r["method"], r["status"], r["outcome"]) for r in document["requests"][-3:]] == [
        ("PUT", 200, "replaced"), ("PUT", 200, "replaced"), ("PUT", 200, "permissions set")]
    assert {r["outcome"] for r in document["requests"][:5]} == {"read"}
    assert [(s["scope"], s["strategy"], s["status"]) for s in document["scopes"]] == [
        ("global", "bulk", "applied"), (GUILD, "bulk", "applied")]
    again = json.loads(run(capsys, "apply", "--local", "--auto-approve", "--format", "json",
                           "bot.yaml")[1])
    assert (again["status"], again["summary"]["writes"], again["scopes"]) == (
        "no changes", 0, [])


def test_a_saved_plan_applies_without_asking_and_a_stale_one_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--local", "--out", "plan.json", "bot.yaml")[0] == 0
    assert run(capsys, "plan", "--local", "--out", "stale.plan", "bot.yaml")[0] == 0
    code, out, err = run(capsys, "apply", "plan.json")  # no terminal, no --auto-approve
    assert (code, err) == (0, "")
    assert ids(out) == "Applying the saved plan to application 111111111111111111.\n\n" + \
        APPLIED.removeprefix("\n")
    code, out, err = run(capsys, "apply", "stale.plan")  # any name: the content says
    assert (code, out) == (1, "")
    # the same plan, made from the same state: applied already
    assert re.sub(r"there \([^)]*\)", "there (<TIME>)", err) == (
        "error: the saved plan stale.plan was already applied to the scopes it changes "
        "(.cmdsync/applied.json); nothing was changed. Plan again (`cmdsync plan --out "
        "FILE`) for new changes, or pass --force to apply it again (live state is then read "
        "and backed up):\n"
        "  - global: this plan was already applied there (<TIME>)\n"
        f"  - guild {GUILD}: this plan was already applied there (<TIME>)\n")
    Path(".cmdsync/applied.json").unlink()  # applied from elsewhere: live state tells
    code, out, err = run(capsys, "apply", "stale.plan")
    assert (code, out) == (1, "")
    assert err == (
        "error: the saved plan stale.plan was applied already: live state holds every change "
        "it makes, so there is nothing left to do and nothing was changed. Plan again "
        "(`cmdsync plan --out FILE`) for new changes\n")


def test_no_refresh_applies_a_saved_plan_and_nothing_else(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "apply", "--local", "--no-refresh", "--auto-approve", "bot.yaml") == (
        2, "", ("error: --no-refresh applies a saved plan (`cmdsync plan --out FILE`, then "
        "`cmdsync apply --no-refresh FILE`): cmdsync keeps no state of its own to plan "
        "manifests from\n"))
    assert run(capsys, "plan", "--local", "--out", "plan.json", "bot.yaml")[0] == 0
    code, out, err = run(capsys, "apply", "--no-refresh", "plan.json")
    assert (code, err) == (0, "")
    assert ids(out) == "Applying the saved plan to application 111111111111111111.\n\n" + \
        APPLIED.removeprefix("\n").replace(
            "the live state of the changed scopes", "the live state the saved plan was made from")


def test_plan_warns_as_the_daily_create_budget_runs_low(
        capsys: pytest.CaptureFixture[str]) -> None:
    record(".", api_url=LOCAL, application_id=APP, scope=GUILD, count=180, now=time.time())
    code, out, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert code == 0
    assert out.endswith(
        f"Warning: guild {GUILD}: 180 of Discord's 200 daily command creates were used today "
        "(UTC, .cmdsync/ledger.json); this plan creates 1, leaving 19\n\n"
        "Plan: 2 to create, 0 to update, 0 to delete, 1 permission set to change.\n")
    record(".", api_url=LOCAL, application_id=APP, scope=GUILD, count=20, now=time.time())
    assert "this plan creates 1, more than are left: apply will refuse it until midnight " \
        "UTC\n" in run(capsys, "plan", "--local", "bot.yaml")[1]
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert code == 1 and err.startswith("error: refusing to apply (1 problem); nothing was "
                                        f"changed:\n  - guild {GUILD}: the plan creates 1 ")


def test_the_docs_daily_limit_failure_is_shown_as_the_page_says(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Creates made elsewhere today (the ledger cannot know them): Discord refuses the
    guild's create with 30034 after the global scope was applied."""
    os.makedirs(".cmdsync")
    emulator = new_emulator(state=".cmdsync/local.sqlite")
    with emulator.store.transaction() as db:
        emulator.store.count_creates(db, APP, GUILD, utc_day(time.time()), 200)
    emulator.store.close()
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert (code, err) == (1, "")
    assert ids(out).removeprefix(FIRST_PLAN) == (
        "\n"
        "Backed up the live state of the changed scopes to "
        ".cmdsync/backups/<TIME>-111111111111111111.json\n"
        "(restore it with `cmdsync apply --local .cmdsync/backups/<TIME>-111111111111111111.json`; "
        "without a terminal, add --auto-approve).\n"
        "\n"
        "global: applied (per command)\n"
        '  + chat_input "ping" (id <ID>): created\n'
        "\n"
        f"guild {GUILD}: failed (per command)\n"
        '  + message "Report": FAILED\n'
        '  + permissions of "Report": not applied\n'
        f"  Error: POST /applications/{APP}/guilds/{GUILD}/commands: HTTP 400: Max number of "
        "daily application command creates has been reached (200) (code 30034)\n"
        "\n"
        "Apply failed: 1 created, 0 updated, 0 deleted, 0 permission sets changed; 2 changes "
        "not applied; 2 write requests in <S> s. Run apply again to apply what is left.\n")
    # docs/commands/apply.md shows this failure as it is printed
    from tests.docs.transcript import matches
    from tests.support.paths import ROOT

    page = (ROOT / "docs" / "commands" / "apply.md").read_text(encoding="utf-8")
    shown = page.split("```\nglobal: applied (per command)\n", 1)[1].split("```", 1)[0]
    assert matches("global: applied (per command)\n" + shown,
                   out[out.index("global: applied (per command)"):])


def test_progress_shows_on_a_terminal_when_several_scopes_change(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "apply", "--local", "--auto-approve", "bot.yaml")
    assert code == 0 and out.endswith("3 write requests in " + out.rsplit(" in ", 1)[1])
    assert "global" in err and f"guild {GUILD}" in err


def test_no_token_in_output_backups_or_ledger(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, err = run(capsys, "apply", "--local", "--auto-approve", "--format", "json",
                      "bot.yaml")
    files = [p for p in Path(".cmdsync").rglob("*")
             if p.is_file() and not p.name.startswith("local.sqlite")]  # the emulator's own
    written = [p.read_text(encoding="utf-8") for p in files]
    names = {p.name for p in files}
    # the backup, the create ledger and the apply history (and their lock files, empty)
    assert {"ledger.json", "applied.json"} <= names and len(names & {
        p.name for p in Path(".cmdsync/backups").iterdir()}) == 1, names
    assert not any(secret in text for text in [out, err, *written] for secret in SECRETS)
