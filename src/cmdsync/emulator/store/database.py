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
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Application:
    """An application: its flags (EMBEDDED = 1 << 17) and supported install types.

    ``integration_types`` are the installation contexts it supports (0
    GUILD_INSTALL, 1 USER_INSTALL), sorted; ``install_params`` maps a
    context (``"0"``, ``"1"``) to its ``oauth2_install_params`` as Discord
    returns them (``{"scopes": [...], "permissions": "0"}``), where set.
    Its bot user has the application's id (as on Discord since 2016).
    ``interactions_endpoint_url`` is where interactions are POSTed (None:
    not set; Discord's "Receiving an Interaction"). ``redirect_uris`` are the
    OAuth2 redirect URIs registered for it, matched exactly (Discord's "OAuth2"
    topic).
    """

    id: str
    name: str
    flags: int
    integration_types: tuple[int, ...]
    client_secret: str
    install_params: Mapping[str, Any] = field(default_factory=dict, compare=False)
    interactions_endpoint_url: str | None = None
    redirect_uris: tuple[str, ...] = ()


@dataclass(frozen=True)
class Token:
    """A bot or bearer token and what it may do.

    ``expires_at`` is in epoch seconds (None: never). ``guilds`` are the
    guilds the token's user may manage (bearer tokens of seeded users).
    ``grant_id`` is the OAuth2 grant (authorization code) that issued it, if
    one did (:mod:`cmdsync.emulator.oauth2.grants`).
    """

    token: str
    kind: str  # "bot" or "bearer"
    application_id: str
    user_id: str | None
    scopes: frozenset[str]
    expires_at: float | None
    guilds: frozenset[str]
    grant_id: str | None = None


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
    # the body as JSON text, when the writer has it already (saved as is)
    text: str | None = field(default=None, compare=False, repr=False)


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


class Store:
    """Thread-safe SQLite state; see the module docstring."""

    def __init__(self, path: str = ":memory:") -> None:
        """Open (or create, readable by its owner only: it holds tokens) the state at ``path``.

        Raises :class:`~cmdsync.errors.UsageError` naming the file when it is
        not an SQLite database this emulator can use (corrupt, a directory,
        not writable).
        """
        self._lock = threading.RLock()
        self._answering: dict[str, threading.Event] = {}
        self._refusals: dict[str, str] = {}  # why the last callback was refused, by token
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

    @contextmanager
    def answering(self, token: str) -> Iterator[threading.Event]:
        """Mark the interaction of ``token`` as delivered and its HTTP answer not yet taken.

        Yields an event that :meth:`responded` sets: the response came through
        the callback route meanwhile.
        """
        event, responded = threading.Event(), threading.Event()
        with self._lock:
            self._answering[token] = event
            self._responded[token] = responded
        try:
            yield responded
        finally:
            with self._lock:
                self._answering.pop(token, None)
                self._responded.pop(token, None)
                self._refusals.pop(token, None)
            event.set()

    def responded(self, token: str) -> None:
        """Tell whoever waits in :meth:`answering` that the interaction of ``token`` has
        its response (recorded and committed)."""
        with self._lock:
            event = self._responded.get(token)
        if event is not None:
            event.set()

    def refused(self, token: str, reason: str) -> None:
        """Record why a callback for the interaction of ``token`` was refused, while it is
        :meth:`answering`, so that its failure says so (:meth:`refusal`)."""
        with self._lock:
            if token in self._answering:
                self._refusals[token] = reason

    def refusal(self, token: str) -> str | None:
        """Why the last callback for the interaction of ``token`` was refused, if one was."""
        with self._lock:
            return self._refusals.get(token)

    def wait_for_answer(self, token: str, timeout: float) -> None:
        """Wait at most ``timeout`` seconds while the interaction of ``token`` is
        :meth:`answering` (not at all otherwise)."""
        with self._lock:
            event = self._answering.get(token)
        if event is not None:
            event.wait(timeout)

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

    # -- identities -------------------------------------------------------

    def add_application(self, app: Application) -> None:
        with self.transaction() as db:
            self.save_application(db, app)

    def save_application(self, db: sqlite3.Connection, app: Application) -> None:
        """Insert or replace ``app`` inside an open transaction."""
        db.execute("INSERT OR REPLACE INTO applications (id, name, flags, integration_types, "
                   "client_secret, install_params, interactions_endpoint_url, redirect_uris) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (app.id, app.name, app.flags, json.dumps(app.integration_types),
                    app.client_secret, json.dumps(dict(app.install_params), sort_keys=True),
                    app.interactions_endpoint_url, json.dumps(list(app.redirect_uris))))

    def application(self, app_id: str) -> Application | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM applications WHERE id = ?",
                                   (app_id,)).fetchone()
        if row is None:
            return None
        return Application(row["id"], row["name"], row["flags"],
                           tuple(json.loads(row["integration_types"])), row["client_secret"],
                           json.loads(row["install_params"]), row["interactions_endpoint_url"],
                           tuple(json.loads(row["redirect_uris"])))

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
                  installed: Sequence[str] | None = None,
                  settings: Mapping[str, Any] | None = None) -> None:
        """Add a guild; ``installed`` lists the applications in it (None: every one);
        ``settings`` is ``{"owner_id", "preferred_locale"}`` (either may be absent)."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO guilds (id, name, installed, settings) "
                       "VALUES (?, ?, ?, ?)",
                       (guild_id, name, None if installed is None else json.dumps(
                           [str(a) for a in installed]), json.dumps(dict(settings or {}))))

    def guild(self, guild_id: str) -> dict[str, Any] | None:
        """``{"id", "name", "owner_id", "preferred_locale", ...}`` or None."""
        with self._lock:
            row = self._db.execute("SELECT * FROM guilds WHERE id = ?", (guild_id,)).fetchone()
        if row is None:
            return None
        return {"id": row["id"], "name": row["name"], **json.loads(row["settings"])}

    def guild_ids(self) -> list[str]:
        """The ids of every guild, in the order added."""
        with self._lock:
            return [row["id"] for row in self._db.execute("SELECT id FROM guilds ORDER BY rowid")]

    def guilds_of(self, application_id: str) -> list[str]:
        """The ids of the guilds ``application_id`` is installed in, in the order added."""
        with self._lock:
            rows = self._db.execute("SELECT id, installed FROM guilds ORDER BY rowid").fetchall()
        return [row["id"] for row in rows if row["installed"] is None
                or application_id in json.loads(row["installed"])]

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
            self.save_token(db, token)

    def save_token(self, db: sqlite3.Connection, token: Token) -> None:
        """Insert or replace ``token`` inside an open transaction."""
        db.execute("INSERT OR REPLACE INTO tokens (token, kind, application_id, user_id, "
                   "scopes, expires_at, guilds, grant_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (token.token, token.kind, token.application_id, token.user_id,
                    " ".join(sorted(token.scopes)), token.expires_at,
                    json.dumps(sorted(token.guilds)), token.grant_id))

    def token(self, value: str) -> Token | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM tokens WHERE token = ?", (value,)).fetchone()
        if row is None:
            return None
        return Token(row["token"], row["kind"], row["application_id"], row["user_id"],
                     frozenset(row["scopes"].split()), row["expires_at"],
                     frozenset(json.loads(row["guilds"])), row["grant_id"])

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

    def scope_version(self, app_id: str, guild_id: str) -> tuple[int, int]:
        """A value that changes whenever a command of the scope is saved or deleted
        (and when the store is reset, or a transaction rolled back)."""
        with self._lock:
            return self._epoch, self._versions.get((app_id, guild_id), 0)

    def _changed(self, app_id: str, guild_id: str) -> None:
        key = (app_id, guild_id)
        self._versions[key] = self._versions.get(key, 0) + 1

    def remembered(self, key: Any, version: tuple[int, int], compute: Callable[[], T]) -> T:
        """``compute()``, kept under ``key`` until ``version`` (a
        :meth:`scope_version`) changes; the value is shared, never to be changed."""
        with self._lock:
            kept = self._remembered.get(key)
            if kept is not None and kept[0] == version:
                return kept[1]  # type: ignore[no-any-return]
            value = compute()
            if len(self._remembered) >= _REMEMBERED_KEPT:
                self._remembered.pop(next(iter(self._remembered)))
            self._remembered[key] = (version, value)
            return value

    def commands(self, db: sqlite3.Connection, app_id: str, guild_id: str
                 ) -> list[StoredCommand]:
        rows = db.execute("SELECT * FROM commands WHERE application_id = ? AND guild_id = ? "
                          "ORDER BY seq", (app_id, guild_id)).fetchall()
        return [self._command(row) for row in rows]

    def command(self, db: sqlite3.Connection, app_id: str, guild_id: str, command_id: str
                ) -> StoredCommand | None:
        row = db.execute("SELECT * FROM commands WHERE application_id = ? AND guild_id = ? "
                         "AND id = ?", (app_id, guild_id, command_id)).fetchone()
        return self._command(row) if row else None

    def _command(self, row: sqlite3.Row) -> StoredCommand:
        """A row as a command, its body parsed once per distinct text (and shared)."""
        text = row["body"]
        body = self._bodies.get(text)
        if body is None:
            body = self._body(text, json.loads(text))
        return StoredCommand(row["id"], row["application_id"], row["guild_id"], row["type"],
                             row["name"], body, row["version"], text)

    def _body(self, text: str, body: dict[str, Any]) -> dict[str, Any]:
        if len(self._bodies) >= _BODIES_KEPT:
            self._bodies.pop(next(iter(self._bodies)))
        self._bodies[text] = body
        return body

    def save_command(self, db: sqlite3.Connection, command: StoredCommand) -> None:
        self.save_commands(db, [command])

    def save_commands(self, db: sqlite3.Connection, commands: Sequence[StoredCommand]) -> None:
        """Insert or replace ``commands`` in one statement; each keeps its place in its
        scope's order, and a new one goes last, in the order given."""
        if not commands:
            return
        ids = [c.id for c in commands]
        seqs: dict[str, int] = {}
        for start in range(0, len(ids), 500):  # SQLite's bound on parameters
            chunk = ids[start:start + 500]
            seqs.update((row["id"], row["seq"]) for row in db.execute(
                f"SELECT id, seq FROM commands WHERE id IN ({', '.join('?' * len(chunk))})",
                chunk))
        following = self._next_seq(db)
        rows = []
        for command in commands:
            seq = seqs.get(command.id)
            if seq is None:
                seq = seqs[command.id] = following
                following += 1
            text = command.text if command.text is not None else json.dumps(command.body)
            self._body(text, command.body)
            rows.append((command.id, command.application_id, command.guild_id, command.type,
                         command.name, text, command.version, seq))
            self._changed(command.application_id, command.guild_id)
        db.executemany("INSERT OR REPLACE INTO commands VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _next_seq(self, db: sqlite3.Connection) -> int:
        row = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM commands").fetchone()
        return int(row["seq"])

    def delete_command(self, db: sqlite3.Connection, command: StoredCommand) -> None:
        db.execute("DELETE FROM commands WHERE id = ?", (command.id,))
        self._changed(command.application_id, command.guild_id)
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

    # -- fixtures: users, and each guild's roles, members, channels, messages --

    def put_fixture(self, kind: str, guild_id: str, item_id: str, body: Mapping[str, Any]
                    ) -> None:
        """Add or replace one fixture (``kind`` user, role, member, channel or message;
        ``guild_id`` "" for users)."""
        with self.transaction() as db:
            existing = db.execute("SELECT seq FROM fixtures WHERE kind = ? AND guild_id = ? "
                                  "AND id = ?", (kind, guild_id, item_id)).fetchone()
            seq = existing["seq"] if existing else int(db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM fixtures").fetchone()[0])
            db.execute("INSERT OR REPLACE INTO fixtures VALUES (?, ?, ?, ?, ?)",
                       (kind, guild_id, item_id, json.dumps(dict(body)), seq))

    def fixture(self, kind: str, guild_id: str, item_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM fixtures WHERE kind = ? AND guild_id = ? "
                                   "AND id = ?", (kind, guild_id, item_id)).fetchone()
        return json.loads(row["body"]) if row else None

    def fixtures(self, kind: str, guild_id: str) -> list[dict[str, Any]]:
        """Every fixture of ``kind`` in ``guild_id``, in the order they were added."""
        with self._lock:
            rows = self._db.execute("SELECT body FROM fixtures WHERE kind = ? AND guild_id = ? "
                                    "ORDER BY seq", (kind, guild_id)).fetchall()
        return [json.loads(row["body"]) for row in rows]

    def find_fixture(self, kind: str, item_id: str) -> tuple[str, dict[str, Any]] | None:
        """``(guild_id, body)`` of the fixture of ``kind`` with ``item_id`` in whichever
        guild holds it (the first added), or None."""
        with self._lock:
            row = self._db.execute("SELECT guild_id, body FROM fixtures WHERE kind = ? AND "
                                   "id = ? ORDER BY seq LIMIT 1", (kind, item_id)).fetchone()
        return (str(row["guild_id"]), json.loads(row["body"])) if row else None

    def delete_fixture(self, db: sqlite3.Connection, kind: str, guild_id: str,
                       item_id: str) -> None:
        db.execute("DELETE FROM fixtures WHERE kind = ? AND guild_id = ? AND id = ?",
                   (kind, guild_id, item_id))

    # -- interactions and their messages ----------------------------------------

    def save_interaction(self, db: sqlite3.Connection, interaction_id: str, app_id: str,
                         token: str, created_at: float, payload: Mapping[str, Any],
                         response: Mapping[str, Any] | None) -> None:
        db.execute("INSERT OR REPLACE INTO interactions VALUES (?, ?, ?, ?, ?, ?)",
                   (interaction_id, app_id, token, created_at, json.dumps(dict(payload)),
                    None if response is None else json.dumps(dict(response))))

    def interaction(self, db: sqlite3.Connection, *, interaction_id: str | None = None,
                    token: str | None = None) -> dict[str, Any] | None:
        """``{"id", "application_id", "token", "created_at", "payload", "response"}``
        by id or by token, or None."""
        column, value = ("id", interaction_id) if interaction_id is not None else ("token", token)
        row = db.execute(f"SELECT * FROM interactions WHERE {column} = ?", (value,)).fetchone()
        if row is None:
            return None
        return {"id": row["id"], "application_id": row["application_id"],
                "token": row["token"], "created_at": row["created_at"],
                "payload": json.loads(row["payload"]),
                "response": None if row["response"] is None else json.loads(row["response"])}

    def save_message(self, db: sqlite3.Connection, interaction_id: str, body: Mapping[str, Any],
                     *, original: bool) -> None:
        db.execute("INSERT OR REPLACE INTO messages VALUES (?, ?, ?, ?)",
                   (body["id"], interaction_id, int(original), json.dumps(dict(body))))

    def delete_message(self, db: sqlite3.Connection, message_id: str) -> None:
        db.execute("DELETE FROM messages WHERE id = ?", (message_id,))

    def messages(self, db: sqlite3.Connection, interaction_id: str
                 ) -> list[tuple[bool, dict[str, Any]]]:
        """``(original, message)`` pairs of an interaction, oldest first."""
        rows = db.execute("SELECT original, body FROM messages WHERE interaction_id = ? "
                          "ORDER BY length(id), id", (interaction_id,)).fetchall()
        return [(bool(row["original"]), json.loads(row["body"])) for row in rows]

    def seen_version(self, db: sqlite3.Connection, user_id: str, command_id: str
                     ) -> str | None:
        """The command version the user's client last saw (read-repair)."""
        row = db.execute("SELECT version FROM seen_versions WHERE user_id = ? AND "
                         "command_id = ?", (user_id, command_id)).fetchone()
        return str(row["version"]) if row else None

    def see_version(self, db: sqlite3.Connection, user_id: str, command_id: str,
                    version: str) -> None:
        db.execute("INSERT OR REPLACE INTO seen_versions VALUES (?, ?, ?)",
                   (user_id, command_id, version))

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

