"""The login store others could write is refused, as ssh refuses such keys.

A ``logins.json`` planted in a world-writable configuration directory would
otherwise be read as the user's own login (its token used by plan and
apply), and a token written there could be read or replaced. Unix mode bits
and owners: POSIX only.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import clean_environment, run
from tests.support.emulator import APP, emulator
from tests.support.oauth import SECRET, Ledger, free_port, oauth_standin

POSIX = "Unix mode bits and file owners: Windows files have ACLs"
pytestmark = [pytest.mark.posix(reason=POSIX),
              pytest.mark.skipif(sys.platform == "win32", reason=f"needs POSIX: {POSIX}")]

API = "http://127.0.0.1:9/api/v10"  # nothing listens: nothing is asked of Discord
MALLORY = "999999999999999999"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's configuration directory (made, 0700), with the application's client id
    and secret in the environment."""
    clean_environment(monkeypatch)
    directory = tmp_path / "config"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("CMDSYNC_CONFIG_DIR", str(directory))
    monkeypatch.setenv("DISCORD_CLIENT_ID", APP)
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", SECRET)
    monkeypatch.chdir(tmp_path)
    return directory


def plant(directory: Path, api: str = API) -> Path:
    """Another user's login for the application, as the current one: a token of theirs
    that plan and apply would use as the user's."""
    place = {"api_url": api, "application_id": APP, "environment": ""}
    key = f"{api}|{APP}|"
    record = {"place": place, "user_id": MALLORY, "user_name": "mallory",
              "scopes": ["identify"], "expires_at": 4_000_000_000.0,
              "access_token": "mallory-access-token", "refresh_token": "mallory-refresh"}
    path = directory / "logins.json"
    path.write_text(json.dumps({"logins": {f"{key}|{MALLORY}": record},
                                "current": {key: MALLORY}}))
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_auth_status_refuses_a_login_planted_in_a_directory_others_can_write(
        capsys: pytest.CaptureFixture[str], config: Path, mode: int) -> None:
    plant(config)
    config.chmod(mode)
    code, out, err = run(capsys, "auth", "status", "--api-url", API)
    assert (code, out, err) == (1, "", (
        f"error: refusing the login store {config}: its mode {mode:04o} lets other users "
        f"write it, so no token is read from it or written to it: run `chmod 700 {config}`\n"))
    config.chmod(0o700)  # fixed as the message says: the (planted) login is read again
    code, out, _ = run(capsys, "auth", "status", "--api-url", API)
    assert out.startswith(f"Logged in as mallory ({MALLORY})")


def test_a_logins_json_others_can_write_is_refused(
        capsys: pytest.CaptureFixture[str], config: Path) -> None:
    path = plant(config)
    path.chmod(0o666)
    code, out, err = run(capsys, "auth", "status", "--api-url", API)
    assert (code, out, err) == (1, "", (
        f"error: refusing the login store {path}: its mode 0666 lets other users write it, "
        f"so no token is read from it or written to it: run `chmod 600 {path}`\n"))
    code, out, err = run(capsys, "logout", "--api-url", API)
    assert (code, out) == (1, "") and f"`chmod 600 {path}`" in err


def test_a_store_owned_by_another_user_is_refused(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        config: Path) -> None:
    plant(config)
    if os.getuid() == 0:  # root trusts its own files and may give them away
        os.chown(config, 4242, -1)
        owner, you = 4242, 0
    else:  # a user cannot give a file away: cmdsync is told it runs as another
        owner, you = os.getuid(), os.getuid() + 1
        monkeypatch.setattr("os.getuid", lambda: you)
    code, out, err = run(capsys, "auth", "status", "--api-url", API)
    assert (code, out, err) == (1, "", (
        f"error: refusing the login store {config}: it belongs to user id {owner}, not to "
        f"you ({you}), so no token is read from it or written to it: move it away "
        "(`cmdsync login` then makes one of yours) or set CMDSYNC_CONFIG_DIR to a "
        "directory of yours\n"))


@pytest.fixture
def standin() -> Iterator[tuple[str, Ledger, int]]:
    port = free_port()
    with oauth_standin(emulator(), registered=(f"http://127.0.0.1:{port}/callback",)) as (
            base, ledger):
        yield base, ledger, port


def test_login_refuses_to_store_a_token_where_others_can_write_before_the_browser_opens(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger, int]) -> None:
    base, ledger, port = standin
    opened: list[str] = []

    def open_url(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr("webbrowser.open", open_url)
    config.chmod(0o777)
    code, out, err = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port",
                         str(port), "--timeout", "5")
    assert (code, out, err) == (1, "", (
        f"error: refusing the login store {config}: its mode 0777 lets other users write "
        f"it, so no token is read from it or written to it: run `chmod 700 {config}`\n"))
    assert opened == [] and ledger.grants == [] and list(config.iterdir()) == []
