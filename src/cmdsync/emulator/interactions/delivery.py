"""Requests the emulator sends to an application's interactions endpoint.

As Discord does ("Interactions > Overview > Setting Up an Endpoint"):
every request is a JSON POST signed with the application's key
(:mod:`cmdsync.emulator.interactions.signing`), and setting ``interactions_endpoint_url``
first checks the endpoint: a correctly signed PING must be answered with
``{"type": 1}``, and a badly signed one must be refused. Discord's docs ask
for 401 there; libraries such as hikari answer 400, so any 4xx counts.

Each request has a deadline for the whole exchange and a cap on the size of
the answer, so that an endpoint answering a byte a second, or 200 MB, fails
in time and in bounded memory. Functions here block (each runs an event loop
of its own): the emulator runs them in a worker thread, never inside a store
transaction, so the application may call the emulator back while it answers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.interactions.signing import signed_headers
from cmdsync.emulator.reference import error_replies, strict_json

USER_AGENT = "Discord-Interactions/1.0 (+https://discord.com)"
PING = 1


@dataclass(frozen=True)
class Answer:
    """What the endpoint answered: HTTP status, parsed JSON body (None if none, or if
    ``not_json``: a body that is not strict JSON) and its bytes, or ``failure`` (why
    there is no whole answer: refused connection, the deadline passed, too large)."""

    status: int = 0
    body: Any = None
    raw: bytes = b""
    failure: str | None = None
    not_json: bool = False


def post_signed(app: Application, url: str, payload: Any, *, now: float, deadline: float,
                max_bytes: int, sign_with: Application | None = None) -> Answer:
    """POST ``payload`` to ``url`` signed for ``app`` (or by ``sign_with``'s key, to
    send a badly signed request); ``now`` (epoch seconds) is the timestamp.

    ``deadline`` (seconds) bounds the whole exchange, from connecting to the
    last byte of the answer, however slowly it trickles in; an answer
    declaring or sending more than ``max_bytes`` bytes is cut off there.
    Either way, and when the endpoint cannot be reached, the
    :class:`Answer` has ``failure`` saying so. Runs an event loop of its own:
    call it from a worker thread, never from async code.
    """
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               **signed_headers(sign_with or app, body, int(now))}
    return anyio.run(_exchange, url, body, headers, deadline, max_bytes)


async def _exchange(url: str, body: bytes, headers: dict[str, str], deadline: float,
                    max_bytes: int) -> Answer:
    status = 0
    try:
        with anyio.fail_after(deadline):
            async with httpx.AsyncClient(timeout=deadline, trust_env=False) as client, \
                    client.stream("POST", url, content=body, headers=headers) as response:
                status = response.status_code
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    return Answer(failure=_too_large(status, max_bytes))
                raw = bytearray()
                async for chunk in response.aiter_bytes():
                    raw += chunk
                    if len(raw) > max_bytes:
                        return Answer(failure=_too_large(status, max_bytes))
    except (TimeoutError, httpx.TimeoutException):
        if not status:
            return Answer(failure=f"no answer within {deadline:g} seconds")
        return Answer(failure=f"the answer (HTTP {status}) was not complete within "
                      f"{deadline:g} seconds")
    except httpx.HTTPError as exc:
        return Answer(failure=f"cannot reach {url}: {exc.__class__.__name__}: {exc}")
    if not raw.strip():
        return Answer(status, None, bytes(raw))
    try:
        return Answer(status, strict_json.loads(bytes(raw)), bytes(raw))
    except ValueError:
        return Answer(status, None, bytes(raw), not_json=True)


def _too_large(status: int, max_bytes: int) -> str:
    return f"the answer (HTTP {status}) is larger than {max_bytes:,} bytes"


def check_endpoint_url(url: Any) -> str | None:
    """The URL to store (None to clear it), or 50035 if it is not an http(s) URL."""
    if url is None or url == "":
        return None
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise error_replies.field_error(
            ("interactions_endpoint_url",), "URL_TYPE_INVALID_URL",
            "Not a well formed URL.")
    return str(url)


def verify_endpoint(app: Application, url: str, *, now: float, deadline: float,
                    max_bytes: int) -> None:
    """Check the endpoint as Discord does before saving it; 50035 saying why if it fails.

    Both PINGs together must be answered within ``deadline`` seconds, each
    answer within ``max_bytes`` bytes. The message says what was wrong with
    an answer (its status, that it is not ``{"type": 1}``) but never repeats
    it: the URL may be any service the emulator can reach.
    """
    ping = {"id": "0", "application_id": app.id, "type": PING, "token": "verification",
            "version": 1}
    started = time.monotonic()
    good = post_signed(app, url, ping, now=now, deadline=deadline, max_bytes=max_bytes)
    problem = None
    if good.failure:
        problem = good.failure
    elif not 200 <= good.status < 300 or not isinstance(good.body, dict) \
            or good.body.get("type") != PING:
        problem = f"a signed PING got HTTP {good.status} and {_what(good)}, not {{\"type\": 1}}"
    else:
        impostor = Application(app.id, app.name, app.flags, app.integration_types,
                               app.client_secret + ":impostor")
        left = max(deadline - (time.monotonic() - started), 0.001)
        bad = post_signed(app, url, ping, now=now, deadline=left, max_bytes=max_bytes,
                          sign_with=impostor)
        if bad.failure:
            problem = f"a badly signed PING: {bad.failure}"
        elif not 400 <= bad.status < 500:
            problem = (f"a badly signed PING got HTTP {bad.status}: the endpoint must check "
                       "X-Signature-Ed25519 and refuse it with a 4xx status (Discord's "
                       "'Security and Authorization' docs ask for 401)")
    if problem:
        raise error_replies.field_error(
            ("interactions_endpoint_url",), "APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID",
            f"The specified interactions endpoint url could not be verified: {problem}.")


def _what(answer: Answer) -> str:
    """What kind of body ``answer`` has, without any of its content."""
    if answer.not_json:
        return f"a body of {len(answer.raw):,} bytes that is not JSON"
    if not answer.raw.strip():
        return "no body"
    if isinstance(answer.body, dict):
        return "a JSON object" + ("" if answer.body.get("type") == PING
                                  else " without \"type\": 1")
    kind = {list: "array", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(answer.body), "value")
    return f"a JSON {kind}"
