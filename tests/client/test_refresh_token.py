"""``DISCORD_REFRESH_TOKEN``: exchanged once per process at ``POST /oauth2/token``
(``grant_type=refresh_token``) for the Bearer token that edits overwrites, against a
served emulator, which rotates refresh tokens as Discord does; the job summary says
when the access token expires and, when the refresh token was rotated, that its
secret must be replaced, and how (issue 33, item 6)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from cmdsync.client import auth
from cmdsync.client.auth import Token, auth_from_env
from cmdsync.client.redact import redact
from cmdsync.client.rotation import (
    REPLACE_COMMANDS,
    Refreshed,
    refresh_note,
    refresh_summary,
    refused_summary,
)
from cmdsync.errors import CmdsyncError, NetworkError, UsageError
from tests.docs.blocks import blocks_of
from tests.support.emulator import APP, GUILD, GUILD_COMMANDS, START, chat, emulator, http_server
from tests.support.paths import ROOT
from tests.support.refresh import SECRET, log_in, refresh

WEEK = 604800
EXPIRES = "2025-06-22 15:06:40 UTC"  # START plus a week
GUIDE = ("https://cmdsync.github.io/cmdsync/ci/github-actions/"
         "#permission-overwrites-in-ci-a-refresh-token")


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test a process of its own: no exchange made yet, and the clock at START."""
    monkeypatch.setattr(auth, "_exchanges", {})
    monkeypatch.setattr(auth, "time", SimpleNamespace(time=lambda: START))


@pytest.fixture
def api() -> Iterator[str]:
    with http_server(emulator()) as base:
        yield f"{base}/api/v10"


def put_overwrites(api: str, access_token: str) -> httpx.Response:
    with httpx.Client(base_url=api) as client:
        command = client.post(GUILD_COMMANDS, json=chat(),
                              headers={"Authorization": "Bot emulator-bot-token"}).json()
        return client.put(f"{GUILD_COMMANDS}/{command['id']}/permissions",
                          headers={"Authorization": f"Bearer {access_token}"},
                          json={"permissions": [{"id": GUILD, "type": 1, "permission": False}]})


def ci_env(api: str, refresh_token: str, tmp_path: Path, **more: str) -> dict[str, str]:
    return {"DISCORD_BOT_TOKEN": "emulator-bot-token", "DISCORD_CLIENT_ID": APP,
            "DISCORD_CLIENT_SECRET": SECRET, "DISCORD_REFRESH_TOKEN": refresh_token,
            "CMDSYNC_API_URL": api, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            **more}


def test_the_refresh_token_is_exchanged_once_for_a_bearer_token_that_edits_overwrites(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    env = ci_env(api, grant["refresh_token"], tmp_path)
    first = auth_from_env(env)
    assert isinstance(first.permissions, Token)
    assert first.permissions.scheme == "Bearer"
    assert str(first.permissions) == "Bearer token from DISCORD_REFRESH_TOKEN (refreshed)"
    assert first.commands == Token("Bot", "emulator-bot-token", "DISCORD_BOT_TOKEN")
    # asked again (a saved plan's key, then the session): the same token, no second
    # exchange, which would present a spent refresh token and revoke the whole grant
    assert auth_from_env(env) == first
    assert put_overwrites(api, first.permissions.value).status_code == 200
    # rotated: the refresh token given is spent
    assert refresh(api, grant["refresh_token"]).json()["error"] == "invalid_grant"
    assert [r.rotated for r in auth.refreshes()] == [True]


def test_the_job_summary_says_when_it_expires_and_how_to_replace_the_rotated_secret(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    env = ci_env(api, grant["refresh_token"], tmp_path)
    auth_from_env(env)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary == (
        "### cmdsync: the refresh token was rotated\n"
        "\n"
        "`DISCORD_REFRESH_TOKEN` was exchanged at `POST /oauth2/token` for the Bearer token "
        f"that edits permission overwrites; that token expires at {EXPIRES} (in 7 days).\n"
        "\n"
        "Discord answered with a new refresh token: the one in `DISCORD_REFRESH_TOKEN` is "
        "spent, and a run that presents it again fails with `invalid_grant`. This run "
        "cannot store the new one, and never shows it. **Replace the secret "
        "`DISCORD_REFRESH_TOKEN` comes from before the next run.**\n"
        "\n"
        "To replace it without the token ever being shown: log in with `cmdsync login` "
        "into a folder of its own (outside the keyring, so that this login is CI's alone), "
        "pipe the refresh token it stored into `gh secret set`, then delete the folder:\n"
        "\n"
        "```sh\n"
        'export CMDSYNC_CONFIG_DIR="$(mktemp -d)"   # this login is CI\'s alone, outside '
        "the keyring\n"
        "export DISCORD_CLIENT_ID=... DISCORD_CLIENT_SECRET=...\n"
        "cmdsync login                              # as a user who may edit the "
        "overwrites\n"
        "jq -r '.logins[].refresh_token' \"$CMDSYNC_CONFIG_DIR/logins.json\" | gh secret "
        "set DISCORD_REFRESH_TOKEN\n"
        'rm -r "$CMDSYNC_CONFIG_DIR"                # not `cmdsync logout`: that revokes '
        "the token\n"
        "```\n"
        "\n"
        "(`gh secret set --env NAME` for a secret of a GitHub environment; or paste the token "
        "into the repository's Settings > Secrets and variables > Actions.) To have each "
        f"run store the new refresh token itself, see {GUIDE}.\n"
        "\n")
    assert grant["refresh_token"] not in summary


def test_the_other_summaries_say_whole_what_became_of_the_token() -> None:
    expiry = ("`DISCORD_REFRESH_TOKEN` was exchanged at `POST /oauth2/token` for the Bearer "
              "token that edits permission overwrites; that token expires at "
              f"{EXPIRES} (in 7 days).\n")
    rotated = ("Discord answered with a new refresh token: the one in `DISCORD_REFRESH_TOKEN` "
               "is spent, and a run that presents it again fails with `invalid_grant`. ")
    kept = Refreshed("DISCORD_REFRESH_TOKEN", START + WEEK, WEEK, rotated=False)
    assert refresh_summary(kept) == (
        "### cmdsync: a Bearer token from the refresh token\n\n" + expiry
        + "\nDiscord kept the refresh token: its secret stays valid.\n")
    handed = Refreshed("DISCORD_REFRESH_TOKEN", START + WEEK, WEEK, True, "/tmp/new")
    assert refresh_summary(handed) == (
        "### cmdsync: the refresh token was rotated\n\n" + expiry + "\n" + rotated
        + "The new one was written to `/tmp/new` (`CMDSYNC_NEW_REFRESH_TOKEN_FILE`), for "
        "the step that stores it in the secret.\n")
    lost = Refreshed("DISCORD_REFRESH_TOKEN", START + 3600, 3600, True, "/ro/new",
                     "Permission denied")
    assert refresh_summary(lost).startswith(
        "### cmdsync: the refresh token was rotated\n\n`DISCORD_REFRESH_TOKEN` was "
        "exchanged at `POST /oauth2/token` for the Bearer token that edits permission "
        "overwrites; that token expires at 2025-06-15 16:06:40 UTC (in 1 hour).\n\n"
        + rotated + "It could not be written to `/ro/new` (Permission denied), and is "
        "lost. **Replace the secret `DISCORD_REFRESH_TOKEN` comes from before the next "
        "run.**\n\nTo replace it without the token ever being shown: ")
    assert f"```sh\n{REPLACE_COMMANDS}```\n" in refresh_summary(lost)
    refused = refused_summary("DISCORD_REFRESH_TOKEN", "POST /oauth2/token: HTTP 400: "
                              "invalid_grant: `spent`")
    assert refused.startswith(
        "### cmdsync: the refresh token was refused\n\n`POST /oauth2/token: HTTP 400: "
        "invalid_grant: 'spent'`: `DISCORD_REFRESH_TOKEN` is spent (each refresh token "
        "works once: a run that could not store the new one leaves the secret with a spent "
        "one), revoked, or the user deauthorized the application. cmdsync stopped before "
        "sending anything to Discord's command endpoints. **Replace the secret "
        "`DISCORD_REFRESH_TOKEN` comes from.**\n\nTo replace it without the token ever "
        "being shown: ")


def test_the_note_for_a_terminal_says_it_in_a_line() -> None:
    said = "DISCORD_REFRESH_TOKEN was exchanged for a Bearer token that expires at " \
           f"{EXPIRES}; "
    assert refresh_note(Refreshed("DISCORD_REFRESH_TOKEN", START + WEEK, WEEK, False)) == \
        said + "Discord kept the refresh token\n"
    assert refresh_note(Refreshed("DISCORD_REFRESH_TOKEN", START + WEEK, WEEK, True,
                                  "/tmp/new")) == \
        said + "Discord rotated the refresh token: the new one is in /tmp/new\n"
    assert refresh_note(Refreshed("DISCORD_REFRESH_TOKEN", START + WEEK, WEEK, True)) == \
        said + ("Discord rotated the refresh token, so the one in DISCORD_REFRESH_TOKEN is "
                f"spent: replace it before the next run ({GUIDE})\n")


def test_the_docs_commands_are_the_job_summarys() -> None:
    """docs/ci/github-actions.md shows the commands the job summary gives."""
    (_, commands) = blocks_of(ROOT / "docs" / "ci" / "github-actions.md")
    assert commands.lang == "sh"
    assert commands.text == REPLACE_COMMANDS


@pytest.mark.skipif(sys.platform == "win32", reason="Unix mode bits (0600)")
def test_the_rotated_refresh_token_is_handed_over_in_a_file_only_its_owner_reads(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    handed = tmp_path / "new-refresh-token"
    auth_from_env(ci_env(api, grant["refresh_token"], tmp_path,
                         CMDSYNC_NEW_REFRESH_TOKEN_FILE=str(handed)))
    assert oct(handed.stat().st_mode & 0o777) == "0o600"
    new = handed.read_text(encoding="utf-8")
    assert new and new != grant["refresh_token"] and "\n" not in new
    assert redact(new) == "[redacted]"  # remembered as a secret
    assert refresh(api, new).status_code == 200  # the next run's
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert f"The new one was written to `{handed}` (`CMDSYNC_NEW_REFRESH_TOKEN_FILE`)" \
        in summary
    assert new not in summary


def test_a_refused_refresh_token_says_how_to_replace_it_and_is_not_tried_again(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    assert refresh(api, grant["refresh_token"]).status_code == 200  # spent elsewhere
    env = ci_env(api, grant["refresh_token"], tmp_path)
    with pytest.raises(CmdsyncError) as caught:
        auth_from_env(env)
    assert str(caught.value) == (
        "DISCORD_REFRESH_TOKEN was refused (POST /oauth2/token: HTTP 400: invalid_grant: "
        "Invalid \"refresh_token\" in request: it was already used, so it may have been "
        "copied: the grant is revoked (every token issued from it); authorize again): a "
        "refresh token works once, and Discord answers each exchange with a new one, so "
        "this one is spent (by a run that could not store the new one), revoked, or its "
        "user deauthorized the application; nothing was sent to the command endpoints: log "
        "in again with `cmdsync login` and put its refresh token in DISCORD_REFRESH_TOKEN's "
        f"secret ({GUIDE})")
    with pytest.raises(CmdsyncError) as again:
        auth_from_env(env)
    assert again.value is caught.value  # kept: not presented a second time
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### cmdsync: the refresh token was refused\n\n`POST "
                              "/oauth2/token: HTTP 400: invalid_grant: Invalid ")
    assert grant["refresh_token"] not in summary + str(caught.value)


def test_without_the_client_credentials_nothing_is_sent() -> None:
    with pytest.raises(UsageError) as caught:
        auth_from_env({"DISCORD_BOT_TOKEN": "b", "DISCORD_REFRESH_TOKEN": "r3fresh-token",
                       "CMDSYNC_API_URL": "http://127.0.0.1:9/api/v10"})
    assert str(caught.value) == (
        "DISCORD_REFRESH_TOKEN is exchanged at POST /oauth2/token with the application's "
        "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET (or --client-secret-file), the "
        "application it was issued to: DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET not set")
    assert redact("r3fresh-token") == "[redacted]"


def test_a_bearer_token_given_wins_and_the_refresh_token_stays_unspent(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    env = ci_env(api, grant["refresh_token"], tmp_path, DISCORD_BEARER_TOKEN="given-token")
    assert auth_from_env(env).permissions == Token("Bearer", "given-token",
                                                    "DISCORD_BEARER_TOKEN")
    assert refresh(api, grant["refresh_token"]).status_code == 200
    assert not (tmp_path / "summary.md").exists()


def test_with_no_credentials_for_commands_the_refresh_token_is_not_spent(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    env = ci_env(api, grant["refresh_token"], tmp_path)
    del env["DISCORD_BOT_TOKEN"], env["DISCORD_CLIENT_ID"]
    with pytest.raises(CmdsyncError, match="client credentials need both"):
        auth_from_env(env)
    assert refresh(api, grant["refresh_token"]).status_code == 200


def test_a_failed_exchange_is_not_tried_again_either() -> None:
    """A timeout may come after Discord rotated the token: trying again would present
    a spent one, so the failure is kept as the answer."""
    asked: list[httpx.Request] = []

    def unreachable(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        raise httpx.ConnectError("refused", request=request)

    env = {"DISCORD_BOT_TOKEN": "b", "DISCORD_CLIENT_ID": APP, "DISCORD_CLIENT_SECRET": SECRET,
           "DISCORD_REFRESH_TOKEN": "r3fresh-token"}
    for _ in range(2):
        with pytest.raises(NetworkError):
            auth_from_env(env, api_url="http://discord.test/api/v10",
                          transport=httpx.MockTransport(unreachable))
    assert [(r.method, str(r.url)) for r in asked] == [
        ("POST", "http://discord.test/api/v10/oauth2/token")]
    assert asked[0].headers["authorization"] == (
        "Basic MTExMTExMTExMTExMTExMTExOmVtdWxhdG9yLXNlY3JldA==")  # APP:SECRET
    assert asked[0].content == b"grant_type=refresh_token&refresh_token=r3fresh-token"


def test_one_exchange_per_refresh_token_whatever_the_api_and_a_kept_one_is_not_rotated(
        ) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={
            "access_token": f"access-of-{request.url.host}", "token_type": "Bearer",
            "expires_in": 3600, "refresh_token": request.content.decode().rpartition("=")[2],
            "scope": "applications.commands.permissions.update"})

    env = {"DISCORD_BOT_TOKEN": "b", "DISCORD_CLIENT_ID": APP, "DISCORD_CLIENT_SECRET": SECRET,
           "DISCORD_REFRESH_TOKEN": "r3fresh-token"}
    transport = httpx.MockTransport(answer)
    one = auth_from_env(env, api_url="http://one.test/api/v10", transport=transport)
    again = auth_from_env(env, api_url="http://two.test/api/v10", transport=transport)
    assert one.permissions == again.permissions == Token(
        "Bearer", "access-of-one.test", "DISCORD_REFRESH_TOKEN (refreshed)")
    other = auth_from_env({**env, "DISCORD_REFRESH_TOKEN": "an0ther-token"},
                          api_url="http://two.test/api/v10", transport=transport)
    assert other.permissions == Token("Bearer", "access-of-two.test",
                                      "DISCORD_REFRESH_TOKEN (refreshed)")
    assert [(r.rotated, r.expires_at) for r in auth.refreshes()] == [
        (False, START + 3600), (False, START + 3600)]
    assert redact("access-of-one.test") == "[redacted]"


def test_a_caller_that_needs_no_user_token_leaves_the_refresh_token_unspent(
        api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    found = auth_from_env(ci_env(api, grant["refresh_token"], tmp_path),
                          exchange_refresh_token=False)
    assert found.permissions is None
    assert refresh(api, grant["refresh_token"]).status_code == 200
    assert redact(grant["refresh_token"]) == "[redacted]"


def test_the_refresh_token_may_come_from_a_file(api: str, tmp_path: Path) -> None:
    grant = log_in(api)
    path = tmp_path / "refresh-token"
    path.write_text(grant["refresh_token"] + "\n", encoding="utf-8")
    env = ci_env(api, "", tmp_path, DISCORD_REFRESH_TOKEN_FILE=str(path))
    found = auth_from_env(env)
    assert str(found.permissions) == f"Bearer token from {path} (refreshed)"
    assert refresh(api, grant["refresh_token"]).json()["error"] == "invalid_grant"  # spent
