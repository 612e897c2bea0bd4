"""The GitHub Action's `environment` input, its manifests from the configuration, and
the Bearer token for overwrites from a refresh token (issue 33, item 6).

The real CLI applies against a served emulator (which rotates refresh tokens as
Discord does): ``DISCORD_REFRESH_TOKEN`` is exchanged when apply starts, a spent one
stops it before any write, and the rotated one handed over serves the next run. The
action's scripts run as the runner runs them (tests/support/action.py), with ``gh`` a
stand-in that records what it is asked. The example workflow and the one of
docs/ci/github-actions.md pass actionlint's default checks.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest

from cmdsync.emulator.seed import APPLICATION_ID, BOT_TOKEN, GUILD_ID
from tests.docs.blocks import blocks_of
from tests.support import paths
from tests.support.action import ACTION, actionlint, fake_gh, run_step
from tests.support.cli import MANIFEST
from tests.support.emulator import emulator, http_server
from tests.support.processes import cmdsync
from tests.support.refresh import SECRET, log_in, refresh

pytestmark = pytest.mark.slow  # real servers and subprocesses: the full suite runs it
posix = pytest.mark.skipif(sys.platform == "win32",
                           reason="the action's bash steps, as on a Linux runner")

WORKFLOW = paths.ROOT / "examples" / ".github" / "workflows" / "cmdsync.yml"
GUIDE = ("https://cmdsync.github.io/cmdsync/ci/github-actions/"
         "#permission-overwrites-in-ci-a-refresh-token")
WHEN = re.compile(r"expires at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC \(in 7 days\)")
STAGING = f"""\
manifests = ["discord/"]

[environments.staging]
application_id = "{APPLICATION_ID}"
guilds = {{ STAGING_GUILD = "{GUILD_ID}" }}
"""
STAGING_MANIFEST = """\
guilds:
  "${STAGING_GUILD}":
    commands:
      - {name: ping, description: Check the bot is alive}
"""


@pytest.fixture
def api() -> Iterator[str]:
    with http_server(emulator()) as base:
        yield f"{base}/api/v10"


def project(folder: Path, manifest: str = MANIFEST) -> Path:
    (folder / "discord").mkdir()
    (folder / "discord" / "bot.yaml").write_text(manifest, encoding="utf-8")
    return folder


def ci_env(api: str, folder: Path, **more: str) -> dict[str, str]:
    """What the apply job of the example workflow has; no login stored anywhere."""
    return {"CMDSYNC_API_URL": api, "DISCORD_BOT_TOKEN": BOT_TOKEN,
            "DISCORD_CLIENT_ID": APPLICATION_ID, "DISCORD_CLIENT_SECRET": SECRET,
            "DISCORD_APPLICATION_ID": APPLICATION_ID,
            "CMDSYNC_CONFIG_DIR": str(folder / "no-login"),
            "GITHUB_STEP_SUMMARY": str(folder / "summary.md"), **more}


def overwrites(api: str) -> list[object]:
    answer = httpx.get(f"{api}/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands/"
                       "permissions", headers={"Authorization": f"Bot {BOT_TOKEN}"})
    return [p["permissions"] for p in answer.json()]


def commands(api: str) -> list[object]:
    return list(httpx.get(f"{api}/applications/{APPLICATION_ID}/commands",
                          headers={"Authorization": f"Bot {BOT_TOKEN}"}).json())


# -- the CLI: apply exchanges the refresh token when it starts ------------------------


def test_apply_exchanges_the_refresh_token_and_edits_the_overwrites(api: str,
                                                                     tmp_path: Path) -> None:
    grant = log_in(api)
    work = project(tmp_path)
    before = time.time()
    done = cmdsync("apply", "--auto-approve", "discord/", cwd=work,
                   env=ci_env(api, tmp_path, DISCORD_REFRESH_TOKEN=grant["refresh_token"]))
    assert done.returncode == 0, done.stderr
    assert 'permissions of "Report" (id ' in done.stdout
    assert overwrites(api) == [[{"id": GUILD_ID, "type": 1, "permission": False}]]
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    found = WHEN.search(summary)
    assert found is not None, summary
    expires = datetime.strptime(found[1], "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=timezone.utc).timestamp()
    assert before + 604800 - 1 <= expires <= time.time() + 604800
    assert summary.startswith(
        "### cmdsync: the refresh token was rotated\n\n`DISCORD_REFRESH_TOKEN` was exchanged "
        "at `POST /oauth2/token` for the Bearer token that edits permission overwrites; "
        f"that token expires at {found[1]} UTC (in 7 days).\n\nDiscord answered with a new "
        "refresh token: the one in `DISCORD_REFRESH_TOKEN` is spent, and a run that presents "
        "it again fails with `invalid_grant`. This run cannot store the new one, and never "
        "shows it. **Replace the secret `DISCORD_REFRESH_TOKEN` comes from before the next "
        "run.**\n\n")
    assert f"see {GUIDE}.\n" in summary
    for token in (grant["refresh_token"], grant["access_token"]):
        assert token not in done.stdout + done.stderr + summary
    assert refresh(api, grant["refresh_token"]).json()["error"] == "invalid_grant"  # spent


def test_a_spent_refresh_token_stops_apply_before_it_changes_anything(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    assert refresh(api, grant["refresh_token"]).status_code == 200  # an earlier run's
    work = project(tmp_path)
    done = cmdsync("apply", "--auto-approve", "discord/", cwd=work,
                   env=ci_env(api, tmp_path, DISCORD_REFRESH_TOKEN=grant["refresh_token"]))
    assert done.returncode == 1
    assert done.stderr.startswith(
        "error: DISCORD_REFRESH_TOKEN was refused (POST /oauth2/token: HTTP 400: "
        "invalid_grant: Invalid \"refresh_token\" in request: ")
    assert done.stderr.endswith(
        "a refresh token works once, and Discord answers each exchange with a new one, so "
        "this one is spent (by a run that could not store the new one), revoked, or its "
        "user deauthorized the application; nothing was sent to the command endpoints: log "
        "in again with `cmdsync login` and put its refresh token in DISCORD_REFRESH_TOKEN's "
        f"secret ({GUIDE})\n")
    assert commands(api) == []  # nothing written
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### cmdsync: the refresh token was refused\n\n")
    assert grant["refresh_token"] not in done.stdout + done.stderr + summary


def test_the_rotated_refresh_token_handed_over_serves_the_next_run(api: str,
                                                                    tmp_path: Path) -> None:
    grant = log_in(api)
    work = project(tmp_path)
    handed = tmp_path / "new-refresh-token"
    env = ci_env(api, tmp_path, DISCORD_REFRESH_TOKEN=grant["refresh_token"],
                 CMDSYNC_NEW_REFRESH_TOKEN_FILE=str(handed))
    first = cmdsync("apply", "--auto-approve", "discord/", cwd=work, env=env)
    assert first.returncode == 0, first.stderr
    new = handed.read_text(encoding="utf-8")
    assert new not in first.stdout + first.stderr
    # the next run, with the secret stored again: its own exchange works
    (work / "discord" / "bot.yaml").write_text(MANIFEST.replace("permission: false",
                                                                "permission: true"))
    second = cmdsync("apply", "--auto-approve", "discord/", cwd=work,
                     env={**env, "DISCORD_REFRESH_TOKEN": new})
    assert second.returncode == 0, second.stderr
    assert overwrites(api) == [[{"id": GUILD_ID, "type": 1, "permission": True}]]
    assert handed.read_text(encoding="utf-8") != new  # rotated again


# -- the action's scripts ---------------------------------------------------------------


@posix
def test_validate_passes_the_environment_and_no_paths_to_use_the_configuration(
        tmp_path: Path) -> None:
    work = project(tmp_path, STAGING_MANIFEST)
    (work / "cmdsync.toml").write_text(STAGING, encoding="utf-8")
    done = run_step("Validate", work, {"MANIFESTS": "", "ENV_NAME": "staging"})
    assert done.returncode == 0, done.stdout + done.stderr
    # with --env staging, STAGING_GUILD is the environment's: no "not set" note
    assert done.stdout == "All 1 file valid (1 command).\n"


@posix
@pytest.mark.parametrize("step", ["Plan", "Apply"])
def test_plan_and_apply_pass_the_environment_and_the_configurations_manifests(
        step: str, api: str, tmp_path: Path) -> None:
    work = project(tmp_path, STAGING_MANIFEST)
    (work / "cmdsync.toml").write_text(STAGING, encoding="utf-8")
    env = ci_env(api, tmp_path, MANIFESTS="", ENV_NAME="staging")
    del env["DISCORD_APPLICATION_ID"]  # the environment's
    done = run_step(step, work, env)
    assert done.returncode == 0, done.stdout + done.stderr
    if step == "Plan":
        assert (work / "output").read_text(encoding="utf-8") == \
            "exitcode=2\nhas-changes=true\n"
    else:
        listed = httpx.get(f"{api}/applications/{APPLICATION_ID}/guilds/{GUILD_ID}/commands",
                           headers={"Authorization": f"Bot {BOT_TOKEN}"}).json()
        assert [c["name"] for c in listed] == ["ping"]


@posix
def test_the_plan_step_never_spends_the_refresh_token(api: str, tmp_path: Path) -> None:
    """A plan beside an apply would present it twice: the action gives plans none."""
    grant = log_in(api)
    work = project(tmp_path)
    done = run_step("Plan", work, ci_env(api, work, MANIFESTS="discord/",
                                         DISCORD_REFRESH_TOKEN=grant["refresh_token"]))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refresh token" not in (work / "summary.md").read_text(encoding="utf-8")
    assert refresh(api, grant["refresh_token"]).status_code == 200  # unspent


@posix
@pytest.mark.parametrize(("environment", "where", "options"), [
    ("", "repository secret DISCORD_REFRESH_TOKEN", "--repo o/r"),
    ("discord", "secret DISCORD_REFRESH_TOKEN of the environment discord",
     "--repo o/r --env discord"),
])
def test_apply_hands_the_rotated_refresh_token_to_the_step_that_stores_it(
        environment: str, where: str, options: str, api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    work = project(tmp_path)
    handed = work / "cmdsync-refresh-token"  # in RUNNER_TEMP
    applied = run_step("Apply", work, ci_env(
        api, work, MANIFESTS="discord/", DISCORD_REFRESH_TOKEN=grant["refresh_token"],
        CMDSYNC_NEW_REFRESH_TOKEN_FILE=str(handed)))
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert handed.is_file()
    stored = run_step("Store the rotated refresh token", work, {
        "GH_TOKEN": "t", "SECRET": "DISCORD_REFRESH_TOKEN",
        "SECRET_ENVIRONMENT": environment, "NEW_TOKEN": str(handed), **fake_gh(work)})
    assert stored.returncode == 0, stored.stdout + stored.stderr
    assert stored.stdout == f"Stored the rotated refresh token in the {where}\n"
    assert (work / "gh.log").read_text(encoding="utf-8") == \
        f"secret set DISCORD_REFRESH_TOKEN {options}\n"
    new = (work / "gh.stdin").read_text(encoding="utf-8")  # given on standard input
    assert not handed.exists()
    summary = (work / "summary.md").read_text(encoding="utf-8")
    assert f"The new one was written to `{handed}` (`CMDSYNC_NEW_REFRESH_TOKEN_FILE`), " \
           "for the step that stores it in the secret.\n" in summary
    assert summary.endswith(
        f"\nThe new refresh token is stored in the {where}: the next run uses it.\n")
    shown = applied.stdout + applied.stderr + stored.stdout + stored.stderr + summary
    for token in (grant["refresh_token"], grant["access_token"], new):
        assert token not in shown
    assert refresh(api, new).status_code == 200  # the next run's works


@posix
def test_a_secret_that_cannot_be_stored_fails_the_step_and_says_to_replace_it(
        tmp_path: Path) -> None:
    handed = tmp_path / "cmdsync-refresh-token"
    handed.write_text("n3w-refresh-token", encoding="utf-8")
    done = run_step("Store the rotated refresh token", tmp_path, {
        "GH_TOKEN": "t", "SECRET": "DISCORD_REFRESH_TOKEN", "SECRET_ENVIRONMENT": "",
        "NEW_TOKEN": str(handed), **fake_gh(tmp_path, fails=True)})
    assert done.returncode == 1
    assert done.stdout == (
        "::error title=cmdsync::could not store the rotated refresh token in the repository "
        "secret DISCORD_REFRESH_TOKEN (may secrets-token write this repository's secrets?): "
        "it holds a spent one; the job summary says how to replace it\n")
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == (
        "\n**The new refresh token could not be stored in the repository secret "
        "DISCORD_REFRESH_TOKEN, which now holds a spent one: replace it by hand (may "
        "`secrets-token` write this repository's secrets?).** Log in with `cmdsync login` "
        f"and copy its refresh token into the secret: {GUIDE}\n")
    assert not handed.exists()


@posix
def test_without_a_rotated_refresh_token_nothing_is_stored(tmp_path: Path) -> None:
    done = run_step("Store the rotated refresh token", tmp_path, {
        "GH_TOKEN": "t", "SECRET": "DISCORD_REFRESH_TOKEN",
        "NEW_TOKEN": str(tmp_path / "cmdsync-refresh-token"), **fake_gh(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "No rotated refresh token to store\n"
    assert not (tmp_path / "gh.log").exists()


@posix
def test_each_environment_has_its_own_plan_comment(tmp_path: Path) -> None:
    (tmp_path / "cmdsync-plan.md").write_text("### cmdsync plan\n\n**Plan: 1 to create**\n",
                                              encoding="utf-8")
    comments = ("40\tgithub-actions[bot]\t<!-- cmdsync-plan -->\n"
                "41\tgithub-actions[bot]\t<!-- cmdsync-plan env=production -->\n"
                "42\tgithub-actions[bot]\t<!-- cmdsync-plan env=staging -->\n")
    done = run_step("Comment on the pull request", tmp_path, {
        "GH_TOKEN": "t", "PR_NUMBER": "7", "EXIT_CODE": "2", "RUN_URL": "https://x/run",
        "HEAD_SHA": "0123456789", "ENV_NAME": "staging",
        **fake_gh(tmp_path, comments=comments)})
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "gh.log").read_text(encoding="utf-8").splitlines()
    assert calls[-1].startswith("api --method PATCH repos/o/r/issues/comments/42 -F body=@")
    body = (tmp_path / "cmdsync-comment.md").read_text(encoding="utf-8")
    assert body.startswith("<!-- cmdsync-plan env=staging -->\n"
                           "Changes to apply (environment staging) when this is merged:\n")


# -- actionlint's default checks --------------------------------------------------------


def lint_repository(folder: Path, workflow: str, *, local: bool) -> str:
    """jactionlint's default profile over a repository holding ``workflow``; with
    ``local``, the workflow uses this action as ``./`` (its inputs checked against
    action.yml, whose own steps are checked too)."""
    (folder / ".git").mkdir(parents=True)
    workflows = folder / ".github" / "workflows"
    workflows.mkdir(parents=True)
    if local:
        shutil.copy(ACTION, folder / "action.yml")
        workflow = workflow.replace("cmdsync/cmdsync@main", "./")
    (workflows / "cmdsync.yml").write_text(workflow, encoding="utf-8")
    done = actionlint(folder, profile="default")
    assert "shellcheck was not found" not in done.stdout + done.stderr
    return f"exit {done.returncode}: {done.stdout}{done.stderr}"


@pytest.mark.parametrize("local", [False, True], ids=["as-is", "with-the-action"])
def test_the_example_workflow_passes_actionlint_default_checks(local: bool,
                                                               tmp_path: Path) -> None:
    workflow = WORKFLOW.read_text(encoding="utf-8")
    assert lint_repository(tmp_path, workflow, local=local) == "exit 0: "


@pytest.mark.parametrize("local", [False, True], ids=["as-is", "with-the-action"])
def test_the_docs_workflow_passes_actionlint_default_checks(local: bool,
                                                            tmp_path: Path) -> None:
    """docs/ci/github-actions.md's first block, a whole workflow."""
    block = blocks_of(paths.ROOT / "docs" / "ci" / "github-actions.md")[0]
    assert lint_repository(tmp_path, block.text, local=local) == "exit 0: "


def test_the_default_checks_catch_an_unpinned_action(tmp_path: Path) -> None:
    workflow = WORKFLOW.read_text(encoding="utf-8").replace(
        "actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803  # v6.1.0",
        "actions/checkout@v6", 1)
    found = lint_repository(tmp_path, workflow, local=True)
    assert found.startswith("exit 1: ")
    assert 'action "actions/checkout@v6" must be pinned to a full-length commit SHA' in found
