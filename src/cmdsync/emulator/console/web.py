"""The console's HTML answers: templates, headers, and no secret in any of them.

Templates are Jinja2, autoescaped, loaded from the package. Every answer
carries a Content-Security-Policy allowing only the console's own scripts,
styles and images (no inline script or style, no frame, no other origin) and
``no-store``. Every value a template prints, every text of a message's
markdown and every JSON shown or answered goes through the secret filter
first (:mod:`cmdsync.emulator.console.redact`): each secret the emulator holds
is replaced by ``[hidden]`` before the value is escaped, so it shows in no
encoding. The pages leave secrets out already; this holds when one slips into
a message a bot wrote, a name or a payload.

Links and images the console shows from what bots send (an embed's ``url``,
``image``, ``thumbnail``) keep only the schemes Discord's client follows
(:func:`link`); any other, ``javascript:`` or ``data:`` among them, is shown
as text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import Any

from jinja2 import Environment, PackageLoader, Undefined, pass_context, select_autoescape
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.requests import HTTPConnection
from starlette.responses import Response

from cmdsync.emulator.console import markdown, redact
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.reference import strict_json
from cmdsync.model import CALLBACK_TYPES, EPHEMERAL, LOADING

INTERACTION_TOKEN = "(the interaction token, hidden)"
# Discord's client links an embed's url to the web only; its image and thumbnail may be
# an uploaded file too (attachment://name).
WEB = ("http://", "https://")
MEDIA = (*WEB, "attachment://")
# The secret filter of the page being rendered: a context variable rather than a
# template variable, which the macros of a template imported without context lack.
_REDACTOR: ContextVar[redact.Redactor] = ContextVar("redactor", default=redact.NOTHING)


@pass_context  # so that Jinja2 never applies it to constants at compile time
def _finalize(context: Context, value: Any) -> Any:
    """Each value a template prints, its secrets hidden before it is escaped. Markup is
    HTML made from values filtered already (markdown, JSON, a macro's output)."""
    if value is None or isinstance(value, (Markup, int, float, Undefined)) \
            or hasattr(value, "__html__"):
        return value
    return _REDACTOR.get().text(value if isinstance(value, str) else str(value))


def pretty(value: Any) -> Markup:
    """``value`` as indented JSON, its secrets hidden in every string first."""
    shown = json.dumps(_REDACTOR.get().data(value), indent=2, ensure_ascii=False)
    return Markup.escape(shown)


def link(value: Any, schemes: tuple[str, ...] = WEB) -> str | None:
    """``value`` if it is a URL of one of ``schemes`` (as written: a browser would strip
    leading spaces and control characters, so none may come first), else None."""
    if not isinstance(value, str) or not value.lower().startswith(schemes):
        return None
    return value


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("cmdsync.emulator.console", "templates"),
                      autoescape=select_autoescape(["html"], default=True),
                      trim_blocks=True, lstrip_blocks=True, finalize=_finalize)
    env.filters["pretty"] = pretty
    env.filters["link"] = link
    env.filters["media_link"] = lambda value: link(value, MEDIA)
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
         redactor: redact.Redactor | None = None, status: int = 200) -> Response:
    """A rendered template, every secret hidden; ``request`` is the starlette request,
    ``redactor`` the emulator's secret filter (:func:`redactor_of`) if made already."""
    emulator: Emulator = request.app.state.emulator
    hide = redactor or redactor_of(emulator)
    names = resolver(emulator)
    compiled = ENVIRONMENT.get_template(template)
    token = _REDACTOR.set(hide)
    try:
        body = compiled.render(
            request=request, api_url=f"{request.url.scheme}://{request.url.netloc}/api/v10",
            markdown=lambda text: markdown.render(str(text or ""), names, redact=hide.text),
            **context)
    finally:
        _REDACTOR.reset(token)
    return answer(request, body, "text/html; charset=utf-8", status)


def posted_object(request: Any) -> dict[str, Any] | None:
    """The JSON object a console form posted (the guarded body), or None when it is not
    one."""
    try:
        body = strict_json.loads(request.state.body or b"null")
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def json_answer(request: Any, body: Any, *, status: int = 200) -> Response:
    """``body`` as JSON, every secret in its strings hidden."""
    emulator: Emulator = request.app.state.emulator
    return answer(request, json.dumps(redactor_of(emulator).data(body)), "application/json",
                  status)


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
            user = store.user(snowflake)
            if user is not None:
                return str(user.get("global_name") or user.get("username") or snowflake)
            app = store.application(snowflake)
            return app.name if app is not None else None
        found = store.find_channel(snowflake) if kind == "channel" else store.find_role(snowflake)
        return str(found[1]["name"] or snowflake) if found else None

    return resolve


def redactor_of(emulator: Emulator) -> redact.Redactor:
    """The filter of every secret ``emulator`` holds now (:func:`redact.secrets_of`)."""
    return redact.redactor(redact.secrets_of(emulator))


def without_token(payload: Mapping[str, Any]) -> dict[str, Any]:
    """An interaction payload with its token left out (it is a credential)."""
    return {**payload, "token": INTERACTION_TOKEN} if "token" in payload else dict(payload)
