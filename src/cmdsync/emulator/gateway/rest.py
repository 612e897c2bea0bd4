"""``GET /gateway``, ``GET /gateway/bot`` and the admin API's gateway routes.

``GET /gateway`` (no authentication) answers ``{"url"}``; ``GET
/gateway/bot`` (a bot token) adds ``shards`` (one per
``GatewayConfig.guilds_per_shard`` guilds) and ``session_start_limit``
(``total``, ``remaining`` IDENTIFYs in the last 24 h, ``reset_after`` in
ms, ``max_concurrency``), as Discord's "Gateway > Get Gateway Bot". The URL
is the emulator's own websocket, on the host the request was made to.

Admin routes, under ``/_emulator/gateway`` (the caller wraps them in the
admin API's guard):

- ``GET /_emulator/gateway``: ``{"sessions": [{"session_id",
  "application_id", "shard", "intents", "seq", "connected", "ready"}]}``;
- ``POST /_emulator/gateway/drop`` ``{"application_id"?, "code"?}``: close
  the connections (default 4000, which a client resumes after);
- ``POST /_emulator/gateway/reconnect`` ``{"application_id"?}``: op 7;
- ``POST /_emulator/gateway/heartbeat`` ``{"application_id"?}``: op 1, a
  heartbeat the client must send at once;
- ``POST /_emulator/gateway/dispatch`` ``{"application_id", "event", "data",
  "guild_id"?}``: any dispatch, to the sessions of the guild's shard;
- ``DELETE /_emulator/guilds/{guild_id}/members/{user_id}``: remove a member
  fixture (204; 404 if none) and dispatch GUILD_MEMBER_REMOVE.

Each POST answers ``{"connections": N}`` (``{"sessions": N}`` for
dispatch), how many it reached.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from cmdsync.emulator.gateway.hub import Gateway
from cmdsync.emulator.gateway.protocol import Close, snowflake
from cmdsync.emulator.gateway.transport import gateway_url
from cmdsync.emulator.reference import access, error_replies
from cmdsync.emulator.reference.call import Call, Reply

AdminHandler = Callable[[Request], Awaitable[Response]]
_CLOSE_CODES = {1000, 1001, 1011, 1012} | {int(code) for code in Close}


def get_gateway(call: Call) -> Reply:
    """``GET /gateway``: ``{"url"}``."""
    return Reply(200, {"url": gateway_url(call.headers.get("host", "127.0.0.1"))})


def get_gateway_bot(call: Call) -> Reply:
    """``GET /gateway/bot``: ``{"url", "shards", "session_start_limit"}``; 401 without a
    bot token."""
    if call.token.kind != "bot" or not isinstance(call.gateway, Gateway):
        raise error_replies.unauthorized()
    app = access.application(call.store, call.token, call.token.application_id)
    return Reply(200, {"url": gateway_url(call.headers.get("host", "127.0.0.1")),
                       "shards": call.gateway.shards_needed(app.id),
                       "session_start_limit": call.gateway.session_start_limit(app.id)})


def admin_routes() -> list[tuple[str, AdminHandler, list[str]]]:
    """``(path, handler, methods)`` of the admin gateway routes (see the docstring)."""
    return [("/gateway", _sessions, ["GET"]), ("/gateway/{action}", _act, ["POST"]),
            ("/guilds/{guild_id}/members/{user_id}", _remove_member, ["DELETE"])]


def _bad(message: str) -> Response:
    return JSONResponse({"message": message, "code": 0}, status_code=400)


async def _sessions(request: Request) -> Response:
    gateway: Gateway = request.app.state.emulator.gateway
    return JSONResponse({"sessions": gateway.sessions()})


async def _act(request: Request) -> Response:
    gateway: Gateway = request.app.state.emulator.gateway
    action = request.path_params["action"]
    try:
        body = json.loads(request.state.body or b"{}")
    except (ValueError, RecursionError):
        return _bad("send a JSON object")
    if not isinstance(body, dict):
        return _bad("send a JSON object")
    app_id = body.get("application_id")
    if app_id is not None and not snowflake(app_id):
        return _bad("application_id must be an application's id (a string)")
    if action == "dispatch":
        return _dispatch(gateway, body)
    if action == "drop":
        code = body.get("code", int(Close.UNKNOWN_ERROR))
        if code not in _CLOSE_CODES or isinstance(code, bool):
            return _bad(f"code must be a gateway close code (4000-4014) or 1000, 1001, "
                        f"1011, 1012, not {code!r}")
        return JSONResponse({"connections": gateway.drop(app_id, code=code)})
    if action == "reconnect":
        return JSONResponse({"connections": gateway.reconnect(app_id)})
    if action == "heartbeat":
        return JSONResponse({"connections": gateway.ask_heartbeat(app_id)})
    return JSONResponse({"message": f"no gateway action {action!r}: use drop, reconnect, "
                         "heartbeat or dispatch", "code": 0}, status_code=404)


async def _remove_member(request: Request) -> Response:
    guild_id, user_id = request.path_params["guild_id"], request.path_params["user_id"]
    if not request.app.state.emulator.members.remove(guild_id, user_id):
        return JSONResponse({"message": f"no member {user_id} in guild {guild_id}",
                             "code": 0}, status_code=404)
    return Response(status_code=204)


def _dispatch(gateway: Gateway, body: dict[str, Any]) -> Response:
    app_id, event, guild_id = body.get("application_id"), body.get("event"), \
        body.get("guild_id")
    if app_id is None:
        return _bad("application_id is required")
    if not isinstance(event, str) or not event.isupper():
        return _bad("event must be an event name in capitals, like GUILD_MEMBER_ADD")
    if guild_id is not None and not snowflake(guild_id):
        return _bad("guild_id must be a guild's id (a string)")
    return JSONResponse({"sessions": gateway.dispatch(app_id, event, body.get("data"),
                                                      guild_id=guild_id)})
