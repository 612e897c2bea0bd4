"""The HTTP client: httpx.AsyncClient with auth, rate limits, retries and timeouts.

:class:`DiscordClient` sends one request at a time per call and may be
called concurrently (``asyncio.gather``). For each request it waits on the
:class:`~cmdsync.client.ratelimit.RateLimiter`, sends, and then:

- 429: records the pause (bucket or global; ``retry_after`` from the body,
  else ``Retry-After``) and tries again: after a route's 429 at most
  ``max_rate_limit_retries`` times; after global 429s (the limit every
  request shares, which the limiter then lowers: see
  :meth:`~cmdsync.client.ratelimit.RateLimiter.limited`) for as long as their
  pauses add up to at most ``max_retry_after`` seconds. No single wait may be
  longer than that (a daily create limit answered as 429 fails at once);
- 5xx, timeouts and network errors: retries with exponential backoff
  (``backoff_base * 2**attempt`` seconds, at most ``backoff_max``), up to
  ``max_retries`` times; a refused connection (nothing listens at the
  host and port) only ``max_refused_retries`` times (once), since a CLI
  waiting for a server that is not there helps no one; the error names the
  host and port tried. Every request cmdsync sends may be sent twice: GET,
  PUT, PATCH and DELETE are idempotent, and the one POST (create a command)
  upserts by name and type (Discord's "Application Commands" documentation (endpoints)), so a create that reached
  Discord and lost its answer is overwritten by its retry (200), not made twice;
- other 4xx: raises :class:`~cmdsync.errors.ApiError` with Discord's
  code, message and 50035 ``errors``.

The transport is injectable (``httpx.MockTransport``, ``httpx.ASGITransport``
onto the emulator). Times are seconds (float) everywhere. Tokens go only in
the ``Authorization`` header of each request: never in URLs, reprs,
exceptions or logs.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import re
import socket
import ssl
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# isort: off
from cmdsync.client import _lean_httpx  # noqa: F401  (before httpx itself)
import httpx
# isort: on

from cmdsync import __version__
from cmdsync.client.auth import COMMANDS_SCOPE, Auth, ClientCredentials, Token
from cmdsync.client.ratelimit import Clock, RateLimiter, Sleep
from cmdsync.client.redact import remember
from cmdsync.errors import ApiError, ClientError, CmdsyncError, NetworkError, UsageError

if TYPE_CHECKING:
    from typing_extensions import Self

DEFAULT_API_URL = "https://discord.com/api/v10"
PROJECT_URL = "https://github.com/cmdsync/cmdsync"
USER_AGENT = f"DiscordBot ({PROJECT_URL}, {__version__}) cmdsync"
log = logging.getLogger("cmdsync.client")
_MAJOR = re.compile(r"/guilds/(\d+)|/applications/(\d+)")


@dataclass(frozen=True)
class ClientConfig:
    """Tunables; every duration is in seconds.

    ``global_limit`` requests per ``global_window`` seconds is the proactive
    limit: Discord's own 50 per second per bot, counted by when requests
    are answered, so network delays cannot push one over (see
    :mod:`cmdsync.client.ratelimit`). ``concurrency`` bounds requests in
    flight across scopes.
    ``max_retry_after`` is five minutes: Discord's documented 429 asks for
    64.57 s (Discord's "Rate Limits" documentation), which is waited out; a daily create
    limit (hours, until UTC midnight) is not.
    """

    base_url: str = DEFAULT_API_URL
    timeout: float = 15.0
    max_retries: int = 4
    max_refused_retries: int = 1
    max_rate_limit_retries: int = 5
    max_retry_after: float = 300.0
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    global_limit: int = 50
    global_window: float = 1.0
    concurrency: int = 8


# Set by a caller around its requests (apply: one value per write step), so the
# exchanges of concurrent tasks can be told apart; each task has its own value.
STEP: ContextVar[int | None] = ContextVar("cmdsync_step", default=None)


@dataclass(frozen=True)
class Exchange:
    """One HTTP request sent: method, path, and status (None: no response arrived).

    ``reached`` is False when the connection failed before the request was
    sent: then Discord cannot have acted on it.
    """

    method: str
    path: str
    status: int | None
    reached: bool = True
    step: int | None = None  # the caller's STEP when it was sent (apply's write steps)

    @property
    def ambiguous(self) -> bool:
        """Whether Discord may have acted on it without saying so: no answer, or a 5xx."""
        return self.reached and (self.status is None or self.status >= 500)


@dataclass
class _Tries:
    """One request's identity for rate limits, and its retry counts so far."""

    method: str
    path: str
    route: str  # "GET /applications/{}/commands": the rate-limit route key
    major: str  # the guild id, else the application id
    network: int = 0  # retries after 5xx, timeouts and network errors
    refused: int = 0  # of those, after a refused connection
    limited: int = 0  # retries after a route's 429
    paused: float = 0.0  # seconds of global 429 pauses so far


class DiscordClient:
    """An authenticated Discord API client; use as ``async with DiscordClient(...)``."""

    def __init__(self, auth: Auth, *, config: ClientConfig | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 clock: Clock | None = None, sleep: Sleep | None = None) -> None:
        self.config = config or ClientConfig()
        self.auth = auth
        self._sleep: Sleep = sleep or asyncio.sleep
        limiter_args: dict[str, Any] = {"sleep": self._sleep}
        if clock is not None:
            limiter_args["clock"] = clock
        self.limiter = RateLimiter(global_limit=self.config.global_limit,
                                   global_window=self.config.global_window, **limiter_args)
        self.semaphore = asyncio.Semaphore(max(self.config.concurrency, 1))
        base_url = self.config.base_url.rstrip("/")
        # Plain HTTP (a served emulator) needs no TLS context: loading the CA bundle
        # would take longer than the first request.
        self._http = httpx.AsyncClient(
            base_url=base_url, transport=transport, timeout=httpx.Timeout(self.config.timeout),
            headers={"User-Agent": USER_AGENT},
            verify=not base_url.lower().startswith("http://"))
        self._bearer: Token | None = auth.commands if isinstance(auth.commands, Token) else None
        self._exchange_lock = asyncio.Lock()
        self.requests = 0
        self.rate_limited = 0
        self.exchanges: list[Exchange] = []  # every request sent, retries included

    def __repr__(self) -> str:
        return f"DiscordClient(base_url={self.config.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    @property
    def can_read_permissions(self) -> bool:
        """Whether a token may read overwrites: a bot token, or the user's Bearer token.

        A client-credentials token cannot: its scope is
        ``applications.commands.update``, and the permission endpoints need
        ``applications.commands.permissions.update`` (openapi.json security).
        """
        bot = isinstance(self.auth.commands, Token) and self.auth.commands.scheme == "Bot"
        return bot or self.auth.permissions is not None

    async def request(self, method: str, path: str, *, route: str, json_body: Any = None,
                      params: dict[str, str] | None = None, permissions: bool = False,
                      as_user: bool = False) -> Any:
        """Send one request and return its JSON body (None for 204).

        ``route`` is the path template that names the rate-limit route
        (``/applications/{}/guilds/{}/commands``). ``permissions`` marks a
        permission endpoint: a GET uses the bot token, else the user's Bearer
        token (always the user's with ``as_user``); a PUT always the user's
        Bearer token. Raises
        :class:`ApiError` or :class:`NetworkError`, and
        :class:`~cmdsync.errors.CmdsyncError` when no token may call it.
        """
        tries = _Tries(method, path, f"{method} {route}", _major(path))
        async with self.semaphore:
            while True:
                await self.limiter.acquire(tries.route, tries.major)
                try:
                    user = permissions and (method != "GET" or as_user)
                    response, token = await self._send(method, path, json_body, params, user,
                                                       permissions and not user)
                    body = _json(response)
                except (httpx.TransportError, ValueError) as exc:
                    await self._after_network_error(tries, exc)
                    continue
                self.limiter.update(tries.route, tries.major, response.headers)
                if await self._retry(tries, response, body):
                    continue
                if response.status_code >= 400:
                    raise _api_error(method, path, response, body, credential=str(token))
                return body

    async def _after_network_error(self, tries: _Tries, exc: Exception) -> None:
        """Back off before the next try, or raise :class:`NetworkError`.

        A failure no retry can mend (an unknown host, a TLS handshake refused,
        a URL scheme httpx cannot speak) raises at once, saying what happened.
        """
        permanent = _permanent(exc)
        if permanent is not None:
            raise NetworkError(f"{tries.method} {tries.path}: {permanent}",
                               method=tries.method, path=tries.path) from None
        where = _host_port(self._http.base_url)
        refused = _refused(exc)
        if refused and tries.refused >= self.config.max_refused_retries:
            attempts = tries.network + 1
            raise NetworkError(
                f"{tries.method} {tries.path}: cannot connect to {where}: connection refused "
                f"({attempts} attempt{'s' if attempts != 1 else ''}): nothing listens for "
                f"{self.config.base_url}; check --api-url (or CMDSYNC_API_URL)"
                + (", and that `cmdsync emulator` (or your server) is running there"
                   if _loopback(self._http.base_url) else ", and this machine's network"),
                method=tries.method, path=tries.path) from None
        if tries.network >= self.config.max_retries:
            raise NetworkError(f"{tries.method} {tries.path}: no response from {where} after "
                               f"{tries.network + 1} attempts: {_describe(exc)}",
                               method=tries.method, path=tries.path) from None
        await self._backoff(tries.network, tries.method, tries.path, _describe(exc))
        tries.network += 1
        tries.refused += refused

    async def _retry(self, tries: _Tries, response: httpx.Response, body: Any) -> bool:
        """Whether to send again: a 429 within limits (after recording the pause) or a 5xx."""
        status = response.status_code
        if status == 429:
            wait, is_global = _retry_after(response, body)
            again = tries.paused + wait <= self.config.max_retry_after if is_global else \
                tries.limited < self.config.max_rate_limit_retries \
                and wait <= self.config.max_retry_after
            if again:
                self.rate_limited += 1
                log.info("%s %s: 429, retrying in %.3f s", tries.method, tries.path, wait)
                self.limiter.limited(tries.route, tries.major, wait, is_global=is_global)
                if is_global:
                    tries.paused += wait
                else:
                    tries.limited += 1
                return True
        if status >= 500 and tries.network < self.config.max_retries:
            await self._backoff(tries.network, tries.method, tries.path, f"HTTP {status}")
            tries.network += 1
            return True
        return False

    async def _send(self, method: str, path: str, json_body: Any,
                    params: dict[str, str] | None, edit_permissions: bool,
                    read_permissions: bool) -> tuple[httpx.Response, Token]:
        """Send once; the response, and the token it was sent with."""
        token = await self._token(edit_permissions, read_permissions)
        headers = {"Authorization": token.header()}
        self.requests += 1
        try:
            response = await self._http.request(method, path, json=json_body, params=params,
                                                headers=headers)
            await response.aread()
        except httpx.TransportError as exc:
            self.exchanges.append(Exchange(method, path, None, not _unsent(exc), STEP.get()))
            raise
        self.exchanges.append(Exchange(method, path, response.status_code, step=STEP.get()))
        log.debug("%s %s -> %d", method, path, response.status_code)
        return response, token

    async def _token(self, permissions: bool, read_permissions: bool = False) -> Token:
        if read_permissions and not self.can_read_permissions:
            raise CmdsyncError("reading permission overwrites needs DISCORD_BOT_TOKEN, or "
                               "DISCORD_BEARER_TOKEN with scope "
                               "applications.commands.permissions.update: client-credentials "
                               "tokens only have applications.commands.update")
        if read_permissions and self.auth.permissions is not None \
                and not isinstance(self.auth.commands, Token):
            return self.auth.permissions
        if permissions:
            if self.auth.permissions is None:
                raise CmdsyncError("editing permission overwrites needs a user's Bearer token "
                                   "with scope applications.commands.permissions.update: set "
                                   "DISCORD_BEARER_TOKEN, or run `cmdsync login` (bots get "
                                   "20001)")
            return self.auth.permissions
        if self._bearer is None:
            async with self._exchange_lock:
                if self._bearer is None:
                    assert isinstance(self.auth.commands, ClientCredentials)
                    self._bearer = await self._exchange(self.auth.commands)
        return self._bearer

    async def _exchange(self, credentials: ClientCredentials) -> Token:
        """Client credentials -> Bearer token (``POST /oauth2/token``)."""
        try:
            response = await self._http.post(
                "/oauth2/token", data={"grant_type": "client_credentials",
                                       "scope": COMMANDS_SCOPE},
                headers={"Authorization": credentials.basic()})
            body = _json(response)
        except (httpx.TransportError, ValueError) as exc:
            raise NetworkError(f"POST /oauth2/token: {_describe(exc)}", method="POST",
                               path="/oauth2/token") from None
        if response.status_code != 200 or not isinstance(body, dict) \
                or not body.get("access_token"):
            reason = body.get("error") if isinstance(body, dict) else None
            raise ClientError(f"POST /oauth2/token: HTTP {response.status_code}: "
                              f"{reason or 'no access_token'}: the client-credentials exchange "
                              "failed; check DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET",
                              method="POST", path="/oauth2/token")
        remember(str(body["access_token"]))
        return Token("Bearer", str(body["access_token"]), "client credentials")

    async def _backoff(self, attempt: int, method: str, path: str, why: str) -> None:
        delay = min(self.config.backoff_base * 2 ** attempt, self.config.backoff_max)
        log.info("%s %s: %s, retrying in %.3f s", method, path, why, delay)
        await self._sleep(delay)


def _major(path: str) -> str:
    """The major parameter of a path: the guild id, else the application id."""
    found = _MAJOR.findall(path)
    guild = next((g for g, _ in found if g), "")
    app = next((a for _, a in found if a), "")
    return guild or app


def _json(response: httpx.Response) -> Any:
    if response.status_code == 204 or not response.content:
        return None
    try:
        return json.loads(response.content)
    except ValueError:
        if response.status_code < 400:
            raise ValueError("response body is not complete JSON") from None
        return None


def _unsent(exc: Exception) -> bool:
    """Whether a transport error happened before the request left (no connection)."""
    return isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout))


def check_base_url(value: str, *, source: str) -> str:
    """``value`` when it can be Discord's API base URL; else :class:`UsageError`.

    It must parse, use http or https, name a host, and end in ``/api/v10``
    (``/api`` and other versions pass too): Discord answers a bare 404 to
    anything else. ``source`` names where it came from in the message
    (``--api-url``, ``CMDSYNC_API_URL``).
    """
    example = f"give Discord's API base, such as {DEFAULT_API_URL}"
    try:
        url = httpx.URL(value)
    except httpx.InvalidURL as exc:
        raise UsageError(f"{source} {value!r} is not a URL ({exc}): {example}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise UsageError(f"{source} {value!r} is not an http or https URL: {example}")
    if not re.search(r"/api(/v\d+)?/?$", url.path):
        raise UsageError(f"{source} {value!r} does not end in /api/v10, where Discord's API "
                         f"is: did you mean {value.rstrip('/')}/api/v10?")
    return value


def _permanent(exc: Exception) -> str | None:
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


def _refused(exc: Exception) -> bool:
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


def _loopback(url: httpx.URL) -> bool:
    return url.host in ("localhost", "::1") or url.host.startswith("127.")


def _host_port(url: httpx.URL) -> str:
    """``host:port`` of ``url`` (the scheme's default port when it names none)."""
    port = url.port or {"https": 443, "http": 80}.get(url.scheme)
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{port}" if port else host


def _describe(exc: Exception) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _retry_after(response: httpx.Response, body: Any) -> tuple[float, bool]:
    """Seconds to wait after a 429, and whether the limit is global."""
    headers = response.headers
    wait: float | None = None
    if isinstance(body, dict) and isinstance(body.get("retry_after"), (int, float)):
        wait = float(body["retry_after"])
    for name in ("retry-after", "x-ratelimit-reset-after"):
        if wait is None and headers.get(name):
            try:
                wait = float(headers[name])
            except ValueError:
                pass
    is_global = (isinstance(body, dict) and body.get("global") is True) \
        or headers.get("x-ratelimit-global", "").lower() == "true" \
        or headers.get("x-ratelimit-scope") == "global"
    return (1.0 if wait is None else max(wait, 0.0)), is_global


# What to do about an error, where Discord's message does not say (Discord's "Opcodes and Status Codes" documentation).
BEARER_NEEDED = ("editing permission overwrites needs a user's Bearer token with scope "
                 "applications.commands.permissions.update (DISCORD_BEARER_TOKEN, "
                 "--bearer-token-file or `cmdsync login`): a bot token cannot")
COMMAND_GONE = "the command no longer exists (deleted since the plan?): plan again"


MISSING_ACCESS = 50001  # Discord's "Missing Access"
UNKNOWN_GUILD = 10004  # Discord's "Unknown guild"


def _hint(status: int, code: int | None, credential: str, path: str = "") -> str | None:
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


def _api_error(method: str, path: str, response: httpx.Response, body: Any, *,
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
                    retry_after=retry, hint=_hint(response.status_code, code, credential, path))
