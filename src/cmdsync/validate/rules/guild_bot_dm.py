"""A guild command cannot be offered in DMs with the bot (``contexts`` without BOT_DM).

A guild command exists only in its guild: guild commands never get the
BOT_DM interaction context (Discord's "Application Commands" documentation: "guild commands
never get BOT_DM"; contexts GUILD 0, BOT_DM 1, PRIVATE_CHANNEL 2). A guild
command whose ``contexts`` lists BOT_DM asks for something Discord will not
do, so this is an error (CS305, which warns about ``contexts`` on guild
commands in general, stays quiet about such a list).

Failing::

    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive, contexts: [guild, bot_dm]}

Passing::

    commands:
      - {name: ping, description: Check the bot is alive, contexts: [guild, bot_dm]}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import GLOBAL
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import bot_dm_indexes

ID = "CS306"
NAME = "guild-bot-dm"
TITLE = "Guild commands do not list BOT_DM in contexts"
SEVERITY = Severity.ERROR


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        if entry.scope == GLOBAL:
            continue
        for index in bot_dm_indexes(entry.data.get("contexts")):
            yield Finding(entry.doc, entry.path + ("contexts", index),
                          f"guild command {entry.name or '(unnamed)'!r} lists BOT_DM in contexts; "
                          "guild commands are never offered in DMs with the bot: remove bot_dm, or "
                          "make the command global")
