"""Applications, guilds and tokens, as the store keeps them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, cast

from cmdsync.emulator.domain.objects import Application, Guild, Token
from cmdsync.emulator.store.sqlite import SQLiteStore


class ApplicationRows(SQLiteStore):
    """Applications, guilds and tokens, as the store keeps them."""

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

    def guild(self, guild_id: str) -> Guild | None:
        """``{"id", "name", "owner_id", "preferred_locale"}`` (the last two when set) or None."""
        with self._lock:
            row = self._db.execute("SELECT * FROM guilds WHERE id = ?", (guild_id,)).fetchone()
        if row is None:
            return None
        return cast("Guild", {"id": row["id"], "name": row["name"], **json.loads(row["settings"])})

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

    def application_ids(self) -> list[str]:
        """Every application's id, in the order added (a DM channel's id depends on it)."""
        with self._lock:
            return [r["id"] for r in self._db.execute("SELECT id FROM applications "
                                                       "ORDER BY rowid")]

    def applications_in(self, guild_id: str) -> list[str]:
        """The ids of the applications installed in the guild, in the order added."""
        with self._lock:
            row = self._db.execute("SELECT installed FROM guilds WHERE id = ?",
                                   (guild_id,)).fetchone()
            ids = [r["id"] for r in self._db.execute("SELECT id FROM applications "
                                                      "ORDER BY rowid")]
        if row is None:
            return []
        return ids if row["installed"] is None else [
            a for a in ids if a in json.loads(row["installed"])]

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
