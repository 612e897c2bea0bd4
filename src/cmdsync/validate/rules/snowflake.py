"""Application ids, guild ids and command ids must be Discord snowflakes.

Discord ids are snowflakes: 64-bit integers sent as strings of decimal
digits (FACTS.md, "Snowflakes are strings"). Every id Discord has issued
since 2015 has 17 to 20 digits, so cmdsync accepts exactly that (and no
value above 2^64-1). This rule checks the manifest's ``application_id``, each
key of ``guilds`` and each command's ``id``; overwrite ids are CS403's. A
wrong id is not rejected with 50035 but sends every request to the wrong
URL (404 with code 10002 unknown application, 10004 unknown guild, or 10063
unknown application command). A value that still holds a ``${VAR}``
placeholder was already reported by CS004 and is skipped; a value of the
wrong type is CS011's.

Failing::

    application_id: "my-bot"
    guilds:
      "12345":
        commands:
          - {name: ping, description: Check the bot is alive}

Passing::

    application_id: "111111111111111111"
    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive}
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TypeGuard

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.manifest.loader import Document, Path
from cmdsync.validate.rules.base import Finding

ID = "CS501"
NAME = "snowflake"
TITLE = "Application, guild and command ids are snowflakes (17-20 digits)"
SEVERITY = Severity.ERROR

_DIGITS = re.compile(r"[0-9]{17,20}")
_MAX_SNOWFLAKE = 2**64 - 1
_HINTS = {
    "application_id": "copy the Application ID from the Developer Portal",
    "guild id": "copy it in Discord (Developer Mode, right-click the server, Copy Server ID)",
    "command id": "copy it from a GET of the live commands, or remove it",
}


def is_snowflake(value: str) -> bool:
    """Whether ``value`` is a snowflake string: 17-20 ASCII digits, at most 2^64-1."""
    return bool(_DIGITS.fullmatch(value)) and int(value) <= _MAX_SNOWFLAKE


def judgeable(value: object) -> TypeGuard[str]:
    """Whether an id is a string without an unexpanded ``${VAR}`` (CS004 reports those)."""
    return isinstance(value, str) and "${" not in value


def snowflake_problem(value: str) -> str | None:
    """Why ``value`` is not a snowflake (to follow the value in a message), or None."""
    if is_snowflake(value):
        return None
    if _DIGITS.fullmatch(value):
        return "is larger than a 64-bit snowflake can be"
    if value.isascii() and value.isdigit():
        return f"has {len(value)} digits"
    return "is not a number"


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for doc in manifest.documents:
        data = doc.data
        if not isinstance(data, dict):
            continue
        yield from _check(doc, ("application_id",), data.get("application_id"),
                          "application_id", key=False)
        guilds = data.get("guilds")
        if isinstance(guilds, dict):
            for guild_id in guilds:
                yield from _check(doc, ("guilds", guild_id), guild_id, "guild id", key=True)
    for entry in manifest.commands:
        yield from _check(entry.doc, entry.path + ("id",), entry.data.get("id"),
                          "command id", key=False)


def _check(doc: Document, path: Path, value: object, what: str, *,
           key: bool) -> Iterator[Finding]:
    if not judgeable(value):
        return
    why = snowflake_problem(value)
    if why:
        yield Finding(doc, path, f"{what} {value!r} {why}; Discord ids are strings of 17-20 "
                      f"digits: {_HINTS[what]}", key=key)
