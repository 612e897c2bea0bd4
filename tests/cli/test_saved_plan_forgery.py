"""Saved plans nobody can sign but their maker (issue 32, item 3).

A ``--local`` plan, or one made against a served emulator with its published
default token, was signed with a key derived from a public constant: a forged
plan naming ``discord.py:MODULE:ATTR`` imported that module on ``cmdsync apply
forged.json``. Now those plans are signed with a random key kept 0600 in
``.cmdsync/plan.key``, and apply never imports code a saved plan names. Each
test runs the real CLI in a process of its own, in a directory holding a planted
module that leaves a mark when imported.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.seed import APPLICATION_ID, BOT_TOKEN
from cmdsync.plan.planfile import _canonical, _hmac, plan_digest, plan_key
from tests.support import paths
from tests.support.emulator import http_server
from tests.support.processes import cmdsync

MANIFEST = """\
commands:
  - {name: ping, description: Check the bot is alive}
"""
PLANTED = "import pathlib\npathlib.Path('imported.mark').write_text('planted ran')\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "planted.py").write_text(PLANTED, encoding="utf-8")
    return tmp_path


def forge(path: Path, secret: str) -> None:
    """Make the saved plan at ``path`` name planted bot code, signed as an attacker could
    before: with the key of the published credential ``secret``."""
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    document["manifests"] = ["discord.py:planted:tree"]
    document["manifest_sha256"] = [None]
    document.pop("plan_hmac", None)
    document["plan_digest"] = plan_digest(document)
    document["plan_hmac"] = _hmac(plan_key(secret), _canonical(document, floats=True))
    path.write_text(json.dumps(document), encoding="utf-8")


@pytest.mark.posix
def test_a_local_plan_is_signed_with_a_random_key_kept_0600(project: Path) -> None:
    done = cmdsync("plan", "--local", "bot.yaml", "--out", "plan.json", cwd=project)
    assert done.returncode == 0, done.stderr
    key = project / ".cmdsync" / "plan.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    text = key.read_text(encoding="ascii").strip()
    assert len(bytes.fromhex(text)) == 32
    document = json.loads((project / "plan.json").read_text(encoding="utf-8"))
    assert document["plan_hmac"] == _hmac(bytes.fromhex(text),
                                          _canonical(document, floats=True))
    assert document["plan_hmac"] != _hmac(plan_key(BOT_TOKEN), _canonical(document,
                                                                          floats=True))
    again = cmdsync("plan", "--local", "bot.yaml", "--out", "again.json", cwd=project)
    assert again.returncode == 0 and key.read_text(encoding="ascii").strip() == text
    applied = cmdsync("apply", "--auto-approve", "plan.json", cwd=project)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "Apply complete: 1 created" in applied.stdout


def test_a_forged_local_plan_imports_nothing_and_changes_nothing(project: Path) -> None:
    done = cmdsync("plan", "--local", "bot.yaml", "--out", "plan.json", cwd=project)
    assert done.returncode == 0, done.stderr
    forge(project / "plan.json", BOT_TOKEN)
    applied = cmdsync("apply", "--auto-approve", "plan.json", cwd=project)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert not (project / "imported.mark").exists()
    assert ("the saved plan plan.json is not signed with the credential at hand (its "
            "plan_hmac), so no code it names is imported; nothing was changed.") in \
        applied.stderr
    assert "  - discord.py:planted:tree: bot code, which apply would import and run" in \
        applied.stderr
    assert "Traceback" not in applied.stderr


def test_a_key_file_others_can_read_is_refused_with_the_chmod_that_fixes_it(
        project: Path) -> None:
    if os.name != "posix":
        pytest.skip("file modes are POSIX")
    assert cmdsync("plan", "--local", "bot.yaml", "--out", "plan.json",
                   cwd=project).returncode == 0
    key = project / ".cmdsync" / "plan.key"
    key.chmod(0o644)
    applied = cmdsync("apply", "--auto-approve", "plan.json", cwd=project)
    assert applied.returncode == 1
    assert f"error: the saved-plan key {key} has mode 0644 or another owner: whoever can " \
           f"read it can sign a plan that apply trusts. Run `chmod 600 {key}` as its " \
           "owner, or delete it and plan again" in applied.stderr


@pytest.fixture
def served() -> Iterator[str]:
    """An emulator served with its default seed, whose bot token is published."""
    with http_server(new_emulator()) as base_url:
        yield base_url


def test_a_plan_forged_with_a_served_emulators_default_token_is_refused(
        project: Path, served: str) -> None:
    env = {"DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_APPLICATION_ID": APPLICATION_ID,
           "CMDSYNC_API_URL": f"{served}/api/v10"}
    done = cmdsync("plan", "bot.yaml", "--out", "plan.json", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / ".cmdsync" / "plan.key").is_file()
    forge(project / "plan.json", BOT_TOKEN)
    applied = cmdsync("apply", "--auto-approve", "plan.json", cwd=project, env=env)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert not (project / "imported.mark").exists()
    assert "so no code it names is imported; nothing was changed." in applied.stderr


@pytest.mark.slow
def test_an_authentic_plan_from_bot_code_is_applied_without_importing_it(
        project: Path) -> None:
    """The plan imports the code (the user asked for it); apply never does."""
    bot = project / "shop.py"
    bot.write_text(paths.DATA.joinpath("bots", "shop.py").read_text(encoding="utf-8")
                   + "\nimport pathlib\npathlib.Path('imported.mark').write_text('ran')\n",
                   encoding="utf-8")
    done = cmdsync("plan", "--local", "discord.py:shop:tree", "--out", "plan.json",
                   cwd=project, env={"PYTHONPATH": str(project)})
    assert done.returncode == 0, done.stdout + done.stderr
    (project / "imported.mark").unlink()
    applied = cmdsync("apply", "--auto-approve", "plan.json", cwd=project,
                      env={"PYTHONPATH": str(project)})
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "Apply complete:" in applied.stdout
    assert not (project / "imported.mark").exists()
