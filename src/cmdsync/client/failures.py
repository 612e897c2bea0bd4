"""What went wrong with a request, in words: Discord's error answers and network failures.

:class:`~cmdsync.client.http.DiscordClient` decides whether to try again;
this module says what happened and what to do about it:
:func:`api_error` turns an error answer into an
:class:`~cmdsync.errors.ApiError` (with a :func:`hint` where Discord's
message does not say what to do); :func:`permanent`, :func:`refused` and
:func:`timed_out` tell and describe the network failures. Every message
names the request (method and path) and where it went; none holds a token.
"""

from __future__ import annotations

import errno
import re
import socket
import ssl
from typing import Any

# isort: off
from cmdsync.client import _lean_httpx  # noqa: F401  (before httpx itself)
import httpx
# isort: on

from cmdsync.errors import ApiError

# How to give a slow server longer: the flag, the variable and the key, in their order.
TIMEOUT_SETTINGS = ("--timeout SECONDS (or CMDSYNC_TIMEOUT, or timeout = SECONDS in "
                    "cmdsync.toml)")


def permanent(exc: Exception) -> str | None:
    """What went wrong, for a network failure that trying again cannot mend; else None."""
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"the URL's scheme is not http or https ({exc})"
    causes: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(causes) < 10:
        causes.append(seen)
        seen = seen.__cause__ or seen.__context__
    for cause in causes:
        if isinstance(cause, ssl.SSLError):
            reason = getattr(cause, "verify_message", None) or cause.reason or str(cause)
            return (f"the TLS handshake failed ({reason}): check the URL, and that this "
                    "machine trusts the server's certificate")
        if isinstance(cause, socket.gaierror):
            return (f"cannot resolve the host ({cause.strerror or cause}): check --api-url "
                    "(or CMDSYNC_API_URL) and this machine's DNS")
    return None


def refused(exc: Exception) -> bool:
    """Whether the connection was refused (ECONNREFUSED anywhere in the chain of causes)."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or (
                isinstance(seen, OSError) and seen.errno == errno.ECONNREFUSED):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def timed_out(method: str, path: str, *, host: str, timeout: float, attempts: int) -> str:
    """The message for a request that went unanswered for ``timeout`` seconds at each of
    its ``attempts``: the request, the host, the timeout, and how to change it."""
    return (f"{method} {path}: no answer from {host} within {timeout:g} s "
            f"({attempts} attempt{'s' if attempts != 1 else ''}): allow it more time with "
            f"{TIMEOUT_SETTINGS}")


def loopback(url: httpx.URL) -> bool:
    return url.host in ("localhost", "::1") or url.host.startswith("127.")


def host_port(url: httpx.URL) -> str:
    """``host:port`` of ``url`` (the scheme's default port when it names none)."""
    port = url.port or {"https": 443, "http": 80}.get(url.scheme)
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{port}" if port else host


def host(url: httpx.URL) -> str:
    """The host of ``url``, with its port when that is not the scheme's own
    (``discord.com``, ``127.0.0.1:8787``)."""
    shown = f"[{url.host}]" if ":" in url.host else url.host
    return f"{shown}:{url.port}" if url.port else shown


def describe(exc: Exception) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# What to do about an error, where Discord's message does not say (Discord's "Opcodes and
# Status Codes" documentation).
BEARER_NEEDED = ("editing permission overwrites needs a user's Bearer token with scope "
                 "applications.commands.permissions.update (DISCORD_BEARER_TOKEN, "
                 "--bearer-token-file or `cmdsync login`): a bot token cannot")
COMMAND_GONE = "the command no longer exists (deleted since the plan?): plan again"


MISSING_ACCESS = 50001  # Discord's "Missing Access"
UNKNOWN_GUILD = 10004  # Discord's "Unknown guild"


def hint(status: int, code: int | None, credential: str, path: str = "") -> str | None:
    if status == 401 and " from cmdsync login " in credential:  # the stored login's
        return (f"Discord did not accept the {credential} (revoked, or expired): run "
                "`cmdsync login` again")
    if status == 401 and not code:
        return (f"Discord did not accept the {credential}: check that it is this "
                "application's current token")
    found = re.match(r"/applications/(\d+)/guilds/(\d+)/", path)
    if code == MISSING_ACCESS and found:
        app, guild = found.groups()
        return (f"the application is not installed in guild {guild} with the "
                "applications.commands scope (the most common reason commands do not show): "
                "invite it with https://discord.com/oauth2/authorize?client_id="
                f"{app}&scope=applications.commands (add bot to the scope for a bot user), "
                "or remove the guild from the manifest")
    if code == UNKNOWN_GUILD and found:
        return (f"no guild {found.group(2)} is known there: check the id in the manifest "
                "(Copy Server ID, with Developer Mode on); a cmdsync emulator knows the "
                "guilds of its seed (--seed FILE, or POST /_emulator/seed) and, with "
                "--local, the manifest's")
    return {20001: BEARER_NEEDED, 10063: COMMAND_GONE}.get(code or 0)


def api_error(method: str, path: str, response: httpx.Response, body: Any, *,
              credential: str) -> ApiError:
    code = message = errors = retry = None
    if isinstance(body, dict):
        code = body.get("code") if isinstance(body.get("code"), int) else None
        message = body.get("message")
        errors = body.get("errors") if isinstance(body.get("errors"), dict) else None
        retry = body.get("retry_after") if isinstance(body.get("retry_after"),
                                                      (int, float)) else None
    return ApiError(method=method, path=path, status=response.status_code, code=code,
                    message=str(message or response.reason_phrase or "error"), errors=errors,
                    retry_after=retry, hint=hint(response.status_code, code, credential, path))
