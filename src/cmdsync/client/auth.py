"""Credentials from the environment and token files; the client-credentials exchange,
and a refresh token's.

Sources, first found wins (Discord's "Application Commands" documentation (endpoints)):

- command endpoints: ``--token-file`` / ``DISCORD_BOT_TOKEN_FILE`` /
  ``DISCORD_BOT_TOKEN`` (a bot token, ``Authorization: Bot ...``); else
  ``DISCORD_CLIENT_ID`` with ``DISCORD_CLIENT_SECRET`` (or
  ``--client-secret-file`` / ``DISCORD_CLIENT_SECRET_FILE``), exchanged at
  ``POST /oauth2/token`` for a Bearer token with scope
  ``applications.commands.update``;
- permission edits: ``--bearer-token-file`` / ``DISCORD_BEARER_TOKEN_FILE`` /
  ``DISCORD_BEARER_TOKEN`` (a user's Bearer token with scope
  ``applications.commands.permissions.update``; bots get 20001); else
  ``DISCORD_REFRESH_TOKEN_FILE`` / ``DISCORD_REFRESH_TOKEN`` (that user's
  refresh token, as ``cmdsync login`` stored it), exchanged at once, with
  ``DISCORD_CLIENT_ID`` and ``DISCORD_CLIENT_SECRET``, at ``POST /oauth2/token``
  (``grant_type=refresh_token``: Discord's "OAuth2" documentation,
  https://discord.com/developers/docs/topics/oauth2, "Refresh Token Exchange
  Example"). CI has no browser for ``cmdsync login`` and no store that lasts
  between runs: a refresh token in a secret gives it a fresh Bearer token at
  each run instead of a pasted one that expires in a week.

Discord answers a refresh with a new refresh token and the one presented is
spent (discord/discord-api-docs#5942): presented again it gets ``invalid_grant``.
Each refresh token is therefore exchanged once per process, whoever asks
(:func:`auth_from_env` is called for the session, for a saved plan's key...),
and what came of it is said where the run can be read later: the job summary
(``$GITHUB_STEP_SUMMARY``, when set) gives the access token's expiry and, when
the refresh token was rotated, that its secret must be replaced and how
(:func:`cmdsync.client.rotation.refresh_summary`); a file named by ``CMDSYNC_NEW_REFRESH_TOKEN_FILE``
receives the new refresh token (mode 0600) for a CI step that stores it back
(the GitHub Action's ``secrets-token``).

Secrets never appear in ``repr``, ``str``, error messages or the job summary:
the refresh token and the tokens it is exchanged for are remembered for
:func:`cmdsync.client.redact.redact`.
"""

from __future__ import annotations

import asyncio
import base64
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cmdsync import __version__
from cmdsync.client.redact import remember
from cmdsync.client.rotation import (
    GUIDE,
    NEW_REFRESH_TOKEN_FILE,
    Refreshed,
    refresh_summary,
    refused_summary,
    summarize,
)
from cmdsync.errors import CmdsyncError, UsageError

if TYPE_CHECKING:
    from cmdsync.client.oauth2 import Grant

COMMANDS_SCOPE = "applications.commands.update"
REFRESH_TOKEN = "DISCORD_REFRESH_TOKEN"
# cmdsync.client.http's DEFAULT_API_URL and USER_AGENT (that module imports this one)
DISCORD_API_URL = "https://discord.com/api/v10"
USER_AGENT = f"DiscordBot (https://github.com/cmdsync/cmdsync, {__version__}) cmdsync"


@dataclass(frozen=True)
class Token:
    """A token and its scheme (``Bot`` or ``Bearer``); ``source`` names where it came from."""

    scheme: str
    value: str = field(repr=False)
    source: str = ""

    def header(self) -> str:
        """The ``Authorization`` header value."""
        return f"{self.scheme} {self.value}"

    def __str__(self) -> str:
        return f"{self.scheme} token from {self.source}" if self.source \
            else f"{self.scheme} token"


@dataclass(frozen=True)
class ClientCredentials:
    """An application's id and secret, exchanged for a Bearer token before use."""

    client_id: str
    client_secret: str = field(repr=False)

    def basic(self) -> str:
        """The HTTP Basic ``Authorization`` header value for ``/oauth2/token``."""
        raw = f"{self.client_id}:{self.client_secret}".encode()
        return "Basic " + base64.b64encode(raw).decode("ascii")


@dataclass(frozen=True)
class Auth:
    """What the client authenticates with: for commands, and for permission edits."""

    commands: Token | ClientCredentials
    permissions: Token | None = None


def _read_file(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            value = handle.read().strip()
    except OSError as exc:
        raise UsageError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from exc
    if not value:
        raise UsageError(f"the {what} file {path} is empty")
    return value


def _secret(env: Mapping[str, str], name: str, file: str | None, what: str
            ) -> tuple[str, str] | None:
    """``(value, source)`` from ``file``, ``NAME_FILE`` or ``NAME``; None when unset.

    The value is remembered for :func:`cmdsync.client.redact.redact`.
    """
    if file:
        found = _read_file(file, what), file
    elif env.get(name + "_FILE"):
        found = _read_file(env[name + "_FILE"], what), env[name + "_FILE"]
    elif env.get(name, "").strip():
        found = env[name].strip(), name
    else:
        return None
    remember(found[0])
    _check_token(found[0], what, found[1], from_file=found[1] != name)
    remember(found[0].split(" ", 1)[-1])  # without a "Bot " or "Bearer " in front
    return found


def _check_token(value: str, what: str, source: str, *, from_file: bool) -> None:
    """Refuse what cannot be a credential, before it goes into a header (never shown)."""
    where = f"the {what} file {source}" if from_file else source
    lines = value.splitlines()
    if len(lines) > 1:
        raise UsageError(f"{where} holds {len(lines)} lines: put the {what} alone on one line")
    if not value.isascii() or any(ch.isspace() for ch in value.split(" ", 1)[-1]):
        raise UsageError(f"{where} holds characters a {what} never has (not ASCII, or "
                         "spaces): copy it again from the Developer Portal")


def _strip_scheme(value: str, scheme: str) -> str:
    return value[len(scheme) + 1:].strip() if value.lower().startswith(scheme.lower() + " ") \
        else value


def auth_from_env(env: Mapping[str, str] | None = None, *, token_file: str | None = None,
                  client_secret_file: str | None = None,
                  bearer_token_file: str | None = None, api_url: str | None = None,
                  transport: Any = None, exchange_refresh_token: bool = True) -> Auth:
    """The credentials the environment and flags provide; see the module docstring.

    A refresh token (with no Bearer token given) is exchanged at ``api_url``'s
    token endpoint (default: ``CMDSYNC_API_URL``, else Discord's), over
    ``transport`` (an ``httpx.AsyncBaseTransport``; tests) when given, once per
    process (:func:`bearer_from_refresh_token`); not with ``exchange_refresh_token``
    False, for a caller that needs the command credential alone (a saved plan's
    key, ``invoke``): an exchange spends the refresh token.

    Raises :class:`~cmdsync.errors.CmdsyncError` naming the variables to set
    when there is nothing to authenticate command requests with, or when the
    refresh token is refused, and :class:`~cmdsync.errors.UsageError` for an
    unreadable or empty token file.
    """
    env = os.environ if env is None else env
    remember(env.get(REFRESH_TOKEN, "").strip())  # redacted even where it is not used
    bearer = _secret(env, "DISCORD_BEARER_TOKEN", bearer_token_file, "bearer token")
    commands = _commands(env, token_file, client_secret_file)
    if bearer is not None:
        permissions: Token | None = Token("Bearer", _strip_scheme(bearer[0], "Bearer"),
                                          bearer[1])
    elif not exchange_refresh_token:
        permissions = None
    else:  # only now: a refresh token is spent by its exchange, so never for nothing
        permissions = bearer_from_refresh_token(env, client_secret_file=client_secret_file,
                                                api_url=api_url, transport=transport)
    return Auth(commands, permissions)


def _commands(env: Mapping[str, str], token_file: str | None,
              client_secret_file: str | None) -> Token | ClientCredentials:
    bot = _secret(env, "DISCORD_BOT_TOKEN", token_file, "bot token")
    if bot is not None:
        return Token("Bot", _strip_scheme(bot[0], "Bot"), bot[1])
    client_id = env.get("DISCORD_CLIENT_ID", "").strip()
    secret = _secret(env, "DISCORD_CLIENT_SECRET", client_secret_file, "client secret")
    if client_id and secret is not None:
        return ClientCredentials(client_id, secret[0])
    if client_id or secret is not None:
        missing = "DISCORD_CLIENT_SECRET" if client_id else "DISCORD_CLIENT_ID"
        raise CmdsyncError(f"client credentials need both DISCORD_CLIENT_ID and "
                           f"DISCORD_CLIENT_SECRET: {missing} is not set")
    raise CmdsyncError("no credentials: set DISCORD_BOT_TOKEN (or pass --token-file), or "
                       "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET; or use --local")


# -- a refresh token from the environment (CI), exchanged once per process -------------


# (client id, refresh token) -> its outcome; not by API URL: a refresh token belongs to
# one server, and presenting it to a second one as well could only spend it twice.
_exchanges: dict[tuple[str, str], tuple[Token, Refreshed] | CmdsyncError] = {}
_exchanging = threading.Lock()


def bearer_from_refresh_token(env: Mapping[str, str], *, client_secret_file: str | None = None,
                              api_url: str | None = None, transport: Any = None
                              ) -> Token | None:
    """The Bearer token ``DISCORD_REFRESH_TOKEN`` (or ``_FILE``) is exchanged for, or
    None when neither is set.

    The exchange happens once per process for each refresh token (of an
    application), wherever the first caller points, and its outcome, a failure
    included, is kept: presenting the token a second time would present a spent one
    (after a timeout too, when Discord did answer).
    The first exchange writes its job summary (:func:`refresh_summary`) and hands
    the rotated refresh token over (``CMDSYNC_NEW_REFRESH_TOKEN_FILE``). Raises
    :class:`~cmdsync.errors.UsageError` without ``DISCORD_CLIENT_ID`` and
    ``DISCORD_CLIENT_SECRET``, :class:`~cmdsync.errors.CmdsyncError` when the token
    endpoint refuses the refresh token or cannot be reached.
    """
    found = _secret(env, REFRESH_TOKEN, None, "refresh token")
    if found is None:
        return None
    client_id = env.get("DISCORD_CLIENT_ID", "").strip()
    secret = _secret(env, "DISCORD_CLIENT_SECRET", client_secret_file, "client secret")
    if not client_id or secret is None:
        missing = " and ".join(name for name, value in (
            ("DISCORD_CLIENT_ID", client_id), ("DISCORD_CLIENT_SECRET", secret)) if not value)
        raise UsageError(f"{found[1]} is exchanged at POST /oauth2/token with the "
                         f"application's DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET (or "
                         f"--client-secret-file), the application it was issued to: "
                         f"{missing} not set")
    base = (api_url or env.get("CMDSYNC_API_URL") or DISCORD_API_URL).rstrip("/")
    credentials = ClientCredentials(client_id, secret[0])
    key = (client_id, found[0])
    with _exchanging:
        if key not in _exchanges:
            _exchanges[key] = _exchange(base, credentials, found, env, transport)
    outcome = _exchanges[key]
    if isinstance(outcome, CmdsyncError):
        raise outcome
    return outcome[0]


def refreshes() -> list[Refreshed]:
    """What each exchange of this process gave, in order (for a note on the terminal)."""
    return [outcome[1] for outcome in _exchanges.values() if not isinstance(outcome,
                                                                             CmdsyncError)]


def _exchange(base: str, credentials: ClientCredentials, found: tuple[str, str],
              env: Mapping[str, str], transport: Any) -> tuple[Token, Refreshed] | CmdsyncError:
    from cmdsync.client import oauth2

    refresh_token, source = found
    asked = time.time()
    try:
        grant = _run_apart(base, credentials, refresh_token, transport)
    except oauth2.LoginExpiredError as refused:
        summarize(env, refused_summary(source, refused.reason))
        return CmdsyncError(
            f"{source} was refused ({refused.reason.rstrip('.')}): a refresh token works "
            "once, and Discord answers each exchange with a new one, so this one is spent "
            "(by a run that could not store the new one), revoked, or its user deauthorized "
            "the application; nothing was sent to the command endpoints: log in again with "
            f"`cmdsync login` and put its refresh token in {source}'s secret ({GUIDE})")
    except CmdsyncError as failed:
        return failed
    rotated = bool(grant.refresh_token) and grant.refresh_token != refresh_token
    target = env.get(NEW_REFRESH_TOKEN_FILE, "").strip() or None
    problem = _hand_over(target, grant.refresh_token) if rotated and target else None
    refreshed = Refreshed(source, asked + grant.expires_in, grant.expires_in, rotated,
                          target if rotated else None, problem)
    summarize(env, refresh_summary(refreshed))
    return Token("Bearer", grant.access_token, f"{source} (refreshed)"), refreshed


def _run_apart(base: str, credentials: ClientCredentials, refresh_token: str,
               transport: Any) -> Grant:
    """``refresh_token`` exchanged on an event loop of its own, in a thread, since the
    caller may be inside one (:func:`cmdsync.runners.session.open_session`)."""
    async def exchange() -> Grant:
        # isort: off
        from cmdsync.client import _lean_httpx  # noqa: F401  (before httpx itself)
        import httpx
        from cmdsync.client import oauth2
        # isort: on

        async with httpx.AsyncClient(base_url=base, transport=transport,
                                     timeout=oauth2.TIMEOUT,
                                     headers={"User-Agent": USER_AGENT}) as http:
            return await oauth2.refresh(http, credentials, refresh_token)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cmdsync-refresh") as pool:
        return pool.submit(asyncio.run, exchange()).result()


def _hand_over(path: str, token: str) -> str | None:
    """Write ``token`` to ``path`` (mode 0600, replaced atomically, no line break: it
    goes into a secret as it is); why that failed, or None."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".cmdsync-refresh-", dir=directory)
    except OSError as exc:
        return str(exc.strerror or exc)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(token)
        os.replace(temporary, path)
    except OSError as exc:
        if os.path.exists(temporary):
            os.unlink(temporary)
        return str(exc.strerror or exc)
    return None


def client_credentials_from_env(env: Mapping[str, str] | None = None, *,
                                client_secret_file: str | None = None) -> ClientCredentials:
    """``DISCORD_CLIENT_ID`` with ``DISCORD_CLIENT_SECRET`` (or ``--client-secret-file``
    / ``DISCORD_CLIENT_SECRET_FILE``): what ``cmdsync login`` authenticates the
    application with at ``POST /oauth2/token``.

    Raises :class:`~cmdsync.errors.UsageError` naming what is missing.
    """
    env = os.environ if env is None else env
    client_id = env.get("DISCORD_CLIENT_ID", "").strip()
    secret = _secret(env, "DISCORD_CLIENT_SECRET", client_secret_file, "client secret")
    missing = [name for name, value in (("DISCORD_CLIENT_ID", client_id),
                                        ("DISCORD_CLIENT_SECRET", secret)) if not value]
    if missing or secret is None:
        raise UsageError(f"logging in needs the application's DISCORD_CLIENT_ID and "
                         f"DISCORD_CLIENT_SECRET (or --client-secret-file), from the Developer "
                         f"Portal's OAuth2 page: {' and '.join(missing)} not set")
    if not client_id.isdigit():
        raise UsageError(f"DISCORD_CLIENT_ID {client_id!r} is not an application id "
                         "(a snowflake: digits only)")
    return ClientCredentials(client_id, secret[0])
