"""The admin API for tests, under ``/_emulator/`` (not part of Discord's API).

No authentication; faults and rate limits never apply here.

- ``GET /_emulator/``: ``{"routes": [{"method", "path", "description"}],
  "docs"}``, this list (:data:`INDEX`), the gateway's routes included, and
  the address of its documentation.
- ``POST /_emulator/reset``: forget every command, overwrite, token and count,
  clear the request log, and apply the seed again; a non-empty body (a seed in
  YAML or JSON, see :mod:`cmdsync.emulator.seed`) replaces the seed first.
- ``POST /_emulator/seed``: add a seed's applications, guilds (with their
  fixtures) and users; it may leave applications out and name users,
  roles and channels the emulator has already; applications already there
  keep their settings, and a guild or fixture already there keeps every key
  the seed leaves out (a partial re-seed).
- ``GET /_emulator/log``: ``{"requests": [{"method", "path", "route",
  "status", "time", "creates", "kind", "ratelimit"}], "counts": {"requests", "reads",
  "writes", "tokens", "creates", "rate_limited", "errors"}, "faults":
  {"error", "drop", "slow", "lost"}}`` (faults injected since the fault
  configuration was last set); ``DELETE`` clears the requests and counts. A
  ``path`` never holds an interaction token (a credential): that segment reads
  ``{interaction_token}``, as in its route (``/api/v10/webhooks/111.../{interaction_token}``).
- ``GET /_emulator/state``: every application, guild, command (stored form),
  permission overwrite and daily create count.
- ``POST /_emulator/interactions``: run a command as a user in the client
  would (what ``cmdsync invoke`` sends; the body is an
  :class:`~cmdsync.emulator.interactions.invocation.Invocation` as JSON, e.g.
  ``{"application_id": "1...", "line": "/ping", "guild_id": "2..."}``):
  200 ``{"interaction", "response", "failure", "messages"}``
  (:func:`cmdsync.emulator.interactions.responses.invoke`); 400 ``{"message",
  "code": 0}`` when the client would refuse it, saying why; 400 code 50035
  for an outdated global command (read-repair).
- ``GET /_emulator/interactions/{id}[?follow_ups=N][&settle=S][&within=W]``: that
  exchange (follow-ups included), now, or once ``follow_ups`` of them arrived and
  the bots have been idle for ``settle`` seconds (:meth:`Emulator.idle_for
  <cmdsync.emulator.instance.Emulator.idle_for>`: no API request in flight, no
  gateway payload queued) with no deferred reply still loading, waiting at most ``within`` seconds (at most
  :data:`MAX_WITHIN`; without ``follow_ups`` and ``settle``, all of them); with
  any of these, ``"done"`` says whether what it waited for came in time.
- ``GET /_emulator/messages[?channel_id=ID][&after=ID]``: ``{"messages":
  [...]}``, the messages bots sent through the channel message routes
  (:mod:`cmdsync.emulator.resources.messages`), oldest first, as they are now (edits
  applied, deleted ones gone); ``after`` keeps those with a larger id (sent
  later: ``after`` an interaction's id gives what its handler sent). A reset
  forgets them.
- ``GET`` / ``PUT /_emulator/config``: ``{"ratelimit": {"global_limit",
  "global_window", "route_limit", "route_window"}, "faults": {"latency",
  "error_rate", "error_statuses", "drop_rate", "seed", "slow_rate",
  "slow_latency", "lost_rate"}, "limits":
  {"daily_creates", "daily_creates_status", "max_body_bytes",
  "interaction_deadline", "interaction_token_lifetime",
  "verification_deadline"}, "gateway": {"heartbeat_interval" (ms),
  "heartbeat_tolerance", "send_limit", "send_window", "identify_limit",
  "guilds_per_shard", "resume_timeout", "identify_timeout", "replay_limit", "members_window",
  "tick", "seed"}}`` (:class:`~cmdsync.emulator.gateway.GatewayConfig`); a PUT
  changes the sections it names, each given in full or in part.

Bad input answers 400 ``{"message": "...", "code": 0}``.

Since the admin API has no authentication, it takes only what a web page
cannot send across origins without a preflight (which it never answers): a
request for a host name other than a loopback one (``localhost``,
``127.0.0.0/8``, ``::1``) or the one the emulator listens on is refused with
403 (a page that rebinds its own name to 127.0.0.1 is same-origin, but still
names its host), as is one carrying an ``Origin`` other than the emulator's
own; a body must be ``application/json`` (or ``application/yaml`` for a
seed) or 415, and a body larger than the API's ``max_body_bytes`` is 413.
A ``PUT /_emulator/config`` value out of its range (``NaN``, a latency of
``1e308`` seconds) is 400 naming the field and its range.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cmdsync.emulator.gateway import rest as gateway_rest
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions import responses as interactions
from cmdsync.emulator.interactions.invocation import Invocation, Refused
from cmdsync.emulator.reference import strict_json
from cmdsync.emulator.reference.access import foreign_host
from cmdsync.emulator.reference.error_replies import ErrorReply
from cmdsync.emulator.resources import message_events, messages
from cmdsync.emulator.seed import parse_seed
from cmdsync.errors import UsageError
from cmdsync.model import LOADING

Handler = Callable[[Request], Awaitable[Response]]
BODY_TYPES = ("application/json", "application/yaml", "application/x-yaml")


DOCS = "https://cmdsync.github.io/cmdsync/emulator/admin/"
INDEX: tuple[tuple[str, str, str], ...] = (  # (method, path, what it does)
    ("GET", "/_emulator/", "this index of the admin routes"),
    ("POST", "/_emulator/reset", ("forget every command, overwrite, token and count, clear the "
     "request log, apply the seed again (a seed in the body replaces it first); 204")),
    ("POST", "/_emulator/seed", ("add the seed's applications, guilds (with their fixtures) "
     "and users; what is there keeps the keys the seed leaves out; 204")),
    ("GET", "/_emulator/log", ("the requests this emulator served, their counts, and the "
     "faults injected")),
    ("DELETE", "/_emulator/log", "clear the requests and their counts; 204"),
    ("GET", "/_emulator/state", ("every application, guild, command (as stored), permission "
     "overwrite and daily create count")),
    ("GET", "/_emulator/config", "the rate limits, faults, limits and gateway settings"),
    ("PUT", "/_emulator/config", ("change the settings it names (ratelimit, faults, limits, "
     "gateway)")),
    ("POST", "/_emulator/interactions", ("run a command as a user in the client would (what "
     "cmdsync invoke sends): the interaction, the response, its failure, the messages")),
    ("GET", "/_emulator/interactions/{interaction_id}", ("that exchange as it is now, "
     "follow-ups and failure included")),
    ("GET", "/_emulator/messages", ("the messages bots sent through the channel routes "
     "(?channel_id=, ?after=)")),
    ("POST", "/_emulator/messages", ("a seeded user writes {channel_id, user_id, content} "
     "in a guild channel or their DM: MESSAGE_CREATE to the bots; the message")),
    ("GET", "/_emulator/gateway", "the gateway sessions"),
    ("POST", "/_emulator/gateway/{action}", ("to the gateway connections: drop (close them), "
     "reconnect (op 7), heartbeat (op 1) or dispatch (any event)")),
    ("DELETE", "/_emulator/guilds/{guild_id}/members/{user_id}", ("remove a member fixture "
     "and dispatch GUILD_MEMBER_REMOVE; 204, 404 if none")))


def routes() -> list[Route]:
    return [Route("/", _guarded(index), methods=["GET"]),
            Route("/reset", _guarded(reset), methods=["POST"]),
            Route("/seed", _guarded(seed), methods=["POST"]),
            Route("/log", _guarded(log), methods=["GET", "DELETE"]),
            Route("/state", _guarded(state), methods=["GET"]),
            Route("/config", _guarded(config), methods=["GET", "PUT"]),
            Route("/interactions", _guarded(invoke), methods=["POST"]),
            Route("/interactions/{interaction_id}", _guarded(interaction), methods=["GET"]),
            Route("/messages", _guarded(channel_messages), methods=["GET", "POST"]),
            *[Route(path, _guarded(handler), methods=methods)
              for path, handler, methods in gateway_rest.admin_routes()]]


def _bad(message: str, status: int = 400) -> Response:
    return JSONResponse({"message": message, "code": 0}, status_code=status)


def _guarded(handler: Handler) -> Handler:
    """Refuse requests for another host (DNS rebinding), cross-origin calls, bodies of
    a simple content type, and large bodies."""
    async def guarded(request: Request) -> Response:
        host = foreign_host(request)
        if host is not None:
            return _bad(f"the admin API answers only requests for localhost, 127.0.0.1, [::1] "
                        f"or the host it listens on, not {host or 'no host'!r}: call it by "
                        "one of those", 403)
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.url.netloc}"
        if origin is not None and origin != own:
            return _bad(f"the admin API refuses requests from another origin ({origin})", 403)
        emulator: Emulator = request.app.state.emulator
        limit = emulator.limits.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return _bad(f"the body is larger than {limit} bytes", 413)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return _bad(f"the body is larger than {limit} bytes", 413)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if body.strip() and kind not in BODY_TYPES:
            return _bad(f"send the body as application/json (or application/yaml for a "
                        f"seed), not {kind or 'no content type'}", 415)
        request.state.body = bytes(body)
        return await handler(request)

    return guarded


async def index(request: Request) -> Response:
    return JSONResponse({"routes": [{"method": method, "path": path, "description": text}
                                    for method, path, text in INDEX], "docs": DOCS})


async def reset(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    text = request.state.body.decode("utf-8", "replace")
    try:
        emulator.reset(parse_seed(text, "request body") if text.strip() else None)
    except UsageError as exc:
        return _bad(str(exc))
    return Response(status_code=204)


async def seed(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    try:
        emulator.add_seed(parse_seed(request.state.body.decode("utf-8", "replace"),
                                     "request body", complete=False))
    except UsageError as exc:
        return _bad(str(exc))
    return Response(status_code=204)


async def invoke(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    try:
        invocation = Invocation.from_json(strict_json.loads(request.state.body or b"null"))
        result = await run_in_threadpool(
            interactions.invoke, emulator.store, invocation, now=emulator.clock(),
            limits=emulator.limits, gateway=emulator.gateway)
    except ValueError:
        return _bad("send the invocation as a JSON object")
    except Refused as exc:  # the code, reason and fix beside the message, for the callers' words
        return JSONResponse({"message": str(exc), "code": 0, **exc.as_json()}, status_code=400)
    except ErrorReply as exc:
        return JSONResponse(exc.body(), status_code=exc.status)
    return JSONResponse(result)


# message types CHAT_INPUT_COMMAND and CONTEXT_MENU_COMMAND: an interaction's original response
ORIGINALS = frozenset({20, 23})
MAX_WITHIN = 10.0  # seconds one GET of an exchange may wait: a caller waiting longer asks again
_SETTLE_STEP = 0.002  # seconds between looks at the bots' activity, at least


async def interaction(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    interaction_id = request.path_params["interaction_id"]
    try:
        wanted, settle, within = _waiting(request.query_params)
    except ValueError as exc:
        return _bad(str(exc))
    clock = emulator.activity.clock
    deadline = clock() + within
    try:
        while True:
            idle = emulator.idle_for()
            result = interactions.exchange(emulator.store, interaction_id)
            came = sum(m.get("type") not in ORIGINALS for m in result["messages"])
            # a deferred reply still "thinking" is owed its edit: not settled before it
            owed = any(int(m.get("flags") or 0) & LOADING for m in result["messages"])
            ready = came >= wanted and not owed
            done = bool(ready and idle >= settle if settle else wanted and came >= wanted)
            if done or clock() >= deadline:  # settled (with the follow-ups), or those came
                break
            # look again when the quiet period would end, unless something happens first
            step = max(settle - idle, _SETTLE_STEP) if settle and ready else _SETTLE_STEP \
                if settle else 0.05
            await asyncio.sleep(min(step, deadline - clock()))
    except ErrorReply as exc:
        return JSONResponse(exc.body(), status_code=exc.status)
    return JSONResponse({**result, "done": done} if wanted or settle or within else result)


def _waiting(query: Mapping[str, str]) -> tuple[int, float, float]:
    """``follow_ups`` (a count), ``settle`` and ``within`` (seconds) of the query."""
    try:
        wanted = int(query.get("follow_ups", "0"))
        settle, within = float(query.get("settle", "0")), float(query.get("within", "0"))
    except ValueError:
        raise ValueError("follow_ups is a count; settle and within are seconds") from None
    if wanted < 0 or not 0 <= settle <= MAX_WITHIN or not 0 <= within <= MAX_WITHIN:
        raise ValueError(f"follow_ups is a count of 0 or more; settle and within are "
                         f"seconds from 0 to {MAX_WITHIN:g}")
    return wanted, settle, within


async def channel_messages(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    if request.method == "POST":  # a seeded user writes: MESSAGE_CREATE to the bots
        try:
            body = strict_json.loads(request.state.body or b"null")
            if not isinstance(body, dict) or not isinstance(body.get("content"), str):
                return _bad("send {channel_id, user_id, content} as a JSON object, the "
                            "content a string")
            sent = await run_in_threadpool(
                message_events.user_sends, emulator.store, emulator.gateway,
                channel_id=str(body.get("channel_id") or ""),
                user_id=str(body.get("user_id") or ""), content=body["content"],
                now=emulator.clock())
        except (ValueError, UsageError) as exc:
            return _bad(str(exc))
        return JSONResponse(sent)
    query = request.query_params
    return JSONResponse({"messages": messages.sent(
        emulator.store, channel_id=query.get("channel_id"), after=query.get("after"))})


async def log(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    if request.method == "DELETE":
        emulator.log.clear()
        return Response(status_code=204)
    return JSONResponse({"requests": [dataclasses.asdict(e) for e in emulator.log.entries()],
                         "counts": emulator.log.counts(),
                         "faults": emulator.faults.counts})


async def state(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    return JSONResponse(emulator.store.dump())


async def config(request: Request) -> Response:
    emulator: Emulator = request.app.state.emulator
    if request.method == "PUT":
        try:  # NaN and infinities are read, then refused naming their field
            body = json.loads(request.state.body)
        except (ValueError, RecursionError):
            return _bad("send the configuration as a JSON object")
        try:
            _configure(emulator, body)
        except (ValueError, TypeError) as exc:
            return _bad(f"bad configuration: {exc}")
    return JSONResponse(current_config(emulator))


def current_config(emulator: Emulator) -> dict[str, Any]:
    return {"ratelimit": dataclasses.asdict(emulator.limiter.config),
            "faults": dataclasses.asdict(emulator.faults.config),
            "limits": dataclasses.asdict(emulator.limits),
            "gateway": dataclasses.asdict(emulator.gateway.config)}


def _configure(emulator: Emulator, body: Any) -> None:
    """Apply a config body; raises ValueError or TypeError naming the section and field,
    changing nothing, if a part of it is bad."""
    if not isinstance(body, dict) or set(body) - {"ratelimit", "faults", "limits", "gateway"}:
        raise ValueError("expected an object with ratelimit, faults, limits and/or gateway")
    ratelimit = _merge("ratelimit", emulator.limiter.config, body.get("ratelimit"))
    faults = _merge("faults", emulator.faults.config, body.get("faults"))
    limits = _merge("limits", emulator.limits, body.get("limits"))
    gateway = _merge("gateway", emulator.gateway.config, body.get("gateway"))
    emulator.limiter.configure(ratelimit)
    emulator.faults.configure(faults)
    emulator.limits = limits
    emulator.gateway.config = gateway


def _merge(section: str, current: Any, changes: Any) -> Any:
    if changes is None:
        return current
    if not isinstance(changes, dict):
        raise TypeError(f"{section} must be an object")
    known = [field.name for field in dataclasses.fields(current)]
    unknown = sorted(set(changes) - set(known))
    if unknown:
        raise ValueError(f"{section}: unknown setting {unknown[0]!r}: use {', '.join(known)}")
    if isinstance(changes.get("error_statuses"), list):
        changes = {**changes, "error_statuses": tuple(changes["error_statuses"])}
    try:
        return dataclasses.replace(current, **changes)
    except ValueError as exc:
        raise ValueError(f"{section}.{exc}") from exc
