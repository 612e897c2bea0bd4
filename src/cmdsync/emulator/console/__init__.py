"""The emulator's web console, served at ``/console/`` (the root URL redirects there).

Pages (server-side Jinja2 templates, a small plain JavaScript module, every
asset from the package): **Commands** (the command picker per application
and scope, in a chosen locale, raw JSON one click away), **Who can use it**
(a command's permission in each channel for each member and role, with the
rule that decided), **Run** (a form built from a command's options; the
answer rendered as Discord's client renders a message, follow-ups as they
arrive; its buttons, selects and modal used as in the client), **Log**
(interactions, API requests, the daily create budget) and **Messages**
(what bots sent to channels). Pages update live over a
websocket (:mod:`cmdsync.emulator.console.live`).

Modules: ``pages`` (the GET handlers), ``run`` (the Run form and its
submission), ``actions`` (a component used, a modal submitted), ``views``
(picker, permission table and budget as values), ``markdown`` (message
content to safe HTML), ``web`` (templates, headers, links), ``redact`` (the
secret filter), ``live``.

Every HTTP route goes through the admin API's checks (host and origin;
:func:`cmdsync.emulator.admin._guarded`), and no secret reaches a page or
data route, in any encoding (:mod:`cmdsync.emulator.console.redact`).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from cmdsync.emulator.admin import _guarded as guarded

_STATIC = {"console.css": "text/css; charset=utf-8",
           "console.js": "text/javascript; charset=utf-8"}


def _lazy(module: str, name: str) -> Callable[[Any], Awaitable[Any]]:
    """The handler ``name`` of the console's ``module``, imported on first use: Jinja2
    and markdown-it cost ~35 ms to import, which every ``--local`` run would pay."""
    async def handler(connection: Any) -> Any:
        target = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        return await target(connection)

    return handler


def routes() -> list[BaseRoute]:
    """The console's routes, to mount at ``/console``."""
    return [Route("/", root, methods=["GET"]),
            Route("/commands", guarded(_lazy("pages", "commands_page")), methods=["GET"]),
            Route("/permissions", guarded(_lazy("pages", "permissions_page")),
                  methods=["GET"]),
            Route("/run", guarded(_lazy("run", "page")), methods=["GET"]),
            Route("/run", guarded(_lazy("run", "submit")), methods=["POST"]),
            Route("/act", guarded(_lazy("actions", "submit")), methods=["POST"]),
            Route("/log", guarded(_lazy("pages", "log_page")), methods=["GET"]),
            Route("/messages", guarded(_lazy("pages", "messages_page")), methods=["GET"]),
            Route("/static/{name}", guarded(static), methods=["GET"]),
            WebSocketRoute("/live", _lazy("live", "live"))]


async def root(request: Request) -> Response:
    """``/`` and ``/console``: to the console's first page."""
    return RedirectResponse("/console/commands", status_code=303)


async def static(request: Request) -> Response:
    from cmdsync.emulator.console import web

    name = request.path_params["name"]
    if name not in _STATIC:
        return Response("not found", status_code=404, media_type="text/plain")
    body = resources.files(__package__).joinpath("static", name).read_bytes()
    return web.answer(request, body, _STATIC[name])
