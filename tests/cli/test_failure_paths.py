"""Every failure path keeps the promises: each test drives the real tool the way the
failure was found (a stand-in server, a FIFO, a symlink, a tampered plan, a signal)."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.reference.faults import FaultConfig
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.emulator.server import BackgroundServer
from tests.support.processes import cmdsync, cmdsync_process

APP = emulator_seed.APPLICATION_ID
TOKEN = "echo-bot-" + secrets.token_hex(24)
MANIFEST = """\
commands:
  - {name: ping, description: Check the bot is alive}
"""


class EchoingProxy:
    """Discord's API from the emulator, except that writes fail with a 50035 whose
    message, leaves and headers echo the request's ``Authorization`` header (as some
    proxies and gateways do)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH", "DELETE"):
            auth = Request(scope).headers.get("authorization", "")
            response: Response = JSONResponse({
                "code": 50035, "message": f"Invalid Form Body (sent {auth})",
                "errors": {"0": {"name": {"_errors": [
                    {"code": "BASE_TYPE_BAD_LENGTH", "message": f"echo: {auth}"}]}}}},
                status_code=400)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def echoing_server() -> Iterator[str]:
    seed = emulator_seed.default_seed()
    seed["applications"][0]["bot_token"] = TOKEN
    with BackgroundServer(EchoingProxy(create_app(new_emulator(seed=seed)))) as base_url:
        yield f"{base_url}/api/v10"


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_token_echoed_by_a_failed_write_is_never_printed(echoing_server: str, tmp_path: Path,
                                                           output: str) -> None:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    done = cmdsync("apply", "--auto-approve", "--format", output, "--strategy", "bulk",
                   "--api-url", echoing_server, "bot.yaml", cwd=tmp_path,
                   env={"DISCORD_BOT_TOKEN": TOKEN, "DISCORD_APPLICATION_ID": APP})
    assert done.returncode == 1, done.stderr
    everything = done.stdout + done.stderr
    assert "Invalid Form Body" in everything and "[redacted]" in everything
    assert TOKEN not in everything
    written = "".join(p.read_text(encoding="utf-8", errors="replace")
                      for p in tmp_path.rglob("*") if p.is_file())
    assert TOKEN not in written


# --- input that is not a regular file -------------------------------------------------

def test_validate_refuses_dev_zero_at_once(tmp_path: Path) -> None:
    done = cmdsync("validate", "/dev/zero", cwd=tmp_path, timeout=60)  # it used to never end
    assert done.returncode == 2
    assert "/dev/zero: CS001 cannot read file: it is a character device, not a regular " \
           "file; give a manifest file" in done.stdout


@pytest.mark.parametrize("inside", [False, True], ids=["named", "in-a-directory"])
def test_validate_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path,
                                                              inside: bool) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "good.yaml").write_text(MANIFEST, encoding="utf-8")
    os.mkfifo(folder / "pipe.yaml")
    target = "manifests" if inside else "manifests/pipe.yaml"
    done = cmdsync("validate", target, cwd=tmp_path, timeout=20)
    assert done.returncode == 2
    assert "pipe.yaml: CS001 cannot read file: it is a FIFO (named pipe), not a regular " \
           "file" in done.stdout


def test_validate_refuses_a_pipe_past_the_size_cap(tmp_path: Path) -> None:
    script = f"exec {shlex.quote(sys.executable)} -m cmdsync validate <(head -c 20000000 /dev/zero)"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=30, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a regular file" in done.stdout


# --- files cmdsync writes --------------------------------------------------------------

def _plan_out(tmp_path: Path, target: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    return cmdsync("plan", "--local", "--out", target, "bot.yaml", cwd=tmp_path)


def test_plan_out_refuses_a_symlink_and_leaves_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("keep me", encoding="utf-8")
    (tmp_path / "plan.json").symlink_to(tmp_path / "real.json")
    done = _plan_out(tmp_path, "plan.json")
    assert done.returncode == 2
    assert "error: refusing to write the plan to plan.json: it is a symbolic link, not a " \
           "regular file; give the path of a regular file" in done.stderr
    assert (tmp_path / "plan.json").is_symlink()
    assert (tmp_path / "real.json").read_text(encoding="utf-8") == "keep me"


def test_plan_out_refuses_a_fifo_and_a_device(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    done = _plan_out(tmp_path, "fifo.json")
    assert done.returncode == 2 and "it is a FIFO (named pipe)" in done.stderr
    assert (tmp_path / "fifo.json").is_fifo()
    done = _plan_out(tmp_path, "/dev/null")
    assert done.returncode == 2 and "it is a character device" in done.stderr
    assert Path("/dev/null").is_char_device()


def test_pull_never_overwrites_a_manifest_without_force(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("# hand-written\n" + MANIFEST, encoding="utf-8")
    done = cmdsync("pull", "--local", "-o", "bot.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "error: refusing to overwrite bot.yaml: it exists; pass --force to replace it" \
        in done.stderr
    assert (tmp_path / "bot.yaml").read_text(encoding="utf-8").startswith("# hand-written")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "bot.yaml")
    done = cmdsync("pull", "--local", "-o", "link.yaml", "--force", cwd=tmp_path)
    assert done.returncode == 2 and "it is a symbolic link" in done.stderr
    done = cmdsync("pull", "--local", "-o", "bot.yaml", "--force", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Written by cmdsync pull" in (tmp_path / "bot.yaml").read_text(encoding="utf-8")
    assert done.stderr.endswith("for your editor\nWrote bot.yaml.\n")  # and the schema hint


# --- saved plans -----------------------------------------------------------------------

TWO = """\
commands:
  - {name: ping, description: Check the bot is alive}
  - {name: echo, description: Say it back}
"""


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory where TWO was applied locally, then echo's description changed and the
    plan saved: one update, one no-op. Tests work on copies of it."""
    where = tmp_path_factory.mktemp("planned")
    (where / "bot.yaml").write_text(TWO, encoding="utf-8")
    assert cmdsync("apply", "--local", "--auto-approve", "bot.yaml", cwd=where).returncode == 0
    (where / "bot.yaml").write_text(TWO.replace("Say it back", "Repeat"), encoding="utf-8")
    done = cmdsync("plan", "--local", "--out", "plan.json", "bot.yaml", cwd=where)
    assert done.returncode == 0, done.stderr
    return where


def _saved_plan(planned: Path, tmp_path: Path) -> dict[str, object]:
    """A fresh copy of the planned directory in ``tmp_path``; the saved plan's document."""
    shutil.copytree(planned, tmp_path, dirs_exist_ok=True)
    document: dict[str, object] = json.loads((tmp_path / "plan.json").read_text("utf-8"))
    return document


def _commands(document: dict[str, object]) -> list[dict[str, object]]:
    scopes = document["scopes"]
    assert isinstance(scopes, list)
    commands: list[dict[str, object]] = scopes[0]["commands"]
    return commands


def _apply_refused(tmp_path: Path, document: dict[str, object], *, redigest: bool) -> str:
    from cmdsync.plan.planfile import plan_digest

    if redigest:
        document["plan_digest"] = plan_digest(document)
    (tmp_path / "plan.json").write_text(json.dumps(document), encoding="utf-8")
    done = cmdsync("apply", "--local", "plan.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    unchanged = cmdsync("plan", "--local", "--detailed-exitcode", "bot.yaml", cwd=tmp_path)
    assert unchanged.returncode == 2  # nothing was written: the update is still to do
    return done.stderr


def _edit_body(document: dict[str, object]) -> None:
    update = next(c for c in _commands(document) if c["action"] == "update")
    body = update["body"]
    assert isinstance(body, dict)
    body["description"] = "Something else entirely"


def _add_create(document: dict[str, object]) -> None:
    _commands(document).append({
        "action": "create", "type": 1, "name": "backdoor", "id": None, "version": None,
        "renamed_from": None, "note": None, "changes": [],
        "body": {"type": 1, "name": "backdoor", "description": "Not in any manifest"}})


def _edit_no_op(document: dict[str, object]) -> None:
    kept = next(c for c in _commands(document) if c["action"] == "no-op")
    body = kept["body"]
    assert isinstance(body, dict)
    body["description"] = "Changed quietly"


def _edit_digest(document: dict[str, object]) -> None:
    document["plan_digest"] = "sha256:" + "0" * 64


@pytest.mark.parametrize("tamper", [_edit_body, _add_create, _edit_no_op, _edit_digest],
                         ids=["request-body", "added-create", "no-op-body", "digest"])
def test_a_tampered_saved_plan_is_refused_before_any_request(planned: Path, tmp_path: Path,
                                                             tamper: object) -> None:
    document = _saved_plan(planned, tmp_path)
    assert callable(tamper)
    tamper(document)
    err = _apply_refused(tmp_path, document, redigest=False)
    assert err == ("error: the saved plan plan.json was changed after cmdsync wrote it (its "
                   "plan_digest does not match its content); nothing was changed. Plan again: "
                   "`cmdsync plan --out FILE`\n")


@pytest.mark.parametrize("tamper, reason", [
    (_edit_body, ("global: chat_input 'echo': the plan sends another body than the manifests "
                 "give")),
    (_add_create, ("global: chat_input 'backdoor': the plan would create it, but the manifests "
                  "do not declare it")),
    (_edit_no_op, ("global: chat_input 'ping': the plan sends another body than the manifests "
                  "give")),
], ids=["request-body", "added-create", "no-op-body"])
def test_a_re_digested_plan_is_held_against_its_manifests(planned: Path, tmp_path: Path,
                                                          tamper: object, reason: str) -> None:
    document = _saved_plan(planned, tmp_path)
    assert callable(tamper)
    tamper(document)
    err = _apply_refused(tmp_path, document, redigest=True)
    assert err == ("error: the saved plan plan.json does not match the manifests it was made "
                   "from (bot.yaml); nothing was changed. Plan again (`cmdsync plan --out "
                   f"FILE`):\n  - {reason}\n")


def test_a_plan_whose_manifests_changed_since_is_refused(planned: Path,
                                                         tmp_path: Path) -> None:
    document = _saved_plan(planned, tmp_path)
    (tmp_path / "bot.yaml").write_text(TWO.replace("Say it back", "Echo"), encoding="utf-8")
    err = _apply_refused(tmp_path, document, redigest=False)
    assert "global: chat_input 'echo': the plan sends another body than the manifests give" \
        in err
    (tmp_path / "bot.yaml").write_text(TWO.replace("Say it back", "Repeat"), encoding="utf-8")
    done = cmdsync("apply", "--local", "plan.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # the untampered plan applies


# --- the create ledger -----------------------------------------------------------------

RECORDER = """\
import sys
from cmdsync.apply import ledger
for _ in range(int(sys.argv[2])):
    ledger.record(sys.argv[1], api_url="local", application_id="1", scope=sys.argv[3],
                  count=1, now=1_750_000_000.0)
"""


def test_two_processes_recording_at_once_lose_no_create(tmp_path: Path) -> None:
    runs = [subprocess.Popen([sys.executable, "-c", RECORDER, str(tmp_path), "150", scope])
            for scope in ("global", "222222222222222222")]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    from cmdsync.apply import ledger

    counts = ledger.load(str(tmp_path))
    day = ledger.utc_day(1_750_000_000.0)
    assert [counts.used("local", "1", scope, day)
            for scope in ("global", "222222222222222222")] == [150, 150]


@pytest.mark.parametrize("content, problem", [
    ('"abc"', "expected an object with format_version 1"),
    ("[]", "expected an object with format_version 1"),
    ("1e400", "expected an object with format_version 1"),
    ('{"format_version": 1, "creates": {"local:x": {"1": {"global": {"2025-06-15": -5}}}}}',
     "creates/local:x/1/global/2025-06-15 is -5, not a count of 0 or more"),
    ('{"format_version": 1, "creates": {"a": {"1": {"global": "many"}}}}',
     "creates/a/1/global must be an object of days"),
    ('{"format_version": 1, "creates": {"a": {"1": {"global": {"d": Infinity}}}}}', None),
], ids=["string", "array", "huge-number", "negative", "wrong-type", "infinity"])
def test_a_malformed_ledger_is_a_clear_error_naming_the_file(tmp_path: Path, content: str,
                                                             problem: str | None) -> None:
    (tmp_path / ".cmdsync").mkdir()
    (tmp_path / ".cmdsync" / "ledger.json").write_text(content, encoding="utf-8")
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    for verb in (["plan"], ["apply", "--auto-approve"]):
        done = cmdsync(*verb, "--local", "bot.yaml", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        path = tmp_path / ".cmdsync" / "ledger.json"
        if problem is None:
            assert done.stderr.startswith(f"error: cannot read the create ledger {path}: ")
        else:
            assert done.stderr == (f"error: {path} is not a cmdsync create ledger ({problem}): "
                                   "delete it to start a new one\n")


# --- an apply interrupted by a signal ----------------------------------------------------

MANY = "commands:\n" + "".join(f"  - {{name: c{i}, description: Command {i}}}\n"
                               for i in range(40))


@pytest.mark.slow  # real processes, 50 ms a request: about 4 s each
@pytest.mark.parametrize("sig, code, output", [
    (signal.SIGTERM, 143, "text"), (signal.SIGINT, 130, "json")], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_apply_stops_cleanly_and_reports(tmp_path: Path, sig: signal.Signals,
                                                      code: int, output: str) -> None:
    instance = new_emulator(ratelimit=RateLimitConfig(global_limit=0, route_limit=0),
                            faults=FaultConfig(latency=0.05))
    (tmp_path / "bot.yaml").write_text(MANY, encoding="utf-8")
    env = {"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN, "DISCORD_APPLICATION_ID": APP}
    with BackgroundServer(create_app(instance)) as base_url:
        args = ["apply", "--auto-approve", "--strategy", "per-command", "--format", output,
                "--api-url", f"{base_url}/api/v10", "bot.yaml"]
        process = cmdsync_process(*args, cwd=tmp_path, env=env)
        deadline = time.monotonic() + 60
        while instance.log.counts()["creates"] < 5:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(sig)
        out, err = process.communicate(timeout=60)
        assert process.returncode == code, err
        made = instance.log.counts()["creates"]
        assert 5 <= made < 40
        if output == "json":
            result = json.loads(out)
            assert (result["status"], result["interrupted"]) == ("interrupted", sig.name)
            assert result["summary"]["created"] == made
            assert result["summary"]["not_applied"] == 40 - made
            assert result["backup"] is not None
        else:
            assert "Backed up the live state of the changed scopes to .cmdsync/backups/" in out
            assert "global: interrupted (per command)" in out
            assert out.endswith(f"Apply interrupted by {sig.name}: {made} created, 0 updated, "
                                f"0 deleted, 0 permission sets changed; {40 - made} changes "
                                f"not applied; {made} write requests in "
                                f"{out.rsplit(' in ', 1)[1].split(' s.')[0]} s. Run apply "
                                "again to apply what is left.\n")
        again = cmdsync(*args, cwd=tmp_path, env=env)
        assert again.returncode == 0, again.stderr
    assert instance.log.counts()["creates"] == 40  # every command made, each once


# --- clear errors where exit 70 ("a bug in cmdsync") was --------------------------------

@pytest.mark.parametrize("value", ["!custom ping", "!!python/name:os.system ping"])
def test_a_yaml_tag_is_a_diagnostic_naming_the_file(tmp_path: Path, value: str) -> None:
    (tmp_path / "bot.yaml").write_text(f"commands:\n  - name: {value}\n    description: x\n",
                                       encoding="utf-8")
    done = cmdsync("validate", "bot.yaml", cwd=tmp_path)
    tag = value.split()[0].replace("!!", "tag:yaml.org,2002:")
    assert (done.returncode, done.stdout.splitlines()[0]) == (
        1, (f"bot.yaml:2:11: CS001 unsupported YAML tag {tag!r}: manifests hold plain "
           "values; remove the tag"))


@pytest.mark.parametrize("state", ["corrupt", "directory", "in-a-missing-directory"])
def test_a_bad_state_file_is_a_usage_error_naming_it(tmp_path: Path, state: str) -> None:
    path = tmp_path / "state.sqlite"
    if state == "corrupt":
        path.write_text("not a database", encoding="utf-8")
    elif state == "directory":
        path.mkdir()
    else:
        path = tmp_path / "missing" / "state.sqlite"
    done = cmdsync("emulator", "--state", str(path), "--port", "0", cwd=tmp_path, timeout=20)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot use {path} as the emulator's state: ")


def test_a_damaged_local_state_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".cmdsync").mkdir()
    (tmp_path / ".cmdsync" / "local.sqlite").write_text("garbage", encoding="utf-8")
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    done = cmdsync("plan", "--local", "bot.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (f"error: cannot use {tmp_path}/.cmdsync/local.sqlite as the "
                           "emulator's state: file is not a database: give a state file the "
                           "emulator wrote, or a new path (delete a damaged one to start "
                           "afresh)\n")


def test_the_emulator_state_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    process = cmdsync_process("emulator", "--state", "state.sqlite", "--port", "0",
                              cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "state.sqlite").exists():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        assert (tmp_path / "state.sqlite").stat().st_mode & 0o777 == 0o600
    finally:
        process.terminate()
        process.communicate(timeout=30)


# --- connection errors ------------------------------------------------------------------

@pytest.mark.parametrize("url, message", [
    ("ftp://example.com/api/v10", "is not an http or https URL"),
    ("not a url", "is not an http or https URL"),
    ("http://[::1", "is not a URL (Invalid port: ':1')"),
    ("http://127.0.0.1:9", ("does not end in /api/v10, where Discord's API is: did you mean "
                           "http://127.0.0.1:9/api/v10?")),
])
def test_an_api_url_that_cannot_work_is_a_usage_error_at_once(tmp_path: Path, url: str,
                                                              message: str) -> None:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    for source in ("flag", "environment"):
        args = ["--api-url", url] if source == "flag" else []
        env = {"DISCORD_BOT_TOKEN": TOKEN, "DISCORD_APPLICATION_ID": APP}
        if source == "environment":
            env["CMDSYNC_API_URL"] = url
        done = cmdsync("plan", *args, "bot.yaml", cwd=tmp_path, env=env)
        name = "--api-url" if source == "flag" else "CMDSYNC_API_URL"
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"error: {name} {url!r} {message}")
        assert "attempts" not in done.stderr  # refused before any request, never retried


def test_an_unknown_host_is_said_once_not_retried(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    done = cmdsync("plan", "--api-url", "http://cmdsync-test.invalid/api/v10", "bot.yaml",
                   cwd=tmp_path, env={"DISCORD_BOT_TOKEN": TOKEN,
                                      "DISCORD_APPLICATION_ID": APP})
    assert done.returncode == 1
    assert done.stderr.startswith("error: GET /applications/@me: cannot resolve the host (")
    assert "attempts" not in done.stderr


def test_a_tls_failure_is_said_once_not_retried(tmp_path: Path) -> None:
    instance = new_emulator()
    with BackgroundServer(create_app(instance)) as base_url:  # plain HTTP, asked for TLS
        (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
        done = cmdsync("plan", "--api-url", base_url.replace("http:", "https:") + "/api/v10",
                       "bot.yaml", cwd=tmp_path,
                       env={"DISCORD_BOT_TOKEN": TOKEN, "DISCORD_APPLICATION_ID": APP})
    assert done.returncode == 1
    assert done.stderr.startswith("error: GET /applications/@me: the TLS handshake failed (")
    assert instance.log.counts()["requests"] == 0


@pytest.mark.parametrize("content, message", [
    (f"{TOKEN}\nsecond-line\n", "holds 2 lines: put the bot token alone on one line"),
    ("tökenvalue-with-umlaut\n", ("holds characters a bot token never has (not ASCII, or "
                                 "spaces): copy it again from the Developer Portal")),
])
def test_a_token_file_that_cannot_be_a_token_is_refused(tmp_path: Path, content: str,
                                                        message: str) -> None:
    (tmp_path / "token").write_text(content, encoding="utf-8")
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    done = cmdsync("plan", "--token-file", "token", "--api-url", "http://127.0.0.1:9/api/v10",
                   "bot.yaml", cwd=tmp_path, env={"DISCORD_APPLICATION_ID": APP})
    assert done.returncode == 2
    assert done.stderr == f"error: the bot token file token {message}\n"
    assert TOKEN not in done.stderr and "tökenvalue" not in done.stderr


# --- the emulator's admin API -----------------------------------------------------------

@pytest.fixture(scope="module")
def admin_url() -> Iterator[str]:
    with BackgroundServer(create_app(new_emulator())) as base_url:
        yield f"{base_url}/_emulator"


def test_the_admin_api_refuses_cross_origin_simple_requests(admin_url: str) -> None:
    seed = json.dumps({"applications": [{"id": "999999999999999999", "bot_token": "evil-token",
                                         "client_secret": "x"}]})
    with httpx.Client() as client:
        plain = client.post(f"{admin_url}/seed", content=seed,
                            headers={"Content-Type": "text/plain"})
        foreign = client.post(f"{admin_url}/seed", content=seed, headers={
            "Content-Type": "application/json", "Origin": "https://evil.example"})
        state = client.get(f"{admin_url}/state").json()
    assert (plain.status_code, foreign.status_code) == (415, 403)
    assert "evil-token" not in json.dumps(state)


def test_the_admin_api_limits_bodies(admin_url: str) -> None:
    with httpx.Client() as client:
        big = client.post(f"{admin_url}/reset", content=b"{" + b" " * (20 * 1024 * 1024) + b"}",
                          headers={"Content-Type": "application/json"})
        assert big.status_code == 413
        assert client.post(f"{admin_url}/reset").status_code == 204


class NotInstalled:
    """Discord for a guild the application is not installed in: 403 code 50001."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "/guilds/" in scope["path"]:
            await JSONResponse({"message": "Missing Access", "code": 50001},
                               status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def test_a_guild_without_the_app_says_to_invite_it(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(
        'guilds:\n  "222222222222222222":\n    commands: [{name: ping, description: Ping}]\n',
        encoding="utf-8")
    with BackgroundServer(NotInstalled(create_app(new_emulator()))) as base_url:
        done = cmdsync("plan", "--api-url", f"{base_url}/api/v10", "bot.yaml", cwd=tmp_path,
                       env={"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN,
                            "DISCORD_APPLICATION_ID": APP})
    assert done.returncode == 1
    assert "HTTP 403: Missing Access (code 50001): the application is not installed in guild " \
           "222222222222222222 with the applications.commands scope" in done.stderr
    assert f"https://discord.com/oauth2/authorize?client_id={APP}&scope=applications.commands" \
        in done.stderr


# --- --detailed-exitcode: 2 means changes, and nothing else -----------------------------

@pytest.mark.parametrize("args, code", [
    (["missing.yaml"], 1),
    (["--no-such-flag", "bot.yaml"], 1),
    (["bot.yaml"], 2),
], ids=["missing-manifest", "unknown-flag", "changes"])
def test_detailed_exitcode_keeps_2_for_changes(tmp_path: Path, args: list[str],
                                               code: int) -> None:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    done = cmdsync("plan", "--local", "--detailed-exitcode", *args, cwd=tmp_path)
    assert done.returncode == code, done.stdout + done.stderr
    assert cmdsync("plan", "--local", *args[:1], cwd=tmp_path).returncode == (
        2 if code == 1 else 0)  # without the flag, usage errors stay 2 and changes 0
    if code == 2:
        assert cmdsync("apply", "--local", "--auto-approve", "bot.yaml",
                       cwd=tmp_path).returncode == 0
        again = cmdsync("plan", "--local", "--detailed-exitcode", "bot.yaml", cwd=tmp_path)
        assert again.returncode == 0


def test_an_application_id_flag_contradicting_the_manifest_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(f'application_id: "{APP}"\n' + MANIFEST,
                                       encoding="utf-8")
    done = cmdsync("plan", "--api-url", "http://127.0.0.1:9/api/v10", "--application-id",
                   "222222222222222222", "bot.yaml", cwd=tmp_path,
                   env={"DISCORD_BOT_TOKEN": TOKEN})
    assert (done.returncode, done.stderr) == (
        2, (f"error: --application-id 222222222222222222 differs from the manifest's "
           f"application_id {APP}\n"))


# --- conveniences ruff and Terraform users expect ---------------------------------------

def test_diff_is_plan_and_no_color_and_completion(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(MANIFEST, encoding="utf-8")
    plan = cmdsync("plan", "--local", "bot.yaml", cwd=tmp_path)
    diff = cmdsync("diff", "--local", "bot.yaml", cwd=tmp_path)
    assert (diff.returncode, diff.stdout) == (plan.returncode, plan.stdout)
    colour = {"FORCE_COLOR": "1", "NO_COLOR": ""}
    plain = cmdsync("--no-color", "validate", "missing.yaml", cwd=tmp_path, env=colour)
    assert "\x1b[" not in plain.stdout and "missing.yaml: CS001" in plain.stdout
    assert "\x1b[" in cmdsync("validate", "missing.yaml", cwd=tmp_path, env=colour).stdout
    completion = cmdsync("--show-completion", "bash", cwd=tmp_path)
    assert completion.returncode == 0 and "_cmdsync_completion" in completion.stdout
