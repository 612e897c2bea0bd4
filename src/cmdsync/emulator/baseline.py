"""What a test's reset returns to while a bot stays connected for the whole test session.

A bot connected once per session (the pytest plugin's ``discord_emulator_session``)
keeps its gateway session from test to test, and its caches with it. So a reset
between its tests does not apply the seed again: it puts back the
:class:`Baseline`, the state as it was when the bot had connected and registered
its commands (commands, overwrites, members, roles, channels, messages,
interactions), and sends the connected bots the gateway events that undo what the
test changed, as Discord would have sent them for the same changes: GUILD_MEMBER_ADD /
UPDATE / REMOVE (with the GUILD_MEMBERS intent), GUILD_ROLE_CREATE / UPDATE / DELETE
and CHANNEL_CREATE / UPDATE / DELETE (with GUILDS). The request log, rate limits and
the gateway's IDENTIFY counts start afresh; the sessions stay.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.resources import objects

_Guilds = dict[str, tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]]


class Baseline:
    """The emulator's whole state at one moment (a copy of its database)."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self._copy: sqlite3.Connection = emulator.store.snapshot()

    def restore(self) -> bool:
        """Put the state back as it was, keeping gateway sessions, and send the connected
        bots the events that undo the differences (see the module docstring); whether
        any event was sent."""
        emulator = self.emulator
        sent = emulator.gateway.dispatched
        last = sent[-1] if sent else None
        guild_ids = emulator.store.guild_ids()
        before = _roles_and_channels(emulator, guild_ids)
        with emulator.members.watching(guild_ids):
            emulator.store.restore(self._copy)
        after = _roles_and_channels(emulator, emulator.store.guild_ids())
        for guild_id in after.keys() | before.keys():
            old_roles, old_channels = before.get(guild_id, ({}, {}))
            new_roles, new_channels = after.get(guild_id, ({}, {}))
            for kind, old, new in (("role", old_roles, new_roles),
                                   ("channel", old_channels, new_channels)):
                for event, data in _differences(kind, guild_id, old, new):
                    _dispatch(emulator, guild_id, event, data)
        changed = bool(sent) and sent[-1] is not last
        emulator.limiter.reset()
        emulator.log.clear()
        emulator.gateway.reset()
        return changed

    def close(self) -> None:
        self._copy.close()


def _roles_and_channels(emulator: Emulator, guild_ids: list[str]) -> _Guilds:
    return {guild_id: ({r["id"]: r for r in objects.roles(emulator.store, guild_id)},
                       {c["id"]: c for c in objects.channels(emulator.store, guild_id)})
            for guild_id in guild_ids}


def _differences(kind: str, guild_id: str, old: dict[str, dict[str, Any]],
                 new: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The gateway events that turn ``old`` roles or channels into ``new`` ones."""
    events: list[tuple[str, dict[str, Any]]] = []
    for item_id, item in new.items():
        if old.get(item_id) == item:
            continue
        change = "CREATE" if item_id not in old else "UPDATE"
        events.append((f"GUILD_ROLE_{change}", {"guild_id": guild_id, "role": item})
                      if kind == "role" else (f"CHANNEL_{change}", item))
    for item_id, item in old.items():
        if item_id not in new:
            events.append(("GUILD_ROLE_DELETE", {"guild_id": guild_id, "role_id": item_id})
                          if kind == "role" else ("CHANNEL_DELETE", item))
    return events


def _dispatch(emulator: Emulator, guild_id: str, event: str, data: dict[str, Any]) -> None:
    for app_id in emulator.store.applications_in(guild_id):
        emulator.gateway.dispatch(app_id, event, data, guild_id=guild_id, intent=Intent.GUILDS)
