"""Every command reads the project configuration as ``plan`` does (issue 33): the
pre-commit hook validates what any environment lists and what it is given; ``check``,
``export``, ``invoke`` and ``pull`` take ``--env``; ``init`` never writes a cmdsync.toml
that would silently take over from ``[tool.cmdsync]``.

The commands run as processes (``python -m cmdsync``), against a served emulator where
they reach an API, so each imports the bot code afresh.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cmdsync.emulator import Limits, create_app
from cmdsync.emulator.seed import BOT_TOKEN, USER_TOKEN
from cmdsync.emulator.server import BackgroundServer
from tests.support.bot import StandInBot, serve
from tests.support.emulator import APP, BOT, GUILD, emulator
from tests.support.processes import cmdsync

MANIFEST = """\
commands:
  - name: ping
    description: Check the bot is alive
guilds:
  "${DEV_GUILD_ID}":
    commands:
      - {name: debug, description: Developer tools}
"""
BOT_CODE = """\
import os

import discord
from discord import app_commands

client = discord.Client(intents=discord.Intents.none())
tree = app_commands.CommandTree(client)


@tree.command(description="Check the bot is alive")
async def ping(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("Pong!")


if os.environ.get("DEV_GUILD_ID"):
    @tree.command(description="Developer tools",
                  guild=discord.Object(id=int(os.environ["DEV_GUILD_ID"])))
    async def debug(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Debugging")
"""


def config(api: str) -> str:
    return f"""\
manifests = ["discord/"]
default_environment = "production"

[environments.dev]
application_id = "{APP}"
api_url = "{api}"
guilds = {{ DEV_GUILD_ID = "{GUILD}" }}
copy_global_to = "${{DEV_GUILD_ID}}"

[environments.production]
application_id = "{APP}"
api_url = "{api}"
"""


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, StandInBot]]:
    """A served emulator (its API URL) whose application answers at a stand-in bot."""
    instance = emulator(limits=Limits(interaction_deadline=30))
    with BackgroundServer(create_app(instance)) as base, \
            httpx.Client(base_url=f"{base}/api/v10", headers=BOT, timeout=10) as api, \
            serve(StandInBot(api.get("/applications/@me").json()["verify_key"])) as bot:
        assert api.patch("/applications/@me", json={
            "interactions_endpoint_url": bot.url}).status_code == 200
        yield f"{base}/api/v10", bot


@pytest.fixture
def project(tmp_path: Path, served: tuple[str, StandInBot]) -> Path:
    (tmp_path / "discord").mkdir()
    (tmp_path / "discord" / "commands.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(config(served[0]), encoding="utf-8")
    (tmp_path / "teambot.py").write_text(BOT_CODE, encoding="utf-8")
    return tmp_path


CREDENTIALS = {"DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_BEARER_TOKEN": USER_TOKEN}


def test_check_takes_the_configurations_manifests_and_environment(project: Path) -> None:
    """Item 5: ``check`` with no manifests reads the configuration's, with the environment's
    variables (the bot code sees them too); an unset ${VAR} is a note, as validate has
    it; ``--live`` reads the environment's application at its API URL."""
    done = cmdsync("check", "discord.py:teambot:tree", "--env", "dev", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "All 1 file valid (2 commands).\n", "")
    done = cmdsync("check", "discord.py:teambot:tree", cwd=project)  # production
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    assert done.stdout.startswith("discord/commands.yaml:5:3: CS004 note: ")
    assert done.stdout.endswith("All 1 file valid (2 commands); 1 note.\n")
    applied = cmdsync("apply", "--env", "production", "--auto-approve", "--strategy", "bulk",
                      cwd=project, env=CREDENTIALS | {"DEV_GUILD_ID": GUILD})
    assert applied.returncode == 0, applied.stdout + applied.stderr
    done = cmdsync("check", "--live", "discord.py:teambot:tree", "--env", "dev", cwd=project,
                   env=CREDENTIALS)
    assert (done.returncode, done.stdout, done.stderr) == (0, "All 1 file valid (0 commands).\n",
                                                           ""), done.stdout


def test_export_imports_the_bot_code_with_the_environments_variables(project: Path) -> None:
    """Item 5: ``export --env dev`` imports the code with dev's DEV_GUILD_ID set."""
    done = cmdsync("export", "discord.py:teambot:tree", "--env", "dev", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (f"guilds:\n  '{GUILD}':\n    commands:\n    - {{name: debug, description: "
            "Developer tools}\n") in done.stdout
    done = cmdsync("export", "discord.py:teambot:tree", cwd=project)  # production: none
    assert done.returncode == 0 and "guilds:" not in done.stdout, done.stderr


def test_invoke_takes_the_environments_application_and_api_url(
        project: Path, served: tuple[str, StandInBot]) -> None:
    """Item 5: no --api-url, no DISCORD_APPLICATION_ID: the environment's."""
    applied = cmdsync("apply", "--env", "dev", "--auto-approve", cwd=project, env=CREDENTIALS)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    done = cmdsync("invoke", "--env", "dev", "--guild", GUILD, "/debug", cwd=project,
                   env=CREDENTIALS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"Invoked /debug in guild {GUILD}")
    assert served[1].requests[-1]["data"]["name"] == "debug"


def test_pull_in_a_copying_environment_writes_what_plan_reads_there(project: Path) -> None:
    """Item 5: ``pull --env dev`` reads where dev keeps the global commands (its
    copy_global_to guild, not the global scope) and writes them as global commands, so
    that ``plan --env dev`` on the result shows no changes."""
    applied = cmdsync("apply", "--env", "dev", "--auto-approve", cwd=project, env=CREDENTIALS)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    done = cmdsync("pull", "--env", "dev", "--output", "pulled.yaml", cwd=project,
                   env=CREDENTIALS)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        f"warning: global commands -> guild {GUILD} (copy_global_to, environment dev): "
        f"guild {GUILD}'s commands are written as the global commands (the global scope was "
        "not read)\n")
    pulled = (project / "pulled.yaml").read_text(encoding="utf-8")
    assert "name: debug" in pulled and "name: ping" in pulled and "guilds:" not in pulled
    done = cmdsync("plan", "--env", "dev", "pulled.yaml", cwd=project, env=CREDENTIALS)
    assert done.stdout.endswith("No changes. Live commands match the manifest.\n"), done.stderr


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_hook_validates_every_environments_manifests_and_what_it_is_given(
        tmp_path: Path) -> None:
    """Item 3: the hook (its entry, given the committed files) validates a file only an
    environment lists, and a manifest it is given that no environment lists; other YAML
    files stay unread."""
    (tmp_path / "discord").mkdir()
    (tmp_path / "discord" / "commands.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "tools.yaml").write_text(
        "commands:\n  - {name: Trace, description: Upper case is refused}\n", encoding="utf-8")
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "other.yaml").write_text(
        "commands:\n  - {name: Pong, description: Upper case is refused}\n", encoding="utf-8")
    (tmp_path / "docker-compose.yml").write_text("services:\n  bot: {image: python}\n",
                                                 encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(
        'manifests = ["discord/"]\ndefault_environment = "production"\n\n'
        '[environments.production]\nguilds = { DEV_GUILD_ID = "222222222222222222" }\n\n'
        '[environments.dev]\nmanifests = ["discord/", "dev/"]\n'
        'guilds = { DEV_GUILD_ID = "222222222222222222" }\n', encoding="utf-8")
    git("init", "-q", cwd=tmp_path)
    git("add", ".", cwd=tmp_path)
    hook = ("validate", "--pre-commit")
    done = cmdsync(*hook, "dev/tools.yaml", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == ("dev/tools.yaml:2:12: CS101 command name 'Trace' has upper-case "
                           "letters: write 'trace' (environment dev)\n\n"
                           "Found 1 error in 1 of 2 files.\n")
    done = cmdsync(*hook, "extra/other.yaml", "docker-compose.yml", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == ("extra/other.yaml:2:12: CS101 command name 'Pong' has upper-case "
                           "letters: write 'pong'\n\nFound 1 error in 1 of 1 file.\n")
    done = cmdsync(*hook, "docker-compose.yml", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    done = cmdsync("validate", cwd=tmp_path)  # the same without the hook: every file once
    assert done.returncode == 1 and "dev/tools.yaml:2:12: CS101" in done.stdout
    assert done.stdout.endswith("Found 1 error in 1 of 2 files.\n")


def test_init_refuses_to_shadow_a_tool_cmdsync_table(tmp_path: Path) -> None:
    """Item 10: cmdsync.toml is read before [tool.cmdsync]: init refuses (exit 2, naming
    the configuration there) unless --force."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "bot"\n\n[tool.cmdsync]\nmanifests = ["commands.yaml"]\n',
        encoding="utf-8")
    done = cmdsync("init", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: pyproject.toml:4 [tool.cmdsync] already configures cmdsync: a cmdsync.toml "
        "beside it would silently take over (it is read first). Edit [tool.cmdsync] there, "
        "or pass --force to write cmdsync.toml anyway (then remove [tool.cmdsync])\n")
    assert not (tmp_path / "cmdsync.toml").exists()
    done = cmdsync("init", "--force", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cmdsync.toml").exists()
