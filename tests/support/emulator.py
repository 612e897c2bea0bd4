"""Helpers shared by the emulator tests (no tests here).

- :class:`FakeClock`: the emulator's injectable clock, moved by hand.
- :func:`asgi_client`: an ``httpx.AsyncClient`` on the app in-process.
- :func:`http_server`: the app under a real uvicorn on 127.0.0.1 and a free port.
- :func:`as_ci_would`: a served emulator reset to a seed, the environment CI sets.
- Credentials of the default seed, and small command bodies.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.client import endpoints
from cmdsync.client.auth import Auth, Token
from cmdsync.client.http import ClientConfig, DiscordClient
from cmdsync.emulator import Emulator, Limits, RateLimitConfig, create_app, new_emulator
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.server import BackgroundServer
from cmdsync.plan import Action, Plan

APP = "111111111111111111"
GUILD = "222222222222222222"
USER_ID = "333333333333333333"
BOT = {"Authorization": "Bot emulator-bot-token"}
USER = {"Authorization": "Bearer emulator-user-token"}
GLOBAL = f"/applications/{APP}/commands"
GUILD_COMMANDS = f"/applications/{APP}/guilds/{GUILD}/commands"
NO_LIMITS = RateLimitConfig(global_limit=0, route_limit=0)
START = 1_750_000_000.0  # 2025-06-15 15:06:40 UTC
EMBEDDED_SEED: dict[str, Any] = {
    "applications": [
        {"id": APP, "bot_token": "emulator-bot-token", "client_secret": "emulator-secret"},
        {"id": "444444444444444444", "name": "Activity", "flags": ["embedded"],
         "integration_types": ["guild_install", "user_install"],
         "bot_token": "activity-bot-token", "client_secret": "activity-secret"}],
    "guilds": [{"id": GUILD}],
    "users": [{"id": USER_ID, "application_id": APP, "bearer_token": "emulator-user-token",
               "scopes": ["applications.commands.permissions.update"], "guilds": [GUILD]}],
}


class FakeClock:
    """Epoch seconds that only move when told to."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def emulator(*, clock: FakeClock | None = None, ratelimit: RateLimitConfig = NO_LIMITS,
             limits: Limits | None = None, seed: dict[str, Any] | None = None) -> Emulator:
    """An in-memory emulator; rate limits off unless given."""
    return new_emulator(seed=seed, ratelimit=ratelimit, limits=limits,
                        clock=clock or FakeClock())


def asgi_client(instance: Emulator, *, prefix: str = "/api/v10") -> httpx.AsyncClient:
    """An async client calling the app in-process (httpx.ASGITransport)."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(instance)),
                             base_url=f"http://emulator{prefix}")


@contextmanager
def http_server(instance: Emulator) -> Iterator[str]:
    """The app under uvicorn on loopback; yields its base URL (no path)."""
    with BackgroundServer(create_app(instance)) as base_url:
        yield base_url


def http_client(base_url: str, **options: Any) -> httpx.Client:
    """A client for plain http on loopback; ``verify=False`` only skips loading
    the CA bundle, which costs ~35 ms per client."""
    return httpx.Client(base_url=base_url, verify=False, timeout=10, **options)


def chat(name: str = "ping", description: str = "Check the bot is alive",
         **fields: Any) -> dict[str, Any]:
    """A CHAT_INPUT command body."""
    return {"name": name, "description": description, **fields}


def option(name: str, kind: int = 3, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "description": f"The {name}", **fields}


def names(commands: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in commands]


def make_client(emulator: Emulator, *, clock: Callable[[], float] | None = None,
                **config: Any) -> DiscordClient:
    """A client of ``emulator`` in-process; ``clock`` (seconds) for its rate limiter."""
    return DiscordClient(
        Auth(Token("Bot", emulator_seed.BOT_TOKEN), Token("Bearer", emulator_seed.USER_TOKEN)),
        config=ClientConfig(base_url="http://emulator/api/v10", **config),
        transport=httpx.ASGITransport(app=create_app(emulator)), clock=clock)


async def apply(client: DiscordClient, plan: Plan) -> None:
    """What apply does with a plan: bulk overwrite per scope, then permission PUTs."""
    saved: dict[str, list[dict[str, Any]]] = {}
    for scope in plan.scopes:
        if scope.manages_commands and any(c.action is not Action.NO_OP or c.note
                                          for c in scope.commands):
            bodies = [c.body for c in scope.commands
                      if c.action is not Action.DELETE and c.body is not None]
            saved[scope.scope] = await endpoints.bulk_overwrite(client, APP, scope.scope,
                                                                bodies)
    for scope in plan.scopes:
        for change in scope.permissions:
            target = change.target_id
            if target is None:
                target = next(c["id"] for c in saved[str(change.command_scope)]
                              if c["name"] == change.command_name
                              and c["type"] == change.command_type)
            await endpoints.put_permissions(client, APP, scope.scope, target, change.after)


def as_ci_would(server: str, seed: Mapping[str, Any], monkeypatch: pytest.MonkeyPatch,
                cwd: Path, *, variables: Mapping[str, str]) -> httpx.Client:
    """The served emulator at ``server`` reset to ``seed``, the working directory ``cwd``,
    and the environment CI would set: no other ``DISCORD_*``/``CMDSYNC_*`` variable,
    ``CMDSYNC_API_URL`` at the emulator, and ``variables`` (the credentials). Returns
    a client of its admin API."""
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "CMDSYNC_")) or name in ("FORCE_COLOR", "NO_COLOR"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CMDSYNC_API_URL", f"{server}/api/v10")
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(cwd)
    client = httpx.Client(base_url=f"{server}/_emulator", timeout=10)
    client.post("/reset", json=dict(seed)).raise_for_status()
    return client


def guild_install_only(instance: Emulator, application_id: str = APP) -> Emulator:
    """``instance`` with its application supporting guild install only, as applications
    made before Discord's default of both installation contexts (change log,
    2024-06-27) still do; the default seed's supports both."""
    app = instance.store.application(application_id)
    assert app is not None
    instance.store.add_application(replace(app, integration_types=(0,)))
    return instance
