"""Reading live state through an open session: the fetch stage.

:func:`fetch_scopes` reads, concurrently (bounded by the client's
semaphore and rate limiter), ``GET .../commands?with_localizations=true``
for each scope and ``GET .../commands/permissions`` for each guild;
:func:`fetch_live` reads what a plan of the desired state needs;
:func:`read_application` reads the application itself (``GET
/applications/@me``), which ``plan`` does once per run, before the scopes.

:class:`EarlyReads` starts those reads before the desired state is known,
from the scopes the manifests' text names (:mod:`cmdsync.manifest.outline`),
while the manifests are still being validated; :func:`read_application` and
:func:`fetch_scopes` then take each read from it, as they would have made it,
or make it themselves. The session they read through is
:mod:`cmdsync.runners.session`.
"""

from __future__ import annotations

import asyncio
import marshal
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cmdsync.client import endpoints
from cmdsync.client.http import DiscordClient
from cmdsync.errors import CmdsyncError
from cmdsync.model import GLOBAL
from cmdsync.state import LiveScope, LiveState, live_scope, scope_order
from cmdsync.state.application import AppInfo, app_info

if TYPE_CHECKING:
    from cmdsync.state.desired import DesiredState


class EarlyReads:
    """Reads started before anyone asks for them, each taken once by whoever does.

    :meth:`application` starts ``GET /applications/@me``; :meth:`scopes` the
    commands of each scope (and a guild's overwrites when asked) of one
    application. A read is taken with :meth:`take_application` or
    :meth:`take_scope` (None when it was not started, or for another
    application); a failed read raises its error when taken, and is
    otherwise never reported. :meth:`close` cancels what nobody took.
    ``started`` lists every read started, in order: ``"application"``, then
    each scope.
    """

    def __init__(self, client: DiscordClient) -> None:
        self.client = client
        self.application_id: str | None = None
        self.started: list[str] = []
        self.seen: dict[Any, Any] = {}  # equal values of the commands read, kept once
        self._application: asyncio.Task[Any] | None = None
        self._scopes: dict[str, asyncio.Task[tuple[Any, Any]]] = {}

    def application(self) -> asyncio.Task[Any]:
        """Start reading the application (once); its task."""
        if self._application is None:
            self._application = self._start(endpoints.get_application(self.client))
            self.started.append("application")
        return self._application

    def scopes(self, application_id: str, scopes: Iterable[str], *,
               permissions: Iterable[str] = ()) -> None:
        """Start reading ``scopes`` of ``application_id`` not started yet (all of one
        application: scopes of another are not started); and the overwrites of the
        guilds in ``permissions`` with their commands."""
        if self.application_id is None:
            self.application_id = application_id
        if application_id != self.application_id:
            return
        overwrites = set(permissions)
        for scope in scopes:
            if scope not in self._scopes:
                self._scopes[scope] = self._start(self._read(
                    application_id, scope, scope != GLOBAL and scope in overwrites))
                self.started.append(scope)

    async def _read(self, application_id: str, scope: str, permissions: bool
                    ) -> tuple[Any, Any]:
        commands_call = endpoints.list_commands(self.client, application_id, scope)
        if not permissions:
            return _shared(await commands_call, self.seen), None
        found = await asyncio.gather(commands_call, endpoints.list_guild_permissions(
            self.client, application_id, scope))
        return _shared(found[0], self.seen), found[1]

    @staticmethod
    def _start(call: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(call)
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        return task

    def take_application(self) -> asyncio.Task[Any] | None:
        task, self._application = self._application, None
        return task

    def take_scope(self, application_id: str, scope: str
                   ) -> asyncio.Task[tuple[Any, Any]] | None:
        if application_id != self.application_id:
            return None
        return self._scopes.pop(scope, None)

    async def close(self) -> None:
        """Cancel every read nobody took, and wait for them to end."""
        left = [task for task in (self._application, *self._scopes.values())
                if task is not None]
        self._application, self._scopes = None, {}
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)


async def fetch_scopes(client: DiscordClient, application_id: str, scopes: Iterable[str], *,
                       need_permissions: Iterable[str] | None = None,
                       only_needed: bool = False,
                       on_scope: Callable[[LiveScope], None] | None = None,
                       early: EarlyReads | None = None) -> LiveState:
    """Every scope's commands, and each guild's permission sets, fetched concurrently.

    ``scopes`` are ``"global"`` and guild ids. Overwrites are read for every
    guild when the credentials allow it (a bot token, or the user's Bearer
    token); with client credentials alone, or with ``only_needed``, only
    ``need_permissions`` guilds are read, which then fails with a message
    naming the token to set. Raises :class:`~cmdsync.errors.ApiError` for
    the first failed request (an unknown guild is 404 code 10004; a guild
    without the app's ``applications.commands`` scope 403 code 50001).
    ``on_scope`` is called with each scope as soon as it is read, while the
    other reads go on (a plan compares it then: :class:`~cmdsync.plan.diff.Differ`).
    A read ``early`` started already is taken from it, not made again.
    """
    wanted = sorted(set(scopes), key=scope_order)
    needed = set(wanted if need_permissions is None else need_permissions)
    readable = client.can_read_permissions and not only_needed
    seen: dict[Any, Any] = early.seen if early is not None else {}
    turn = asyncio.Lock()

    async def compared(found: LiveScope) -> None:
        # One scope's on_scope per turn of the event loop: reads started early are
        # all in when the desired state is, and comparing them back to back would hold
        # up the answers and the paced requests due meanwhile.
        if on_scope is not None:
            async with turn:
                on_scope(found)
                await asyncio.sleep(0)

    async def one(scope: str) -> LiveScope:
        with_permissions = not (scope == "global" or (scope not in needed and not readable))
        started = early.take_scope(application_id, scope) if early is not None else None
        if started is not None:
            commands, permissions = await started
            if with_permissions and permissions is None:
                permissions = await endpoints.list_guild_permissions(client, application_id,
                                                                     scope)
            found = live_scope(scope, _shared(commands, seen),
                               permissions if with_permissions else None)
            await compared(found)
            return found
        commands_call = endpoints.list_commands(client, application_id, scope)
        if not with_permissions:
            found = live_scope(scope, _shared(await commands_call, seen))
        else:
            commands, permissions = await asyncio.gather(
                commands_call, endpoints.list_guild_permissions(client, application_id, scope))
            found = live_scope(scope, _shared(commands, seen), permissions)
        await compared(found)
        return found

    found = await asyncio.gather(*(one(scope) for scope in wanted))
    return LiveState(application_id, {scope.scope: scope for scope in found})


def _shared(commands: Any, seen: dict[Any, Any]) -> Any:
    """``commands`` (a list response) with equal nested values made one object.

    Hundreds of guilds hold the same commands under other ids: their options
    and localizations are kept once (``seen`` maps their ``marshal`` bytes to
    the object kept), and so are equal strings (names, descriptions, the
    application's and the guild's ids). Values are only read afterwards,
    never changed.
    """
    if not isinstance(commands, list):
        return commands
    for command in commands:
        if isinstance(command, dict):
            for key, value in command.items():
                if isinstance(value, str):
                    if key != "id" and key != "version":  # unique to each command
                        command[key] = seen.setdefault(value, value)
                elif isinstance(value, (list, dict)) and value:
                    command[key] = seen.setdefault(marshal.dumps(value), value)
    return commands


async def _fetch_permissions(client: DiscordClient, application_id: str, live: LiveState,
                             guilds: Iterable[str]) -> LiveState:
    """``live`` with the permission sets of ``guilds`` read as well."""
    async def one(scope: LiveScope) -> LiveScope:
        permissions = await endpoints.list_guild_permissions(client, application_id,
                                                             scope.scope)
        return live_scope(scope.scope, scope.commands, permissions)

    wanted = [live.scopes[g] for g in guilds if g in live.scopes]
    found = await asyncio.gather(*(one(scope) for scope in wanted))
    return replace(live, scopes={**live.scopes, **{scope.scope: scope for scope in found}})


def renamed_scopes(desired: DesiredState, live: LiveState) -> set[str]:
    """Scopes where a manifest command's ``id`` names a live command of another name.

    Discord drops a renamed command's overwrites: the plan warns where they
    are lost, so those guilds' overwrites must be read (every guild's, for
    a global command).
    """
    found = set()
    for scope in desired.scopes.values():
        with_ids = [command for command in scope.commands if command.id is not None]
        if not with_ids:  # most manifests name no ids: no live names to gather
            continue
        names = {str(c.get("id")): c.get("name") for c in live.scope(scope.scope).commands}
        if any(command.id in names and names[command.id] != command.body.get("name")
               for command in with_ids):
            found.add(scope.scope)
    return found


def scopes_to_fetch(desired: DesiredState) -> list[str]:
    """The manifest's scopes; and global too when a guild sets permissions.

    Global commands are read (never written) for permission keys that name
    them, and for the overwrites a global rename drops; not when the global
    commands are copied to a guild (``copy_global_to``): the global scope is
    then left alone, and keys bind to the copies.
    """
    scopes = list(desired.scopes)
    if any(s.permissions is not None for s in desired.scopes.values()) \
            and desired.copy_global_to is None and "global" not in scopes:
        scopes.append("global")
    return scopes


async def fetch_live(client: DiscordClient, application_id: str, desired: DesiredState, *,
                     application: AppInfo | None = None,
                     on_scope: Callable[[LiveScope], None] | None = None,
                     early: EarlyReads | None = None) -> LiveState:
    """The live state a plan of ``desired`` needs (:func:`scopes_to_fetch`).

    Commands are read in every scope; overwrites in the guilds whose
    ``permissions`` the manifest sets, and then, when the manifest renames
    a command (:func:`renamed_scopes`), in the guilds where Discord would
    drop its overwrites (every guild read, for a global command), so that
    the plan can say where they are lost; no other request is made.
    ``application`` (from :func:`read_application`) is kept in the state
    for the diff; ``on_scope`` is called with each scope read, and reads
    started ``early`` are taken from it (:func:`fetch_scopes`).
    """
    needed = [s.scope for s in desired.scopes.values() if s.permissions is not None]
    live = await fetch_scopes(client, application_id, scopes_to_fetch(desired),
                              need_permissions=needed, only_needed=True, on_scope=on_scope,
                              early=early)
    renamed = renamed_scopes(desired, live)
    if renamed and client.can_read_permissions:
        guilds = [g for g in live.scopes if g != "global"] if "global" in renamed \
            else sorted(renamed - {"global"})
        live = await _fetch_permissions(client, application_id, live,
                                        [g for g in guilds if g not in needed])
    return replace(live, application=application)


async def read_application(client: DiscordClient, application_id: str, *,
                           named: str | None = None, early: EarlyReads | None = None
                           ) -> AppInfo:
    """The credentials' application (:func:`cmdsync.client.endpoints.get_application`).

    ``named`` is the ``application_id`` the manifests name, if any: the
    message for another application's credentials then says to change it
    (``--application-id`` must agree with it), else to pass
    ``--application-id``. Raises :class:`~cmdsync.errors.CmdsyncError` when
    the credentials belong to another application than ``application_id``
    (every later request would fail with 403 code 20012), and
    :class:`~cmdsync.errors.ApiError` when the read fails. A read ``early``
    started already is taken from it.
    """
    started = early.take_application() if early is not None else None
    try:
        info = app_info(await (started if started is not None
                               else endpoints.get_application(client)))
    except ValueError:  # no application object: nothing is known of it
        info = AppInfo(application_id)
    if info.id != application_id:
        switch = (f"set the manifests' application_id to \"{info.id}\"" if named is not None
                  else f"pass --application-id {info.id}")
        raise CmdsyncError(f"the credentials belong to application {info.id}, not "
                           f"{application_id}: use application {application_id}'s credentials, "
                           f"or, to manage application {info.id}, {switch}")
    return info
