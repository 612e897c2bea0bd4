"""The emulator's state in SQLite: applications, guilds, tokens, commands, overwrites.

One :class:`Store` wraps one ``sqlite3`` connection (``":memory:"`` by
default, a file with ``--state FILE`` to survive restarts). Every public
method runs in one transaction under a lock, so concurrent requests see a
state equal to some order of whole requests, never a mix (a bulk overwrite
is all or nothing).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS applications (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, flags INTEGER NOT NULL,
    integration_types TEXT NOT NULL, bot_user_id TEXT NOT NULL, bot_username TEXT NOT NULL,
    client_secret TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS guilds (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, kind TEXT NOT NULL, application_id TEXT NOT NULL,
    user_id TEXT, scopes TEXT NOT NULL, expires_at REAL, guilds TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY, application_id TEXT NOT NULL, guild_id TEXT NOT NULL,
    type INTEGER NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, version TEXT NOT NULL,
    seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS commands_scope ON commands (application_id, guild_id, seq);
CREATE TABLE IF NOT EXISTS permissions (
    application_id TEXT NOT NULL, guild_id TEXT NOT NULL, target_id TEXT NOT NULL,
    body TEXT NOT NULL, PRIMARY KEY (application_id, guild_id, target_id));
CREATE TABLE IF NOT EXISTS daily_creates (
    application_id TEXT NOT NULL, guild_id TEXT NOT NULL, day TEXT NOT NULL,
    count INTEGER NOT NULL, PRIMARY KEY (application_id, guild_id, day));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


@dataclass(frozen=True)
class Application:
    id: str
    name: str
    flags: int
    integration_types: list[int]
    bot_user_id: str
    bot_username: str
    client_secret: str


@dataclass(frozen=True)
class Token:
    token: str
    kind: str  # "bot" or "bearer"
    application_id: str
    user_id: str | None
    scopes: frozenset[str]
    expires_at: float | None  # epoch seconds; None never expires
    guilds: frozenset[str]  # guilds the token's user may manage (bearer tokens)


@dataclass(frozen=True)
class StoredCommand:
    """A command as stored: its scope, identity and the fields that were set."""

    id: str
    application_id: str
    guild_id: str  # "" for a global command
    type: int
    name: str
    body: dict[str, Any]
    version: str


class Store:
    """Thread-safe SQLite state; see the module docstring."""

    def __init__(self, path: str = ":memory:") -> None:
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.executescript(_SCHEMA)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and an SQLite transaction for a whole request."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def reset(self) -> None:
        """Drop every row of every table."""
        with self.transaction() as db:
            for table in ("applications", "guilds", "tokens", "commands", "permissions",
                          "daily_creates", "counters"):
                db.execute(f"DELETE FROM {table}")

    # -- identities -------------------------------------------------------

    def add_application(self, app: Application) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO applications VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (app.id, app.name, app.flags, json.dumps(app.integration_types),
                        app.bot_user_id, app.bot_username, app.client_secret))

    def application(self, app_id: str) -> Application | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM applications WHERE id = ?",
                                   (app_id,)).fetchone()
        if row is None:
            return None
        return Application(row["id"], row["name"], row["flags"],
                           json.loads(row["integration_types"]), row["bot_user_id"],
                           row["bot_username"], row["client_secret"])

    def update_application(self, app_id: str, *, flags: int | None = None,
                           integration_types: list[int] | None = None) -> None:
        with self.transaction() as db:
            if flags is not None:
                db.execute("UPDATE applications SET flags = ? WHERE id = ?", (flags, app_id))
            if integration_types is not None:
                db.execute("UPDATE applications SET integration_types = ? WHERE id = ?",
                           (json.dumps(integration_types), app_id))

    def add_guild(self, guild_id: str, name: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO guilds VALUES (?, ?)", (guild_id, name))

    def guild_exists(self, guild_id: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM guilds WHERE id = ?",
                                    (guild_id,)).fetchone() is not None

    def add_token(self, token: Token) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (token.token, token.kind, token.application_id, token.user_id,
                        " ".join(sorted(token.scopes)), token.expires_at,
                        json.dumps(sorted(token.guilds))))

    def token(self, value: str) -> Token | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM tokens WHERE token = ?", (value,)).fetchone()
        if row is None:
            return None
        return Token(row["token"], row["kind"], row["application_id"], row["user_id"],
                     frozenset(row["scopes"].split()), row["expires_at"],
                     frozenset(json.loads(row["guilds"])))

    # -- commands -----------------------------------------------------------

    def next_snowflake(self, db: sqlite3.Connection) -> str:
        """A new snowflake: milliseconds since Discord's epoch, then a counter."""
        row = db.execute("SELECT value FROM counters WHERE name = 'snowflake'").fetchone()
        counter = (row["value"] if row else 0) + 1
        db.execute("INSERT OR REPLACE INTO counters VALUES ('snowflake', ?)", (counter,))
        millis = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return str((millis << 22) | (counter & 0x3FFFFF))

    def commands(self, db: sqlite3.Connection, app_id: str, guild_id: str
                 ) -> list[StoredCommand]:
        rows = db.execute("SELECT * FROM commands WHERE application_id = ? AND guild_id = ? "
                          "ORDER BY seq", (app_id, guild_id)).fetchall()
        return [_command(row) for row in rows]

    def command(self, db: sqlite3.Connection, app_id: str, guild_id: str, command_id: str
                ) -> StoredCommand | None:
        row = db.execute("SELECT * FROM commands WHERE application_id = ? AND guild_id = ? "
                         "AND id = ?", (app_id, guild_id, command_id)).fetchone()
        return _command(row) if row else None

    def save_command(self, db: sqlite3.Connection, command: StoredCommand) -> None:
        existing = db.execute("SELECT seq FROM commands WHERE id = ?", (command.id,)).fetchone()
        seq = existing["seq"] if existing else self._next_seq(db)
        db.execute("INSERT OR REPLACE INTO commands VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (command.id, command.application_id, command.guild_id, command.type,
                    command.name, json.dumps(command.body), command.version, seq))

    def _next_seq(self, db: sqlite3.Connection) -> int:
        row = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM commands").fetchone()
        return int(row["seq"])

    def delete_command(self, db: sqlite3.Connection, command: StoredCommand) -> None:
        db.execute("DELETE FROM commands WHERE id = ?", (command.id,))
        self.drop_permissions(db, command.application_id, command.id)

    # -- permission overwrites ----------------------------------------------

    def drop_permissions(self, db: sqlite3.Connection, app_id: str, target_id: str) -> None:
        """Deleting or renaming a command drops its overwrites in every guild."""
        db.execute("DELETE FROM permissions WHERE application_id = ? AND target_id = ?",
                   (app_id, target_id))

    def permissions(self, db: sqlite3.Connection, app_id: str, guild_id: str
                    ) -> dict[str, list[dict[str, Any]]]:
        rows = db.execute("SELECT target_id, body FROM permissions WHERE application_id = ? "
                          "AND guild_id = ? ORDER BY target_id", (app_id, guild_id)).fetchall()
        return {row["target_id"]: json.loads(row["body"]) for row in rows}

    def set_permissions(self, db: sqlite3.Connection, app_id: str, guild_id: str,
                        target_id: str, overwrites: list[dict[str, Any]]) -> None:
        if overwrites:
            db.execute("INSERT OR REPLACE INTO permissions VALUES (?, ?, ?, ?)",
                       (app_id, guild_id, target_id, json.dumps(overwrites)))
        else:
            db.execute("DELETE FROM permissions WHERE application_id = ? AND guild_id = ? "
                       "AND target_id = ?", (app_id, guild_id, target_id))

    # -- the daily create budget ----------------------------------------------

    def creates_today(self, db: sqlite3.Connection, app_id: str, guild_id: str,
                      day: str) -> int:
        row = db.execute("SELECT count FROM daily_creates WHERE application_id = ? AND "
                         "guild_id = ? AND day = ?", (app_id, guild_id, day)).fetchone()
        return int(row["count"]) if row else 0

    def count_creates(self, db: sqlite3.Connection, app_id: str, guild_id: str, day: str,
                      count: int) -> None:
        total = self.creates_today(db, app_id, guild_id, day) + count
        db.execute("INSERT OR REPLACE INTO daily_creates VALUES (?, ?, ?, ?)",
                   (app_id, guild_id, day, total))


def _command(row: sqlite3.Row) -> StoredCommand:
    return StoredCommand(row["id"], row["application_id"], row["guild_id"], row["type"],
                         row["name"], json.loads(row["body"]), row["version"])
