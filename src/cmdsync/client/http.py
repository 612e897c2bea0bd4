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
  host and port) only ``max_refused_retries`` times (once), and a request
  unanswered for ``timeout`` seconds (to connect, or for each part of the
  answer) only ``max_timeout_retries`` times (once), since a CLI waiting
  for a server that is not there, or that never answers, helps no one; the
  error names the host tried (and the timeout, and how to change it).
  Every request cmdsync sends may be sent twice: GET,
  PUT, PATCH and DELETE are idempotent, and the one POST (create a command)
  upserts by name and type (Discord's "Application Commands" documentation (endpoints)), so a create that reached
  Discord and lost its answer is overwritten by its retry (200), not made twice;
- other 4xx: raises :class:`~cmdsync.errors.ApiError` with Discord's
  code, message and 50035 ``errors``.

A request unanswered after ``notice_after`` seconds (or half the timeout, if
that is shorter) is told to ``on_wait`` as a :class:`Waiting`, once per
attempt, while it goes on waiting: the CLI says on standard error what it
waits for, instead of staying silent.

The transport is injectable (``httpx.MockTransport``, ``httpx.ASGITransport``
onto the emulator). Times are seconds (float) everywhere. Tokens go only in
the ``Authorization`` header of each request: never in URLs, reprs,
exceptions or logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# isort: off
from cmdsync.client import _lean_httpx  # noqa: F401  (before httpx itself)
import httpx
# isort: on

from cmdsync import __version__
from cmdsync.client import failures
from cmdsync.client.auth import COMMANDS_SCOPE, Auth, ClientCredentials, Token
from cmdsync.client.ratelimit import Clock, RateLimiter, Sleep, retry_after
from cmdsync.client.redact import remember
from cmdsync.errors import ClientError, CmdsyncError, NetworkError, UsageError

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
    ``timeout`` bounds each attempt's connection and each read of its answer;
    ``on_wait`` (None: nobody) is told of an attempt unanswered after
    ``notice_after`` seconds (or half of ``timeout``, if that is shorter).
    """

    base_url: str = DEFAULT_API_URL
    timeout: float = 15.0
    max_retries: int = 4
    max_refused_retries: int = 1
    max_timeout_retries: int = 1
    max_rate_limit_retries: int = 5
    max_retry_after: float = 300.0
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    global_limit: int = 50
    global_window: float = 1.0
    concurrency: int = 8
    notice_after: float = 3.0
    on_wait: Callable[[Waiting], None] | None = field(default=None, compare=False)

    @property
    def notice_delay(self) -> float:
        """Seconds an attempt goes unanswered before ``on_wait`` is told."""
        return min(self.notice_after, self.timeout / 2)


@dataclass(frozen=True)
class Waiting:
    """A request still unanswered: its ``host`` (``discord.com``, ``127.0.0.1:8787``),
    method and path, which ``attempt`` of it (1 for the first), and for how many
    ``seconds`` so far."""

    host: str
    method: str
    path: str
    attempt: int
    seconds: float


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
    timeouts: int = 0  # of those, after a timeout
    sent: int = 0  # attempts so far
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
        :class:`~cmdsync.errors.ApiError` or :class:`~cmdsync.errors.NetworkError`, and
        :class:`~cmdsync.errors.CmdsyncError` when no token may call it.
        """
        tries = _Tries(method, path, f"{method} {route}", _major(path))
        async with self.semaphore:
            while True:
                await self.limiter.acquire(tries.route, tries.major)
                try:
                    user = permissions and (method != "GET" or as_user)
                    tries.sent += 1
                    response, token = await self._send(tries, json_body, params, user,
                                                       permissions and not user)
                    body = _json(response)
                except (httpx.TransportError, ValueError) as exc:
                    await self._after_network_error(tries, exc)
                    continue
                self.limiter.update(tries.route, tries.major, response.headers)
                if await self._retry(tries, response, body):
                    continue
                if response.status_code >= 400:
                    raise failures.api_error(method, path, response, body,
                                             credential=str(token))
                return body

    async def _after_network_error(self, tries: _Tries, exc: Exception) -> None:
        """Back off before the next try, or raise :class:`NetworkError`.

        A failure no retry can mend (an unknown host, a TLS handshake refused,
        a URL scheme httpx cannot speak) raises at once, saying what happened.
        """
        permanent = failures.permanent(exc)
        if permanent is not None:
            raise NetworkError(f"{tries.method} {tries.path}: {permanent}",
                               method=tries.method, path=tries.path) from None
        where = failures.host_port(self._http.base_url)
        refused = failures.refused(exc)
        timed_out = isinstance(exc, httpx.TimeoutException)
        if timed_out and (tries.timeouts >= self.config.max_timeout_retries
                          or tries.network >= self.config.max_retries):
            raise NetworkError(failures.timed_out(
                tries.method, tries.path, host=failures.host(self._http.base_url),
                timeout=self.config.timeout, attempts=tries.network + 1),
                method=tries.method, path=tries.path) from None
        if refused and tries.refused >= self.config.max_refused_retries:
            attempts = tries.network + 1
            raise NetworkError(
                f"{tries.method} {tries.path}: cannot connect to {where}: connection refused "
                f"({attempts} attempt{'s' if attempts != 1 else ''}): nothing listens for "
                f"{self.config.base_url}; check --api-url (or CMDSYNC_API_URL)"
                + (", and that `cmdsync emulator` (or your server) is running there"
                   if failures.loopback(self._http.base_url)
                   else ", and this machine's network"),
                method=tries.method, path=tries.path) from None
        if tries.network >= self.config.max_retries:
            raise NetworkError(f"{tries.method} {tries.path}: no response from {where} after "
                               f"{tries.network + 1} attempts: {failures.describe(exc)}",
                               method=tries.method, path=tries.path) from None
        await self._backoff(tries.network, tries.method, tries.path, failures.describe(exc))
        tries.network += 1
        tries.refused += refused
        tries.timeouts += timed_out

    async def _retry(self, tries: _Tries, response: httpx.Response, body: Any) -> bool:
        """Whether to send again: a 429 within limits (after recording the pause) or a 5xx."""
        status = response.status_code
        if status == 429:
            wait, is_global = retry_after(response.headers, body)
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

    async def _send(self, tries: _Tries, json_body: Any, params: dict[str, str] | None,
                    edit_permissions: bool, read_permissions: bool
                    ) -> tuple[httpx.Response, Token]:
        """Send once; the response, and the token it was sent with."""
        method, path = tries.method, tries.path
        token = await self._token(edit_permissions, read_permissions)
        headers = {"Authorization": token.header()}
        self.requests += 1
        notice = self._notice(method, path, tries.sent)
        try:
            response = await self._http.request(method, path, json=json_body, params=params,
                                                headers=headers)
            await response.aread()
        except httpx.TransportError as exc:
            self.exchanges.append(Exchange(method, path, None, not _unsent(exc), STEP.get()))
            raise
        finally:
            if notice is not None:
                notice.cancel()
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
        notice = self._notice("POST", "/oauth2/token", 1)
        try:
            response = await self._http.post(
                "/oauth2/token", data={"grant_type": "client_credentials",
                                       "scope": COMMANDS_SCOPE},
                headers={"Authorization": credentials.basic()})
            body = _json(response)
        except httpx.TimeoutException:
            raise NetworkError(failures.timed_out(
                "POST", "/oauth2/token", host=failures.host(self._http.base_url),
                timeout=self.config.timeout, attempts=1),
                method="POST", path="/oauth2/token") from None
        except (httpx.TransportError, ValueError) as exc:
            raise NetworkError(f"POST /oauth2/token: {failures.describe(exc)}", method="POST",
                               path="/oauth2/token") from None
        finally:
            if notice is not None:
                notice.cancel()
        if response.status_code != 200 or not isinstance(body, dict) \
                or not body.get("access_token"):
            reason = body.get("error") if isinstance(body, dict) else None
            raise ClientError(f"POST /oauth2/token: HTTP {response.status_code}: "
                              f"{reason or 'no access_token'}: the client-credentials exchange "
                              "failed; check DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET",
                              method="POST", path="/oauth2/token")
        remember(str(body["access_token"]))
        return Token("Bearer", str(body["access_token"]), "client credentials")

    def _notice(self, method: str, path: str, attempt: int) -> asyncio.TimerHandle | None:
        """Tell ``on_wait`` of this attempt if it is still unanswered after the notice
        delay (cancel the handle returned once it is answered); None without ``on_wait``."""
        on_wait = self.config.on_wait
        if on_wait is None:
            return None
        delay = self.config.notice_delay
        waiting = Waiting(failures.host(self._http.base_url), method, path, attempt, delay)
        return asyncio.get_running_loop().call_later(delay, _tell, on_wait, waiting)

    async def _backoff(self, attempt: int, method: str, path: str, why: str) -> None:
        delay = min(self.config.backoff_base * 2 ** attempt, self.config.backoff_max)
        log.info("%s %s: %s, retrying in %.3f s", method, path, why, delay)
        await self._sleep(delay)


def _tell(on_wait: Callable[[Waiting], None], waiting: Waiting) -> None:
    """Call ``on_wait``: a listener that fails (a closed terminal) never stops a request."""
    try:
        on_wait(waiting)
    except Exception:  # a note that cannot be said is no reason to fail a request
        log.debug("on_wait failed for %s %s", waiting.method, waiting.path, exc_info=True)


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
