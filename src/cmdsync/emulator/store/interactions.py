"""Interactions, their messages, and the answers a delivery waits for."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cmdsync.emulator.domain.objects import Interaction
from cmdsync.emulator.store.sqlite import SQLiteStore


class InteractionRows(SQLiteStore):
    """Interactions, their messages, and the answers a delivery waits for."""

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
                self._raised.pop(token, None)
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

    def raised(self, token: str, error: str) -> None:
        """The bot's handler for the interaction of ``token`` raised ``error`` (its error
        hook said so): record it and stop waiting for an answer that will not come."""
        with self._lock:
            if token not in self._answering:
                return
            self._raised[token] = error
            event = self._responded.get(token)
        if event is not None:
            event.set()

    def raised_error(self, token: str) -> str | None:
        """What :meth:`raised` recorded for the interaction of ``token``, if anything."""
        with self._lock:
            return self._raised.get(token)

    def wait_for_answer(self, token: str, timeout: float) -> None:
        """Wait at most ``timeout`` seconds while the interaction of ``token`` is
        :meth:`answering` (not at all otherwise)."""
        with self._lock:
            event = self._answering.get(token)
        if event is not None:
            event.wait(timeout)


    def save_interaction(self, db: sqlite3.Connection, interaction_id: str, app_id: str,
                         token: str, created_at: float, payload: Mapping[str, Any],
                         response: Mapping[str, Any] | None) -> None:
        db.execute("INSERT OR REPLACE INTO interactions VALUES (?, ?, ?, ?, ?, ?)",
                   (interaction_id, app_id, token, created_at, json.dumps(dict(payload)),
                    None if response is None else json.dumps(dict(response))))

    def interaction(self, db: sqlite3.Connection, *, interaction_id: str | None = None,
                    token: str | None = None) -> Interaction | None:
        """The interaction by id or by token, or None."""
        column, value = ("id", interaction_id) if interaction_id is not None else ("token", token)
        row = db.execute(f"SELECT * FROM interactions WHERE {column} = ?", (value,)).fetchone()
        if row is None:
            return None
        return Interaction(row["id"], row["application_id"], row["token"], row["created_at"],
                           json.loads(row["payload"]),
                           None if row["response"] is None else json.loads(row["response"]))

    def later_submits(self, db: sqlite3.Connection, interaction: Interaction, custom_id: str
                      ) -> list[Interaction]:
        """The MODAL_SUBMIT interactions (type 5) of the modal ``custom_id`` of the same
        application after ``interaction`` (larger snowflakes), oldest first."""
        rows = db.execute(
            "SELECT * FROM interactions WHERE application_id = ? AND "
            "json_extract(payload, '$.type') = 5 AND json_extract(payload, '$.data.custom_id') = ?",
            (interaction.application_id, custom_id)).fetchall()
        later = [row for row in rows if int(row["id"]) > int(interaction.id)]
        return [Interaction(row["id"], row["application_id"], row["token"], row["created_at"],
                            json.loads(row["payload"]),
                            None if row["response"] is None else json.loads(row["response"]))
                for row in sorted(later, key=lambda row: int(row["id"]))]

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

    # -- any message, by id: an interaction's or a channel's -------------------------

    def any_message(self, db: sqlite3.Connection, message_id: str
                    ) -> tuple[str, dict[str, Any]] | None:
        """``(kept_as, message)``: ``kept_as`` is ``"interaction"`` (a response or
        follow-up) or ``"channel"`` (sent to a channel, or the seed's); None if unknown."""
        row = db.execute("SELECT body FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is not None:
            return "interaction", json.loads(row["body"])
        row = db.execute("SELECT body FROM channel_messages WHERE id = ?",
                         (message_id,)).fetchone()
        return ("channel", json.loads(row["body"])) if row is not None else None

    def replace_message(self, db: sqlite3.Connection, kept_as: str,
                        message: Mapping[str, Any]) -> None:
        """Write ``message`` back where :meth:`any_message` found it."""
        table = "messages" if kept_as == "interaction" else "channel_messages"
        db.execute(f"UPDATE {table} SET body = ? WHERE id = ?",
                   (json.dumps(dict(message)), message["id"]))
