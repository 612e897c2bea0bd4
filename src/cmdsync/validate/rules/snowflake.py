"""Application ids, guild ids and command ids must be Discord snowflakes.

Discord ids are snowflakes: 64-bit integers sent as strings of decimal
digits (Discord's documentation, "Snowflakes are strings"). Every id Discord has issued
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

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.manifest.loader import Document, Path
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import SNOWFLAKE_HINTS, judgeable, snowflake_problem

ID = "CS501"
NAME = "snowflake"
TITLE = "Application, guild and command ids are snowflakes (17-20 digits)"
SEVERITY = Severity.ERROR


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
                      f"digits: {SNOWFLAKE_HINTS[what]}", key=key)
