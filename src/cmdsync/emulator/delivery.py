"""Requests the emulator sends to an application's interactions endpoint.

As Discord does ("Interactions > Overview > Setting Up an Endpoint"):
every request is a JSON POST signed with the application's key
(:mod:`cmdsync.emulator.signing`), and setting ``interactions_endpoint_url``
first checks the endpoint: a correctly signed PING must be answered with
``{"type": 1}``, and a badly signed one must be refused. Discord's docs ask
for 401 there; libraries such as hikari answer 400, so any 4xx counts.

Functions here block (``httpx.Client``): the emulator runs them in a worker
thread, never inside a store transaction, so the application may call the
emulator back while it answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from cmdsync.emulator import error_replies
from cmdsync.emulator.database import Application
from cmdsync.emulator.signing import signed_headers

USER_AGENT = "Discord-Interactions/1.0 (+https://discord.com)"
PING = 1
VERIFY_TIMEOUT = 10.0  # seconds for each verification request


@dataclass(frozen=True)
class Answer:
    """What the endpoint answered: HTTP status and parsed JSON body (None if none or not
    JSON), or ``failure`` (why there is no answer: refused connection, timeout)."""

    status: int = 0
    body: Any = None
    raw: bytes = b""
    failure: str | None = None


def post_signed(app: Application, url: str, payload: Any, *, now: float, timeout: float,
                sign_with: Application | None = None) -> Answer:
    """POST ``payload`` to ``url`` signed for ``app`` (or by ``sign_with``'s key, to
    send a badly signed request); ``now`` (epoch seconds) is the timestamp,
    ``timeout`` seconds the whole wait."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               **signed_headers(sign_with or app, body, int(now))}
    try:
        with httpx.Client(timeout=timeout, trust_env=False) as client:
            response = client.post(url, content=body, headers=headers)
    except httpx.TimeoutException:
        return Answer(failure=f"no answer within {timeout:g} seconds")
    except httpx.HTTPError as exc:
        return Answer(failure=f"cannot reach {url}: {exc.__class__.__name__}: {exc}")
    try:
        parsed = response.json() if response.content.strip() else None
    except ValueError:
        parsed = None
    return Answer(response.status_code, parsed, response.content)


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


def verify_endpoint(app: Application, url: str, *, now: float) -> None:
    """Check the endpoint as Discord does before saving it; 50035 saying why if it fails."""
    ping = {"id": "0", "application_id": app.id, "type": PING, "token": "verification",
            "version": 1}
    good = post_signed(app, url, ping, now=now, timeout=VERIFY_TIMEOUT)
    problem = None
    if good.failure:
        problem = good.failure
    elif not 200 <= good.status < 300 or not isinstance(good.body, dict) \
            or good.body.get("type") != PING:
        problem = (f"a signed PING got HTTP {good.status} "
                   f"{good.raw[:200].decode('utf-8', 'replace')!r}, not {{\"type\": 1}}")
    else:
        impostor = Application(app.id, app.name, app.flags, app.integration_types,
                               app.client_secret + ":impostor")
        bad = post_signed(app, url, ping, now=now, timeout=VERIFY_TIMEOUT, sign_with=impostor)
        if bad.failure:
            problem = f"a badly signed PING: {bad.failure}"
        elif not 400 <= bad.status < 500:
            problem = (f"a badly signed PING got HTTP {bad.status}: the endpoint must check "
                       "X-Signature-Ed25519 and refuse it with 401")
    if problem:
        raise error_replies.field_error(
            ("interactions_endpoint_url",), "APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID",
            f"The specified interactions endpoint url could not be verified: {problem}.")
