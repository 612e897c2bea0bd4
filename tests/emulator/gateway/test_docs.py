"""The discord.py lines of docs/emulator/gateway.md log a real discord.py client in to a
served emulator (a promise of the docs: run here as a user would, in a process of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cmdsync.emulator import create_app, new_emulator
from cmdsync.emulator.server import BackgroundServer
from tests.docs.blocks import blocks_of
from tests.support.paths import ROOT

pytest.importorskip("discord")

PAGE = ROOT / "docs" / "emulator" / "gateway.md"
CLIENT = '''
import discord

client = discord.Client(intents=discord.Intents.default())


@client.event
async def on_ready():
    print("ready as", client.user.id, "in", [guild.id for guild in client.guilds], flush=True)
    await client.close()
'''


@pytest.mark.slow
def test_the_docs_discordpy_lines_connect_a_bot(tmp_path: Path) -> None:
    (lines,) = [b.text for b in blocks_of(PAGE) if b.lang == "python"]
    with BackgroundServer(create_app(new_emulator())) as base:
        script = CLIENT + lines.replace("http://127.0.0.1:8787", base).replace(
            "ws://127.0.0.1:8787", base.replace("http://", "ws://"))
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                              check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ready as 111111111111111111 in [222222222222222222]" in done.stdout, done.stderr
