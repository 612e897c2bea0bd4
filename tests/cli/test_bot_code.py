"""Commands defined in discord.py code (tests/data/bots/shop.py) as a manifest source.

discord.py itself is the peer: its own tree.sync() runs against one emulator
and cmdsync apply of `discord.py:shop:translated` against another, and both
must send and store the same commands.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import discord
import httpx
import pytest
from discord.http import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import cmdsync
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.seed import BOT_TOKEN
from cmdsync.emulator.server import BackgroundServer
from cmdsync.errors import UsageError
from cmdsync.state.normalize import canonical
from tests.support import paths
from tests.support.emulator import APP, GUILD
from tests.support.processes import cmdsync as run
from tests.support.processes import environment

BOT = paths.DATA / "bots" / "shop.py"
SOURCE = "discord.py:shop:translated"
ENV = {"DISCORD_BOT_TOKEN": BOT_TOKEN, "DISCORD_APPLICATION_ID": APP}


class Recorder:
    """Keeps the body of every bulk overwrite (PUT .../commands) the app receives."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.puts: list[tuple[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "PUT" \
                or not scope["path"].endswith("/commands"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        self.puts.append((scope["path"], json.loads(body)))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def load_bot() -> ModuleType:
    """A fresh import of the bot module (its tree and translator are module state)."""
    spec = importlib.util.spec_from_file_location("shop", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    shutil.copy(BOT, tmp_path / "shop.py")
    return tmp_path


def stored(base_url: str) -> dict[str, list[dict[str, Any]]]:
    """Each scope's commands as the emulator returns them, ids and versions left out."""
    found = {}
    with httpx.Client(base_url=f"{base_url}/api/v10",
                      headers={"Authorization": f"Bot {BOT_TOKEN}"}) as client:
        for scope, path in (("global", f"/applications/{APP}/commands"),
                            (GUILD, f"/applications/{APP}/guilds/{GUILD}/commands")):
            commands = client.get(path, params={"with_localizations": "true"}).json()
            found[scope] = sorted(({k: v for k, v in c.items() if k not in ("id", "version")}
                                   for c in commands), key=lambda c: (c["type"], c["name"]))
    return found


def canonical_puts(puts: list[tuple[str, Any]]) -> list[tuple[str, list[Any]]]:
    return [(path.split("/api/v10", 1)[-1], sorted(
        (canonical(c, scope="global" if "/guilds/" not in path else GUILD) for c in body),
        key=lambda c: (c["type"], c["name"]))) for path, body in puts]


@pytest.fixture
def discordpy_sync(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Recorder]]:
    """discord.py's own tree.sync() (global, then the guild) against an emulator."""
    recorder = Recorder(create_app(new_emulator()))
    with BackgroundServer(recorder) as base_url:
        monkeypatch.setattr(Route, "BASE", f"{base_url}/api/v10")
        bot = load_bot()

        async def sync() -> None:
            await bot.client.login(BOT_TOKEN)
            try:
                tree = await bot.translated()
                await tree.sync()
                await tree.sync(guild=discord.Object(id=bot.GUILD))
            finally:
                await bot.client.close()

        asyncio.run(sync())
        yield base_url, recorder


def test_apply_of_code_sends_and_stores_what_tree_sync_does(
        discordpy_sync: tuple[str, Recorder], bot_dir: Path) -> None:
    theirs_url, theirs = discordpy_sync
    ours = Recorder(create_app(new_emulator()))
    with BackgroundServer(ours) as base_url:
        api = f"{base_url}/api/v10"
        done = run("apply", "--auto-approve", "--strategy", "bulk", "--api-url", api, SOURCE,
                   cwd=bot_dir, env=ENV)
        assert done.returncode == 0, done.stderr
        assert len(ours.puts) == len(theirs.puts) == 2  # request for request
        assert canonical_puts(ours.puts) == canonical_puts(theirs.puts)
        assert stored(base_url) == stored(theirs_url)
        again = run("plan", "--detailed-exitcode", "--api-url", api, SOURCE, cwd=bot_dir,
                    env=ENV)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "No changes." in again.stdout


def test_export_then_plan_of_the_yaml_is_a_no_op(bot_dir: Path) -> None:
    assert run("apply", "--local", "--auto-approve", SOURCE, cwd=bot_dir).returncode == 0
    exported = run("export", SOURCE, "-o", "bot.yaml", cwd=bot_dir)
    assert exported.returncode == 0, exported.stderr
    text = (bot_dir / "bot.yaml").read_text(encoding="utf-8")
    assert "name_localizations: {fr: lancer}" in text
    planned = run("plan", "--local", "--detailed-exitcode", "bot.yaml", cwd=bot_dir)
    assert planned.returncode == 0, planned.stdout + planned.stderr


def test_a_module_that_cannot_be_imported_is_named(bot_dir: Path) -> None:
    done = run("validate", "discord.py:no_such_bot:tree", cwd=bot_dir)
    assert done.returncode == 2
    assert ("discord.py:no_such_bot:tree: CS001 discord.py:no_such_bot:tree: cannot import "
            "module 'no_such_bot': ModuleNotFoundError: No module named 'no_such_bot'"
            ) in done.stdout


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


MISMATCHED = f"""\
commands:
  - {{name: ping, description: Check the bot is alive}}
  - name: roll
    description: Roll dice
    options:
      - {{type: integer, name: faces, description: Sides, min_value: 2, max_value: 100}}
      - {{type: integer, name: mode, description: Mode}}
      - {{type: string, name: style, description: Style}}
  - {{name: stats, description: Stats}}
guilds:
  "{GUILD}":
    commands:
      - name: shop
        description: The shop
        options:
          - type: sub_command
            name: buy
            description: Buy an item
            options:
              - {{type: string, name: item, description: What, required: true,
                  choices: [{{name: Apple, value: apple}}]}}
              - {{type: integer, name: count, description: How many, min_value: 1, max_value: 5,
                  required: true}}
"""


def test_check_finds_each_mismatch_at_the_manifest_and_handler_lines(bot_dir: Path) -> None:
    (bot_dir / "bot.yaml").write_text(MISMATCHED, encoding="utf-8")
    done = run("check", "discord.py:shop:tree", "bot.yaml", cwd=bot_dir)
    assert done.returncode == 1, done.stderr
    code = BOT.read_text(encoding="utf-8")
    roll, buy = _line(code, '@tree.command(name="roll"'), _line(code, '@shop.command(name="buy"')
    profile, listing = _line(code, "@tree.context_menu"), _line(code, '@shop.command(name="list"')
    expected = [
        (f"bot.yaml:6:9: CK05 global: chat_input 'roll': option 'faces': renamed in the "
        f"handler to 'sides': rename one of them\n    see shop.py:{roll}:1"),
        (f"bot.yaml:7:16: CK06 global: chat_input 'roll': option 'mode': type INTEGER in the "
        f"manifests, STRING in the handler\n    see shop.py:{roll}:1"),
        (f"bot.yaml:8:9: CK03 global: chat_input 'roll': option 'style': declared in the "
        f"manifests, missing from the handler\n    see shop.py:{roll}:1"),
        "bot.yaml:9:5: CK01 global: chat_input 'stats' has no handler in discord.py:shop:tree",
        (f"bot.yaml:16:11: CK04 guild {GUILD}: chat_input 'shop': the handler has option "
        f"'list', which the manifests do not declare\n    see shop.py:{buy}:1"),
        (f"bot.yaml:21:28: CK08 guild {GUILD}: chat_input 'shop': option 'buy item': choices "
        f"[('Apple', 'apple')] in the manifests, [] in the handler\n    see shop.py:{buy}:1"),
        (f"bot.yaml:22:94: CK09 guild {GUILD}: chat_input 'shop': option 'buy count': "
        f"max_value is 5 in the manifests, 10 in the handler\n    see shop.py:{buy}:1"),
        (f"bot.yaml:23:29: CK07 guild {GUILD}: chat_input 'shop': option 'buy count': "
        f"required is True in the manifests, False in the handler\n    see shop.py:{buy}:1"),
        (f"shop.py:{profile}:1: CK02 global: user 'Profile': a handler in code, but no command "
        "in the manifests: add it, or remove the handler"),
    ]
    for line in expected:
        assert line in done.stdout, done.stdout
    assert listing > buy  # the group's place is its first subcommand's handler
    github = run("check", "discord.py:shop:tree", "bot.yaml", "--format", "github",
                 cwd=bot_dir)
    assert f"::error file=shop.py,line={profile},col=1,title=CK02::" in github.stdout
    document = json.loads(run("check", "discord.py:shop:tree", "bot.yaml", "--format", "json",
                              cwd=bot_dir).stdout)
    assert sorted({d["rule"] for d in document["diagnostics"]}) == [
        f"CK0{i}" for i in range(1, 10)]


def test_check_against_live_commands(bot_dir: Path) -> None:
    assert run("apply", "--local", "--auto-approve", SOURCE, cwd=bot_dir).returncode == 0
    same = run("check", "discord.py:shop:translated", "--live", "--local", cwd=bot_dir)
    assert same.returncode == 0, same.stdout + same.stderr
    (bot_dir / "bot.yaml").write_text("commands:\n  - {name: ping, description: Ping}\n",
                                      encoding="utf-8")
    assert run("apply", "--local", "--auto-approve", "bot.yaml", cwd=bot_dir).returncode == 0
    drift = run("check", "discord.py:shop:tree", "--live", "--local", cwd=bot_dir)
    assert drift.returncode == 1
    assert "CK02 global: chat_input 'roll': a handler in code, but no command" in drift.stdout


def test_sync_twice_writes_nothing_the_second_time(tmp_path: Path) -> None:
    bot = load_bot()
    first = cmdsync.sync(bot.tree, local=True, cwd=str(tmp_path))
    second = cmdsync.sync(bot.tree, local=True, cwd=str(tmp_path))
    assert (first.ok, first.creates) == (True, 4)
    assert (second.ok, second.writes, second.scopes) == (True, 0, ())
    assert second.requests and all(r.method == "GET" for r in second.requests)


def test_sync_async_from_a_running_loop_with_a_translator(tmp_path: Path) -> None:
    bot = load_bot()

    async def setup_hook() -> Any:
        tree = await bot.translated()
        return await cmdsync.sync_async(tree, local=True, cwd=str(tmp_path))

    result = asyncio.run(setup_hook())
    assert (result.ok, result.creates) == (True, 4)
    again = asyncio.run(setup_hook())
    assert again.writes == 0


def test_sync_in_a_running_loop_names_sync_async(tmp_path: Path) -> None:
    bot = load_bot()

    async def setup_hook() -> Any:
        return cmdsync.sync(bot.tree, local=True, cwd=str(tmp_path))

    with pytest.raises(UsageError) as refused:
        asyncio.run(setup_hook())
    assert str(refused.value) == (
        "cmdsync.sync() runs an event loop of its own, and one already runs here (an async "
        "def, a bot's setup_hook): use `await cmdsync.sync_async(...)`, which takes the same "
        "arguments")
    assert not (tmp_path / ".cmdsync").exists()  # nothing was started, nothing written


EXAMPLE = paths.EXAMPLES / "discordpy" / "bot.py"
RUN_EXAMPLE = f"""\
import asyncio, importlib.util
spec = importlib.util.spec_from_file_location("example_bot", {str(EXAMPLE)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
asyncio.run(module.bot.setup_hook())
asyncio.run(module.bot.setup_hook())
"""


def test_the_docs_setup_hook_example_syncs_then_writes_nothing(tmp_path: Path) -> None:
    readme = (paths.ROOT / "docs" / "commands-in-code.md").read_text(encoding="utf-8")
    assert f"```python\n{EXAMPLE.read_text(encoding='utf-8')}```" in readme
    instance = new_emulator()
    with BackgroundServer(create_app(instance)) as base_url:
        done = subprocess.run([sys.executable, "-c", RUN_EXAMPLE], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False,
                              env={**environment(ENV), "CMDSYNC_API_URL": f"{base_url}/api/v10"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("commands in sync; write requests: 1, creates: 1\n"
                           "commands in sync; write requests: 0, creates: 0\n")
    assert instance.log.counts()["creates"] == 1
