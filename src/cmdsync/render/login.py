"""Text for ``cmdsync login``, ``logout`` and ``auth status``: never a token."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from cmdsync.render.escape import printable

if TYPE_CHECKING:
    from cmdsync.client.logins import Login, Place
    from cmdsync.runners.login import Logout, Status


def when(epoch: float) -> str:
    """``2026-11-25 04:43:00 UTC``."""
    moment = datetime.fromtimestamp(epoch, tz=timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def place(where: Place) -> str:
    """``application 123 at https://discord.com/api/v10 (environment prod)``."""
    text = f"application {where.application_id} at {where.api_url}"
    return text + (f" (environment {printable(where.environment)})" if where.environment
                   else "")


def user(login: Login) -> str:
    return f"{printable(login.user_name)} ({login.user_id})"


def authorize_prompt(url: str, opened: bool, *, redirect_uri: str) -> str:
    """What login says while it waits for the browser."""
    head = ("Opened the browser to authorize cmdsync. If it did not open, visit:"
            if opened else "Open this URL in a browser to authorize cmdsync:")
    return (f"{head}\n\n  {url}\n\nWaiting for the answer at {redirect_uri} (Ctrl-C "
            "cancels)...\n")


def logged_in(login: Login, where: str) -> str:
    return (f"Logged in as {user(login)} for {place(login.place)}.\n"
            f"Scopes: {' '.join(login.scopes) or '(none)'}; expires {when(login.expires_at)}; "
            f"stored in {where}.\n"
            "plan and apply use it for permission overwrites when DISCORD_BEARER_TOKEN is "
            "not set.\n")


def logged_out(result: Logout, where: Place) -> str:
    if result.login is None:
        return f"No one is logged in for {place(where)}: nothing to do.\n"
    text = f"Logged out {user(result.login)} for {place(where)}"
    if result.revoke_error is None:
        return text + ": the token was revoked and forgotten.\n"
    return (text + f": forgotten here, but NOT revoked ({result.revoke_error}); revoke it "
            "in Discord's User Settings > Authorized Apps.\n")


def status(found: Status, *, clock: float) -> str:
    if found.login is None:
        return (f"Not logged in for {place(found.place)}: run `cmdsync login` (plan and "
                "apply then edit overwrites as you).\n")
    login = found.login
    state = "expired" if login.expires_at <= clock else "expires"
    lines = [f"Logged in as {user(login)} for {place(found.place)}.",
             f"Scopes: {' '.join(login.scopes) or '(none)'}",
             f"Token {state} {when(login.expires_at)}"]
    if found.guilds_error is not None:
        lines.append(f"Guilds you manage: cannot be read: {found.guilds_error}")
    elif not found.guilds:
        lines.append("Guilds you manage: none (Manage Server is needed to edit overwrites)")
    else:
        lines.append("Guilds you manage:")
        lines += [f"  {g.id}  {printable(g.name)}"
                  + ("" if g.roles else "  (no Manage Roles: cannot edit overwrites)")
                  for g in found.guilds]
    return "\n".join(lines) + "\n"
