"""`cmdsync invoke`: run a command against the emulator as a user in Discord's client.

:func:`invoke` sends an invocation to the emulator's ``POST
/_emulator/interactions`` (served, from ``--api-url``, or in-process with
``--local``), which checks it as the client would, builds the interaction,
signs it and POSTs it to the application's interactions endpoint
(:mod:`cmdsync.emulator.interactions.responses`). With ``endpoint`` it first sets the
application's ``interactions_endpoint_url`` (``PATCH /applications/@me``
with the bot token, which the emulator verifies with signed PINGs). With
``wait`` (seconds) it then polls ``GET /_emulator/interactions/{id}`` for that long
at most to collect what the bot does next: until ``follow_ups`` of them arrived and,
with ``settle``, until the bots have been idle that long (the emulator holds the poll
until then, and says so). It prints nothing; the result is an :class:`Invoked`.

Only the emulator runs interactions: against Discord (or any URL without
the admin API) it raises :class:`~cmdsync.errors.UsageError`.

Every exchange is held against :data:`EXCHANGE`, the shapes the output reads
(jsonschema): what the application sent that Discord would refuse (an embed
that is not an object, say) becomes the exchange's ``failure``; an exchange
the emulator itself garbled is a :class:`~cmdsync.errors.CmdsyncError`.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from cmdsync.client.auth import Token, auth_from_env
from cmdsync.client.http import DEFAULT_API_URL, check_base_url
from cmdsync.errors import CmdsyncError, UsageError
from cmdsync.render.escape import printable
from cmdsync.runners import aio
from cmdsync.runners.session import LOCAL_STATE, Connection, local_seed

_TEXT = {"type": ["string", "null"]}
_LIST = {"type": ["array", "null"]}
_USER = {"type": ["object", "null"], "properties": {"id": _TEXT, "username": _TEXT}}
_EMBED = {"type": "object", "properties": {
    "title": _TEXT, "description": _TEXT, "url": _TEXT,
    "author": {"type": ["object", "null"], "properties": {"name": _TEXT}},
    "footer": {"type": ["object", "null"], "properties": {"text": _TEXT}},
    "fields": {"type": ["array", "null"], "items": {
        "type": "object", "required": ["name", "value"],
        "properties": {"name": {"type": "string"}, "value": {"type": "string"},
                       "inline": {"type": ["boolean", "null"]}}}}}}
# What the application sent: its response, and the messages it made (original, follow-ups).
_SENT = {
    "response": {"type": ["object", "null"], "properties": {
        "type": {"type": "integer"},
        "data": {"type": ["object", "null"], "properties": {
            "choices": {"type": ["array", "null"], "items": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}}}},
            "title": _TEXT, "custom_id": _TEXT, "components": _LIST}}}},
    "messages": {"type": ["array", "null"], "items": {"type": "object", "properties": {
        "type": {"type": ["integer", "null"]}, "flags": {"type": ["integer", "null"]},
        "content": _TEXT, "embeds": {"type": ["array", "null"], "items": _EMBED},
        "components": _LIST, "author": _USER, "edited_timestamp": _TEXT}}}}
# What the emulator built: the interaction sent, and why it failed.
_BUILT = {
    "interaction": {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "string"}, "type": {"type": "integer"}, "guild_id": _TEXT,
        "channel_id": _TEXT, "user": _USER,
        "member": {"type": ["object", "null"], "properties": {"user": _USER}},
        "data": {"type": "object", "properties": {
            "name": {"type": "string"}, "type": {"type": "integer"}, "target_id": _TEXT,
            "options": {"$ref": "#/$defs/options"}}}}},
    "failure": _TEXT, "failure_code": _TEXT}
EXCHANGE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["interaction"], "properties": {**_BUILT, **_SENT},
    "$defs": {"options": {"type": ["array", "null"], "items": {
        "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "type": {"type": "integer"},
                       "focused": {"type": ["boolean", "null"]},
                       "options": {"$ref": "#/$defs/options"}}}}}}
"""The exchange ``{"interaction", "response", "failure", "messages"}`` as the output
reads it (a JSON Schema; other keys are allowed)."""

POLL_INTERVAL = 0.2  # seconds between polls while waiting without --settle
MAX_SETTLE = 10.0  # seconds: the admin API's bound on settle
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token works (Discord's 15 minutes)
OUTDATED = "INTERACTION_APPLICATION_COMMAND_INVALID_VERSION"


@dataclass(frozen=True)
class Request:
    """What to run: a ``line`` (``/mod ban user:<@1>``), or a user or message command
    ``name`` with its ``target``; where (``guild``, ``channel``, ``context``), as whom
    (``user``, ``locale``); ``endpoint`` to set first; ``wait`` seconds at most for
    what the bot does next, ending early once ``follow_ups`` (if above 0) have arrived
    and, with ``settle``, once the bots have been idle that many seconds (no API
    request in flight, no gateway payload queued)."""

    line: str | None = None
    kind: str = "chat_input"
    name: str | None = None
    target: str | None = None
    autocomplete: bool = False
    guild: str | None = None
    channel: str | None = None
    user: str | None = None
    locale: str = "en-US"
    context: str | None = None
    endpoint: str | None = None
    wait: float = 0.0
    follow_ups: int = 0
    settle: float = 0.0
    # kind "component": the component (custom_id, or a button's label) on message_id and
    # a select's values; kind "modal_submit": the modal of interaction modal_of, its
    # text inputs' fields by custom_id
    message_id: str | None = None
    custom_id: str | None = None
    label: str | None = None
    values: tuple[str, ...] | None = None
    modal_of: str | None = None
    fields: tuple[tuple[str, str], ...] | None = None


@dataclass
class Invoked:
    """The outcome: ``refused`` (why the client would not send it), ``outdated``
    (read-repair: the client now has the new version, run it again), or the
    ``exchange`` ``{"interaction", "response", "failure", "messages"}``."""

    application_id: str
    refused: str | None = None
    # the refusal as values: {"refusal": its code, "reason", "fix"} (the emulator's Refusal)
    refusal: dict[str, Any] = field(default_factory=dict)
    outdated: str | None = None
    exchange: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False  # Ctrl-C while waiting for follow-ups

    @property
    def ok(self) -> bool:
        return not self.refused and not self.outdated and not self.exchange.get("failure")


def invoke(connection: Connection, request: Request, *, application_id: str | None,
           env: Mapping[str, str] | None = None, cwd: str | None = None,
           sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
           clock: Callable[[], float] = time.monotonic) -> Invoked:
    """Run ``request``; see the module docstring. ``sleep`` and ``clock`` (seconds)
    pace the wait for follow-ups. Raises :class:`UsageError` (not an emulator, a
    bad id) and :class:`CmdsyncError` (the emulator cannot be reached)."""
    env = os.environ if env is None else env
    check_request(request, application_id)

    async def run() -> Invoked:
        async with _emulator(connection, env, cwd or os.getcwd()) as (client, bot_token):
            app_id = application_id or await _application_id(client, connection, env)
            if request.endpoint:
                await _set_endpoint(client, bot_token(), request.endpoint)
            result = await _post(client, app_id, request)
            if result.exchange and request.wait:
                deadline = clock() + request.wait
                # settling is measured in the emulator: it holds the poll until then
                held = bool(request.settle)
                try:
                    while clock() < deadline:
                        if not held:
                            await sleep(min(POLL_INTERVAL, max(deadline - clock(), 0)))
                        polled = await _poll(client, result.exchange["interaction"]["id"],
                                             request, within=min(max(deadline - clock(), 0),
                                                                 MAX_SETTLE) if held else 0)
                        done = bool(polled.pop("done", False))
                        if polled:
                            result.exchange = checked_exchange({**result.exchange, **polled})
                        if done:
                            break
                except (KeyboardInterrupt, asyncio.CancelledError):
                    result.interrupted = True  # show what arrived so far
            return result

    return aio.run(run())


def check_request(request: Request, application_id: str | None) -> None:
    """Refuse, as usage errors, what is wrong with the request itself (before any I/O)."""
    from cmdsync.emulator.interactions.invocation import Refused, parse_line

    for label, value in (("--guild", request.guild), ("--channel", request.channel),
                         ("--user", request.user), ("--application-id", application_id),
                         ("--on", request.message_id), ("--submit", request.modal_of)):
        if value is not None and not (value.isascii() and value.isdigit()):
            raise UsageError(f"{label} {value!r} is not an id (a snowflake)")
    if request.line is not None:
        try:
            parse_line(request.line)
        except Refused as exc:
            raise UsageError(str(exc)) from None
    if request.autocomplete and request.kind != "chat_input":
        raise UsageError("--autocomplete is for a command line's options, not a "
                         f"{request.kind} command")
    if request.context == "guild" and not request.guild:
        raise UsageError("--context guild needs --guild ID")
    if request.context not in (None, "guild") and request.guild:
        raise UsageError(f"--guild contradicts --context {request.context}: leave one out")
    if request.channel and not request.guild:
        raise UsageError("--channel is a guild's channel: give --guild ID too")
    if not (math.isfinite(request.wait) and 0 <= request.wait <= TOKEN_LIFETIME):
        raise UsageError(f"--wait takes seconds from 0 to {TOKEN_LIFETIME:g} (the "
                         "interaction token's lifetime)")
    if not (math.isfinite(request.settle) and 0 <= request.settle <= MAX_SETTLE):
        raise UsageError(f"--settle takes seconds from 0 to {MAX_SETTLE:g}")
    if request.settle and not request.wait:
        raise UsageError("--settle ends a --wait early: give --wait SECONDS too")
    if request.follow_ups < 0 or (request.follow_ups and not request.wait):
        raise UsageError("--follow-ups N ends a --wait early: give --wait SECONDS too")


@asynccontextmanager
async def _emulator(connection: Connection, env: Mapping[str, str], cwd: str
                    ) -> AsyncIterator[tuple[httpx.AsyncClient, Callable[[], str]]]:
    """A client whose base URL is the emulator's origin, and where the bot token comes
    from (read only for ``--endpoint``)."""
    if connection.local:
        from cmdsync.emulator import seed
        from cmdsync.emulator.app import create_app
        from cmdsync.emulator.instance import new_emulator
        from cmdsync.manifest.files import work_directory

        work_directory(cwd)  # a clear error when a file holds the name
        emulator = new_emulator(state=os.path.join(cwd, LOCAL_STATE), seed=local_seed([]))
        try:
            transport = httpx.ASGITransport(app=create_app(emulator))
            async with httpx.AsyncClient(transport=transport, base_url="http://cmdsync.local",
                                         timeout=_timeout(connection)) as client:
                yield client, lambda: seed.BOT_TOKEN
        finally:
            emulator.store.close()
        return
    base = (check_base_url(connection.api_url, source="--api-url") if connection.api_url
            else check_base_url(env["CMDSYNC_API_URL"], source="CMDSYNC_API_URL")
            if env.get("CMDSYNC_API_URL") else DEFAULT_API_URL)
    parts = urlsplit(base)
    if parts.hostname == "discord.com" or (parts.hostname or "").endswith(".discord.com"):
        raise UsageError(f"invoke runs commands against the cmdsync emulator only, not "
                         f"{base}: start one with `cmdsync emulator` and pass its --api-url, "
                         "or use --local")

    def bot_token() -> str:
        auth = auth_from_env(env, token_file=connection.token_file, exchange_refresh_token=False)
        if not isinstance(auth.commands, Token):
            raise CmdsyncError("--endpoint needs the bot token (DISCORD_BOT_TOKEN or "
                               "--token-file), not client credentials")
        return auth.commands.value

    # plain http (the emulator on loopback) needs no TLS context: loading the CA bundle
    # costs ~35 ms, more than a whole invocation
    async with httpx.AsyncClient(base_url=f"{parts.scheme}://{parts.netloc}",
                                 timeout=_timeout(connection),
                                 trust_env=False, verify=parts.scheme == "https") as client:
        yield client, bot_token


INVOKE_TIMEOUT = 60.0  # seconds without --timeout: the emulator holds a call till the bot answers


def _timeout(connection: Connection) -> float:
    """Seconds to wait for each request: ``--timeout`` (``CMDSYNC_TIMEOUT``, the
    configuration's) when given, else :data:`INVOKE_TIMEOUT`."""
    return connection.config.timeout if connection.config is not None else INVOKE_TIMEOUT


async def _call(client: httpx.AsyncClient, method: str, path: str, **kwargs: Any
                ) -> httpx.Response:
    try:
        response = await client.request(method, path, **kwargs)
    except httpx.TimeoutException as exc:
        from cmdsync.client.failures import host_port, timed_out

        seconds = client.timeout.read or INVOKE_TIMEOUT
        raise CmdsyncError(timed_out(method, path, host=host_port(client.base_url),
                                     timeout=seconds, attempts=1)) from exc
    except httpx.HTTPError as exc:
        raise CmdsyncError(f"cannot reach the emulator at {client.base_url}: "
                           f"{exc.__class__.__name__}: {exc} (is `cmdsync emulator` "
                           "running?)") from exc
    if response.status_code in (404, 405) and path.startswith("/_emulator"):
        raise UsageError(f"{client.base_url} is not a cmdsync emulator (no admin API at "
                         "/_emulator/): invoke runs commands against the emulator only")
    return response


async def _application_id(client: httpx.AsyncClient, connection: Connection,
                          env: Mapping[str, str]) -> str:
    if connection.local:
        from cmdsync.runners.session import local_application_id

        return local_application_id()
    if env.get("DISCORD_APPLICATION_ID", "").strip():
        return env["DISCORD_APPLICATION_ID"].strip()
    listed = _json(await _call(client, "GET", "/_emulator/state")).get("applications")
    apps = [a.get("id") for a in listed if isinstance(a, dict)] \
        if isinstance(listed, list) else []
    if len(apps) != 1:
        raise UsageError(f"the emulator has {len(apps)} applications: choose one with "
                         "--application-id or DISCORD_APPLICATION_ID")
    return str(apps[0])


async def _set_endpoint(client: httpx.AsyncClient, bot_token: str, url: str) -> None:
    response = await _call(client, "PATCH", "/api/v10/applications/@me",
                           json={"interactions_endpoint_url": url},
                           headers={"Authorization": f"Bot {bot_token}"})
    if response.status_code == 200:
        return
    if response.status_code == 401:
        raise CmdsyncError("the emulator refused the bot token (401): set DISCORD_BOT_TOKEN "
                           "(or --token-file) to the token `cmdsync emulator` printed")
    body = _json(response)
    leaf = (((body.get("errors") or {}).get("interactions_endpoint_url") or {})
            .get("_errors") or [{}])[0].get("message")
    said = leaf or body.get("message") or response.status_code
    raise CmdsyncError(f"cannot set the interactions endpoint URL {url}: "
                       f"{printable(str(said))}")


async def _post(client: httpx.AsyncClient, app_id: str, request: Request) -> Invoked:
    body: dict[str, Any] = {
        "application_id": app_id, "kind": request.kind, "line": request.line,
        "name": request.name, "target_id": request.target,
        "autocomplete": request.autocomplete, "guild_id": request.guild,
        "channel_id": request.channel, "user_id": request.user, "locale": request.locale,
        "context": request.context}
    if request.kind in ("component", "modal_submit"):  # what the user acts on, not a command
        body.update(message_id=request.message_id, custom_id=request.custom_id,
                    label=request.label, modal_of=request.modal_of,
                    values=None if request.values is None else list(request.values),
                    fields=None if request.fields is None else dict(request.fields))
    response = await _call(client, "POST", "/_emulator/interactions", json=body)
    answer = _json(response)
    if response.status_code == 200:
        return Invoked(app_id, exchange=checked_exchange(answer))
    if answer.get("code") == 50035 and OUTDATED in str(answer.get("errors")):
        return Invoked(app_id, outdated="This command is outdated, please try again in a few "
                                        "minutes")
    if response.status_code == 400 and answer.get("code") == 0:
        return Invoked(app_id, refused=str(answer.get("message")), refusal={
            key: answer.get(key) for key in ("refusal", "reason", "fix")})
    said = answer.get("message", response.text[:200])
    raise CmdsyncError(f"the emulator answered HTTP {response.status_code}: "
                       f"{printable(str(said))}")


def checked_exchange(exchange: dict[str, Any]) -> dict[str, Any]:
    """``exchange`` held against :data:`EXCHANGE`: returned as it is when it fits (or
    already failed); with ``failure`` saying what Discord would refuse when what the
    application sent does not fit (Discord answers such a response or message with
    50035 Invalid Form Body). Raises :class:`CmdsyncError` when the emulator's own part
    (the interaction, the failure) does not fit: a server that is not the emulator."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(EXCHANGE).iter_errors(exchange),
                    key=lambda e: list(e.absolute_path))
    built = [e for e in errors if not e.absolute_path or e.absolute_path[0] in _BUILT]
    if built:
        raise CmdsyncError(f"the emulator answered an exchange cmdsync cannot read: "
                           f"{_where(built[0])}: {_said(built[0])}")
    if not errors or exchange.get("failure"):
        return exchange
    return {**exchange, "failure_code": "invalid_response",
            "failure": (f"Discord would refuse what the application sent: 50035 "
                        f"Invalid Form Body ({_where(errors[0])}: {_said(errors[0])})")}


def _where(error: Any) -> str:
    """``messages[0].embeds[1]``: where in the exchange the error is."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}"
                   for part in error.absolute_path).lstrip(".") or "the exchange"


def _said(error: Any) -> str:
    """jsonschema's message, at most 200 characters (it quotes the value)."""
    message = str(error.message)
    return message if len(message) <= 200 else message[:199] + "\u2026"


async def _poll(client: httpx.AsyncClient, interaction_id: str, request: Request, *,
                within: float) -> dict[str, Any]:
    """The exchange once ``request.follow_ups`` arrived and, with ``request.settle``, the
    bots have been idle that many seconds, or after ``within`` seconds (the emulator
    holds the poll); its ``done`` says which."""
    response = await _call(client, "GET", f"/_emulator/interactions/{interaction_id}", params={
        "follow_ups": request.follow_ups, "settle": request.settle, "within": within})
    return _json(response) if response.status_code == 200 else {}


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
