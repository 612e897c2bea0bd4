"""What the seed puts in guilds, typed per resource: users, members, roles, channels and
the messages already in channels.

Rows keep the seed's JSON (:mod:`cmdsync.emulator.domain.objects` types each), one
table for all, keyed by the resource's kind and guild ("" for users) and ordered as
they were added. Writes take an open transaction (``db``) so that they join the
change they are part of; reads take the lock.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, Literal, cast

from cmdsync.emulator.domain.objects import Channel, Guild, Member, Role, SeedMessage, User
from cmdsync.emulator.domain.permissions import base_permissions
from cmdsync.emulator.store.sqlite import SQLiteStore

Kind = Literal["user", "role", "member", "channel", "message", "ban", "reaction",
               "interaction_failure", "pin",  # a pin: keyed by channel (as guild) and message
               "thread_member"]  # keyed by thread (as guild) and user
# The key of each kind's id in its row.
ID_KEYS: Mapping[str, str] = {"role": "id", "member": "user_id", "channel": "id",
                              "message": "id", "user": "id"}


class FixtureRows(SQLiteStore):
    """Users, members, roles, channels and seeded messages, typed per resource."""

    def put_fixture(self, db: sqlite3.Connection | None, kind: Kind, guild_id: str,
                    item_id: str, body: Mapping[str, Any]) -> None:
        """Add or replace one row (``guild_id`` "" for users), in the open transaction
        ``db`` or, when None, in one of its own."""
        if db is None:
            with self.transaction() as own:
                self.put_fixture(own, kind, guild_id, item_id, body)
            return
        existing = db.execute("SELECT seq FROM fixtures WHERE kind = ? AND guild_id = ? "
                              "AND id = ?", (kind, guild_id, item_id)).fetchone()
        seq = existing["seq"] if existing else int(db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM fixtures").fetchone()[0])
        db.execute("INSERT OR REPLACE INTO fixtures VALUES (?, ?, ?, ?, ?)",
                   (kind, guild_id, item_id, json.dumps(dict(body)), seq))

    def delete_fixture(self, db: sqlite3.Connection, kind: Kind, guild_id: str,
                       item_id: str) -> None:
        db.execute("DELETE FROM fixtures WHERE kind = ? AND guild_id = ? AND id = ?",
                   (kind, guild_id, item_id))

    def fixture(self, kind: Kind, guild_id: str, item_id: str) -> dict[str, Any] | None:
        """One row as stored, or None (the typed readers below are the way in)."""
        with self._lock:
            row = self._db.execute("SELECT body FROM fixtures WHERE kind = ? AND guild_id = ? "
                                   "AND id = ?", (kind, guild_id, item_id)).fetchone()
        return json.loads(row["body"]) if row else None

    def _one(self, kind: Kind, guild_id: str, item_id: str) -> Any:
        return self.fixture(kind, guild_id, item_id)

    def _all(self, kind: Kind, guild_id: str) -> list[Any]:
        with self._lock:
            rows = self._db.execute("SELECT body FROM fixtures WHERE kind = ? AND guild_id = ? "
                                    "ORDER BY seq", (kind, guild_id)).fetchall()
        return [json.loads(row["body"]) for row in rows]

    def _find(self, kind: Kind, item_id: str) -> tuple[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT guild_id, body FROM fixtures WHERE kind = ? AND "
                                   "id = ? ORDER BY seq LIMIT 1", (kind, item_id)).fetchone()
        return (str(row["guild_id"]), json.loads(row["body"])) if row else None

    # -- one reader per resource ----------------------------------------------------

    def user(self, user_id: str) -> User | None:
        """A seeded user, or None."""
        return cast("User | None", self._one("user", "", user_id))

    def users(self) -> list[User]:
        """Every seeded user, in the order added."""
        return cast("list[User]", self._all("user", ""))

    def member(self, guild_id: str, user_id: str) -> Member | None:
        return cast("Member | None", self._one("member", guild_id, user_id))

    def members(self, guild_id: str) -> list[Member]:
        return cast("list[Member]", self._all("member", guild_id))

    def role(self, guild_id: str, role_id: str) -> Role | None:
        return cast("Role | None", self._one("role", guild_id, role_id))

    def roles(self, guild_id: str) -> list[Role]:
        """The guild's seeded roles (``@everyone``, when seeded, has the guild's id)."""
        return cast("list[Role]", self._all("role", guild_id))

    def channel(self, guild_id: str, channel_id: str) -> Channel | None:
        return cast("Channel | None", self._one("channel", guild_id, channel_id))

    def channels(self, guild_id: str) -> list[Channel]:
        return cast("list[Channel]", self._all("channel", guild_id))

    def find_channel(self, channel_id: str) -> tuple[str, Channel] | None:
        """``(guild_id, channel)`` of the channel in whichever guild holds it, or None."""
        return cast("tuple[str, Channel] | None", self._find("channel", channel_id))

    def find_role(self, role_id: str) -> tuple[str, Role] | None:
        """``(guild_id, role)`` of the role in whichever guild holds it, or None."""
        return cast("tuple[str, Role] | None", self._find("role", role_id))

    def seed_message(self, guild_id: str, message_id: str) -> SeedMessage | None:
        return cast("SeedMessage | None", self._one("message", guild_id, message_id))

    def seed_messages(self, guild_id: str) -> list[SeedMessage]:
        return cast("list[SeedMessage]", self._all("message", guild_id))

    def pins(self, channel_id: str) -> list[dict[str, Any]]:
        """The channel's pins, ``{"message_id", "pinned_at"}``, in the order they were made."""
        return self._all("pin", channel_id)

    def thread_members(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's members, ``{"user_id", "join_timestamp", "flags"}``, in the order
        they joined."""
        return self._all("thread_member", thread_id)

    def bans(self, guild_id: str) -> list[dict[str, Any]]:
        """The guild's bans, ``{"user_id", "reason"}``, in the order they were made."""
        return self._all("ban", guild_id)

    # -- what members may do ----------------------------------------------------------

    def member_permissions(self, guild: Guild, user_id: str, member: Member) -> int:
        """The member's guild permissions (:func:`~cmdsync.emulator.domain.permissions.
        base_permissions` of the guild's roles; channel overwrites are not modelled)."""
        bits = {role["id"]: int(role["permissions"]) for role in self.roles(guild["id"])}
        return int(base_permissions(owner=guild.get("owner_id") == user_id,
                                    everyone=bits.get(guild["id"], 0),
                                    roles=(bits.get(r, 0) for r in member.get("roles") or [])))

    def bot_permissions(self, guild: Guild, app_id: str) -> int:
        """The guild permissions of the application's bot: its member's, else
        ``@everyone``'s (an application installed without its bot)."""
        bot = self.member(guild["id"], app_id)
        if bot is not None:
            return self.member_permissions(guild, app_id, bot)
        everyone = self.role(guild["id"], guild["id"])
        return int(everyone["permissions"]) if everyone else 0

    # -- why an interaction failed (kept beside it; a reset forgets both) ------------

    def record_failure(self, interaction_id: str, failure: str, code: str | None) -> None:
        """Keep why the interaction ``interaction_id`` failed, in words and as a code."""
        self.put_fixture(None, "interaction_failure", "", interaction_id,
                         {"failure": failure, "code": code})

    def failure(self, interaction_id: str) -> dict[str, str | None]:
        """``{"failure", "failure_code"}`` as :meth:`record_failure` kept them (None and
        None for an interaction that did not fail)."""
        stored = self.fixture("interaction_failure", "", interaction_id) or {}
        return {"failure": stored.get("failure"), "failure_code": stored.get("code")}
