"""Which command a permissions key names, and what the plan says about overwrites (issue 33).

Each test drives the real CLI against a served emulator:

- item 7: a key goes to the command the manifest declares (the guild's own,
  then a global one), never to a guild command it does not manage; the
  change says which command it is not;
- item 11: a plan made without a user's Bearer token says, below its
  overwrite changes, that apply will need one and how to get it;
- item 14: a rename of a command without overwrites warns of nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.cli import run_secretly
from tests.support.emulator import as_ci_would

APP = "111111111111111111"
GUILD = "222222222222222222"
BOT_TOKEN, USER_TOKEN = "targets-bot-s3cret", "targets-user-s3cret"
SEED: dict[str, Any] = {
    "applications": [{"id": APP, "name": "Targets Bot", "bot_token": BOT_TOKEN,
                      "client_secret": "targets-client-s3cret"}],
    "guilds": [{"id": GUILD}],
    "users": [{"id": "333333333333333333", "application_id": APP, "bearer_token": USER_TOKEN,
               "scopes": ["applications.commands.permissions.update"], "guilds": [GUILD]}],
}
HEADING = f"cmdsync will perform the following actions on application Targets Bot ({APP}):\n"
GLOBAL_TOTALS = "  after apply: 1/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE, 0/1 PRIMARY_ENTRY_POINT\n"
EVERYONE_OFF = {"id": GUILD, "type": 1, "permission": False}
NO_CHANGES = "No changes. Live commands match the manifest.\n"


@pytest.fixture
def admin(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> httpx.Client:
    """A fresh emulator state and the environment CI would set, with both tokens."""
    return as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_BEARER_TOKEN": USER_TOKEN})


def cmdsync(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_secretly(capsys, (BOT_TOKEN, USER_TOKEN), *args)


def api(server: str, token: str = f"Bot {BOT_TOKEN}") -> httpx.Client:
    return httpx.Client(base_url=f"{server}/api/v10/applications/{APP}", timeout=10,
                        headers={"Authorization": token})


def guild_command(server: str, name: str) -> str:
    """A guild command made outside the manifest (by the bot's own code, say): its id."""
    with api(server) as client:
        made = client.post(f"/guilds/{GUILD}/commands",
                           json={"name": name, "description": "The bot's own"})
    made.raise_for_status()
    return str(made.json()["id"])


def overwrites(admin: httpx.Client) -> dict[str, list[dict[str, Any]]]:
    """Every overwrite set in the guild, by target id."""
    return {p["id"]: p["permissions"] for p in admin.get("/state").json()["permissions"]
            if p["guild_id"] == GUILD}


def command_id(admin: httpx.Client, name: str, *, guild: str | None = None) -> str:
    return str(next(c["id"] for c in admin.get("/state").json()["commands"]
                    if c["name"] == name and c["guild_id"] == guild))


def write(text: str) -> None:
    Path("bot.yaml").write_text(text, encoding="utf-8")


GLOBAL_BAN = f"""\
application_id: "{APP}"
commands:
  - {{name: ban, description: Ban a member}}
guilds:
  "{GUILD}":
    permissions:
      ban: [{{type: role, id: everyone, permission: false}}]
"""


def test_a_key_goes_to_the_global_command_the_plan_creates_not_the_guilds_own(
        capsys: pytest.CaptureFixture[str], server: str, admin: httpx.Client) -> None:
    """Item 7: the guild holds a ``ban`` the manifest does not manage (it manages no
    command of that guild); the manifest declares a global ``ban``, created by this plan,
    and overwrites for ``ban`` in the guild: they go to the global one."""
    theirs = guild_command(server, "ban")
    write(GLOBAL_BAN)
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == (
        HEADING + "\n"
        "global:\n"
        '  + chat_input "ban"\n'
        + GLOBAL_TOTALS + "\n"
        f"guild {GUILD}:\n"
        '  + permissions of "ban" (global command created by this plan); not the guild\'s '
        f'own chat_input "ban" (id {theirs}), which the manifest does not declare\n'
        "      + role @everyone: deny\n"
        "\n"
        "Plan: 1 to create, 0 to update, 0 to delete, 1 permission set to change.\n")
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")
    assert code == 0, out + err
    ours = command_id(admin, "ban")
    assert ours != theirs
    assert overwrites(admin) == {ours: [EVERYONE_OFF]}
    assert cmdsync(capsys, "plan", "bot.yaml") == (0, NO_CHANGES, "")


def test_a_key_goes_to_the_live_global_command_not_one_kept_by_prune_false(
        capsys: pytest.CaptureFixture[str], server: str, admin: httpx.Client) -> None:
    """Item 7: the guild's commands are managed with ``prune: false``, so its own ``ban``
    is kept, undeclared, with the overwrites an earlier cmdsync put there; the global
    ``ban`` is live: the manifest's overwrites go to it, and the kept ones stay."""
    write(f'application_id: "{APP}"\ncommands:\n  - {{name: ban, description: Ban a member}}\n')
    assert cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")[0] == 0
    ours = command_id(admin, "ban")
    theirs = guild_command(server, "ban")
    role = {"id": "555555555555555555", "type": 1, "permission": True}
    with api(server, f"Bearer {USER_TOKEN}") as client:
        client.put(f"/guilds/{GUILD}/commands/{theirs}/permissions",
                   json={"permissions": [role]}).raise_for_status()
    write(GLOBAL_BAN.replace(
        "    permissions:\n",
        "    prune: false\n    commands:\n      - {name: kick, description: Kick}\n"
        "    permissions:\n"))
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == (
        HEADING + "\n"
        f"guild {GUILD}:\n"
        '  + chat_input "kick"\n'
        f'  + permissions of "ban" (global command, id {ours}); not the guild\'s own '
        f'chat_input "ban" (id {theirs}), which the manifest does not declare\n'
        "      + role @everyone: deny\n"
        "  1 create counts toward Discord's limit of 200 per guild per day; after apply: "
        "2/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE\n"
        "\n"
        "Plan: 1 to create, 0 to update, 0 to delete, 1 permission set to change.\n")
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")
    assert code == 0, out + err
    assert overwrites(admin) == {ours: [EVERYONE_OFF], theirs: [role]}
    assert cmdsync(capsys, "plan", "bot.yaml") == (0, NO_CHANGES, "")


BEARER_NOTE = (
    f"Warning: apply will need a user's Bearer token to change the permission overwrites "
    f"above (guild {GUILD}), and these credentials have none: run `cmdsync login`, or set "
    "DISCORD_BEARER_TOKEN (scope applications.commands.permissions.update; a bot token "
    "cannot edit overwrites)\n")
GUILD_BAN = f"""\
application_id: "{APP}"
guilds:
  "{GUILD}":
    commands:
      - {{name: ban, description: Ban a member}}
    permissions:
      ban: [{{type: role, id: everyone, permission: false}}]
"""
GUILD_BAN_PLAN = (
    HEADING + "\n"
    f"guild {GUILD}:\n"
    '  + chat_input "ban"\n'
    '  + permissions of "ban" (command created by this plan)\n'
    "      + role @everyone: deny\n"
    "  1 create counts toward Discord's limit of 200 per guild per day; after apply: "
    "1/100 CHAT_INPUT, 0/15 USER, 0/15 MESSAGE\n"
    "\n")
GUILD_BAN_SUMMARY = "Plan: 1 to create, 0 to update, 0 to delete, 1 permission set to change.\n"


def test_a_plan_without_a_bearer_token_says_apply_will_need_one(
        capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 11: the bot token plans the overwrite change; the plan says, below it, what
    apply will need, in text and in JSON; apply shows the same, then refuses, as before.
    With the Bearer token there is no such warning."""
    as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_BOT_TOKEN": BOT_TOKEN, "CMDSYNC_CONFIG_DIR": str(tmp_path / "config")})
    write(GUILD_BAN)
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == GUILD_BAN_PLAN + BEARER_NOTE + "\n" + GUILD_BAN_SUMMARY
    code, out, err = cmdsync(capsys, "plan", "--format", "json", "bot.yaml")
    assert code == 0, err
    assert json.loads(out)["warnings"] == [BEARER_NOTE[len("Warning: "):-1]]
    code, out, err = cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")
    assert code == 1
    assert out == GUILD_BAN_PLAN + BEARER_NOTE + "\n" + GUILD_BAN_SUMMARY
    assert "needs a user's Bearer token" in err
    monkeypatch.setenv("DISCORD_BEARER_TOKEN", USER_TOKEN)
    assert cmdsync(capsys, "plan", "bot.yaml") == (0, GUILD_BAN_PLAN + GUILD_BAN_SUMMARY, "")


def test_a_plan_without_overwrite_changes_needs_no_bearer_token(
        capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 11: no overwrite changes, no warning, whatever the credentials."""
    as_ci_would(server, SEED, monkeypatch, tmp_path, variables={
        "DISCORD_BOT_TOKEN": BOT_TOKEN, "CMDSYNC_CONFIG_DIR": str(tmp_path / "config")})
    write(f'application_id: "{APP}"\ncommands:\n  - {{name: ban, description: Ban a member}}\n')
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == (HEADING + "\nglobal:\n" + '  + chat_input "ban"\n' + GLOBAL_TOTALS + "\n"
                   "Plan: 1 to create, 0 to update, 0 to delete, 0 permission sets to "
                   "change.\n")


def test_renaming_a_command_without_overwrites_warns_of_nothing(
        capsys: pytest.CaptureFixture[str], admin: httpx.Client) -> None:
    """Item 14: a rename by ``id`` of a command that has no overwrites (live, or in the
    manifest) loses none: the plan shows the rename alone. One with overwrites still
    warns."""
    write(f'application_id: "{APP}"\ncommands:\n  - {{name: kick, description: Kick}}\n'
          f'guilds:\n  "{GUILD}":\n    permissions: {{}}\n')
    assert cmdsync(capsys, "apply", "--auto-approve", "bot.yaml")[0] == 0
    kick = command_id(admin, "kick")
    write(f'application_id: "{APP}"\ncommands:\n'
          f'  - {{id: "{kick}", name: boot, description: Kick}}\n'
          f'guilds:\n  "{GUILD}":\n    permissions: {{}}\n')
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert out == (
        HEADING + "\n"
        "global:\n"
        f'  ~ chat_input "boot" (id {kick}, renamed from "kick")\n'
        '      ~ name: "kick" -> "boot"\n'
        + GLOBAL_TOTALS + "\n"
        "Plan: 0 to create, 1 to update, 0 to delete, 0 permission sets to change.\n")
    write(f'application_id: "{APP}"\ncommands:\n'
          f'  - {{id: "{kick}", name: boot, description: Kick}}\n'
          f'guilds:\n  "{GUILD}":\n    permissions:\n'
          "      boot: [{type: role, id: everyone, permission: false}]\n")
    code, out, err = cmdsync(capsys, "plan", "bot.yaml")
    assert (code, err) == (0, "")
    assert (f"Warning: global: renaming chat_input 'kick' to 'boot' (id {kick}) keeps its id, "
            "but Discord drops a renamed command's permission overwrites; cmdsync sets the "
            f"manifest's in guild {GUILD}\n") in out
