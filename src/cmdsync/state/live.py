"""The live state: the application's commands and overwrites as Discord returned them.

:func:`live_scope` turns the responses of ``GET
.../commands?with_localizations=true`` and ``GET .../commands/permissions``
into a :class:`LiveScope`; a :class:`LiveState` holds every scope read, and
the application when it was read. Pure values; a scope is ``"global"`` or a
guild id (a snowflake string).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.model import GLOBAL
from cmdsync.state.application import AppInfo
from cmdsync.state.normalize import canonical_overwrites

Overwrite = Mapping[str, Any]  # {"id": snowflake, "type": 1|2|3, "permission": bool}


@dataclass(frozen=True)
class LiveScope:
    """One scope as Discord returned it.

    ``commands`` are the command objects of the list response, unchanged;
    ``permissions`` maps a target id (a command id, or the application id for
    the application-wide entry) to its overwrites in API form, sorted;
    ``permissions_read`` says whether they were read at all (when not, the
    guild's overwrites are unknown, not absent). ``commands_complete`` is
    False when ``commands`` are only some of the scope's: a saved plan's
    prior state keeps only the commands its plan updates or deletes, where
    it can (:func:`cmdsync.plan.planfile.to_document`).
    """

    scope: str
    commands: tuple[Mapping[str, Any], ...] = ()
    permissions: Mapping[str, tuple[Overwrite, ...]] = field(default_factory=dict)
    permissions_read: bool = False
    commands_complete: bool = True


@dataclass(frozen=True)
class LiveState:
    """The live scopes fetched for one application, and the application when read.

    ``application`` (``GET /applications/@me``) gives the default
    ``integration_types`` of global commands and the checks that need the
    application; None when it was not read.
    """

    application_id: str
    scopes: Mapping[str, LiveScope] = field(default_factory=dict)
    application: AppInfo | None = None

    def scope(self, scope: str) -> LiveScope:
        return self.scopes.get(scope) or LiveScope(scope)


def scope_order(scope: str) -> tuple[int, int]:
    """Sort key: global first, then guilds by snowflake."""
    return (0, 0) if scope == GLOBAL else (1, int(scope) if scope.isdigit() else 0)


def live_scope(scope: str, commands: Iterable[Mapping[str, Any]],
               permissions: Iterable[Mapping[str, Any]] | None = None, *,
               complete: bool = True) -> LiveScope:
    """A :class:`LiveScope` from a commands list and a guild permissions list response.

    ``permissions`` items are guild permission objects ``{"id", "application_id",
    "guild_id", "permissions": [...]}``; empty lists are dropped. None: the
    overwrites were not read. ``complete``: ``commands`` are all of the
    scope's (see :class:`LiveScope`).
    """
    table: dict[str, tuple[Overwrite, ...]] = {}
    for item in permissions or ():
        overwrites = canonical_overwrites(item.get("permissions") or [], scope)
        if overwrites:
            table[str(item["id"])] = tuple(overwrites)
    return LiveScope(scope, tuple(commands), table, permissions is not None, complete)
