"""What the gateway dispatched, remembered for a failing test's transcript (the pytest
plugin's report): when, to which session, which event, and what it was about in a few
words, never its token or its content."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DISPATCH_KEPT = 1000  # dispatches the gateway remembers for a transcript


@dataclass(frozen=True)
class Dispatched:
    """One dispatch sent (or queued for a RESUME): when (clock seconds), to which
    application's session, its sequence number, the event's name, and what it is about
    in a few words (never a token)."""

    time: float
    application_id: str
    session_id: str
    seq: int
    event: str
    about: str


def about(event: str, data: Any) -> str:
    """A few words on a dispatch: an interaction's type and command or component, a
    message's id, a member's user."""
    if not isinstance(data, dict):
        return ""
    if event == "INTERACTION_CREATE":
        inner = data.get("data") or {}
        what = inner.get("name") or inner.get("custom_id") or ""
        return f"interaction {data.get('id')} (type {data.get('type')}{': ' + what if what else ''})"
    if event.startswith("MESSAGE_"):
        return f"message {data.get('id') or data.get('message_id')} in {data.get('channel_id')}"
    if event.startswith("GUILD_") and "guild_id" not in data:  # GUILD_CREATE: a guild
        return f"guild {data.get('id')}"
    user = data.get("user") if isinstance(data.get("user"), dict) else None
    where = f" in guild {data['guild_id']}" if data.get("guild_id") else ""
    if user is not None:
        return f"user {user.get('id')}{where}"
    return where.strip()
