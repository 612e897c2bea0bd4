"""The emulator's state in SQLite: applications, guilds, tokens, commands, overwrites,
the guild fixtures interactions are built from (users, roles, members, channels,
messages), and interactions with their messages.

One :class:`Store` wraps one ``sqlite3`` connection (``":memory:"`` by
default, a file with ``--state FILE`` to survive restarts). Every public
method runs in one transaction under a lock, so concurrent requests see a
state equal to some order of whole requests, never a mix (a bulk overwrite
is all or nothing).

Commands are read far more often than written: each scope has a version
that every write of one of its commands changes (:meth:`Store.scope_version`),
so that what is built from a scope's commands (a rendered list) is kept
until it changes (:meth:`Store.remembered`); a command's body is parsed once
per distinct text and written in one statement with the others of a request
(:meth:`Store.save_commands`). Bodies read from the store are shared, never
to be changed in place.
"""

from __future__ import annotations

import json
from typing import Any

from cmdsync.emulator.store.applications import ApplicationRows
from cmdsync.emulator.store.commands import CommandRows
from cmdsync.emulator.store.fixtures import FixtureRows
from cmdsync.emulator.store.interactions import InteractionRows
from cmdsync.emulator.store.sqlite import DISCORD_EPOCH_MS, TABLES, SQLiteStore, opening

__all__ = ["DISCORD_EPOCH_MS", "TABLES", "SQLiteStore", "Store", "opening"]


class Store(ApplicationRows, CommandRows, FixtureRows, InteractionRows):
    """Thread-safe SQLite state; see the module docstring. Each resource's rows are read
    and written by its mixin: :class:`ApplicationRows` (applications, guilds, tokens),
    :class:`CommandRows` (commands, overwrites, the create budget), :class:`FixtureRows`
    (users, members, roles, channels, seeded messages) and :class:`InteractionRows`."""

    def dump(self) -> dict[str, Any]:
        """The whole state as JSON-able rows, for the admin API.

        ``{"applications": [...], "guilds": [...], "commands": [{"id",
        "application_id", "guild_id" (null when global), "type", "name",
        "version", "body"}], "permissions": [{"application_id", "guild_id",
        "id", "permissions"}], "daily_creates": [...]}``; tokens are left out.
        """
        with self.transaction() as db:
            apps = [dict(row) for row in db.execute("SELECT * FROM applications ORDER BY id")]
            guilds = [dict(row) for row in db.execute("SELECT * FROM guilds")]
            for guild in guilds:
                guild["settings"] = json.loads(guild["settings"])
            for app in apps:
                app["integration_types"] = json.loads(app["integration_types"])
                app["install_params"] = json.loads(app["install_params"])
                app["redirect_uris"] = json.loads(app["redirect_uris"])
                del app["client_secret"]
            commands = [{"id": c.id, "application_id": c.application_id,
                         "guild_id": c.guild_id or None, "type": c.type, "name": c.name,
                         "version": c.version, "body": c.body}
                        for c in map(self._command,
                                     db.execute("SELECT * FROM commands ORDER BY seq"))]
            permissions = [{"application_id": row["application_id"],
                            "guild_id": row["guild_id"], "id": row["target_id"],
                            "permissions": json.loads(row["body"])}
                           for row in db.execute("SELECT * FROM permissions ORDER BY "
                                                 "application_id, guild_id, target_id")]
            return {"applications": apps,
                    "guilds": guilds,
                    "commands": commands, "permissions": permissions,
                    "daily_creates": [dict(row) for row in
                                      db.execute("SELECT * FROM daily_creates")]}
