"""An apply that stops part-way lists its changes as the plan does (issue 33, item 14).

The real CLI applies against a served emulator whose daily create limit runs
out mid-apply: the report lists every command in the plan's natural order
(``cmd3`` before ``cmd28``), each with its outcome, not in the order the
requests were made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.cli import run_secretly
from tests.support.emulator import as_ci_would

APP = "111111111111111111"
BOT_TOKEN = "order-bot-s3cret"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "name": "Order Bot", "bot_token": BOT_TOKEN,
                      "client_secret": "order-client-s3cret"}],
    "guilds": [{"id": "222222222222222222"}],
}
NAMES = ("cmd28", "cmd3", "cmd10", "cmd2", "cmd1")  # the manifest's order: neither
MANIFEST = f'application_id: "{APP}"\ncommands:\n' + "".join(
    f"  - {{name: {name}, description: Command {name}}}\n" for name in NAMES)


@pytest.fixture
def admin(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> httpx.Client:
    client = as_ci_would(server, SEED, monkeypatch, tmp_path,
                         variables={"DISCORD_BOT_TOKEN": BOT_TOKEN})
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return client


def cmdsync(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_secretly(capsys, (BOT_TOKEN,), *args)


def failed_apply(capsys: pytest.CaptureFixture[str], admin: httpx.Client,
                 *options: str) -> tuple[str, dict[str, str]]:
    """Apply with three creates left today: its output, and the commands made."""
    admin.put("/config", json={"limits": {"daily_creates": 3}}).raise_for_status()
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", "--strategy", "per-command",
                             *options, "bot.yaml")
    assert code == 1, out + err
    made = {c["name"]: c["id"] for c in admin.get("/state").json()["commands"]}
    assert sorted(made) == ["cmd1", "cmd10", "cmd2"]  # the POSTs went by code point
    posts = [r for r in admin.get("/log").json()["requests"] if r["method"] == "POST"]
    assert len(posts) == 4  # cmd1, cmd10, cmd2, then cmd28 refused: cmd3 never sent
    return out, made


def test_a_failed_apply_reports_commands_in_the_plans_natural_order(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """The fourth POST fails (30034) and the fifth is not made. The plan lists cmd1, cmd2,
    cmd3, cmd10, cmd28; so does the report."""
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert code == 0, err
    planned = re.findall(r'^  \+ chat_input "(\w+)"$', out, flags=re.MULTILINE)
    assert planned == ["cmd1", "cmd2", "cmd3", "cmd10", "cmd28"]
    out, made = failed_apply(capsys, admin)
    block = out[out.index("global: failed (per command)\n"):out.index("  Error: ")]
    assert block == (
        "global: failed (per command)\n"
        f'  + chat_input "cmd1" (id {made["cmd1"]}): created\n'
        f'  + chat_input "cmd2" (id {made["cmd2"]}): created\n'
        '  + chat_input "cmd3": not applied\n'
        f'  + chat_input "cmd10" (id {made["cmd10"]}): created\n'
        '  + chat_input "cmd28": FAILED\n')


def test_a_failed_apply_lists_them_so_in_json_too(capsys: pytest.CaptureFixture[str],
                                                 admin: httpx.Client) -> None:
    out, made = failed_apply(capsys, admin, "--format", "json")
    (scope,) = json.loads(out)["scopes"]
    assert [(c["name"], c["id"], c["status"]) for c in scope["changes"]] == [
        ("cmd1", made["cmd1"], "applied"), ("cmd2", made["cmd2"], "applied"),
        ("cmd3", None, "not applied"), ("cmd10", made["cmd10"], "applied"),
        ("cmd28", None, "failed")]
