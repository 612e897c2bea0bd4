"""The emulator's floor: a bare starlette app under uvicorn that does only the HTTP work.

    python benchmarks/floor.py      # prints "floor at http://127.0.0.1:PORT/api/v10", serves

Two routes at the emulator's paths: ``PUT
/api/v10/applications/{application_id}/guilds/{guild_id}/commands`` reads the
whole body, parses it (``json.loads``), encodes it again and answers it (and
keeps that answer for the guild); ``GET`` of the same path answers what the
guild's last ``PUT`` answered (``[]`` before one). Nothing is checked, stored
or logged: whatever the emulator takes beyond this, per request, is its own
cost (:mod:`emulator_load` sets the two side by side, request by request).

Served as the emulator is served (``cmdsync emulator``, whose uvicorn
settings are ``cmdsync.emulator.server.uvicorn_config``): uvicorn on the same
interpreter, the same asyncio loop, HTTP/1.1 by h11, log level ``warning``,
no lifespan, websocket messages of at most 4,096 bytes, on a listening socket
made the same way (``IPPROTO_TCP``, so that asyncio sets ``TCP_NODELAY``). The
emulator's h11 protocol also closes a connection whose headers are slow (one
timer per connection, armed when it opens); the floor's does not, which costs
nothing per request on a kept-alive connection.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

PATH = "/api/v10/applications/{application_id}/guilds/{guild_id}/commands"
BANNER = "floor at "  # then the base URL, as the emulator's banner gives its own
# cmdsync.emulator.server.uvicorn_config's settings (the benchmarks import only the
# emulator's public names; that module is not one of them)
UVICORN_SETTINGS: dict[str, Any] = {"log_level": "warning", "lifespan": "off", "http": "h11",
                                    "ws_max_size": 4096}


def create_floor() -> Starlette:
    """The floor's ASGI app: see the module docstring."""
    answers: dict[str, bytes] = {}

    async def commands(request: Request) -> Response:
        guild = request.path_params["guild_id"]
        if request.method == "PUT":
            answers[guild] = json.dumps(json.loads(await request.body())).encode()
        return Response(answers.get(guild, b"[]"), media_type="application/json")

    return Starlette(routes=[Route(PATH, commands, methods=["GET", "PUT"])])


class _Announcing(uvicorn.Server):
    """Says where it listens once it does, as ``cmdsync emulator`` does."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            print(f"{BANNER}http://{host}:{port}/api/v10", flush=True)


def main() -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    _Announcing(uvicorn.Config(create_floor(), **UVICORN_SETTINGS)).run(sockets=[listener])
    return 0


if __name__ == "__main__":
    sys.exit(main())
