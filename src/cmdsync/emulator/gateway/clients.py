"""Pointing a Discord library at a served emulator, for a bot's tests.

discord.py, nextcord (module ``discord`` or ``nextcord``) and disnake read
their REST base from ``<module>.http.Route.BASE``, py-cord (2.6 and later)
from ``discord.http.Route.API_BASE_URL``, and interactions.py from
``interactions.api.http.route.Route.BASE``; discord.py and its forks connect a
bot that is not sharded to
``<module>.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` without asking
``GET /gateway/bot``, so that is pointed at the emulator too. hikari takes
``rest_url=`` (its ``GatewayBot`` then asks ``GET /gateway/bot``), and needs
a bot token shaped like Discord's: :func:`discord_shaped_token`.

    with pointed_at("http://127.0.0.1:8787"):
        await client.start("emulator-bot-token")
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LIBRARIES = ("discord", "nextcord", "disnake")
# Where a library's Route is when it is not ``<module>.http`` (interactions.py)
_ROUTE_MODULES = {"interactions": "interactions.api.http.route"}


def urls(base_url: str) -> tuple[str, str]:
    """``(api_url, gateway_url)`` of the emulator at ``base_url`` (``http://host:port``)."""
    base = base_url.rstrip("/")
    return f"{base}/api/v10", base.replace("http", "ws", 1) + "/gateway"


def discord_shaped_token(application_id: str, secret: str = "emulator") -> str:
    """A bot token whose first part is the base64 of ``application_id``, as Discord's
    are (hikari's ``GatewayBot`` reads the application id from it)."""
    head = base64.b64encode(application_id.encode()).decode().rstrip("=")
    return f"{head}.GaBcDe.{secret}"


@contextmanager
def pointed_at(base_url: str, *, libraries: tuple[str, ...] = LIBRARIES) -> Iterator[None]:
    """Point every installed library of ``libraries`` at the emulator at ``base_url``
    (``http://host:port``) for the ``with`` block, then restore what was there.

    Changes class attributes, so it affects every client of those libraries in
    the process while it lasts.
    """
    api_url, gateway_url = urls(base_url)
    saved: list[tuple[Any, str, Any]] = []
    try:
        for name in libraries:
            try:
                http = importlib.import_module(_ROUTE_MODULES.get(name, f"{name}.http"))
            except ImportError:
                continue
            # py-cord 2.6 and later build Route.base from API_BASE_URL; the others read BASE
            attribute = "BASE" if hasattr(http.Route, "BASE") else "API_BASE_URL"
            saved.append((http.Route, attribute, getattr(http.Route, attribute)))
            setattr(http.Route, attribute, api_url)
            if name in _ROUTE_MODULES:  # it asks GET /gateway for the websocket's URL
                continue
            gateway = importlib.import_module(f"{name}.gateway")
            socket = getattr(gateway, "DiscordWebSocket", None)
            default = getattr(socket, "DEFAULT_GATEWAY", None)
            if socket is not None and default is not None:
                saved.append((socket, "DEFAULT_GATEWAY", default))
                socket.DEFAULT_GATEWAY = type(default)(gateway_url)
        yield
    finally:
        for owner, attribute, value in reversed(saved):
            setattr(owner, attribute, value)
