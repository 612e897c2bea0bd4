"""Helpers for the apply tests: an in-process emulator reached like a remote API."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import httpx

from cmdsync.apply.execute import NoProgress
from cmdsync.apply.strategy import Strategy
from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import ClientConfig, DiscordClient
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator
from cmdsync.plan import Plan
from cmdsync.runners.apply import ApplyOptions, ApplyRun, apply_paths
from cmdsync.runners.apply_saved import apply_saved
from cmdsync.runners.plan import plan_paths
from cmdsync.runners.session import Connection

APP = emulator_seed.APPLICATION_ID
GUILD = emulator_seed.GUILD_ID
API = "http://emulator.test/api/v10"
ENV = {"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN,
       "DISCORD_BEARER_TOKEN": emulator_seed.USER_TOKEN,
       "DISCORD_APPLICATION_ID": APP}
SECRETS = (emulator_seed.BOT_TOKEN, emulator_seed.USER_TOKEN, emulator_seed.CLIENT_SECRET)
FAST = ClientConfig(backoff_base=0.001, backoff_max=0.01, global_limit=0)


class Hooks(NoProgress):
    """Records the plans shown and answers the prompt with ``answer``."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.shown: list[Plan] = []
        self.asked = 0

    def show_plan(self, plan: Plan) -> None:
        self.shown.append(plan)

    def confirm(self, plan: Plan) -> bool:
        self.asked += 1
        return self.answer


def connection(emulator: Emulator) -> Connection:
    return Connection(api_url=API, transport=httpx.ASGITransport(app=create_app(emulator)),
                      config=FAST)


def write(path: Path, text: str) -> str:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def apply(emulator: Emulator, paths: list[str], cwd: Path, *, strategy: Strategy =
          Strategy.AUTO, on_error: str = "stop", env: dict[str, str] | None = None,
          hooks: Hooks | None = None, interactive: bool = False, **kwargs: Any) -> ApplyRun:
    return apply_paths(paths, connection=connection(emulator),
                       options=ApplyOptions(strategy, on_error, **kwargs),
                       hooks=hooks or Hooks(), interactive=interactive,
                       env=ENV if env is None else env, cwd=str(cwd))


def apply_plan_file(emulator: Emulator, path: str, cwd: Path, *, refresh: bool = True,
                    **kwargs: Any) -> ApplyRun:
    return apply_saved(path, connection=connection(emulator), options=ApplyOptions(**kwargs),
                       hooks=Hooks(), env=ENV, cwd=str(cwd), refresh=refresh)


def plan(emulator: Emulator, paths: list[str], cwd: Path) -> Plan:
    run = plan_paths(paths, connection=connection(emulator), env=ENV, cwd=str(cwd))
    assert run.plan is not None, run.validation.diagnostics
    return run.plan


def writes(emulator: Emulator) -> list[tuple[str, str, int]]:
    """The write requests the emulator saw: (method, path without /api/v10, status)."""
    return [(e.method, e.path.removeprefix("/api/v10"), e.status)
            for e in emulator.log.entries() if e.kind == "write"]


def client(emulator: Emulator) -> DiscordClient:
    return DiscordClient(Auth(Token("Bot", emulator_seed.BOT_TOKEN),
                              Token("Bearer", emulator_seed.USER_TOKEN)),
                         config=ClientConfig(base_url=API),
                         transport=httpx.ASGITransport(app=create_app(emulator)))


def commands(emulator: Emulator, scope: str = "global") -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        async with client(emulator) as api:
            return await endpoints.list_commands(api, APP, scope)
    return asyncio.run(go())


def overwrites(emulator: Emulator, guild: str = GUILD) -> dict[str, list[dict[str, Any]]]:
    async def go() -> list[dict[str, Any]]:
        async with client(emulator) as api:
            return await endpoints.list_guild_permissions(api, APP, guild)
    return {p["id"]: p["permissions"] for p in asyncio.run(go())}


MANIFEST = f"""\
    commands:
      - name: ban
        description: Ban a member
        default_member_permissions: [ban_members]
        name_localizations: {{fr: bannir}}
        options:
          - {{type: user, name: user, description: Who, required: true}}
      - {{type: user, name: Profile}}
      - {{name: ping, description: Ping}}
    guilds:
      "{GUILD}":
        commands:
          - {{type: message, name: Report}}
          - {{name: mod, description: Moderation}}
        permissions:
          mod: [{{type: role, id: everyone, permission: false}}]
    """


CHANGED = MANIFEST.replace("description: Ban a member", "description: Ban someone") \
    .replace("        default_member_permissions: [ban_members]\n", "") \
    .replace("        name_localizations: {fr: bannir}\n", "") \
    .replace("      - {type: user, name: Profile}\n", "") \
    .replace("permission: false", "permission: true")
