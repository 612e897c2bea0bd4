"""Credentials from the environment and token files; the client-credentials exchange.

Sources, first found wins (Discord's "Application Commands" documentation (endpoints)):

- command endpoints: ``--token-file`` / ``DISCORD_BOT_TOKEN_FILE`` /
  ``DISCORD_BOT_TOKEN`` (a bot token, ``Authorization: Bot ...``); else
  ``DISCORD_CLIENT_ID`` with ``DISCORD_CLIENT_SECRET`` (or
  ``--client-secret-file`` / ``DISCORD_CLIENT_SECRET_FILE``), exchanged at
  ``POST /oauth2/token`` for a Bearer token with scope
  ``applications.commands.update``;
- permission edits: ``--bearer-token-file`` / ``DISCORD_BEARER_TOKEN_FILE`` /
  ``DISCORD_BEARER_TOKEN`` (a user's Bearer token with scope
  ``applications.commands.permissions.update``; bots get 20001).

Secrets never appear in ``repr``, ``str`` or error messages.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from cmdsync.client.redact import remember
from cmdsync.errors import CmdsyncError, UsageError

COMMANDS_SCOPE = "applications.commands.update"


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
                  bearer_token_file: str | None = None) -> Auth:
    """The credentials the environment and flags provide; see the module docstring.

    Raises :class:`~cmdsync.errors.CmdsyncError` naming the variables to set
    when there is nothing to authenticate command requests with, and
    :class:`~cmdsync.errors.UsageError` for an unreadable or empty token file.
    """
    env = os.environ if env is None else env
    bearer = _secret(env, "DISCORD_BEARER_TOKEN", bearer_token_file, "bearer token")
    permissions = Token("Bearer", _strip_scheme(bearer[0], "Bearer"), bearer[1]) \
        if bearer else None
    bot = _secret(env, "DISCORD_BOT_TOKEN", token_file, "bot token")
    if bot is not None:
        return Auth(Token("Bot", _strip_scheme(bot[0], "Bot"), bot[1]), permissions)
    client_id = env.get("DISCORD_CLIENT_ID", "").strip()
    secret = _secret(env, "DISCORD_CLIENT_SECRET", client_secret_file, "client secret")
    if client_id and secret is not None:
        return Auth(ClientCredentials(client_id, secret[0]), permissions)
    if client_id or secret is not None:
        missing = "DISCORD_CLIENT_SECRET" if client_id else "DISCORD_CLIENT_ID"
        raise CmdsyncError(f"client credentials need both DISCORD_CLIENT_ID and "
                           f"DISCORD_CLIENT_SECRET: {missing} is not set")
    raise CmdsyncError("no credentials: set DISCORD_BOT_TOKEN (or pass --token-file), or "
                       "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET; or use --local")


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
