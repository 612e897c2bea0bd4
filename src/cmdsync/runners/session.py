"""Where live state is read: Discord, or the local emulator.

:func:`open_session` builds a :class:`~cmdsync.client.http.DiscordClient`
for either ``--api-url`` (default ``https://discord.com/api/v10``) with
credentials from the environment (or the Bearer token ``cmdsync login``
stored), or ``--local``: the embedded emulator in-process over
``httpx.ASGITransport``, its state in ``.cmdsync/local.sqlite`` under the
working directory, authenticated with the emulator's own bot and user tokens.
:func:`saved_plan_key` is the key a saved plan is signed with, from the same
credential. Reading live state through the session is :mod:`cmdsync.runners.fetch`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cmdsync.client.auth import Auth, Token, auth_from_env
from cmdsync.client.http import DEFAULT_API_URL, ClientConfig, DiscordClient, check_base_url
from cmdsync.errors import CmdsyncError
from cmdsync.runners.startup import started

if TYPE_CHECKING:
    from cmdsync.state.desired import DesiredState

LOCAL_STATE = os.path.join(".cmdsync", "local.sqlite")
LOCAL_BASE_URL = "http://cmdsync.local/api/v10"


@dataclass(frozen=True)
class Session:
    """An open client and a label for where it points.

    ``api_url`` is the base URL, or ``local:<path>`` for the emulator.
    """

    client: DiscordClient
    api_url: str


def local_application_id() -> str:
    """The local emulator's application (``111111111111111111``)."""
    from cmdsync.emulator.seed import APPLICATION_ID

    return APPLICATION_ID


@dataclass(frozen=True)
class Connection:
    """How to reach the API: flags and environment, before anything is opened.

    ``transport`` (an ``httpx.AsyncBaseTransport``) replaces the network for
    remote sessions, in tests; ``config`` tunes the client. ``pipelined``:
    whether ``plan`` and ``apply`` start reading before the manifests are
    validated (:func:`cmdsync.runners.plan.planning`); None (the default) for
    a session over the network whose client paces its requests, not for
    ``--local``, a ``transport`` or ``global_limit=0``.
    """

    api_url: str | None = None
    local: bool = False
    token_file: str | None = None
    bearer_token_file: str | None = None
    client_secret_file: str | None = None
    config: ClientConfig | None = None
    transport: Any = None
    environment: str | None = None  # cmdsync.toml's environment: where `cmdsync login` stored
    # plan's reads start while the manifests are validated (cmdsync.runners.plan.planning):
    # None for over the network with a paced client only (not --local, nor a transport,
    # nor global_limit=0); True or False to say
    pipelined: bool | None = None


@asynccontextmanager
async def open_session(connection: Connection, *, env: Mapping[str, str] | None = None,
                       cwd: str | None = None, guilds: Iterable[str] = (),
                       application_id: str | None = None) -> AsyncIterator[Session]:
    """An open :class:`Session`; closes the client (and the emulator's store).

    ``guilds`` are added to the local emulator so that any manifest plans
    there. Without a Bearer token in the environment, the one ``cmdsync
    login`` stored for the API URL, ``application_id`` and environment is
    used (refreshed when expired: :func:`cmdsync.runners.login.stored_bearer`).
    Raises :class:`~cmdsync.errors.CmdsyncError` for missing credentials,
    and when the stored login can no longer be refreshed.
    """
    env = os.environ if env is None else env
    config = connection.config or ClientConfig()
    if connection.local:
        async with _local_session(config, cwd or os.getcwd(), guilds) as session:
            started()
            yield session
        return
    base = api_base(connection, env)
    # a refresh token is exchanged (spent) only where overwrites are edited
    auth = auth_from_env(env, token_file=connection.token_file,
                         client_secret_file=connection.client_secret_file,
                         bearer_token_file=connection.bearer_token_file, api_url=base,
                         transport=connection.transport,
                         exchange_refresh_token=application_id is not None)
    if auth.permissions is None and application_id is not None:
        auth = replace(auth, permissions=await _stored_bearer(
            connection, base, application_id, auth, env))
    client = DiscordClient(auth, config=_with_base(config, base), transport=connection.transport)
    started()  # what was imported to get here lives as long as the process
    async with client:
        yield Session(client, base)


def needs_user_token(desired: DesiredState) -> str | None:
    """The application id when the manifests set overwrites (a user's token edits them:
    the one `cmdsync login` stored, when none is given, see :func:`open_session`);
    else None."""
    if any(s.permissions is not None for s in desired.scopes.values()):
        return str(desired.application_id)
    return None


def api_base(connection: Connection, env: Mapping[str, str]) -> str:
    """The API's base URL: ``--api-url``, else ``CMDSYNC_API_URL``, else Discord's."""
    if connection.api_url:
        return check_base_url(connection.api_url, source="--api-url")
    if env.get("CMDSYNC_API_URL"):
        return check_base_url(env["CMDSYNC_API_URL"], source="CMDSYNC_API_URL")
    return DEFAULT_API_URL


async def _stored_bearer(connection: Connection, base: str, application_id: str, auth: Auth,
                         env: Mapping[str, str]) -> Token | None:
    """The Bearer token ``cmdsync login`` stored for this place, if any."""
    from cmdsync.client.auth import ClientCredentials
    from cmdsync.client.logins import Place
    from cmdsync.runners.login import stored_bearer

    credentials = auth.commands if isinstance(auth.commands, ClientCredentials) else None
    if credentials is None and env.get("DISCORD_CLIENT_ID", "").strip() \
            and (env.get("DISCORD_CLIENT_SECRET") or env.get("DISCORD_CLIENT_SECRET_FILE")
                 or connection.client_secret_file):
        from cmdsync.client.auth import client_credentials_from_env

        credentials = client_credentials_from_env(
            env, client_secret_file=connection.client_secret_file)
    return await stored_bearer(Place(base, application_id, connection.environment or ""),
                               credentials=credentials, transport=connection.transport)


def saved_plan_key(connection: Connection, env: Mapping[str, str] | None = None, *,
                   cwd: str | None = None, create: bool = False) -> bytes | None:
    """The ``plan_hmac`` key (:func:`cmdsync.plan.planfile.plan_key`) of the credential
    ``connection`` reads live state with; None without one (then saved plans carry no
    ``plan_hmac``).

    A credential anyone has cannot sign: for ``--local``, and for a credential
    the emulator publishes (its default seed's tokens, as a served emulator
    uses them), the key is the random one in ``cwd``'s ``.cmdsync/plan.key``
    (:func:`cmdsync.runners.files.local_plan_key`), made there when ``create``
    (``plan --out``) and absent, else None. Raises
    :class:`~cmdsync.errors.CmdsyncError` for a key file others may read or write.
    """
    from cmdsync.plan.planfile import plan_key  # not before a plan's first request
    from cmdsync.runners.files import local_plan_key

    where = os.getcwd() if cwd is None else cwd
    if connection.local:
        return local_plan_key(where, create=create)
    try:
        auth = auth_from_env(os.environ if env is None else env,
                             token_file=connection.token_file,
                             client_secret_file=connection.client_secret_file,
                             bearer_token_file=connection.bearer_token_file,
                             exchange_refresh_token=False)
    except CmdsyncError:
        return None
    commands = auth.commands
    secret = commands.value if isinstance(commands, Token) else commands.client_secret
    if _published(secret):
        return local_plan_key(where, create=create)
    return plan_key(secret)


def _published(secret: str) -> bool:
    """Whether ``secret`` is one of the emulator's published test credentials."""
    from cmdsync.emulator import seed

    return secret in (seed.BOT_TOKEN, seed.CLIENT_SECRET, seed.USER_TOKEN)


@asynccontextmanager
async def _local_session(config: ClientConfig, cwd: str, guilds: Iterable[str]
                         ) -> AsyncIterator[Session]:
    import httpx

    from cmdsync.emulator import seed
    from cmdsync.emulator.app import create_app
    from cmdsync.emulator.instance import new_emulator
    from cmdsync.manifest.files import work_directory

    work_directory(cwd)  # a clear error when a file holds the name
    emulator = new_emulator(state=os.path.join(cwd, LOCAL_STATE),
                            seed=local_seed([g for g in guilds if g.isdigit()]))
    try:
        auth = Auth(Token("Bot", seed.BOT_TOKEN, "the local emulator"),
                    Token("Bearer", seed.USER_TOKEN, "the local emulator"))
        client = DiscordClient(auth, config=_with_base(config, LOCAL_BASE_URL),
                               transport=httpx.ASGITransport(app=create_app(emulator)))
        async with client:
            yield Session(client, "local:" + LOCAL_STATE)
    finally:
        emulator.store.close()


def local_seed(guilds: Iterable[str]) -> dict[str, Any]:
    """The emulator's default seed plus ``guilds``, which its user may manage.

    So that any manifest plans and applies locally, whatever its guild ids (its
    application takes guild and user install, as the default seed's does).
    """
    from cmdsync.emulator.seed import default_seed

    data = default_seed()
    known = {str(g["id"]) for g in data["guilds"]}
    data["guilds"] += [{"id": g, "name": "Local guild"} for g in sorted(set(guilds) - known)]
    every = sorted(known | set(guilds))
    for user in data["users"]:
        user["guilds"] = sorted(set(user.get("guilds") or []) | set(every))
    return data


def _with_base(config: ClientConfig, base_url: str) -> ClientConfig:
    return replace(config, base_url=base_url)
