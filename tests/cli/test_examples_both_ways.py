"""Every example plans the same with ``--local`` and against ``cmdsync emulator``, and applies.

``--local`` runs the embedded emulator in-process; ``cmdsync emulator`` serves
the same emulator with its default seed, and a user points cmdsync at it with
the credentials its banner prints. A newcomer tries the examples both ways:
each manifest of ``examples/`` (a file at the top, a folder of files that go
together such as ``environments/``, and the whole folder) must give the same
plan from both, apply, and then plan no changes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from cmdsync.emulator import seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.server import BackgroundServer, build
from tests.support.cli import clean_environment, run
from tests.support.paths import EXAMPLES
from tests.support.processes import environment


def example_paths() -> list[str]:
    """What a user plans: each manifest at the top of ``examples/``, each folder of
    manifests (they go together), and the whole folder; relative to its parent."""
    found = [f"examples/{p.name}" for p in sorted(EXAMPLES.glob("*.yaml"))]
    found += [f"examples/{d.name}" for d in sorted(EXAMPLES.iterdir())
              if d.is_dir() and not d.name.startswith(".") and any(d.glob("*.yaml"))]
    return [*found, "examples"]


EXAMPLE_PATHS = example_paths()
# The credentials `cmdsync emulator` prints with its default seed, as a user exports them.
SERVED_VARIABLES = {"DISCORD_BOT_TOKEN": seed.BOT_TOKEN,
                    "DISCORD_APPLICATION_ID": seed.APPLICATION_ID,
                    "DISCORD_BEARER_TOKEN": seed.USER_TOKEN}


def test_every_example_is_covered() -> None:
    assert {"examples/quickstart.yaml", "examples/large-bot.yaml", "examples/environments",
            "examples/hikari", "examples"} <= set(EXAMPLE_PATHS)


def workdir(tmp_path: Path, name: str) -> Path:
    """A fresh working directory holding a copy of ``examples/``."""
    where = tmp_path / name
    shutil.copytree(EXAMPLES, where / "examples")
    return where


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A ``plan --format json`` document without what names where it was read."""
    return {key: value for key, value in document.items()
            if key not in ("api_url", "plan_digest")}


def plan_json(capsys: pytest.CaptureFixture[str], path: str, *local: str) -> dict[str, Any]:
    code, out, err = run(capsys, "plan", *local, "--format", "json", path)
    assert code == 0, out + err
    document: dict[str, Any] = json.loads(out)
    assert document["errors"] == [] and document["summary"]["has_changes"]
    return document


def apply_then_plan_no_changes(capsys: pytest.CaptureFixture[str], path: str,
                               *local: str) -> None:
    code, out, err = run(capsys, "apply", *local, "--auto-approve", path)
    assert code == 0, out + err
    code, out, err = run(capsys, "plan", *local, "--detailed-exitcode", path)
    assert (code, out) == (0, "No changes. Live commands match the manifest.\n"), out + err


def local_plan(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
               tmp_path: Path, path: str) -> dict[str, Any]:
    clean_environment(monkeypatch)
    monkeypatch.chdir(workdir(tmp_path, "local"))
    return plan_json(capsys, path, "--local")


@pytest.mark.parametrize("path", EXAMPLE_PATHS)
def test_an_example_plans_the_same_locally_and_served_and_applies(
        path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    local = local_plan(capsys, monkeypatch, tmp_path, path)
    apply_then_plan_no_changes(capsys, path, "--local")

    # `cmdsync emulator` with no option: build() as it builds it, served as it serves it.
    emulator = build(state=None, seed=None, global_limit=50)
    with BackgroundServer(create_app(emulator, hosts=("127.0.0.1",))) as base:
        clean_environment(monkeypatch)
        monkeypatch.setenv("CMDSYNC_API_URL", f"{base}/api/v10")
        for name, value in SERVED_VARIABLES.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(workdir(tmp_path, "served"))
        served = plan_json(capsys, path)
        apply_then_plan_no_changes(capsys, path)
    assert comparable(served) == comparable(local)


@contextmanager
def served_emulator(*args: str, cwd: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``python -m cmdsync emulator --port 0 ARGS`` in ``cwd``: its API URL and the
    variables a user sets from its banner (the first application's bot token and id,
    the first user's bearer token)."""
    # Its standard error goes to a file: a pipe nobody reads while it serves could fill.
    with tempfile.TemporaryFile() as errors, subprocess.Popen(
            [sys.executable, "-m", "cmdsync", "emulator", "--port", "0", *args], cwd=cwd,
            env=environment({}), text=True, stdout=subprocess.PIPE, stderr=errors,
            stdin=subprocess.DEVNULL) as process:
        timer = threading.Timer(60, process.kill)
        timer.start()
        try:
            text = banner_of(process, errors)
            api = re.search(r"Discord API v10 at (\S+)", text)
            bot = re.search(r"application (\d+): bot token (\S+),", text)
            user = re.search(r"user \d+: bearer token (\S+) ", text)
            assert api and bot and user, text
            yield api[1], {"CMDSYNC_API_URL": api[1], "DISCORD_APPLICATION_ID": bot[1],
                           "DISCORD_BOT_TOKEN": bot[2], "DISCORD_BEARER_TOKEN": user[1]}
        finally:
            timer.cancel()
            process.terminate()
            process.wait(timeout=10)


def banner_of(process: subprocess.Popen[str], errors: IO[bytes]) -> str:
    """What the emulator printed up to its banner's last line; fails with what it
    said on standard error if it stopped first."""
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or "admin API" not in lines[-1]:
        line = process.stdout.readline()
        if not line:
            process.wait(timeout=10)
            errors.seek(0)
            pytest.fail(errors.read().decode(errors="replace") or "no output")
        lines.append(line)
    return "".join(lines)


def test_every_example_plans_against_cmdsync_emulator_as_with_local(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's report: `cmdsync emulator`, its banner's credentials exported, then
    `cmdsync plan examples/large-bot.yaml` (13 CS601 errors and Unknown Guild before)."""
    locals_ = {}
    for number, path in enumerate(EXAMPLE_PATHS):
        locals_[path] = local_plan(capsys, monkeypatch, tmp_path / f"local-{number}", path)
    clean_environment(monkeypatch)
    with served_emulator(cwd=tmp_path) as (api, variables), httpx.Client(
            base_url=api.removesuffix("/api/v10") + "/_emulator", timeout=10) as admin:
        for number, path in enumerate(EXAMPLE_PATHS):
            admin.post("/reset").raise_for_status()  # the default seed again
            for name, value in variables.items():
                monkeypatch.setenv(name, value)
            monkeypatch.chdir(workdir(tmp_path, f"served-{number}"))
            assert comparable(plan_json(capsys, path)) == comparable(locals_[path]), path


OWN_GUILD = """\
guilds:
  "999999999999999999":
    commands:
      - {name: ping, description: Check the bot is alive}
    permissions:
      ping: [{type: role, id: everyone, permission: false}]
"""


def test_cmdsync_emulator_local_serves_what_apply_local_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`cmdsync emulator --local` serves `apply --local`'s state (to watch it in the
    console): the examples plan no changes through it; and a guild --local added for a
    manifest is one its user manages there too (overwrites change as with --local)."""
    clean_environment(monkeypatch)
    where = workdir(tmp_path, "project")
    (where / "own.yaml").write_text(OWN_GUILD, encoding="utf-8")
    monkeypatch.chdir(where)
    for path in ("examples", "own.yaml"):
        code, out, err = run(capsys, "apply", "--local", "--auto-approve", path)
        assert code == 0, out + err
    (where / "own.yaml").write_text(OWN_GUILD.replace("false", "true"), encoding="utf-8")
    with served_emulator("--local", cwd=where) as (_, variables):
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        code, out, err = run(capsys, "plan", "--detailed-exitcode", "examples")
        assert (code, out) == (0, "No changes. Live commands match the manifest.\n"), out + err
        code, out, err = run(capsys, "apply", "--auto-approve", "own.yaml")
        assert code == 0 and "1 permission set changed" in out, out + err
    monkeypatch.delenv("CMDSYNC_API_URL")
    code, out, err = run(capsys, "plan", "--local", "--detailed-exitcode", "own.yaml")
    assert (code, out) == (0, "No changes. Live commands match the manifest.\n"), out + err


def test_a_guild_the_served_emulator_does_not_hold_is_unknown_as_in_discord(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Faithful to Discord: a guild the application is not in answers 404 code 10004
    (--local adds every guild a manifest names; a served emulator only holds its seed's)."""
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(
        'guilds:\n  "999999999999999999":\n    commands:\n'
        "      - {name: ping, description: Check the bot is alive}\n", encoding="utf-8")
    with BackgroundServer(create_app(build(state=None, seed=None, global_limit=50))) as base:
        monkeypatch.setenv("CMDSYNC_API_URL", f"{base}/api/v10")
        for name, value in SERVED_VARIABLES.items():
            monkeypatch.setenv(name, value)
        code, out, err = run(capsys, "plan", "bot.yaml")
    assert code == 1 and "10004" in err and "Unknown Guild" in err, out + err
    assert run(capsys, "plan", "--local", "bot.yaml")[0] == 0
