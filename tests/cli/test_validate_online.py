"""``cmdsync validate --online``: the application rules (CS601, CS602) join the offline
ones once the application is read; offline validate never runs them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.instance import new_emulator
from cmdsync.runners.session import Connection
from cmdsync.runners.validate import validate_online
from tests.support.cli import clean_environment, run
from tests.support.emulator import guild_install_only

APP = emulator_seed.APPLICATION_ID
MANIFEST = """\
commands:
  - {name: ping, description: Check the bot is alive, integration_types: [user_install]}
  - {type: primary_entry_point, name: Launch, description: Launch an activity}
"""
CS601 = ("bot.yaml:2:75: CS601 A command's integration_types must already be supported at "
         "application level: command 'ping' lists user_install, and application "
         "111111111111111111 supports guild_install only: enable it on the application "
         "(Developer Portal, Installation) or remove it\n")
CS602 = ("bot.yaml:3:12: CS602 entry point 'Launch' needs an application with an Activity; "
         "application 111111111111111111 has no Activity (flag EMBEDDED): enable Activities "
         "in the Developer Portal, or remove the entry point\n")


@pytest.fixture(autouse=True)
def _workdir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")


def test_offline_validate_does_not_run_the_application_rules(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "validate", "bot.yaml") == (0, "All 1 file valid (2 commands).\n", "")


def _local_application(flags: int, integration_types: tuple[int, ...]) -> None:
    """Set up ``--local``'s application (its default supports both install contexts)."""
    os.makedirs(".cmdsync", exist_ok=True)
    local = new_emulator(state=".cmdsync/local.sqlite")
    local.store.add_application(Application(
        APP, "cmdsync emulator", flags, integration_types, emulator_seed.CLIENT_SECRET))
    local.store.close()


def test_online_validate_adds_them(capsys: pytest.CaptureFixture[str]) -> None:
    _local_application(0, (0,))
    assert run(capsys, "validate", "--online", "--local", "bot.yaml") == (
        1, CS601 + CS602 + "\nFound 2 errors in 1 of 1 file.\n", "")


def test_online_validate_passes_what_the_application_allows(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _local_application(1 << 17, (0, 1))
    assert run(capsys, "validate", "--online", "--local", "bot.yaml") == (
        0, "All 1 file valid (2 commands).\n", "")


def test_select_and_ignore_apply_to_them(capsys: pytest.CaptureFixture[str]) -> None:
    _local_application(0, (0,))
    assert run(capsys, "validate", "--online", "--local", "--ignore", "CS602", "bot.yaml")[1] \
        == CS601 + "\nFound 1 error in 1 of 1 file.\n"


def test_connection_options_need_online(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "--local", "bot.yaml")
    assert (code, out) == (2, "")
    assert err.endswith("Error: Invalid value for '--online': connection options need "
                        "--online\n")


def test_online_without_credentials(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "validate", "--online", "bot.yaml") == (
        1, "", ("error: no credentials: set DISCORD_BOT_TOKEN (or pass --token-file), or "
                "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET; or use --local\n"))


def test_online_with_client_credentials_and_another_application_named(
        tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text(
        'application_id: "999999999999999999"\ncommands: [{name: pong, description: P}]\n',
        encoding="utf-8")
    emulator = guild_install_only(new_emulator())
    connection = Connection(api_url="http://emulator/api/v10",
                            transport=httpx.ASGITransport(app=create_app(emulator)))
    env = {"DISCORD_CLIENT_ID": APP, "DISCORD_CLIENT_SECRET": emulator_seed.CLIENT_SECRET}
    checked = validate_online([str(tmp_path / "other.yaml"), "bot.yaml"],
                              connection=connection, env=env, cwd=str(tmp_path))
    assert checked.application.integration_types == (0,)
    assert [d.rule for d in checked.validation.diagnostics] == ["CS601", "CS602"]
    assert [(e.method, e.path) for e in emulator.log.entries()] == [
        ("POST", "/api/v10/oauth2/token"), ("GET", "/api/v10/oauth2/@me")]
    clean = validate_online([str(tmp_path / "other.yaml")], connection=connection, env=env,
                            cwd=str(tmp_path))
    assert clean.notes == ((f"the manifests name application 999999999999999999, but the "
                            f"credentials belong to application {APP}: checked against {APP}"),)


def test_the_docs_cs601_example_prints_what_it_shows(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """The example of docs/commands/validate.md, against a served emulator as it says
    (not --local)."""
    from cmdsync.emulator import create_app, new_emulator
    from cmdsync.emulator.server import BackgroundServer
    from tests.support.cli import clean_environment, run
    from tests.support.paths import ROOT

    readme = (ROOT / "docs" / "commands" / "validate.md").read_text(encoding="utf-8")
    block = readme.split("$ cat ping.yaml\n", 1)[1].split("```", 1)[0]
    manifest, rest = block.split("$ cmdsync validate ping.yaml\n", 1)
    offline, rest = rest.split("$ cmdsync emulator &\n", 1)
    curl, _, online = rest.split("\n", 2)
    assert curl.startswith("$ curl -s -o /dev/null -X PATCH ")
    assert "http://127.0.0.1:8787/api/v10/applications/@me" in curl
    body = json.loads(curl.split(" -d '", 1)[1].split("'", 1)[0])
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ping.yaml").write_text(manifest, encoding="utf-8")
    assert run(capsys, "validate", "ping.yaml") == (0, offline, "")
    with BackgroundServer(create_app(new_emulator())) as base:
        assert httpx.patch(f"{base}/api/v10/applications/@me", json=body, headers={
            "Authorization": "Bot emulator-bot-token"}).status_code == 200  # the curl line
        monkeypatch.setenv("DISCORD_BOT_TOKEN", "emulator-bot-token")
        code, out, _ = run(capsys, "validate", "--online", "--api-url", f"{base}/api/v10",
                           "ping.yaml")
    assert (code, out) == (1, online)
