"""A stand-in for Discord's OAuth2 authorization server in front of the emulator.

:func:`oauth_standin` serves, on 127.0.0.1, ``GET /oauth2/authorize``
(approved at once: a 302 to the redirect URI with a code and the state, as
Discord after a click on Authorize; 400 for an unregistered redirect URI),
``POST /api/v10/oauth2/token`` (``authorization_code`` with PKCE S256,
single-use codes; ``refresh_token`` rotation; ``invalid_grant``),
``POST /api/v10/oauth2/token/revoke``, ``GET /api/v10/users/@me`` and
``GET /api/v10/users/@me/guilds``;
every other path goes to an emulator, whose seeded user token the issued
access tokens are, so plan and apply work with them. :class:`Ledger`
records what the stand-in saw, for the tests to check.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from cmdsync.emulator import create_app
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.server import BackgroundServer
from tests.support.emulator import APP, GUILD, USER_ID

SECRET = "emulator-secret"
ACCESS_TOKEN = "emulator-user-token"  # the emulator's seeded user: plan and apply accept it


@dataclass
class Ledger:
    """What the stand-in saw and holds; ``registered`` the redirect URIs it accepts."""

    registered: set[str] = field(default_factory=set)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    refresh_tokens: set[str] = field(default_factory=set)
    revoked: list[str] = field(default_factory=list)
    grants: list[str] = field(default_factory=list)  # grant_type of each token request
    challenges: list[tuple[str, str]] = field(default_factory=list)  # (method, challenge)
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))


def _refused(error: str, description: str) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=400)


def _app(ledger: Ledger, emulator: Emulator) -> Starlette:
    async def authorize(request: Request) -> Response:
        query = request.query_params
        uri = query.get("redirect_uri", "")
        if uri not in ledger.registered:
            return Response("Invalid OAuth2 redirect_uri", status_code=400)
        code = f"code-{next(ledger.counter)}"
        ledger.codes[code] = dict(query)
        ledger.challenges.append((query.get("code_challenge_method", ""),
                                  query.get("code_challenge", "")))
        target = uri + "?" + urlencode({"code": code, "state": query.get("state", "")})
        return RedirectResponse(target, status_code=302)

    async def token(request: Request) -> Response:
        expected = "Basic " + base64.b64encode(f"{APP}:{SECRET}".encode()).decode()
        if request.headers.get("authorization") != expected:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        form = await request.form()
        grant = str(form.get("grant_type"))
        ledger.grants.append(grant)
        if grant == "authorization_code":
            asked = ledger.codes.pop(str(form.get("code")), None)
            if asked is None or asked["redirect_uri"] != form.get("redirect_uri"):
                return _refused("invalid_grant", "Invalid \"code\" in request.")
            verifier = str(form.get("code_verifier", "")).encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest())
            if digest.rstrip(b"=").decode() != asked.get("code_challenge"):
                return _refused("invalid_grant", "Invalid \"code_verifier\".")
            scope = asked["scope"]
        elif grant == "refresh_token":
            if str(form.get("refresh_token")) not in ledger.refresh_tokens:
                return _refused("invalid_grant", "Invalid \"refresh_token\" in request.")
            ledger.refresh_tokens.discard(str(form.get("refresh_token")))
            scope = "identify guilds applications.commands.permissions.update"
        else:
            return _refused("unsupported_grant_type", grant)
        refresh = f"refresh-token-{next(ledger.counter):04d}-abcdefgh"
        ledger.refresh_tokens.add(refresh)
        return JSONResponse({"access_token": ACCESS_TOKEN, "token_type": "Bearer",
                             "expires_in": 604800, "refresh_token": refresh, "scope": scope})

    async def revoke(request: Request) -> Response:
        form = await request.form()
        ledger.revoked.append(str(form.get("token")))
        ledger.refresh_tokens.discard(str(form.get("token")))
        return Response(status_code=200)

    async def me(request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        return JSONResponse({"id": USER_ID, "username": "emulator-user", "global_name": None,
                             "discriminator": "0", "avatar": None})

    async def guilds(request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        return JSONResponse([
            {"id": GUILD, "name": "Emulator Guild", "owner": True, "permissions": "0"},
            {"id": "555555555555555555", "name": "Mods", "owner": False,
             "permissions": str(1 << 5)},
            {"id": "666666666666666666", "name": "Member only", "owner": False,
             "permissions": "0"}])

    return Starlette(routes=[
        Route("/oauth2/authorize", authorize),
        Route("/api/v10/oauth2/token", token, methods=["POST"]),
        Route("/api/v10/oauth2/token/revoke", revoke, methods=["POST"]),
        Route("/api/v10/users/@me", me),
        Route("/api/v10/users/@me/guilds", guilds),
        Mount("/", app=create_app(emulator)),
    ])


@contextmanager
def oauth_standin(emulator: Emulator, *, registered: tuple[str, ...] = ()
                  ) -> Iterator[tuple[str, Ledger]]:
    """The stand-in served on loopback: its base URL (no path) and its ledger."""
    ledger = Ledger(registered=set(registered))
    with BackgroundServer(_app(ledger, emulator)) as base_url:
        yield base_url, ledger


def free_port() -> int:
    """A loopback port free now (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
