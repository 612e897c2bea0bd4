"""``cmdsync login`` end to end against the served emulator's OAuth2 flow (issue 26).

``login --no-browser`` runs as a user would (a subprocess printing the URL),
and ``login`` in-process with the emulator's clock; either way an HTTP
client opens the URL, picks the seeded user on the emulator's consent page
and clicks Authorize, as :mod:`tests.support.consent` does; the redirect
reaches login's loopback listener. Then, with the emulator's clock injected: ``apply`` edits overwrites with the stored token
and no ``DISCORD_BEARER_TOKEN``; the token expires and is refreshed (rotated:
the old refresh token no longer works); once revoked, apply says to log in
again; ``logout`` revokes. No token appears in any output.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.instance import Emulator
from cmdsync.render.login import when
from tests.support.cli import MANIFEST, clean_environment, run
from tests.support.consent import consent, query_of
from tests.support.emulator import APP, BOT, USER_ID, FakeClock, emulator, http_server
from tests.support.oauth import free_port
from tests.support.processes import cmdsync_process

SECRET = emulator_seed.CLIENT_SECRET
WEEK = 604800


@pytest.fixture
def port() -> int:
    """A loopback port nothing listens on, for login's redirect URI."""
    return free_port()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def served(port: int, clock: FakeClock) -> Iterator[tuple[Emulator, str]]:
    data = emulator_seed.default_seed()
    data["applications"][0]["redirect_uris"] = [f"http://127.0.0.1:{port}/callback"]
    instance = emulator(clock=clock, seed=data)
    with http_server(instance) as base:
        yield instance, base


@pytest.fixture
def user_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
             ) -> dict[str, str]:
    """A user's environment (bot token, client id and secret; no Bearer token), the
    store under tmp_path and cmdsync's clock the emulator's."""
    clean_environment(monkeypatch)
    env = {"CMDSYNC_CONFIG_DIR": str(tmp_path / "config"), "DISCORD_CLIENT_ID": APP,
           "DISCORD_CLIENT_SECRET": SECRET, "DISCORD_BOT_TOKEN": "emulator-bot-token",
           "DISCORD_APPLICATION_ID": APP}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("cmdsync.runners.login.now", clock)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "commands.yaml").write_text(MANIFEST)
    return env


def login_no_browser(base: str, port: int, cwd: Path, env: dict[str, str]
                     ) -> tuple[int, str, str]:
    """``cmdsync login --no-browser`` with the URL it prints approved on the consent page."""
    process = cmdsync_process("login", "--no-browser", "--api-url", f"{base}/api/v10",
                              "--port", str(port), "--timeout", "60", cwd=cwd, env=env)
    assert process.stderr is not None and process.stdout is not None
    shown = []
    while not shown or not shown[-1].strip().startswith(f"{base}/oauth2/authorize?"):
        line = process.stderr.readline()
        assert line, process.stderr.read()
        shown.append(line)
    with httpx.Client(base_url=base, timeout=10) as browser:
        location = consent(browser, query_of(shown[-1].strip()))
        assert browser.get(location).status_code == 200  # the listener's page
    code = process.wait(timeout=60)
    out, err = process.stdout.read(), process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    return code, out, "".join(shown) + err


def login_clicking(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                   base: str, port: int) -> tuple[int, str, str]:
    """``cmdsync login`` in-process (cmdsync's clock the emulator's), its browser an HTTP
    client in a thread that clicks Authorize on the consent page."""
    threads: list[threading.Thread] = []

    def click(url: str) -> None:
        with httpx.Client(base_url=base, timeout=10) as browser:
            browser.get(consent(browser, query_of(url)))

    def open_url(url: str) -> bool:
        threads.append(threading.Thread(target=click, args=(url,), daemon=True))
        threads[-1].start()
        return True

    monkeypatch.setattr("webbrowser.open", open_url)
    found = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port", str(port))
    for thread in threads:
        thread.join(timeout=10)
    return found


def stored(env: dict[str, str]) -> dict[str, Any]:
    logins = json.loads((Path(env["CMDSYNC_CONFIG_DIR"]) / "logins.json").read_text())
    return dict(next(iter(logins["logins"].values())))


def overwrites(base: str) -> Any:
    path = f"/api/v10/applications/{APP}/guilds/{emulator_seed.GUILD_ID}/commands/permissions"
    return httpx.get(base + path, headers=BOT).json()


def test_login_apply_refresh_revoke_against_the_emulator(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        served: tuple[Emulator, str], port: int, user_env: dict[str, str], clock: FakeClock,
        tmp_path: Path) -> None:
    _, base = served
    code, out, err = login_clicking(capsys, monkeypatch, base, port)
    assert code == 0, err
    assert out.startswith("Logged in as owner") and f"({USER_ID}) for application {APP}" in out
    first = stored(user_env)
    seen = out + err
    apply = ("apply", "--auto-approve", "--api-url", f"{base}/api/v10", "commands.yaml")
    code, out, err = run(capsys, *apply)
    seen += out + err
    assert code == 0, err
    assert [p["permissions"] for p in overwrites(base)] == [[
        {"id": emulator_seed.GUILD_ID, "type": 1, "permission": False}]]

    clock.advance(WEEK + 1)  # the access token expired: plan refreshes it
    code, out, err = run(capsys, "plan", "--api-url", f"{base}/api/v10", "commands.yaml")
    seen += out + err
    assert code == 0, err
    second = stored(user_env)
    assert second["refresh_token"] != first["refresh_token"]
    assert second["expires_at"] == clock.now + WEEK
    reuse = httpx.post(f"{base}/api/v10/oauth2/token", auth=(APP, SECRET),
                       data={"grant_type": "refresh_token",
                             "refresh_token": first["refresh_token"]})
    assert (reuse.status_code, reuse.json()["error"]) == (400, "invalid_grant")

    # Deauthorized in Discord: the stored token is refused; apply says to log in again.
    revoked = httpx.post(f"{base}/api/v10/oauth2/token/revoke", auth=(APP, SECRET),
                         data={"token": second["refresh_token"]})
    assert revoked.status_code == 200
    (tmp_path / "commands.yaml").write_text(MANIFEST.replace("permission: false",
                                                             "permission: true"))
    code, out, err = run(capsys, *apply)
    seen += out + err
    assert (code, err) == (1, (
        "error: the Bearer token cannot edit permission overwrites (GET /applications/"
        f"{APP}/guilds/{emulator_seed.GUILD_ID}/commands/permissions: HTTP 401: 401: "
        "Unauthorized (code 0): Discord did not accept the Bearer token from cmdsync login "
        "(owner) (revoked, or expired): run `cmdsync login` again): it must be a user's "
        "token for this application with scope applications.commands.permissions.update; "
        "nothing was changed\n"))
    clock.advance(WEEK + 1)  # and once expired, the refresh is refused: invalid_grant
    code, out, err = run(capsys, *apply)
    seen += out + err
    assert (code, err) == (1, (
        "error: POST /oauth2/token: HTTP 400: invalid_grant: Invalid \"refresh_token\" in "
        "request: it is unknown, revoked or already used.: the login is no longer valid: run "
        "`cmdsync login` again\n"))
    for token in (first["access_token"], first["refresh_token"], second["access_token"],
                  second["refresh_token"], SECRET):
        assert token not in seen


def test_auth_status_and_logout_against_the_emulator(
        capsys: pytest.CaptureFixture[str], served: tuple[Emulator, str], port: int,
        user_env: dict[str, str], tmp_path: Path) -> None:
    _, base = served
    assert login_no_browser(base, port, tmp_path, user_env)[0] == 0
    login = stored(user_env)
    code, out, err = run(capsys, "auth", "status", "--api-url", f"{base}/api/v10")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1:] == [
        "Scopes: applications.commands.permissions.update guilds identify",
        f"Token expires {when(login['expires_at'])}",
        "Guilds you manage:",
        f"  {emulator_seed.GUILD_ID}  Emulator Guild"], out
    code, out, err = run(capsys, "logout", "--api-url", f"{base}/api/v10")
    assert code == 0 and out.endswith(": the token was revoked and forgotten.\n"), out + err
    me = httpx.get(f"{base}/api/v10/users/@me",
                   headers={"Authorization": f"Bearer {login['access_token']}"})
    assert me.status_code == 401  # revoking the refresh token ended its access token
    for token in (login["access_token"], login["refresh_token"]):
        assert token not in out + err


def chromium_login(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                   base: str, port: int, decision: str) -> tuple[tuple[int, str, str], str]:
    """``cmdsync login`` with ``webbrowser.open`` driving headless Chromium, which picks
    the seeded owner and clicks ``decision``; login's answer and the page's heading."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[dev]')")
    from tests.support.browser import ARGS, chromium

    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium found: apt-get install chromium (or set CMDSYNC_CHROMIUM)")
    headings: list[str] = []
    threads: list[threading.Thread] = []

    def drive(url: str) -> None:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=ARGS)
            try:
                page = browser.new_page()
                page.goto(url)
                page.get_by_label(f"owner ({USER_ID})").check()
                page.get_by_role("button", name=decision).click()
                page.wait_for_url(f"http://127.0.0.1:{port}/callback?**", timeout=10_000)
                headings.append(page.locator("h1").inner_text())
            finally:
                browser.close()

    def open_url(url: str) -> bool:
        threads.append(threading.Thread(target=drive, args=(url,), daemon=True))
        threads[-1].start()
        return True

    monkeypatch.setattr("webbrowser.open", open_url)
    found = run(capsys, "login", "--api-url", f"{base}/api/v10", "--port", str(port),
                "--timeout", "60")
    for thread in threads:
        thread.join(timeout=30)
    return found, headings[0] if headings else ""


@pytest.mark.slow
def test_login_in_a_real_browser_then_apply(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        served: tuple[Emulator, str], port: int, user_env: dict[str, str]) -> None:
    _, base = served
    (code, out, err), heading = chromium_login(capsys, monkeypatch, base, port, "Authorize")
    assert (code, heading) == (0, "Logged in"), err
    assert out.startswith(f"Logged in as owner ({USER_ID}) for application {APP}")
    code, out, err = run(capsys, "apply", "--auto-approve", "--api-url", f"{base}/api/v10",
                         "commands.yaml")
    assert code == 0, err
    assert [p["permissions"] for p in overwrites(base)] == [[
        {"id": emulator_seed.GUILD_ID, "type": 1, "permission": False}]]
    assert stored(user_env)["access_token"] not in out + err


@pytest.mark.slow
def test_cancel_in_a_real_browser_stores_nothing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        served: tuple[Emulator, str], port: int, user_env: dict[str, str]) -> None:
    _, base = served
    (code, _, err), heading = chromium_login(capsys, monkeypatch, base, port, "Cancel")
    assert (code, heading, err.splitlines()[-1]) == (
        1, "Login not completed",
        "error: the login was cancelled in the browser (access_denied): nothing was stored")
    assert not (Path(user_env["CMDSYNC_CONFIG_DIR"]) / "logins.json").exists()
