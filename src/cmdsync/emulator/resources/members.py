"""Guild members as the backend changes them: each change in its own transaction, then the
gateway event Discord sends for it.

Discord's "Gateway Events": Guild Member Add, Update and Remove go to the applications
installed in the guild, to their sessions that asked for the GUILD_MEMBERS intent
(``events`` is the emulator's gateway). Members change through the admin API: ``POST
/_emulator/seed`` (added or changed: :meth:`Members.watching`) and ``DELETE
/_emulator/guilds/{guild}/members/{user}`` (:meth:`Members.remove`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Member
from cmdsync.emulator.reference.call import Events
from cmdsync.emulator.resources import objects
from cmdsync.emulator.store.database import Store

_Snapshot = dict[tuple[str, str], Member | None]  # (guild, user) -> member; (guild, "") -> None


class Members:
    """The members of every guild, changed with their events (see the module docstring)."""

    def __init__(self, store: Store, events: Events | None) -> None:
        self.store, self.events = store, events

    def join(self, guild_id: str, user_id: str, roles: list[str] | None = None) -> bool:
        """A seeded user joins the guild (with ``roles``): GUILD_MEMBER_ADD; False if the
        user is a member already. Raises KeyError for an unknown guild, user or role."""
        self._known(guild_id, user_id, roles or [])
        with self.store.transaction() as db:
            if self.store.member(guild_id, user_id) is not None:
                return False
            member: Member = {"user_id": user_id, "roles": list(roles or []), "nick": None}
            self.store.put_fixture(db, "member", guild_id, user_id, member)
        body = objects.guild_member(self.store, member) | {"guild_id": guild_id}
        self._dispatch(guild_id, "GUILD_MEMBER_ADD", body)
        return True

    def set_roles(self, guild_id: str, user_id: str, roles: list[str]) -> None:
        """The member's roles become ``roles``: GUILD_MEMBER_UPDATE. KeyError for an
        unknown guild, member or role."""
        self._known(guild_id, user_id, roles)
        with self.store.transaction() as db:
            member = self.store.member(guild_id, user_id)
            if member is None:
                raise KeyError(f"user {user_id} is not a member of guild {guild_id}")
            member = {**member, "roles": list(roles)}
            self.store.put_fixture(db, "member", guild_id, user_id, member)
        body = objects.guild_member(self.store, member) | {"guild_id": guild_id}
        self._dispatch(guild_id, "GUILD_MEMBER_UPDATE", body)

    def _known(self, guild_id: str, user_id: str, roles: list[str]) -> None:
        if self.store.guild(guild_id) is None:
            raise KeyError(f"no guild {guild_id} in the emulator")
        if self.store.user(user_id) is None:
            raise KeyError(f"no user {user_id} in the emulator: add it to the seed's users")
        unknown = [r for r in roles if self.store.role(guild_id, r) is None]
        if unknown:
            raise KeyError(f"no role {unknown[0]} in guild {guild_id}")

    def remove(self, guild_id: str, user_id: str) -> bool:
        """Delete the member and dispatch GUILD_MEMBER_REMOVE; False if there is none."""
        with self.store.transaction() as db:
            member = self.store.member(guild_id, user_id)
            if member is None:
                return False
            self.store.delete_fixture(db, "member", guild_id, user_id)
        body = {"guild_id": guild_id, "user": objects.guild_member(self.store, member)["user"]}
        self._dispatch(guild_id, "GUILD_MEMBER_REMOVE", body)
        return True

    @contextmanager
    def watching(self, guild_ids: Iterable[str]) -> Iterator[None]:
        """Around a change of ``guild_ids``' members made elsewhere (a seed applied, a
        test's reset): after it, GUILD_MEMBER_ADD for each member new,
        GUILD_MEMBER_UPDATE for each changed, GUILD_MEMBER_REMOVE for each gone."""
        before = self._snapshot(guild_ids)
        yield
        after = self._snapshot({guild_id for guild_id, _ in before})
        for (guild_id, user_id), member in after.items():
            old = before.get((guild_id, user_id))
            if not user_id or member is None or old == member:
                continue
            body = objects.guild_member(self.store, member) | {"guild_id": guild_id}
            self._dispatch(guild_id, "GUILD_MEMBER_ADD" if old is None
                           else "GUILD_MEMBER_UPDATE", body)
        for (guild_id, user_id), gone in before.items():
            if gone is not None and (guild_id, user_id) not in after:
                user = objects.guild_member(self.store, gone)["user"]
                self._dispatch(guild_id, "GUILD_MEMBER_REMOVE",
                               {"guild_id": guild_id, "user": user})

    def _snapshot(self, guild_ids: Iterable[str]) -> _Snapshot:
        taken: _Snapshot = {}
        for guild_id in guild_ids:
            taken[(guild_id, "")] = None  # a guild without members: members added are seen
            for member in self.store.members(guild_id):
                taken[(guild_id, member["user_id"])] = member
        return taken

    def _dispatch(self, guild_id: str, event: str, body: dict[str, Any]) -> int:
        if self.events is None:
            return 0
        return sum(self.events.dispatch(app_id, event, body, guild_id=guild_id,
                                        intent=Intent.GUILD_MEMBERS)
                   for app_id in self.store.applications_in(guild_id))
