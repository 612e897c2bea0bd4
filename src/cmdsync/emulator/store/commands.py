"""Application commands, their permission overwrites, the versions users saw, and the
daily create budget."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from cmdsync.emulator.domain.objects import StoredCommand
from cmdsync.emulator.store.sqlite import _BODIES_KEPT, _REMEMBERED_KEPT, SQLiteStore

T = TypeVar("T")


class CommandRows(SQLiteStore):
    """Application commands, their permission overwrites, the versions users saw, and the"""

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


    # -- the versions clients saw (read-repair) ------------------------------

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
