"""GUILD_MEMBER_ADD / UPDATE / REMOVE when the guild fixtures change.

Discord's "Gateway Events" (Guild Member Add, Update, Remove): sent to the
applications installed in the guild whose sessions asked for the
GUILD_MEMBERS intent. Fixtures change through ``POST /_emulator/seed``
(members added or changed: :func:`snapshot` before, :func:`dispatch_changes`
after) and ``DELETE /_emulator/guilds/{guild}/members/{user}`` (:func:`remove`).
"""

from __future__ import annotations

from collections.abc import Iterable

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.domain.objects import Member
from cmdsync.emulator.gateway.hub import Gateway
from cmdsync.emulator.resources import objects

Snapshot = dict[tuple[str, str], Member | None]  # (guild, user) -> member; (guild, "") -> None


def snapshot(gateway: Gateway, guild_ids: Iterable[str]) -> Snapshot:
    """The member fixtures of ``guild_ids`` now; a guild without members is kept as
    ``(guild_id, "")`` so that members added to it later are seen."""
    taken: Snapshot = {}
    for guild_id in guild_ids:
        taken[(guild_id, "")] = None
        for member in gateway.store.members(guild_id):
            taken[(guild_id, member["user_id"])] = member
    return taken


def dispatch_changes(gateway: Gateway, before: Snapshot) -> int:
    """GUILD_MEMBER_ADD for each member new since ``before``, GUILD_MEMBER_UPDATE for
    each one changed; how many dispatches were sent."""
    after = snapshot(gateway, _guilds(before))
    sent = 0
    for (guild_id, user_id), member in after.items():
        old = before.get((guild_id, user_id))
        if not user_id or member is None or old == member:
            continue
        event = "GUILD_MEMBER_ADD" if old is None else "GUILD_MEMBER_UPDATE"
        sent += _to_installed(gateway, guild_id, event, member)
    return sent


def _guilds(before: Snapshot) -> set[str]:
    return {guild_id for guild_id, _ in before}


def remove(gateway: Gateway, guild_id: str, user_id: str) -> bool:
    """Delete the member fixture and dispatch GUILD_MEMBER_REMOVE; False if none."""
    store = gateway.store
    member = store.member(guild_id, user_id)
    if member is None:
        return False
    with store.transaction() as db:
        store.delete_fixture(db, "member", guild_id, user_id)
    body = {"guild_id": guild_id, "user": objects.guild_member(store, member)["user"]}
    for app_id in _installed(gateway, guild_id):
        if store.application(app_id) is not None:
            gateway.dispatch(app_id, "GUILD_MEMBER_REMOVE", body, guild_id=guild_id,
                             intent=Intent.GUILD_MEMBERS)
    return True


def _installed(gateway: Gateway, guild_id: str) -> list[str]:
    return [s["application_id"] for s in gateway.sessions()
            if guild_id in gateway.store.guilds_of(s["application_id"])]


def _to_installed(gateway: Gateway, guild_id: str, event: str, member: Member
                  ) -> int:
    body = objects.guild_member(gateway.store, member) | {"guild_id": guild_id}
    sent = 0
    for app_id in dict.fromkeys(_installed(gateway, guild_id)):
        if gateway.store.application(app_id) is None:
            continue
        sent += gateway.dispatch(app_id, event, body, guild_id=guild_id,
                                 intent=Intent.GUILD_MEMBERS)
    return sent
