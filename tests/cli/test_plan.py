"""``cmdsync plan`` end to end: --local, output formats, exit codes, saved plans, errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.errors import CmdsyncError
from cmdsync.plan import Action
from cmdsync.runners.files import load_plan
from cmdsync.runners.plan import plan_paths, resolve_application_id
from cmdsync.runners.session import Connection
from cmdsync.validate.schema import load_schema
from tests.support.cli import FIRST_PLAN, MANIFEST, clean_environment, run
from tests.support.emulator import apply, make_client

GUILD = emulator_seed.GUILD_ID
SECRETS = (emulator_seed.BOT_TOKEN, emulator_seed.USER_TOKEN, "emulator-secret")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")


def apply_saved(path: Path) -> None:
    """Apply a saved plan to the --local state through the API (what apply does)."""
    async def go() -> None:
        emulator = new_emulator(state=str(Path(".cmdsync") / "local.sqlite"))
        try:
            async with make_client(emulator) as client:
                await apply(client, load_plan(str(path))[0])
        finally:
            emulator.store.close()

    asyncio.run(go())


def test_local_plan_text_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--local", "bot.yaml") == (0, FIRST_PLAN, "")
    assert run(capsys, "plan", "--local", "--detailed-exitcode", "bot.yaml") == (
        2, FIRST_PLAN, "")
    assert Path(".cmdsync/local.sqlite").is_file()


def test_saved_plan_apply_then_no_changes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", "--local", "--out", "plan.json", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == FIRST_PLAN + ("\nSaved the plan to plan.json: apply it with "
                                "`cmdsync apply plan.json`.\n")
    text = Path("plan.json").read_text(encoding="utf-8")
    assert not any(secret in text for secret in SECRETS)
    document = json.loads(text)
    assert document["manifest_digest"].startswith("sha256:")
    assert document["api_url"] == "local:.cmdsync/local.sqlite"
    apply_saved(Path("plan.json"))
    expected = "No changes. Live commands match the manifest.\n"
    assert run(capsys, "plan", "--local", "bot.yaml") == (0, expected, "")
    assert run(capsys, "plan", "--local", "--detailed-exitcode", "bot.yaml") == (
        0, expected, "")
    code, out, _ = run(capsys, "plan", "--local", "--out", "again.json", "bot.yaml")
    live = [c for s in json.loads(Path("again.json").read_text())["scopes"] for c in s["live"]]
    assert sorted(c["name"] for c in live) == ["Report", "ping"]
    assert all(c["id"].isdigit() and c["version"].isdigit() for c in live)


def test_json_format_matches_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", "--local", "--format", "json", "--detailed-exitcode",
                         "bot.yaml")
    assert (code, err) == (2, "")
    document = json.loads(out)
    validator = Draft202012Validator(load_schema("plan.schema.json"))
    assert [e.message for e in validator.iter_errors(document)] == []
    assert document["summary"] == {"create": 2, "update": 0, "delete": 0,
                                   "permission_sets": 1, "has_changes": True}


def test_colour_only_when_forced(capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, coloured, _ = run(capsys, "plan", "--local", "bot.yaml")
    assert "\x1b[32m+\x1b[0m" in coloured
    monkeypatch.setenv("NO_COLOR", "1")
    assert run(capsys, "plan", "--local", "bot.yaml")[1] == FIRST_PLAN


def test_validation_errors_stop_before_any_request(capsys: pytest.CaptureFixture[str]) -> None:
    Path("bad.yaml").write_text("commands:\n  - {name: Ping, description: P}\n",
                                encoding="utf-8")
    code, out, err = run(capsys, "plan", "--local", "bad.yaml")
    assert (code, out) == (1, "")
    assert err == ("bad.yaml:2:12: CS101 command name 'Ping' has upper-case letters: write "
                   "'ping'\n\nFound 1 error in 1 of 1 file.\n")
    assert not Path(".cmdsync").exists()  # the emulator was never opened


def test_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", "--local", "nope.yaml")
    assert (code, out) == (2, "")
    assert err.startswith("nope.yaml: CS001 no such file or directory")


def test_local_with_another_application_stops_before_any_request(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--local has the emulator's application only: another --application-id is a usage
    error before any request (credentials of another application against an API are
    named at the application read: tests/cli/test_rough_edges.py)."""
    assert run(capsys, "plan", "--local", "--application-id", "999", "bot.yaml") == (
        2, "", ("error: --local has only the local emulator's application 111111111111111111: "
                "drop --application-id 999 (or serve an emulator seeded with it, `cmdsync "
                "emulator --seed FILE`, and pass its --api-url)\n"))


def test_no_credentials(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--application-id", "1", "bot.yaml") == (
        1, "", ("error: no credentials: set DISCORD_BOT_TOKEN (or pass --token-file), or "
        "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET; or use --local\n"))


def test_no_application_id(capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "x")
    assert run(capsys, "plan", "bot.yaml") == (
        1, "", ("error: no application id: set application_id in the manifest, pass "
        "--application-id, or set DISCORD_APPLICATION_ID\n"))


def test_local_and_api_url_conflict(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "plan", "--local", "--api-url", "http://x", "bot.yaml")
    assert code == 2
    assert "--local runs the emulator in-process: drop --api-url" in err


def test_no_prune_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "--local", "--out", "p.json", "bot.yaml")[0] == 0
    apply_saved(Path("p.json"))
    Path("bot.yaml").write_text(MANIFEST.replace(
        "    commands:\n      - {type: message, name: Report}\n", "    commands: []\n").replace(
        "    permissions:\n      Report: [{type: role, id: everyone, permission: false}]\n",
        ""), encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--local", "--detailed-exitcode", "bot.yaml")
    assert (code, out.splitlines()[-1]) == (
        2, "Plan: 0 to create, 0 to update, 1 to delete, 0 permission sets to change.")
    assert run(capsys, "plan", "--local", "--no-prune", "--detailed-exitcode", "bot.yaml") == (
        0, "No changes. Live commands match the manifest.\n", "")


def test_resolve_application_id() -> None:
    env = {"DISCORD_APPLICATION_ID": "3"}
    assert resolve_application_id(manifest="1", flag=None, env=env, local_default=None) == "1"
    assert resolve_application_id(manifest=None, flag="2", env=env, local_default=None) == "2"
    assert resolve_application_id(manifest=None, flag=None, env=env, local_default=None) == "3"
    assert resolve_application_id(manifest="1", flag=None, env=env, local_default="9") == "9"
    with pytest.raises(Exception) as caught:
        resolve_application_id(manifest="1", flag="2", env={}, local_default=None)
    assert str(caught.value) == "--application-id 2 differs from the manifest's application_id 1"
    with pytest.raises(Exception) as caught:
        resolve_application_id(manifest=None, flag="abc", env={}, local_default=None)
    assert str(caught.value) == "application id 'abc' is not a snowflake (a string of digits)"


def test_remote_session_with_env_credentials(tmp_path: Path) -> None:
    """The non-local path: base URL, DISCORD_* variables, Bot auth, against the emulator."""
    emulator = new_emulator()
    seen: list[httpx.Request] = []
    inner = httpx.ASGITransport(app=create_app(emulator))

    class Recording(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return await inner.handle_async_request(request)

    env = {"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN,
           "DISCORD_APPLICATION_ID": emulator_seed.APPLICATION_ID,
           "CMDSYNC_API_URL": "http://remote.test/api/v10"}
    run_ = plan_paths(["bot.yaml"], connection=Connection(transport=Recording()), env=env,
                      cwd=str(tmp_path))
    assert run_.plan is not None and run_.api_url == "http://remote.test/api/v10"
    assert run_.plan.count(Action.CREATE) == 2
    assert sorted(str(r.url) for r in seen) == [
        (f"http://remote.test/api/v10/applications/{emulator_seed.APPLICATION_ID}/commands"
        "?with_localizations=true"),
        (f"http://remote.test/api/v10/applications/{emulator_seed.APPLICATION_ID}/guilds/"
        f"{GUILD}/commands/permissions"),
        (f"http://remote.test/api/v10/applications/{emulator_seed.APPLICATION_ID}/guilds/"
        f"{GUILD}/commands?with_localizations=true"),
        "http://remote.test/api/v10/applications/@me"]  # read once, first
    assert str(seen[0].url).endswith("/applications/@me")
    assert {r.headers["authorization"] for r in seen} == {f"Bot {emulator_seed.BOT_TOKEN}"}
    assert all(r.method == "GET" for r in seen)


def test_remote_session_with_client_credentials(tmp_path: Path) -> None:
    """DISCORD_CLIENT_ID + DISCORD_CLIENT_SECRET, exchanged at the emulator's /oauth2/token.

    The exchanged token reads commands; overwrites need the bot token or the
    user's Bearer token (its scope is applications.commands.update only).
    """
    emulator = new_emulator()
    env = {"DISCORD_CLIENT_ID": emulator_seed.APPLICATION_ID,
           "DISCORD_CLIENT_SECRET": "emulator-secret"}
    connection = Connection(api_url="http://remote.test/api/v10",
                            transport=httpx.ASGITransport(app=create_app(emulator)))

    def plan_with(env: dict[str, str], path: str = "bot.yaml") -> Any:
        return plan_paths([path], connection=connection, env=env, cwd=str(tmp_path),
                          application_id=emulator_seed.APPLICATION_ID).plan

    with_user = plan_with({**env, "DISCORD_BEARER_TOKEN": emulator_seed.USER_TOKEN})
    assert with_user.count(Action.CREATE) == 2 and with_user.permission_changes == 1
    assert emulator.log.counts()["tokens"] == 1
    with pytest.raises(CmdsyncError) as caught:
        plan_with(env)
    assert str(caught.value) == (
        "reading permission overwrites needs DISCORD_BOT_TOKEN, or DISCORD_BEARER_TOKEN with "
        "scope applications.commands.permissions.update: client-credentials tokens only have "
        "applications.commands.update")
    Path("commands.yaml").write_text(f'commands: []\nguilds:\n  "{GUILD}": {{commands: []}}\n',
                                     encoding="utf-8")
    assert not plan_with(env, "commands.yaml").has_changes
    with pytest.raises(CmdsyncError) as caught:
        plan_with({**env, "DISCORD_CLIENT_SECRET": "wrong"})
    assert str(caught.value) == (
        "POST /oauth2/token: HTTP 401: invalid_client: the client-credentials exchange failed; "
        "check DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET")
