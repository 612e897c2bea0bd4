"""The emulator's state in SQLite: applications, guilds, tokens, commands, overwrites.

One :class:`Store` wraps one ``sqlite3`` connection (``":memory:"`` by
default, a file with ``--state FILE`` to survive restarts). Every public
method runs in one transaction under a lock, so concurrent requests see a
state equal to some order of whole requests, never a mix (a bulk overwrite
is all or nothing).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cmdsync.errors import UsageError

DISCORD_EPOCH_MS = 1_420_070_400_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS applications (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, flags INTEGER NOT NULL,
    integration_types TEXT NOT NULL, client_secret TEXT NOT NULL);
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
# Columns added since the first state files; an older file gets them on open.
_ADDED_COLUMNS = {"applications": {"install_params": "TEXT NOT NULL DEFAULT '{}'"},
                  # JSON list of the applications installed in the guild; NULL: every one
                  "guilds": {"installed": "TEXT"}}


@dataclass(frozen=True)
class Application:
    """An application: its flags (EMBEDDED = 1 << 17) and supported install types.

    ``integration_types`` are the installation contexts it supports (0
    GUILD_INSTALL, 1 USER_INSTALL), sorted; ``install_params`` maps a
    context (``"0"``, ``"1"``) to its ``oauth2_install_params`` as Discord
    returns them (``{"scopes": [...], "permissions": "0"}``), where set.
    Its bot user has the application's id (as on Discord since 2016).
    """

    id: str
    name: str
    flags: int
    integration_types: tuple[int, ...]
    client_secret: str
    install_params: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Token:
    """A bot or bearer token and what it may do.

    ``expires_at`` is in epoch seconds (None: never). ``guilds`` are the
    guilds the token's user may manage (bearer tokens of seeded users).
    """

    token: str
    kind: str  # "bot" or "bearer"
    application_id: str
    user_id: str | None
    scopes: frozenset[str]
    expires_at: float | None
    guilds: frozenset[str]


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
        """Open (or create, readable by its owner only: it holds tokens) the state at ``path``.

        Raises :class:`~cmdsync.errors.UsageError` naming the file when it is
        not an SQLite database this emulator can use (corrupt, a directory,
        not writable).
        """
        self._lock = threading.RLock()
        try:
            if path != ":memory:" and not os.path.lexists(path):
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.executescript(_SCHEMA)
            self._add_columns()
        except (sqlite3.Error, OSError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise UsageError(f"cannot use {path} as the emulator's state: {reason}: give a "
                             "state file the emulator wrote, or a new path (delete a "
                             "damaged one to start afresh)") from exc

    def _add_columns(self) -> None:
        for table, columns in _ADDED_COLUMNS.items():
            present = {row["name"] for row in self._db.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns.items():
                if name not in present:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

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
            self.save_application(db, app)

    def save_application(self, db: sqlite3.Connection, app: Application) -> None:
        """Insert or replace ``app`` inside an open transaction."""
        db.execute("INSERT OR REPLACE INTO applications (id, name, flags, integration_types, "
                   "client_secret, install_params) VALUES (?, ?, ?, ?, ?, ?)",
                   (app.id, app.name, app.flags, json.dumps(app.integration_types),
                    app.client_secret, json.dumps(dict(app.install_params), sort_keys=True)))

    def application(self, app_id: str) -> Application | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM applications WHERE id = ?",
                                   (app_id,)).fetchone()
        if row is None:
            return None
        return Application(row["id"], row["name"], row["flags"],
                           tuple(json.loads(row["integration_types"])), row["client_secret"],
                           json.loads(row["install_params"]))

    def first_user(self, app_id: str) -> str | None:
        """The lowest user id holding a bearer token of the application (its owner here)."""
        with self._lock:
            row = self._db.execute(
                "SELECT user_id FROM tokens WHERE application_id = ? AND user_id IS NOT NULL "
                "ORDER BY length(user_id), user_id LIMIT 1", (app_id,)).fetchone()
        return str(row["user_id"]) if row else None

    def guild_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM guilds").fetchone()[0])

    def add_guild(self, guild_id: str, name: str,
                  installed: Sequence[str] | None = None) -> None:
        """Add a guild; ``installed`` lists the applications in it (None: every one)."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO guilds (id, name, installed) VALUES (?, ?, ?)",
                       (guild_id, name, None if installed is None else json.dumps(
                           [str(a) for a in installed])))

    def guild_exists(self, guild_id: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM guilds WHERE id = ?",
                                    (guild_id,)).fetchone() is not None

    def installed_in(self, guild_id: str, application_id: str) -> bool:
        """Whether the application is in the guild with the applications.commands scope."""
        with self._lock:
            row = self._db.execute("SELECT installed FROM guilds WHERE id = ?",
                                   (guild_id,)).fetchone()
        return row is not None and (row["installed"] is None
                                    or application_id in json.loads(row["installed"]))

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

    def next_snowflake(self, db: sqlite3.Connection, now: float) -> str:
        """A new snowflake at ``now`` (epoch seconds): milliseconds since
        Discord's epoch shifted left 22 bits, and always above the last one
        issued in this state, so ids are unique and increase even if the clock
        stands still or goes back."""
        row = db.execute("SELECT value FROM counters WHERE name = 'snowflake'").fetchone()
        last = int(row["value"]) if row else 0
        millis = max(int(now * 1000) - DISCORD_EPOCH_MS, 0)
        value = max(millis << 22, last + 1)
        db.execute("INSERT OR REPLACE INTO counters VALUES ('snowflake', ?)", (value,))
        return str(value)

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

    def dump(self) -> dict[str, Any]:
        """The whole state as JSON-able rows, for the admin API.

        ``{"applications": [...], "guilds": [...], "commands": [{"id",
        "application_id", "guild_id" (null when global), "type", "name",
        "version", "body"}], "permissions": [{"application_id", "guild_id",
        "id", "permissions"}], "daily_creates": [...]}``; tokens are left out.
        """
        with self.transaction() as db:
            apps = [dict(row) for row in db.execute("SELECT * FROM applications ORDER BY id")]
            for app in apps:
                app["integration_types"] = json.loads(app["integration_types"])
                app["install_params"] = json.loads(app["install_params"])
                del app["client_secret"]
            commands = [{"id": c.id, "application_id": c.application_id,
                         "guild_id": c.guild_id or None, "type": c.type, "name": c.name,
                         "version": c.version, "body": c.body}
                        for c in map(_command, db.execute("SELECT * FROM commands ORDER BY seq"))]
            permissions = [{"application_id": row["application_id"],
                            "guild_id": row["guild_id"], "id": row["target_id"],
                            "permissions": json.loads(row["body"])}
                           for row in db.execute("SELECT * FROM permissions ORDER BY "
                                                 "application_id, guild_id, target_id")]
            return {"applications": apps,
                    "guilds": [dict(row) for row in db.execute("SELECT * FROM guilds")],
                    "commands": commands, "permissions": permissions,
                    "daily_creates": [dict(row) for row in
                                      db.execute("SELECT * FROM daily_creates")]}

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
