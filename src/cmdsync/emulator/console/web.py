"""The console's HTML answers: templates, headers, and no secret in any of them.

Templates are Jinja2, autoescaped, loaded from the package. Every answer
carries a Content-Security-Policy allowing only the console's own scripts,
styles and images (no inline script or style, no frame, no other origin) and
``no-store``. Before it leaves, an answer's body is checked for every secret
the emulator holds (bot and Bearer tokens, client secrets, interaction
tokens, signing keys) and each one found is replaced by ``[hidden]``: the
pages leave them out already, this holds when one slips into a message a
bot wrote or a payload.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.requests import HTTPConnection
from starlette.responses import Response

from cmdsync.emulator import signing
from cmdsync.emulator.console import markdown
from cmdsync.emulator.instance import Emulator
from cmdsync.model import CALLBACK_TYPES, EPHEMERAL, LOADING

HIDDEN = "[hidden]"
INTERACTION_TOKEN = "(the interaction token, hidden)"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("cmdsync.emulator.console", "templates"),
                      autoescape=select_autoescape(["html"], default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
    env.filters["clock"] = lambda value: datetime.fromtimestamp(
        float(value), timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    env.filters["colour"] = lambda value: f"#{int(value):06x}" if isinstance(value, int) else ""
    env.globals.update(EPHEMERAL=EPHEMERAL, LOADING=LOADING, CALLBACK_TYPES=CALLBACK_TYPES)
    return env


ENVIRONMENT = _environment()


def policy(connection: HTTPConnection) -> str:
    """The Content-Security-Policy: this origin only (its websocket for live updates)."""
    host = connection.headers.get("host", "")
    live = f" ws://{host}" if host else ""
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"connect-src 'self'{live}; form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'")


def page(request: Any, template: str, context: Mapping[str, Any], *,
         status: int = 200) -> Response:
    """A rendered template; ``request`` is the starlette request."""
    emulator: Emulator = request.app.state.emulator
    body = ENVIRONMENT.get_template(template).render(
        request=request, markdown=lambda text: markdown.render(text or "", resolver(emulator)),
        api_url=f"{request.url.scheme}://{request.url.netloc}/api/v10", **context)
    return answer(request, scrub(emulator, body), "text/html; charset=utf-8", status)


def answer(connection: HTTPConnection, body: str | bytes, media_type: str,
           status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=media_type, headers={
        "Content-Security-Policy": policy(connection), "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY"})


def resolver(emulator: Emulator) -> markdown.Resolver:
    """Names for mentions: users (their username), roles and channels of any guild."""
    store = emulator.store

    def resolve(kind: str, snowflake: str) -> str | None:
        if kind == "user":
            user = store.fixture("user", "", snowflake)
            if user is not None:
                return str(user.get("global_name") or user.get("username") or snowflake)
            app = store.application(snowflake)
            return app.name if app is not None else None
        found = store.find_fixture(kind, snowflake)
        return str(found[1].get("name") or snowflake) if found else None

    return resolve


def secrets_of(emulator: Emulator) -> set[str]:
    """Every secret the emulator holds: tokens of every kind, client secrets, signing keys
    (hex), interaction tokens, and the seed's."""
    store = emulator.store
    found: set[str] = set()
    with store.transaction() as db:
        found.update(row[0] for row in db.execute("SELECT token FROM tokens"))
        found.update(row[0] for row in db.execute("SELECT token FROM interactions"))
        found.update(row[0] for row in db.execute("SELECT refresh_token FROM oauth_grants"))
        found.update(row[0] for row in db.execute("SELECT code FROM oauth_codes"))
        app_ids = [row[0] for row in db.execute("SELECT id FROM applications")]
    for app_id in app_ids:
        app = store.application(app_id)
        if app is not None:
            found.add(app.client_secret)
            found.add(signing.private_key(app).private_bytes_raw().hex())
    for item in (emulator.seed.get("applications") or []) + (emulator.seed.get("users") or []):
        found.update(str(item[key]) for key in ("bot_token", "client_secret", "bearer_token")
                     if item.get(key))
    return {secret for secret in found if len(secret) >= 6}


def scrub(emulator: Emulator, body: str) -> str:
    """``body`` with every secret of the emulator replaced by ``[hidden]``."""
    for secret in secrets_of(emulator):
        if secret in body:
            body = body.replace(secret, HIDDEN)
    return body


def without_token(payload: Mapping[str, Any]) -> dict[str, Any]:
    """An interaction payload with its token left out (it is a credential)."""
    return {**payload, "token": INTERACTION_TOKEN} if "token" in payload else dict(payload)


def json_markup(value: Any) -> Markup:
    return Markup.escape(json.dumps(value, indent=2, ensure_ascii=False))
