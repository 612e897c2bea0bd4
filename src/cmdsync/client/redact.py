"""Keep secrets out of what cmdsync prints, and off its command line.

Tokens reach cmdsync only through the environment and token files
(:mod:`cmdsync.client.auth`), and travel only in the ``Authorization``
header. Two guards hold the line where that could slip:

- :func:`redact` rewrites a message before the CLI's error boundary prints
  it: every secret cmdsync read (:func:`remember`), the values of the secret
  environment variables, ``Authorization``-style credentials (``Bot ...``,
  ``Bearer ...``, ``Basic ...``) and anything shaped like a Discord bot token
  become ``[redacted]``;
- :func:`looks_like_secret` spots a token given as a command-line argument,
  where any user can read it (``ps``, shell history), so the CLI refuses it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

REDACTED = "[redacted]"
SECRET_VARIABLES = ("DISCORD_BOT_TOKEN", "DISCORD_CLIENT_SECRET", "DISCORD_BEARER_TOKEN",
                    "DISCORD_REFRESH_TOKEN")
# A bot token: base64 of the bot's id, a timestamp and an HMAC, joined by dots.
BOT_TOKEN = re.compile(r"[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}")
# A credential after its scheme, as in an Authorization header: long, with a digit.
_TOKEN_MIDDLE = re.compile(r"\.[A-Za-z0-9_-]{6,7}\.")  # in every match of BOT_TOKEN
CREDENTIAL = re.compile(r"\b(Bot|Bearer|Basic) (?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{20,}")
_MIN_LENGTH = 6  # shorter values would redact ordinary words
_known: set[str] = set()


def remember(value: str) -> None:
    """Note a secret cmdsync read, so that :func:`redact` hides it."""
    if len(value) >= _MIN_LENGTH:
        _known.add(value)


def _secrets(env: Mapping[str, str]) -> list[str]:
    found = set(_known)
    for name in SECRET_VARIABLES:
        value = env.get(name, "").strip()
        if len(value) >= _MIN_LENGTH:
            found.add(value)
    return sorted(found, key=len, reverse=True)  # a secret inside another goes last


def redact(text: str, env: Mapping[str, str] | None = None, *, shapes: bool = True) -> str:
    """``text`` with every secret replaced by ``[redacted]``; see the module docstring.

    Without ``shapes``, only the secrets cmdsync read and those of the secret
    environment variables: text merely shaped like a credential stays (data
    that must read back exactly, such as a command described as ``Basic
    moderation-tools-v2-edition``).
    """
    for secret in _secrets(os.environ if env is None else env):
        text = text.replace(secret, REDACTED)
    if not shapes:
        return text
    # Each pattern only where what it needs is present: a large backup or plan
    # holds neither, and the two scans cost a quarter of a second on 6 MB.
    if "Bot " in text or "Bearer " in text or "Basic " in text:
        text = CREDENTIAL.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    if _TOKEN_MIDDLE.search(text):
        text = BOT_TOKEN.sub(REDACTED, text)
    return text


def looks_like_secret(argument: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether a command-line argument is a token: a secret from the environment, an
    ``Authorization`` value (``Bot ...``, ``Bearer ...``) or a bot token's shape."""
    value = argument.split("=", 1)[1] if argument.startswith("--") and "=" in argument \
        else argument
    if value in _secrets(os.environ if env is None else env):
        return True
    return bool(re.match(r"(Bot|Bearer) \S", value) or BOT_TOKEN.fullmatch(value))
