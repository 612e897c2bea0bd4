"""The emulator as an ASGI application (starlette), for uvicorn or in-process use.

:func:`create_app` serves an :class:`~cmdsync.emulator.instance.Emulator`:
Discord's endpoints (:data:`cmdsync.emulator.routes.ROUTES`, and OAuth2's
``POST /oauth2/token`` and ``/oauth2/token/revoke``: :mod:`cmdsync.emulator.oauth2.tokens`)
under ``/api/v10`` (also ``/api/v9`` and ``/api``), the OAuth2 consent page
``/oauth2/authorize`` at the root and under those prefixes
(:mod:`cmdsync.emulator.oauth2.consent`), the admin API under ``/_emulator/``
(:mod:`cmdsync.emulator.admin`), and the web console under ``/console/``, where
the root URL leads (:mod:`cmdsync.emulator.console`).

Every API request goes through the same steps, each able to answer early:
injected faults (latency, slow answers, 500/502, dropped connection),
authentication (401), rate limits (429), path snowflakes (50035), the JSON
body (413, 50109), then the handler in a worker thread
(:mod:`cmdsync.emulator.routes`), whose answers carry the rate-limit headers
too. A lost answer, injected last, replaces the answer of a request that was
served. Unknown paths answer ``404: Not Found (not emulated by cmdsync: METHOD
/path)`` and known paths with another method ``405: Method Not Allowed``, both
code 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, Router

from cmdsync.emulator import admin, console
from cmdsync.emulator.domain.objects import Token
from cmdsync.emulator.gateway import transport as gateway_transport
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.oauth2 import consent
from cmdsync.emulator.oauth2 import tokens as oauth
from cmdsync.emulator.reference import access, discord_routes, error_replies, request_body
from cmdsync.emulator.reference.call import Call, Reply
from cmdsync.emulator.reference.faults import Draw, InjectedFault
from cmdsync.emulator.reference.log import LogEntry, ratelimit_headers
from cmdsync.emulator.routes import ROUTES
from cmdsync.emulator.routes import Route as ApiRoute

API_PREFIXES = ("/api/v10", "/api/v9", "/api")
IN_PROCESS_HOST = "cmdsync.local"  # the host of `cmdsync invoke --local`'s base URL
CLIENT_CLOSED = 499  # logged for a request whose client left before sending its body
_SNOWFLAKE_PARAMS = ("application_id", "guild_id", "command_id", "interaction_id",
                     "channel_id", "user_id")
Endpoint = Callable[[Request], Awaitable[Response]]
_METHODS = ("GET", "PUT", "POST", "PATCH", "DELETE")


def create_app(emulator: Emulator, *, hosts: Iterable[str] = (IN_PROCESS_HOST,)
               ) -> Starlette:
    """The ASGI app serving ``emulator``.

    ``hosts`` are the host names (the ``Host`` header without its port) the
    admin API answers to besides loopback ones (``localhost``,
    ``127.0.0.0/8``, ``::1``); it refuses any other with 403, so that a web
    page cannot reach it by DNS rebinding. :func:`cmdsync.emulator.server.serve`
    gives the address it listens on; the default is the name ``cmdsync invoke
    --local`` calls the in-process emulator by.
    """
    api: list[BaseRoute] = []
    for path in dict.fromkeys(route.path for route in ROUTES):
        methods = {r.method: r for r in ROUTES if r.path == path}
        # every method: one the emulator does not serve is answered (and logged) by
        # _endpoint as Discord's route not emulated, or as Discord's 405
        api.append(Route(path, _endpoint(methods), methods=list(_METHODS)))
    api.append(Route("/oauth2/token", _oauth2_token, methods=["POST"]))
    api.append(Route("/oauth2/token/revoke", _oauth2_revoke, methods=["POST"]))
    authorize = Route("/oauth2/authorize", consent.authorize, methods=["GET", "POST"])
    api.append(authorize)
    # No redirects for trailing slashes: Discord does not send any.
    routes: list[BaseRoute] = [Mount(prefix, app=Router(api, redirect_slashes=False))
                               for prefix in API_PREFIXES]
    routes.append(authorize)  # https://discord.com/oauth2/authorize
    routes.extend(gateway_transport.routes())  # the websocket, /gateway
    routes.append(Mount("/_emulator", app=Router(admin.routes(), redirect_slashes=False)))
    routes.append(Mount("/console", routes=console.routes(), name="console"))  # the web console
    routes.extend(Route(path, console.root, methods=["GET"]) for path in ("/", "/console"))
    app = Starlette(routes=routes, exception_handlers={
        HTTPException: _http_error, Exception: _server_error})
    app.router.redirect_slashes = False
    app.state.emulator = emulator
    app.state.admin_hosts = frozenset(host.lower().rstrip(".") for host in hosts)
    return app


def _endpoint(methods: dict[str, ApiRoute]) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        route = methods.get(request.method if request.method != "HEAD" else "GET")
        emulator: Emulator = request.app.state.emulator
        if route is None:
            return _unserved(request, emulator)
        draw = emulator.faults.draw()
        reply, response = None, None
        emulator.activity.begin()  # in flight: a test waiting for the bot to settle waits
        try:
            await _early_fault(draw)
            reply, headers = await _serve(request, route, emulator)
            response = _json(reply.body, reply.status, headers)
        except error_replies.ErrorReply as exc:
            response = _json(exc.body(), exc.status, exc.headers)
        except InjectedFault as fault:
            response = fault.response()
        except ClientDisconnect:  # gone before its body arrived (timed out): not served
            response = Response(status_code=CLIENT_CLOSED)
        finally:
            emulator.activity.end()
        if draw.after is not None:  # served, and its answer lost on the way back
            response = draw.after.response()
        emulator.log.record(LogEntry(
            request.method, request.url.path, f"{route.method} {route.path}",
            response.status_code, emulator.clock(), reply.creates if reply else 0,
            "write" if route.writes else "read", ratelimit_headers(response.headers)))
        return response

    return endpoint


async def _serve(request: Request, route: ApiRoute, emulator: Emulator
                 ) -> tuple[Reply, dict[str, str]]:
    """Run one API request through auth, rate limits and its handler."""
    now = emulator.clock()
    params = dict(request.path_params)
    if route.auth:
        token = access.authenticate(emulator.store, request.headers.get("authorization"),
                                    now=now)
    else:  # the interaction token in the path is the credential
        token = Token("interaction:" + params.get("interaction_token", ""), "interaction",
                      params.get("application_id", ""), None, frozenset(), None, frozenset())
    major = (params.get("guild_id") or params.get("channel_id")
             or params.get("application_id", ""))
    decision = emulator.limiter.hit(token.token, route.bucket, major, now)
    if not decision.allowed:
        raise error_replies.rate_limited(decision.retry_after, decision.headers,
                                  is_global=decision.is_global)
    try:
        _check_snowflakes(params)
        body, uploads = (await _read_body(request, route, emulator.limits.max_body_bytes)
                         if route.method in ("POST", "PUT", "PATCH") else (None, ()))
        call = Call(emulator.store, token, params, dict(request.query_params),
                    {k.lower(): v for k, v in request.headers.items()}, body, now,
                    emulator.limits, uploads, gateway=emulator.gateway)
        reply = route.handler(call) if route.inline else await run_in_threadpool(
            route.handler, call)
        return reply, decision.headers
    except error_replies.ErrorReply as exc:
        exc.headers = {**decision.headers, **exc.headers}
        raise


async def _early_fault(draw: Draw) -> None:
    """Wait the drawn delay, then raise the fault that answers instead of the handler."""
    if draw.delay:
        await asyncio.sleep(draw.delay)
    if draw.before is not None:
        raise draw.before


def _check_snowflakes(params: dict[str, str]) -> None:
    """Path ids must be snowflakes: 50035 ``NUMBER_TYPE_COERCE`` like Discord."""
    for name in _SNOWFLAKE_PARAMS:
        value = params.get(name)
        if value is not None and not (value.isascii() and value.isdigit()
                                      and int(value) < 2**64):
            raise error_replies.field_error((name,), "NUMBER_TYPE_COERCE",
                                     f'Value "{value}" is not snowflake.')


async def _read_body(request: Request, route: ApiRoute, limit: int
                     ) -> tuple[Any, tuple[request_body.Upload, ...]]:
    """The parsed body and its files: 413 past ``limit`` bytes, 50109 when not JSON.

    NaN, infinities and nesting deeper than :data:`strict_json.MAX_DEPTH`
    are refused as invalid JSON too. Routes with ``forms`` take
    multipart/form-data and form-urlencoded bodies too
    (:mod:`cmdsync.emulator.reference.request_body`).
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise error_replies.too_large()
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise error_replies.too_large()
    if not raw and route.optional_body:
        return None, ()
    return await request_body.parse(bytes(raw), request.headers.get("content-type", ""),
                                    forms=route.forms)


async def _oauth2_token(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    return await _oauth2(request, "POST /oauth2/token", lambda body, authorization: (
        oauth.token(emulator.store, body, authorization, now=emulator.clock())))


async def _oauth2_revoke(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    return await _oauth2(request, "POST /oauth2/token/revoke", lambda body, authorization: (
        oauth.revoke(emulator.store, body, authorization)))


async def _oauth2(request: Request, route: str,
                  answer: Callable[[bytes, str | None], oauth.Answer]) -> Response:
    """A token endpoint: faults apply, rate limits do not; answers are never cached
    (RFC 6749 5.1) and a 401 names the Basic scheme (RFC 6749 5.2)."""
    emulator: Emulator = request.app.state.emulator
    draw = emulator.faults.draw()
    try:
        await _early_fault(draw)
        body = await _read_body_bytes(request, emulator.limits.max_body_bytes)
    except InjectedFault as fault:
        return fault.response()
    except error_replies.ErrorReply as exc:
        return _json(exc.body(), exc.status, exc.headers)
    except ClientDisconnect:
        return Response(status_code=CLIENT_CLOSED)
    status, reply = answer(body, request.headers.get("authorization"))
    emulator.log.record(LogEntry("POST", request.url.path, route, status,
                                 emulator.clock(), kind="token"))
    headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="oauth2"'
    return draw.after.response() if draw.after is not None else _json(reply, status, headers)


async def _read_body_bytes(request: Request, limit: int) -> bytes:
    """The raw body; 413 past ``limit`` bytes."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise error_replies.too_large()
    return bytes(raw)


def _json(body: Any, status: int, headers: dict[str, str] | None = None) -> Response:
    if status == 204:
        return Response(status_code=204, headers=headers)
    if isinstance(body, bytes):  # encoded already (lists of commands: routes.py)
        return Response(body, status_code=status, headers=headers, media_type="application/json")
    return JSONResponse(body, status_code=status, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404 and request.url.path.startswith(API_PREFIXES):
        return _unserved(request, request.app.state.emulator)
    error = (error_replies.method_not_allowed() if status == 405
             else error_replies.not_emulated(request.method, request.url.path))
    return _json(error.body(), error.status)


def _unserved(request: Request, emulator: Emulator) -> Response:
    """A request of Discord's API the emulator does not serve: 404 naming it when Discord
    has the route (or no route of the path at all), 405 for a method no route of a known
    path has, as Discord answers; logged either way, with Discord's route template."""
    path = request.url.path
    bare = next((path[len(p):] for p in API_PREFIXES if path.startswith(p + "/")), path)
    known = discord_routes.discord_route(request.method, bare)
    error = (error_replies.method_not_allowed()
             if known is None and discord_routes.path_known(bare)
             else error_replies.not_emulated(request.method, path))
    emulator.log.record(LogEntry(
        request.method, error_replies.shown_path(path),
        known or f"{request.method} (not a Discord route)", error.status, emulator.clock(),
        kind="unserved"))
    return _json(error.body(), error.status)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _json({"message": "500: Internal Server Error", "code": 0}, 500)
