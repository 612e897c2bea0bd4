"""The SQLite file under the emulator's state: its tables, opening it, transactions.

:class:`SQLiteStore` is the base of :class:`~cmdsync.emulator.store.database.Store`:
one ``sqlite3`` connection, a lock, and the transaction every public method runs in.
The rows of each resource are read and written by the mixins beside it
(``applications``, ``commands``, ``fixtures``, ``interactions``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from cmdsync.errors import UsageError

DISCORD_EPOCH_MS = 1_420_070_400_000
_REMEMBERED_KEPT = 1024  # values remembered by scope version (a listing each), at most
_BODIES_KEPT = 16_384  # parsed bodies (distinct texts), at most
T = TypeVar("T")

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
CREATE INDEX IF NOT EXISTS commands_seq ON commands (seq);  -- MAX(seq) for each new command
CREATE TABLE IF NOT EXISTS permissions (
    application_id TEXT NOT NULL, guild_id TEXT NOT NULL, target_id TEXT NOT NULL,
    body TEXT NOT NULL, PRIMARY KEY (application_id, guild_id, target_id));
CREATE TABLE IF NOT EXISTS daily_creates (
    application_id TEXT NOT NULL, guild_id TEXT NOT NULL, day TEXT NOT NULL,
    count INTEGER NOT NULL, PRIMARY KEY (application_id, guild_id, day));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS fixtures (
    kind TEXT NOT NULL, guild_id TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
    seq INTEGER NOT NULL, PRIMARY KEY (kind, guild_id, id));
CREATE TABLE IF NOT EXISTS interactions (
    id TEXT PRIMARY KEY, application_id TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL, payload TEXT NOT NULL, response TEXT);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY, interaction_id TEXT NOT NULL, original INTEGER NOT NULL,
    body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS channel_messages (
    id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS channel_messages_channel ON channel_messages (channel_id);
CREATE TABLE IF NOT EXISTS seen_versions (
    user_id TEXT NOT NULL, command_id TEXT NOT NULL, version TEXT NOT NULL,
    PRIMARY KEY (user_id, command_id));
CREATE TABLE IF NOT EXISTS oauth_requests (
    nonce TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS oauth_codes (
    code TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at REAL NOT NULL, grant_id TEXT);
CREATE TABLE IF NOT EXISTS oauth_grants (
    id TEXT PRIMARY KEY, application_id TEXT NOT NULL, user_id TEXT NOT NULL,
    scopes TEXT NOT NULL, refresh_token TEXT NOT NULL UNIQUE);
"""
# Columns added since the first state files; an older file gets them on open.
_ADDED_COLUMNS = {"applications": {"install_params": "TEXT NOT NULL DEFAULT '{}'",
                                   "interactions_endpoint_url": "TEXT",
                                   "redirect_uris": "TEXT NOT NULL DEFAULT '[]'"},
                  "tokens": {"grant_id": "TEXT"},  # the OAuth2 grant that issued it
                  # installed: JSON list of the applications installed in the guild; NULL:
                  # every one. settings: JSON {"owner_id", "preferred_locale"}.
                  "guilds": {"installed": "TEXT", "settings": "TEXT NOT NULL DEFAULT '{}'"}}
TABLES = ("applications", "guilds", "tokens", "commands", "permissions", "daily_creates",
          "counters", "fixtures", "interactions", "messages", "channel_messages",
          "seen_versions", "oauth_requests", "oauth_codes", "oauth_grants")


@contextmanager
def opening(path: str) -> Iterator[None]:
    """Hold ``<path>.lock`` (the ``filelock`` library) while the state file ``path`` is
    created, given its tables and seeded: two processes starting on one new file at
    once (two ``plan --local`` in a fresh checkout) otherwise both add the same column
    or seed the same rows. Nothing is held for ``":memory:"``. Raises
    :class:`~cmdsync.errors.UsageError` when the lock stays taken for 60 seconds.
    """
    if path == ":memory:" or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        yield  # in memory; or no directory to hold a lock: the Store says why it fails
        return
    from filelock import FileLock, Timeout

    try:
        with FileLock(path + ".lock", timeout=60):
            yield
    except Timeout as exc:
        raise UsageError(f"{path} stayed locked for 60 s while another process opened it "
                         f"(delete {path}.lock if none is running)") from exc


def _unusable(path: str, exc: BaseException) -> UsageError:
    reason = getattr(exc, "strerror", None) or exc
    return UsageError(f"cannot use {path} as the emulator's state: {reason}: give a state "
                      "file the emulator wrote, or a new path (delete a damaged one to "
                      "start afresh)")


class SQLiteStore:
    """One connection and its lock; every row method of the mixins runs under them."""

    def __init__(self, path: str = ":memory:") -> None:
        """Open (or create, readable by its owner only: it holds tokens) the state at ``path``.

        Raises :class:`~cmdsync.errors.UsageError` naming the file when it is
        not an SQLite database this emulator can use (corrupt, a directory,
        not writable).
        """
        self._lock = threading.RLock()
        self._answering: dict[str, threading.Event] = {}
        self._refusals: dict[str, str] = {}  # why the last callback was refused, by token
        self._raised: dict[str, str] = {}  # what the bot's handler raised, by token
        self._responded: dict[str, threading.Event] = {}
        self._epoch = 0  # changes when every scope's version does (a rollback, a reset)
        self._versions: dict[tuple[str, str], int] = {}
        self._remembered: dict[Any, tuple[tuple[int, int], Any]] = {}
        self._bodies: dict[str, dict[str, Any]] = {}  # body text -> the parsed body
        try:
            if path != ":memory:" and not os.path.lexists(path):
                try:
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
                except FileExistsError:
                    pass  # another process made it meanwhile: open that one
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.executescript(_SCHEMA)
            self._add_columns()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise _unusable(path, exc) from exc
            raise UsageError(f"cannot use {path} as the emulator's state: another process "
                             "(an apply, or `cmdsync emulator --state`) kept it locked; "
                             "run the command again when it is done") from exc
        except (sqlite3.Error, OSError) as exc:
            raise _unusable(path, exc) from exc

    def _add_columns(self) -> None:  # under opening()'s lock: no two processes at once
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
                self._epoch += 1  # what was remembered meanwhile may be undone
                raise
            else:
                self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def changes(self) -> tuple[int, int]:
        """A value that grows whenever the state changes: rows this store wrote
        (``total_changes``) and commits by other processes to the same file (``PRAGMA
        data_version``). The emulator console polls it for its live updates."""
        with self._lock:
            return (self._db.total_changes,
                    int(self._db.execute("PRAGMA data_version").fetchone()[0]))

    def reset(self) -> None:
        """Drop every row of every table."""
        with self.transaction() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table}")
            self._epoch += 1
            self._remembered.clear()

    def snapshot(self) -> sqlite3.Connection:
        """A copy of the whole state (an in-memory database), for :meth:`restore`."""
        copy = sqlite3.connect(":memory:", check_same_thread=False)
        with self._lock:
            self._db.backup(copy)
        return copy

    def restore(self, snapshot: sqlite3.Connection) -> None:
        """Make every table what it was when ``snapshot`` was taken (SQLite's backup of
        the copy onto this database, in one step)."""
        with self._lock:
            snapshot.backup(self._db)
            self._epoch += 1
            self._remembered.clear()

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

    def next_snowflakes(self, db: sqlite3.Connection, now: float, count: int) -> list[str]:
        """``count`` new snowflakes at ``now``, ascending, as :meth:`next_snowflake`
        would give them one by one (one read and one write in all)."""
        if count <= 0:
            return []
        row = db.execute("SELECT value FROM counters WHERE name = 'snowflake'").fetchone()
        last = int(row["value"]) if row else 0
        millis = max(int(now * 1000) - DISCORD_EPOCH_MS, 0)
        first = max(millis << 22, last + 1)
        db.execute("INSERT OR REPLACE INTO counters VALUES ('snowflake', ?)",
                   (first + count - 1,))
        return [str(first + n) for n in range(count)]
