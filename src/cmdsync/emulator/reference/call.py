"""One authenticated API request as a handler sees it, and what a handler returns.

A handler is a plain function ``Call -> Reply``; it raises
:class:`~cmdsync.emulator.reference.error_replies.ErrorReply` for error answers and does all
its reads and writes in one store transaction (:meth:`Call.scope`), so that
concurrent requests leave a state equal to some order of whole requests.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from cmdsync.emulator.domain.objects import Application, StoredCommand, Token
from cmdsync.emulator.reference import access
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.locales import requested_locale
from cmdsync.emulator.reference.request_body import Upload
from cmdsync.emulator.store.database import Store


class Events(Protocol):
    """Where a change's gateway event goes: the emulator's gateway
    (:class:`~cmdsync.emulator.gateway.hub.Gateway`), seen from the rooms below it."""

    def dispatch(self, application_id: str, event: str, data: Any, *,
                 guild_id: str | None = None, intent: int | None = None,
                 one: bool = False, connected: bool = False,
                 shaped: Callable[[int], Any] | None = None) -> int:
        """Dispatch ``event`` to the application's sessions (those of ``guild_id``'s
        shard that asked for ``intent``, a bit number; the first only with ``one``; only
        connected ones with ``connected``; ``shaped(intents)`` to each instead of ``data``
        when given); how many got it."""
        ...


@dataclass(frozen=True)
class Scope:
    """One scope of one application inside an open transaction.

    ``guild_id`` is ``""`` for the global scope; ``now`` is epoch seconds. A change made
    in the scope queues its gateway event with :meth:`emit`: the event goes out once the
    transaction has committed, and never for a change rolled back.
    """

    store: Store
    db: sqlite3.Connection
    app: Application
    guild_id: str
    now: float
    limits: Limits
    events: list[tuple[str, str, Any, str | None]] = field(default_factory=list)

    def commands(self) -> list[StoredCommand]:
        return self.store.commands(self.db, self.app.id, self.guild_id)

    def emit(self, event: str, data: Any, *, guild_id: str | None = None) -> None:
        """Send the gateway ``event`` to this scope's application after the commit."""
        self.events.append((self.app.id, event, data, guild_id))


@dataclass(frozen=True)
class Call:
    """The parsed request: path parameters, query, headers (lowercase names),
    the JSON body (None without one; a form's ``payload_json``), the time
    (epoch seconds), limits, and the files of a multipart body; ``gateway``
    dispatches events to connected bots (None without one)."""

    store: Store
    token: Token
    params: Mapping[str, str]
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: Any
    now: float
    limits: Limits
    uploads: tuple[Upload, ...] = ()
    gateway: Events | None = None

    @contextmanager
    def scope(self, *, permissions: bool = False, edit: bool = False) -> Iterator[Scope]:
        """Check the token against the path, then hold a transaction on the scope.

        ``permissions`` selects the scope a bearer token needs
        (``applications.commands.permissions.update`` instead of
        ``applications.commands.update``); ``edit`` the stricter checks of a
        permission PUT. Raises 404 (10002, 10004), 401 or 403 (50001 and others) as in
        :mod:`cmdsync.emulator.reference.access`.
        """
        app = access.application(self.store, self.token, self.params["application_id"])
        if edit:
            access.not_a_bot(self.token)
        access.require_scope(self.token, permissions=permissions or edit)
        guild_id = self.params.get("guild_id", "")
        if guild_id:
            access.guild(self.store, guild_id, app.id)
        if edit:
            access.manages_guild(self.token, guild_id)
        with self.store.transaction() as db:
            scope = Scope(self.store, db, app, guild_id, self.now, self.limits)
            yield scope
        for application_id, event, data, event_guild in scope.events:  # committed
            if self.gateway is not None:
                self.gateway.dispatch(application_id, event, data, guild_id=event_guild)

    def with_localizations(self) -> bool:
        return self.query.get("with_localizations", "").lower() in ("true", "1")

    def locale(self) -> str | None:
        return requested_locale(self.headers)


@dataclass(frozen=True)
class Reply:
    """A success: status, JSON body (None for 204) and commands created (for the log)."""

    status: int
    body: Any
    creates: int = 0


Handler = Callable[[Call], Reply]
