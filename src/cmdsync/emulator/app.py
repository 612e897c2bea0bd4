"""The emulator as an ASGI application (starlette), for uvicorn or in-process use.

:func:`create_app` builds the app around an :class:`Emulator` (state, rate
limiter, faults, request log). Discord's endpoints are served under
``/api/v10`` (also ``/api/v9`` and ``/api``); the admin API for tests under
``/_emulator/``:

- ``POST /_emulator/reset``: forget everything, then apply the seed again
  (the body, if any, is a new seed)
- ``POST /_emulator/seed``: add applications, guilds and users (JSON seed)
- ``GET /_emulator/log``: every API request with its status, and counts of
  reads, writes, command creates and 429s; ``DELETE`` clears it
- ``PUT /_emulator/config``: ``{"ratelimit": {...}, "faults": {...}}``
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from cmdsync.emulator import auth, errors
from cmdsync.emulator.faults import FaultConfig, Faults, InjectedFault
from cmdsync.emulator.ratelimit import RateLimitConfig, RateLimiter
from cmdsync.emulator.routes import ROUTES, Call, Handler
from cmdsync.emulator.seed import COMMANDS_SCOPE, apply_seed, default_seed
from cmdsync.emulator.store import Store, Token
from cmdsync.errors import UsageError

MAX_BODY_BYTES = 1024 * 1024
TOKEN_LIFETIME = 604800  # seconds: client-credentials tokens (FACTS.md)
API_PREFIXES = ("/api/v10", "/api/v9", "/api")


@dataclass
class Emulator:
    """Everything one emulator instance holds."""

    store: Store
    seed: dict[str, Any] = field(default_factory=default_seed)
    limiter: RateLimiter = field(default_factory=RateLimiter)
    faults: Faults = field(default_factory=Faults)
    log: list[dict[str, Any]] = field(default_factory=list)

    def reset(self, seed: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.seed = seed
        self.store.reset()
        apply_seed(self.store, self.seed)
        self.limiter.reset()
        self.log.clear()

    def counts(self) -> dict[str, int]:
        ok = [e for e in self.log if e["status"] < 400]
        return {
            "total": len(self.log),
            "reads": sum(1 for e in ok if e["method"] == "GET"),
            "writes": sum(1 for e in ok if e["method"] != "GET"),
            "creates": sum(e["creates"] for e in self.log),
            "rate_limited": sum(1 for e in self.log if e["status"] == 429),
            "errors": sum(1 for e in self.log if e["status"] >= 400),
        }


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if status == 204:
        return Response(status_code=204, headers=headers)
    return JSONResponse(body, status_code=status, headers=headers)


def _endpoint(path: str, methods: dict[str, Handler]) -> Any:
    async def handle(request: Request) -> Response:
        emulator: Emulator = request.app.state.emulator
        handler = methods.get(request.method)
        entry = {"method": request.method, "path": request.url.path, "status": 0,
                 "creates": 0, "time": time.time()}
        headers: dict[str, str] = {}
        try:
            await emulator.faults.before()
            if handler is None:
                raise errors.method_not_allowed()
            token = auth.authenticate(emulator.store, request.headers.get("authorization"))
            major = "/".join(request.path_params.get(k, "") for k in
                             ("application_id", "guild_id"))
            decision = emulator.limiter.hit(token.token, f"{request.method} {path}", major)
            headers = decision.headers
            if not decision.allowed:
                raise errors.ApiError(429, 0, "You are being rate limited.", headers=headers)
            call = Call(emulator.store, token, dict(request.path_params),
                        dict(request.query_params), {k.lower(): v for k, v in
                                                     request.headers.items()})
            if request.method in ("POST", "PUT", "PATCH"):
                call.body = await _read_json(request)
            status, body = handler(call)
            entry["creates"] = call.creates
            response = _json(body, status, headers)
        except errors.ApiError as exc:
            response = _error_response(exc, headers)
        except InjectedFault as fault:
            response = fault.response()
        entry["status"] = response.status_code
        emulator.log.append(entry)
        return response

    return handle


def _error_response(exc: errors.ApiError, headers: dict[str, str]) -> Response:
    merged = {**headers, **exc.headers}
    if exc.status == 429:
        retry = float(merged.get("X-RateLimit-Reset-After", "1"))
        body = {"message": exc.message, "retry_after": retry,
                "global": merged.get("X-RateLimit-Global") == "true"}
        return _json(body, 429, merged)
    return _json(exc.body(), exc.status, merged)


async def _read_json(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise errors.ApiError(413, 40005, "Request entity too large")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise errors.ApiError(400, 50109, "The request body contains invalid JSON.") from exc


async def oauth2_token(request: Request) -> Response:
    """Client credentials: HTTP Basic ``client_id:client_secret``, form body."""
    emulator: Emulator = request.app.state.emulator
    form = {k: v[-1] for k, v in parse_qs((await request.body()).decode("utf-8",
                                                                        "replace")).items()}
    client_id, secret = form.get("client_id"), form.get("client_secret")
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        try:
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            client_id = None
    app = emulator.store.application(client_id or "")
    if app is None or not secret or not secrets.compare_digest(secret, app.client_secret):
        return _json({"error": "invalid_client"}, 401)
    if form.get("grant_type") != "client_credentials":
        return _json({"error": "unsupported_grant_type"}, 400)
    scopes = set((form.get("scope") or "").split())
    if not scopes or not scopes <= {COMMANDS_SCOPE, "identify", "applications.commands"}:
        return _json({"error": "invalid_scope"}, 400)
    value = secrets.token_urlsafe(24)
    emulator.store.add_token(Token(value, "bearer", app.id, None, frozenset(scopes),
                                   time.time() + TOKEN_LIFETIME, frozenset()))
    return _json({"access_token": value, "token_type": "Bearer",
                  "expires_in": TOKEN_LIFETIME, "scope": " ".join(sorted(scopes))})


async def admin_reset(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    raw = await request.body()
    emulator.reset(json.loads(raw) if raw.strip() else None)
    return _json({"ok": True})


async def admin_seed(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    try:
        apply_seed(emulator.store, json.loads(await request.body()))
    except (ValueError, UsageError) as exc:
        return _json({"error": str(exc)}, 400)
    return _json({"ok": True})


async def admin_log(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    if request.method == "DELETE":
        emulator.log.clear()
        return _json({"ok": True})
    return _json({"requests": emulator.log, "counts": emulator.counts()})


async def admin_config(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    try:
        body = json.loads(await request.body())
        if "ratelimit" in body:
            emulator.limiter.config = RateLimitConfig(**body["ratelimit"])
            emulator.limiter.reset()
        if "faults" in body:
            emulator.faults.configure(FaultConfig(**body["faults"]))
    except (ValueError, TypeError) as exc:
        return _json({"error": str(exc)}, 400)
    return _json({"ratelimit": asdict(emulator.limiter.config),
                  "faults": asdict(emulator.faults.config)})


async def _not_found(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException) and exc.status_code == 405:
        return _json(errors.method_not_allowed().body(), 405)
    return _json(errors.not_found().body(), 404)


def create_app(emulator: Emulator) -> Starlette:
    """The ASGI app serving ``emulator``."""
    api = [Route(path, _endpoint(path, methods), methods=["GET", "POST", "PUT", "PATCH",
                                                          "DELETE"])
           for path, methods in ROUTES]
    api.append(Route("/oauth2/token", oauth2_token, methods=["POST"]))
    routes: list[Any] = [Mount(prefix, routes=api) for prefix in API_PREFIXES]
    routes += [
        Route("/_emulator/reset", admin_reset, methods=["POST"]),
        Route("/_emulator/seed", admin_seed, methods=["POST"]),
        Route("/_emulator/log", admin_log, methods=["GET", "DELETE"]),
        Route("/_emulator/config", admin_config, methods=["PUT"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found})
    app.state.emulator = emulator
    return app


def new_emulator(*, state: str = ":memory:", seed: dict[str, Any] | None = None,
                 ratelimit: RateLimitConfig | None = None) -> Emulator:
    """An emulator with its seed applied (on an empty state only)."""
    emulator = Emulator(Store(state), seed=seed or default_seed(),
                        limiter=RateLimiter(ratelimit))
    if emulator.store.application(str(emulator.seed["applications"][0]["id"])) is None:
        apply_seed(emulator.store, emulator.seed)
    return emulator

