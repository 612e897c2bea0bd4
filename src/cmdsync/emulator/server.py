"""Run the emulator as a real HTTP server (uvicorn)."""

from __future__ import annotations

from collections.abc import Callable

from cmdsync.emulator.app import Emulator, create_app, new_emulator
from cmdsync.emulator.ratelimit import RateLimitConfig
from cmdsync.emulator.seed import default_seed, load_seed


def build(*, state: str | None, seed: str | None, global_limit: int) -> Emulator:
    """An emulator with its state file (or memory), seed and global limit.

    Raises :class:`~cmdsync.errors.UsageError` for an unreadable seed file.
    """
    return new_emulator(state=state or ":memory:",
                        seed=load_seed(seed) if seed else default_seed(),
                        ratelimit=RateLimitConfig(global_limit=global_limit))


def banner(emulator: Emulator, host: str, port: int) -> str:
    """What the emulator prints on start: where it listens and the credentials."""
    lines = [f"cmdsync emulator: Discord API v10 at http://{host}:{port}/api/v10"]
    for app in emulator.seed.get("applications") or []:
        lines.append(f"  application {app['id']}: bot token {app['bot_token']}, "
                     f"client secret {app['client_secret']}")
    for guild in emulator.seed.get("guilds") or []:
        lines.append(f"  guild {guild['id']}")
    for user in emulator.seed.get("users") or []:
        lines.append(f"  user {user['id']}: bearer token {user['bearer_token']} "
                     f"(scopes: {' '.join(user.get('scopes') or [])})")
    lines.append(f"  admin API: http://{host}:{port}/_emulator/ (reset, seed, log, config)")
    return "\n".join(lines) + "\n"


def serve(emulator: Emulator, *, host: str, port: int,
          on_start: Callable[[], None] | None = None) -> None:
    """Serve until interrupted (Ctrl-C)."""
    import uvicorn

    if on_start is not None:
        on_start()
    uvicorn.run(create_app(emulator), host=host, port=port, log_level="warning")
