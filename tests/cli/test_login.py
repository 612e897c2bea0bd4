"""``cmdsync login``, ``logout``, ``auth status`` and the stored token plan and apply use.

Against :mod:`tests.support.oauth`'s stand-in for Discord's authorization
server, in front of a real emulator. The "browser" is an HTTP client that
follows the authorize URL (the stand-in approves at once and redirects to
the loopback listener). The token store is a file under ``tmp_path``
(``CMDSYNC_CONFIG_DIR``): the real keyring and config directory are never
touched.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from cmdsync.client.logins import Login, Place, default_store
from cmdsync.client.loopback import Listener
from tests.support import processes
from tests.support.cli import MANIFEST, login_user, run
from tests.support.emulator import APP, emulator
from tests.support.oauth import ACCESS_TOKEN, SECRET, Ledger, free_port, oauth_standin
from tests.support.processes import cmdsync_process

USER = "333333333333333333"


@pytest.fixture
def port() -> int:
    """A loopback port nothing listens on, for login's redirect URI."""
    return free_port()


@pytest.fixture
def standin(port: int) -> Iterator[tuple[str, Ledger]]:
    with oauth_standin(emulator(), registered=(f"http://127.0.0.1:{port}/callback",)) as found:
        yield found


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The environment of a user with the application's client id and secret."""
    return login_user(tmp_path, monkeypatch, client_id=APP, client_secret=SECRET)


class Browser:
    """``webbrowser.open`` replaced by a client following the URL in a thread (with
    another ``state`` in the callback when given)."""

    def __init__(self, state: str | None = None) -> None:
        self.state = state
        self.threads: list[threading.Thread] = []
        self.answers: list[httpx.Response] = []

    def follow(self, url: str) -> None:
        if self.state is None:
            self.answers.append(httpx.get(url, follow_redirects=True, timeout=10))
            return
        query = parse_qs(urlsplit(url).query)
        self.answers.append(httpx.get(query["redirect_uri"][0],
                                      params={"code": "code-1", "state": self.state},
                                      timeout=10))

    def open(self, url: str) -> bool:
        self.threads.append(threading.Thread(target=self.follow, args=(url,), daemon=True))
        self.threads[-1].start()
        return True

    def answer(self) -> httpx.Response:
        """What the browser showed, once its request is done."""
        for thread in self.threads:
            thread.join(timeout=10)
        return self.answers[0]


def browser(monkeypatch: pytest.MonkeyPatch, *, state: str | None = None) -> Browser:
    found = Browser(state)
    monkeypatch.setattr("webbrowser.open", found.open)
    return found


def login(capsys: pytest.CaptureFixture[str], base: str, port: int,
          *extra: str) -> tuple[int, str, str]:
    return run(capsys, "login", "--api-url", f"{base}/api/v10", "--port", str(port), *extra)


def stored(config: Path) -> dict[str, object]:
    return dict(json.loads((config / "logins.json").read_text())["logins"])


def tokens(ledger: Ledger) -> list[str]:
    return [ACCESS_TOKEN, SECRET, *ledger.refresh_tokens, *ledger.revoked]


def test_login_stores_the_token_in_a_0600_file_and_prints_none(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    answers = browser(monkeypatch)
    code, out, err = login(capsys, base, port)
    assert code == 0, err
    assert (code, out.splitlines()[0]) == (
        0, f"Logged in as emulator-user ({USER}) for application {APP} at {base}/api/v10.")
    assert "Opened the browser to authorize cmdsync." in err
    assert answers.answer().status_code == 200 and "Logged in" in answers.answer().text
    assert stat.S_IMODE(os.stat(config / "logins.json").st_mode) == 0o600
    record = stored(config)[f"{base}/api/v10|{APP}||{USER}"]
    assert isinstance(record, dict) and record["access_token"] == ACCESS_TOKEN
    assert ledger.grants == ["authorization_code"]
    assert ledger.challenges[0][0] == "S256"  # the stand-in checked the verifier against it
    for secret in tokens(ledger):
        assert secret not in out + err


def test_login_with_no_browser_prints_the_url_for_another_client(
        tmp_path: Path, standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    env = {"CMDSYNC_CONFIG_DIR": str(tmp_path / "config"), "DISCORD_CLIENT_ID": APP,
           "DISCORD_CLIENT_SECRET": SECRET}
    process = cmdsync_process("login", "--no-browser", "--api-url", f"{base}/api/v10",
                              "--port", str(port), "--timeout", "60", cwd=tmp_path, env=env)
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if line.strip().startswith(f"{base}/oauth2/authorize?"):
            break
    assert lines[0] == "Open this URL in a browser to authorize cmdsync:\n"
    answer = httpx.get(lines[-1].strip(), follow_redirects=True, timeout=10)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, answer.status_code) == (0, 200), err
    assert out.startswith(f"Logged in as emulator-user ({USER})")
    assert stat.S_IMODE(os.stat(tmp_path / "config" / "logins.json").st_mode) == 0o600
    for secret in tokens(ledger):
        assert secret not in out + err + "".join(lines)


def test_an_answer_with_another_state_is_refused(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    answers = browser(monkeypatch, state="forged")
    code, _, err = login(capsys, base, port, "--timeout", "3")  # waits on for its own
    uri = f"http://127.0.0.1:{port}/callback"
    assert (code, err.splitlines()[-1]) == (1, (
        f"error: no answer came to {uri} within 3 s: if the browser shows \"Invalid OAuth2 "
        f"redirect_uri\", add exactly {uri} to the application's OAuth2 Redirects in the "
        "Developer Portal (or pass --port with the port of one registered); then run "
        "`cmdsync login` again"))
    assert answers.answer().status_code == 400 and "Login refused" in answers.answer().text
    assert ledger.grants == [] and not (config / "logins.json").exists()


def test_no_answer_names_the_redirect_uri_to_register(
        capsys: pytest.CaptureFixture[str], config: Path, standin: tuple[str, Ledger],
        port: int) -> None:
    base, _ = standin
    code, _, err = login(capsys, base, port, "--no-browser", "--timeout", "0")
    uri = f"http://127.0.0.1:{port}/callback"
    assert (code, err.splitlines()[-1]) == (1, (
        f"error: no answer came to {uri} within 0 s: if the browser shows \"Invalid OAuth2 "
        f"redirect_uri\", add exactly {uri} to the application's OAuth2 Redirects in the "
        "Developer Portal (or pass --port with the port of one registered); then run "
        "`cmdsync login` again"))


def test_login_without_a_client_secret_says_what_to_set(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        port: int) -> None:
    monkeypatch.delenv("DISCORD_CLIENT_SECRET")
    code, _, err = run(capsys, "login", "--port", str(port))
    assert (code, err) == (2, (
        "error: logging in needs the application's DISCORD_CLIENT_ID and "
        "DISCORD_CLIENT_SECRET (or --client-secret-file), from the Developer Portal's "
        "OAuth2 page: DISCORD_CLIENT_SECRET not set\n"))


def logged_in(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
              base: str, port: int) -> None:
    browser(monkeypatch)
    assert login(capsys, base, port)[0] == 0


def test_apply_uses_the_stored_token_and_refreshes_it_once_expired(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int, tmp_path: Path) -> None:
    base, ledger = standin
    (tmp_path / "commands.yaml").write_text(MANIFEST)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "emulator-bot-token")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", APP)
    apply = ("apply", "--auto-approve", "--api-url", f"{base}/api/v10", "commands.yaml")
    code, _, err = run(capsys, *apply)
    assert code == 1 and "or run `cmdsync login` (a bot token gets 403 code 20001)" in err
    logged_in(capsys, monkeypatch, base, port)
    first = set(ledger.refresh_tokens)
    code, out, err = run(capsys, *apply)
    assert code == 0, err
    assert "Apply complete" in out and ledger.grants == ["authorization_code"]
    monkeypatch.setattr("cmdsync.runners.login.now", lambda: 4_000_000_000.0)
    code, out, err = run(capsys, "plan", "--api-url", f"{base}/api/v10", "commands.yaml")
    assert (code, ledger.grants[-1]) == (0, "refresh_token"), err
    record = stored(config)[f"{base}/api/v10|{APP}||{USER}"]
    assert isinstance(record, dict) and record["refresh_token"] in ledger.refresh_tokens
    assert record["refresh_token"] not in first and record["expires_at"] == 4_000_604_800
    for secret in tokens(ledger) + list(first):
        assert secret not in out + err


def test_a_refused_refresh_says_to_log_in_again(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int, tmp_path: Path) -> None:
    base, ledger = standin
    (tmp_path / "commands.yaml").write_text(MANIFEST)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "emulator-bot-token")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", APP)
    logged_in(capsys, monkeypatch, base, port)
    ledger.refresh_tokens.clear()  # revoked in Discord (User Settings > Authorized Apps)
    monkeypatch.setattr("cmdsync.runners.login.now", lambda: 4_000_000_000.0)
    code, out, err = run(capsys, "apply", "--auto-approve", "--api-url", f"{base}/api/v10",
                         "commands.yaml")
    assert (code, out, err) == (1, "", (
        "error: POST /oauth2/token: HTTP 400: invalid_grant: Invalid \"refresh_token\" in "
        "request.: the login is no longer valid: run `cmdsync login` again\n"))


def test_auth_status_shows_the_user_and_the_guilds_they_manage(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    code, out, _ = run(capsys, "auth", "status", "--api-url", f"{base}/api/v10")
    assert (code, out) == (1, (
        f"Not logged in for application {APP} at {base}/api/v10: run `cmdsync login` (plan "
        "and apply then edit overwrites as you).\n"))
    monkeypatch.setattr("cmdsync.runners.login.now", lambda: 1_750_000_000.0)
    logged_in(capsys, monkeypatch, base, port)
    code, out, err = run(capsys, "auth", "status", "--api-url", f"{base}/api/v10")
    assert (code, out) == (0, (
        f"Logged in as emulator-user ({USER}) for application {APP} at {base}/api/v10.\n"
        "Scopes: identify guilds applications.commands.permissions.update\n"
        "Token expires 2025-06-22 15:06:40 UTC\n"
        "Guilds you manage:\n"
        "  222222222222222222  Emulator Guild\n"
        "  555555555555555555  Mods  (no Manage Roles: cannot edit overwrites)\n")), err
    for secret in tokens(ledger):
        assert secret not in out + err


def test_logout_revokes_then_forgets(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int) -> None:
    base, ledger = standin
    logged_in(capsys, monkeypatch, base, port)
    refresh = next(iter(ledger.refresh_tokens))
    code, out, err = run(capsys, "logout", "--api-url", f"{base}/api/v10")
    assert (code, out) == (0, (f"Logged out emulator-user ({USER}) for application {APP} at "
                              f"{base}/api/v10: the token was revoked and forgotten.\n")), err
    assert ledger.revoked == [refresh] and stored(config) == {}
    code, out, _ = run(capsys, "logout", "--api-url", f"{base}/api/v10")
    assert (code, out) == (0, (f"No one is logged in for application {APP} at "
                              f"{base}/api/v10: nothing to do.\n"))


def test_logout_forgets_even_when_revoking_fails(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        port: int) -> None:
    with oauth_standin(emulator(), registered=(f"http://127.0.0.1:{port}/callback",)) as (
            base, _):
        logged_in(capsys, monkeypatch, base, port)
    code, out, _err = run(capsys, "logout", "--api-url", f"{base}/api/v10")
    assert code == 1 and stored(config) == {}
    assert out.startswith(f"Logged out emulator-user ({USER}) for application {APP} at "
                          f"{base}/api/v10: forgotten here, but NOT revoked (POST "
                          "/oauth2/token/revoke: ")
    assert out.endswith("revoke it in Discord's User Settings > Authorized Apps.\n")



def test_ctrl_c_while_waiting_stops_cleanly_and_frees_the_port(
        tmp_path: Path, port: int) -> None:
    env = {**processes.environment(None), "CMDSYNC_CONFIG_DIR": str(tmp_path / "config"),
           "DISCORD_CLIENT_ID": APP, "DISCORD_CLIENT_SECRET": SECRET}
    process = subprocess.Popen(
        [sys.executable, "-c", processes.WITH_CTRL_C, "login", "--no-browser", "--port",
         str(port), "--api-url", "http://127.0.0.1:9/api/v10"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("Waiting for the answer"):
            break
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 130
    assert process.stdout is not None
    assert (process.stdout.read(), process.stderr.read()) == (
        "", "\nInterrupted: the login was cancelled; nothing was stored.\n")
    process.stdout.close()
    process.stderr.close()
    with socket.socket() as again:  # the listener's socket was closed
        again.bind(("127.0.0.1", port))


def test_the_listener_answers_its_callback_only_and_reads_little(port: int) -> None:
    seen: list[int] = []

    def send() -> None:
        base = f"http://127.0.0.1:{port}"
        try:  # the line is cut at 8 KiB: a 414, or the connection reset with it unread
            seen.append(httpx.get(f"{base}/callback?x={'a' * 9000}").status_code)
        except httpx.TransportError:
            seen.append(414)
        seen.append(httpx.post(f"{base}/callback", content=b"code=c").status_code)
        seen.append(httpx.get(f"{base}/favicon.ico").status_code)
        seen.append(httpx.get(f"{base}/callback?code=c&state=s").status_code)

    with Listener(port, state="s", page=lambda query: ("Logged in", "")) as listener:
        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        assert listener.wait(30) == {"code": "c", "state": "s"}
    thread.join(timeout=10)
    assert seen == [414, 405, 404, 200]


class MemoryKeyring(KeyringBackend):
    """A keyring backend in memory: the store's keyring path without the user's."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


def test_the_keyring_keeps_the_tokens_and_the_file_the_index(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    backend = MemoryKeyring()
    monkeypatch.delenv("CMDSYNC_CONFIG_DIR")
    monkeypatch.setattr("platformdirs.user_config_dir", lambda name: str(tmp_path / name))
    found: list[object] = []
    monkeypatch.setattr("keyring.get_keyring", lambda: found.append(1) or backend)
    store = default_store()
    place = Place("https://discord.com/api/v10", APP, "prod")
    assert store.current(place) is None and found == []  # no login: keyring not opened
    login = Login(place, USER, "alice", ("identify",), 1.0, "access-token-1", "refresh-1")
    store.save(login)
    assert store.where == "the system keyring" and store.current(place) == login
    assert store.current(Place("https://discord.com/api/v10", APP, "")) is None
    key = f"https://discord.com/api/v10|{APP}|prod|{USER}"
    assert json.loads(backend.entries[("cmdsync", key)]) == {
        "access_token": "access-token-1", "refresh_token": "refresh-1"}
    index = (tmp_path / "cmdsync" / "logins.json").read_text()
    assert "access-token-1" not in index and "refresh-1" not in index
    store.forget(login)
    assert backend.entries == {} and store.current(place) is None


def test_without_a_usable_keyring_the_file_keeps_the_tokens(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from keyring.backends import fail

    monkeypatch.delenv("CMDSYNC_CONFIG_DIR")
    monkeypatch.setattr("keyring.get_keyring", fail.Keyring)
    monkeypatch.setattr("platformdirs.user_config_dir", lambda name: str(tmp_path / name))
    store = default_store()
    assert store.where == str(tmp_path / "cmdsync" / "logins.json")


def test_a_login_belongs_to_its_cmdsync_toml_environment(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, config: Path,
        standin: tuple[str, Ledger], port: int, tmp_path: Path) -> None:
    base, _ = standin
    (tmp_path / "commands.yaml").write_text(MANIFEST)
    (tmp_path / "cmdsync.toml").write_text(
        'manifests = ["commands.yaml"]\n\n[environments.staging]\n'
        f'application_id = "{APP}"\napi_url = "{base}/api/v10"\n')
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "emulator-bot-token")
    browser(monkeypatch)
    code, out, err = run(capsys, "login", "--env", "staging", "--port", str(port))
    assert (code, out.splitlines()[0]) == (
        0, (f"Logged in as emulator-user ({USER}) for application {APP} at {base}/api/v10 "
        "(environment staging).")), err
    assert list(stored(config)) == [f"{base}/api/v10|{APP}|staging|{USER}"]
    code, out, err = run(capsys, "apply", "--auto-approve", "--env", "staging")
    assert code == 0, err
    (tmp_path / "other.yaml").write_text(MANIFEST.replace("permission: false",
                                                          "permission: true"))
    code, _, err = run(capsys, "apply", "--auto-approve", "--api-url", f"{base}/api/v10",
                       "--application-id", APP, "other.yaml")  # no environment: no login
    assert code == 1 and "or run `cmdsync login` (a bot token gets 403 code 20001)" in err
