"""validate with environments: ``--online --env`` reads that environment's application at
its API URL, and ``--select`` / ``--ignore`` keep or drop the diagnostics of an
environment's ``copy_global_to`` as they do every other rule's (found in review)."""

from __future__ import annotations

from pathlib import Path

from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.seed import APPLICATION_ID, BOT_TOKEN, GUILD_ID
from tests.support.emulator import http_server
from tests.support.processes import cmdsync

COLLIDING = f"""\
commands:
  - {{name: ping, description: Global ping}}
guilds:
  "{GUILD_ID}":
    commands:
      - {{name: ping, description: Guild ping}}
"""


def test_ignore_drops_the_copys_duplicate_and_select_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(COLLIDING, encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(
        f'manifests = ["bot.yaml"]\n\n[environments.dev]\ncopy_global_to = "{GUILD_ID}"\n',
        encoding="utf-8")
    found = cmdsync("validate", "--env", "dev", cwd=tmp_path)
    assert found.returncode == 1 and " CS303 " in found.stdout, found.stdout
    ignored = cmdsync("validate", "--env", "dev", "--ignore", "CS303", cwd=tmp_path)
    assert (ignored.returncode, " CS303 " in ignored.stdout) == (0, False), ignored.stdout
    selected = cmdsync("validate", "--env", "dev", "--select", "CS1", cwd=tmp_path)
    assert (selected.returncode, " CS303 " in selected.stdout) == (0, False), selected.stdout


def test_online_reads_the_application_at_the_environments_api_url(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("commands:\n  - {name: ping, description: d}\n",
                                       encoding="utf-8")
    with http_server(new_emulator()) as base:
        (tmp_path / "cmdsync.toml").write_text(
            f'manifests = ["bot.yaml"]\n\n[environments.staging]\n'
            f'application_id = "{APPLICATION_ID}"\napi_url = "{base}/api/v10"\n',
            encoding="utf-8")
        done = cmdsync("validate", "--online", "--env", "staging", cwd=tmp_path,
                       env={"DISCORD_BOT_TOKEN": BOT_TOKEN})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("All 1 file valid (1 command)"), done.stdout
