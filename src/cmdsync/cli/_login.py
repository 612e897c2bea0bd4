"""``cmdsync login``, ``logout`` and ``auth status``: the user's Bearer token."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from cmdsync.cli._shared import (
    ApiUrlOption,
    EnvOption,
    SecretFileOption,
    _environment_name,
    app,
)
from cmdsync.errors import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
)
from cmdsync.render import console

LOGIN_HELP = (
    "Log in as a Discord user in the browser (OAuth2 with PKCE, redirected to "
    "http://127.0.0.1:PORT/callback, which the application must list under OAuth2 > "
    "Redirects) and store the Bearer token that plan and apply then use for permission "
    "overwrites when DISCORD_BEARER_TOKEN is not set. Scopes: identify, "
    "applications.commands.permissions.update, and guilds (so that `cmdsync auth status` "
    "lists the guilds you manage). Needs DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET.")


@app.command(help=LOGIN_HELP,
             short_help="Log in as a Discord user in the browser, and store the token.")
def login(
    env_name: EnvOption = None,
    no_browser: Annotated[bool, typer.Option(
        "--no-browser", help="Print the URL to open instead of opening a browser.")] = False,
    port: Annotated[int, typer.Option(
        "--port", help="The loopback port of the registered redirect URI "
        "http://127.0.0.1:PORT/callback.", min=1, max=65535, metavar="PORT")] = 53682,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds to wait for the browser's answer, in all (slow or forged "
        "requests to the listener do not extend it).", min=0,
        metavar="SECONDS")] = 300.0,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    import webbrowser

    from cmdsync.client.auth import client_credentials_from_env
    from cmdsync.client.logins import default_store
    from cmdsync.render import login as render
    from cmdsync.runners.login import LoginRequest
    from cmdsync.runners.login import login as run_login

    env = _login_env(env_name)
    credentials = client_credentials_from_env(env, client_secret_file=client_secret_file)
    place = _login_place(api_url, env_name, env, credentials.client_id)
    store = default_store()
    request = LoginRequest(place, credentials, port, timeout)

    def announce(url: str, opened: bool) -> None:
        console.err(render.authorize_prompt(url, opened, redirect_uri=_redirect(port)))

    try:
        found = run_login(request, announce=announce, store=store,
                          open_browser=None if no_browser else webbrowser.open)
    except KeyboardInterrupt:  # typer would exit 130 without a word
        console.err("\nInterrupted: the login was cancelled; nothing was stored.\n")
        return EXIT_INTERRUPTED
    console.out(render.logged_in(found, store.where))
    return EXIT_OK


@app.command(short_help="Revoke and forget the token `cmdsync login` stored.")
def logout(
    env_name: EnvOption = None,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    """Revoke the token `cmdsync login` stored (POST /oauth2/token/revoke) and forget it;
    it is forgotten even when revoking fails (then said so)."""
    from cmdsync.render import login as render
    from cmdsync.runners.login import logout as run_logout

    place, credentials = _login_context(api_url, env_name, client_secret_file)
    result = run_logout(place, credentials=credentials)
    console.out(render.logged_out(result, place))
    return EXIT_OK if result.revoke_error is None else EXIT_FAILURE


auth_app = typer.Typer(help="Show the login `cmdsync login` stored.", no_args_is_help=True,
                       rich_markup_mode=None)
app.add_typer(auth_app, name="auth", short_help="Show the login `cmdsync login` stored.")


@auth_app.command("status", short_help="Show who is logged in, the scopes, the expiry and "
                  "the guilds.")
def auth_status(
    env_name: EnvOption = None,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    """Who is logged in (user id and name), the scopes, the expiry and the guilds that
    user may manage (GET /users/@me/guilds: Manage Server); never a token."""
    from cmdsync.render import login as render
    from cmdsync.runners import login as runner

    place, credentials = _login_context(api_url, env_name, client_secret_file)
    found = runner.status(place, credentials=credentials)
    console.out(render.status(found, clock=runner.now()))
    return EXIT_OK if found.login is not None else EXIT_FAILURE


def _login_env(env_name: str | None) -> Any:
    """The environment with the cmdsync.toml environment's variables (as plan's)."""
    from cmdsync.runners.project import environment_for
    from cmdsync.runners.project_file import find_config

    return environment_for(find_config(), env_name, os.environ)


def _redirect(port: int) -> str:
    from cmdsync.client.loopback import redirect_uri

    return redirect_uri(port)


def _login_place(api_url: str | None, env_name: str | None, env: Any, client_id: str) -> Any:
    """Where a login is stored: the API URL, the application (the client id, which must
    be DISCORD_APPLICATION_ID when that is set) and the environment."""
    from cmdsync.client.logins import Place
    from cmdsync.runners.session import Connection, api_base

    application = env.get("DISCORD_APPLICATION_ID", "").strip()
    if application and application != client_id:
        raise UsageError(f"DISCORD_CLIENT_ID {client_id} is not DISCORD_APPLICATION_ID "
                         f"{application}: a user's token is valid for the application that "
                         "asked for it; use that application's client id and secret")
    return Place(api_base(Connection(api_url=api_url), env), client_id,
                 _environment_name(env_name))


def _login_context(api_url: str | None, env_name: str | None,
                   client_secret_file: str | None) -> tuple[Any, Any]:
    """The login's place and the client credentials (None when unset:
    logout and status then do without)."""
    from cmdsync.client.auth import client_credentials_from_env

    env = _login_env(env_name)
    try:
        credentials = client_credentials_from_env(env, client_secret_file=client_secret_file)
    except UsageError:
        if client_secret_file:
            raise
        credentials = None
    application = credentials.client_id if credentials is not None else \
        (env.get("DISCORD_APPLICATION_ID", "") or env.get("DISCORD_CLIENT_ID", "")).strip()
    if not application:
        raise UsageError("no application: set DISCORD_CLIENT_ID (or DISCORD_APPLICATION_ID, "
                         "or pick a cmdsync.toml environment with --env)")
    return _login_place(api_url, env_name, env, application), credentials
