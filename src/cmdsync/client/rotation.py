"""What exchanging a refresh token from the environment gave, and what the job
summary says of it.

A refresh token in a CI secret (``DISCORD_REFRESH_TOKEN``, exchanged by
:func:`cmdsync.client.auth.bearer_from_refresh_token`) is spent by its exchange:
Discord answers with a new one (discord/discord-api-docs#5942). A run that cannot
store the new one must say so where it will be read, since the next run fails
otherwise: :func:`refresh_summary` is the job summary's section (when the access
token expires; that the secret must be replaced, and how), :func:`refused_summary`
the one for a refusal, and :func:`summarize` appends either to
``$GITHUB_STEP_SUMMARY`` when it is set; :func:`refresh_note` says the same in a
line, for a terminal. No token is ever in them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from cmdsync.client.redact import redact

NEW_REFRESH_TOKEN_FILE = "CMDSYNC_NEW_REFRESH_TOKEN_FILE"
GUIDE = ("https://cmdsync.github.io/cmdsync/ci/github-actions/"
         "#permission-overwrites-in-ci-a-refresh-token")


@dataclass(frozen=True)
class Refreshed:
    """What exchanging a refresh token of the environment gave; no token in it.

    ``source``: where the refresh token came from (``DISCORD_REFRESH_TOKEN`` or a
    file); ``expires_at``: when the access token expires (epoch seconds) and
    ``expires_in`` its lifetime (seconds); ``rotated``: whether Discord answered
    with another refresh token (the one presented is then spent); ``handed_to``:
    the file the new one was written to (``CMDSYNC_NEW_REFRESH_TOKEN_FILE``), None
    when none is named; ``hand_error``: why writing it there failed.
    """

    source: str
    expires_at: float
    expires_in: float
    rotated: bool
    handed_to: str | None = None
    hand_error: str | None = None


def summarize(env: Mapping[str, str], markdown: str) -> None:
    """Append ``markdown`` (redacted) to the job summary, when there is one. Written
    as soon as the refresh token is spent, so that an apply failing later, or
    killed, still says so."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(redact(markdown, env) + "\n")
    except OSError:
        pass  # the run's own output says what failed; the summary is an extra


REPLACE_COMMANDS = """\
export CMDSYNC_CONFIG_DIR="$(mktemp -d)"   # this login is CI's alone, outside the keyring
export DISCORD_CLIENT_ID=... DISCORD_CLIENT_SECRET=...
cmdsync login                              # as a user who may edit the overwrites
jq -r '.logins[].refresh_token' "$CMDSYNC_CONFIG_DIR/logins.json" | gh secret set DISCORD_REFRESH_TOKEN
rm -r "$CMDSYNC_CONFIG_DIR"                # not `cmdsync logout`: that revokes the token
"""


def _replace_it(source: str) -> str:
    return ("To replace it without the token ever being shown: log in with `cmdsync "
            "login` into a folder of its own (outside the keyring, so that this login is "
            "CI's alone), pipe the refresh token it stored into `gh secret set`, then "
            "delete the folder:\n"
            f"\n```sh\n{REPLACE_COMMANDS}```\n\n"
            "(`gh secret set --env NAME` for a secret of a GitHub environment; or paste "
            "the token into the repository's Settings > Secrets and variables > Actions.) "
            f"To have each run store the new refresh token itself, see {GUIDE}.\n")


def refresh_summary(refreshed: Refreshed) -> str:
    """The job summary's Markdown after an exchange: when the access token expires;
    whether the refresh token was rotated, and then what becomes of the new one."""
    expiry = (f"`{refreshed.source}` was exchanged at `POST /oauth2/token` for the "
              "Bearer token that edits permission overwrites; that token expires at "
              f"{_when(refreshed.expires_at)} (in {_span(refreshed.expires_in)}).\n")
    if not refreshed.rotated:
        return ("### cmdsync: a Bearer token from the refresh token\n\n" + expiry
                + "\nDiscord kept the refresh token: its secret stays valid.\n")
    head = ("### cmdsync: the refresh token was rotated\n\n" + expiry + "\n"
            f"Discord answered with a new refresh token: the one in `{refreshed.source}` "
            "is spent, and a run that presents it again fails with `invalid_grant`. ")
    if refreshed.handed_to is not None and refreshed.hand_error is None:
        return head + (f"The new one was written to `{refreshed.handed_to}` "
                       f"(`{NEW_REFRESH_TOKEN_FILE}`), for the step that stores it in the "
                       "secret.\n")
    from cmdsync.render.escape import printable

    lost = (f"It could not be written to `{refreshed.handed_to}` "
            f"({printable(refreshed.hand_error or '')}), and is lost. " if refreshed.handed_to is not None
            else "This run cannot store the new one, and never shows it. ")
    return (head + lost + f"**Replace the secret `{refreshed.source}` comes from before the "
            "next run.**\n\n" + _replace_it(refreshed.source))


def refused_summary(source: str, reason: str) -> str:
    """The job summary's Markdown when the token endpoint refused the refresh token."""
    from cmdsync.render.escape import printable  # the server's words: one inert line

    shown = printable(reason).replace("`", "'")
    return ("### cmdsync: the refresh token was refused\n\n"
            f"`{shown}`: `{source}` is spent (each refresh token works once: a run "
            "that could not store the new one leaves the secret with a spent one), "
            "revoked, or the user deauthorized the application. cmdsync stopped before "
            "sending anything to Discord's command endpoints. **Replace the secret "
            f"`{source}` comes from.**\n\n" + _replace_it(source))


def refresh_note(refreshed: Refreshed) -> str:
    """:func:`refresh_summary` in one line (a note on standard error, where a CLI
    writes one)."""
    text = (f"{refreshed.source} was exchanged for a Bearer token that expires at "
            f"{_when(refreshed.expires_at)}; ")
    if not refreshed.rotated:
        return text + "Discord kept the refresh token\n"
    if refreshed.handed_to is not None and refreshed.hand_error is None:
        return text + f"Discord rotated the refresh token: the new one is in " \
                      f"{refreshed.handed_to}\n"
    return text + (f"Discord rotated the refresh token, so the one in {refreshed.source} is "
                   f"spent: replace it before the next run ({GUIDE})\n")


def _when(epoch: float) -> str:
    """``2026-11-25 04:43:00 UTC``, as ``cmdsync auth status`` shows an expiry."""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _span(seconds: float) -> str:
    """``7 days``, ``1 hour``, ``5 minutes``: the largest whole unit."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}" + ("s" if count != 1 else "")
    return f"{int(seconds)} seconds"
