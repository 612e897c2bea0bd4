"""``cmdsync emulator`` as a user runs it: a subprocess serving real HTTP,
printing its credentials, keeping its state in a file across restarts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.server import banner, build
from cmdsync.errors import UsageError
from tests.support.emulator import BOT, GLOBAL, chat, http_client
from tests.support.processes import running

SEED = """\
applications:
  - id: "444444444444444444"
    name: Activity
    flags: [embedded]
    integration_types: [guild_install, user_install]
    bot_token: activity-token
    client_secret: activity-secret
guilds:
  - {id: "555555555555555555", name: Test guild}
users:
  - id: "666666666666666666"
    application_id: "444444444444444444"
    bearer_token: activity-user
    scopes: [applications.commands.permissions.update]
    guilds: ["555555555555555555"]
"""


def test_it_serves_http_and_prints_the_default_credentials() -> None:
    with running("--host", "127.0.0.1") as (base_url, lines), http_client(f"{base_url}/api/v10",
                                                     headers=BOT) as api:
        assert api.post(GLOBAL, json=chat()).status_code == 201
        assert [c["name"] for c in api.get(GLOBAL).json()] == ["ping"]
    assert lines[1:] == [
        ("  application 111111111111111111: bot token emulator-bot-token, client credentials "
         "111111111111111111 / emulator-secret"),
        ("    public key (verify_key) "
        "cee21bdaa4cc4d64a13b77459e5816ae5d4143290aeb5512a3901dbb4da11d73"),
        (f"    OAuth2: {base_url}/oauth2/authorize, redirect URIs "
         "http://127.0.0.1:53682/callback"),
        "  guild 222222222222222222 (3 members, 2 channels)",
        ("  user 333333333333333333: bearer token emulator-user-token (scopes: "
         "applications.commands.permissions.update; manages guilds: 222222222222222222)"),
        (f"  gateway: {base_url.replace('http', 'ws')}/gateway (bots without an interactions "
         "endpoint URL get interactions here)"),
        f"  console: {base_url}/ (commands, permissions, run, log, messages)",
        f"  admin API: {base_url}/_emulator/ (reset, seed, log, state, config, interactions)"]
    assert lines[0] == f"cmdsync emulator: Discord API v10 at {base_url}/api/v10"


def test_the_state_file_survives_a_restart_and_the_seed_file_is_used(tmp_path: Path) -> None:
    seed, state = tmp_path / "seed.yaml", tmp_path / "state.sqlite"
    seed.write_text(SEED)
    path = "/applications/444444444444444444/commands"
    headers = {"Authorization": "Bot activity-token"}
    with running("--state", str(state), "--seed", str(seed)) as (base_url, lines):
        assert "application 444444444444444444" in lines[1]
        with http_client(f"{base_url}/api/v10", headers=headers) as api:
            made = api.post(path, json=chat()).json()
            assert api.get(GLOBAL, headers=BOT).status_code == 401  # not in this seed
    with running("--state", str(state), "--seed", str(seed)) as (base_url, _), http_client(
            f"{base_url}/api/v10", headers=headers) as api:
        listed = api.get(path, params={"with_localizations": "true"}).json()
    assert [(c["name"], c["type"]) for c in listed] == [("Launch", 4), ("ping", 1)]
    assert listed[1] == made


@pytest.mark.parametrize(("content", "message"), [
    ("applications: 5\n", "seed file {}: applications must be a list"),
    ("applications: [{id: '1', bot_token: b}]\n",
     "seed file {}: applications[0]: 'client_secret' is required"),
    ("applications: [{id: '1', bot_token: b, client_secret: s, flags: [bogus]}]\n",
     ("seed file {}: applications[0]: unknown flag 'bogus': use an integer or "
      "gateway_presence, gateway_presence_limited, gateway_guild_members, "
      "gateway_guild_members_limited, embedded, gateway_message_content, "
      "gateway_message_content_limited")),
    ("guilds: []\n", "seed file {}: at least one application is required"),
    ("applications: [{id: '1', bot_token: b, client_secret: s, redirect_uris: x}]\n",
     "seed file {}: applications[0]: redirect_uris must be a list of URIs"),
    (("applications: [{id: '1', bot_token: b, client_secret: s, "
     "redirect_uris: ['http://127.0.0.1/ok', '/callback']}]\n"),
     ("seed file {}: applications[0]: redirect_uris[1] must be an absolute URI without a "
     "fragment, such as http://127.0.0.1:53682/callback")),
    (("applications: [{id: '1', bot_token: b, client_secret: s, "
     "redirect_uris: ['http://127.0.0.1/cb#frag']}]\n"),
     ("seed file {}: applications[0]: redirect_uris[0] must be an absolute URI without a "
     "fragment, such as http://127.0.0.1:53682/callback")),
])
def test_a_bad_seed_file_is_a_usage_error(tmp_path: Path, content: str, message: str) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(content)
    with pytest.raises(UsageError) as caught:
        build(state=None, seed=str(seed), global_limit=50)
    assert str(caught.value) == message.format(seed)


def test_a_bad_seed_file_exits_2(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("applications: [{id: '1'}]\n")
    result = subprocess.run([sys.executable, "-m", "cmdsync", "emulator", "--seed", str(seed)],
                            capture_output=True, text=True, timeout=30, check=False)
    assert (result.returncode, result.stderr) == (
        2, f"error: seed file {seed}: applications[0]: 'bot_token' is required\n")


def test_global_limit_option() -> None:
    assert build(state=None, seed=None, global_limit=7).limiter.config.global_limit == 7
    result = subprocess.run([sys.executable, "-m", "cmdsync", "emulator", "--global-limit", "-1"],
                            capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 2 and "--global-limit" in result.stderr


def test_the_banner_names_every_seeded_credential() -> None:
    text = banner(new_emulator(), "http://127.0.0.1:8787")
    for credential in ("111111111111111111", "222222222222222222", "emulator-bot-token",
                       "emulator-secret", "emulator-user-token",
                       "applications.commands.permissions.update"):
        assert credential in text
