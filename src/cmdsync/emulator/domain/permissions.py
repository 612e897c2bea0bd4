"""Discord's permission maths ("Topics > Permissions"), in one place.

- :class:`Permissions`: the permission flags as an :class:`enum.IntFlag`, bit for
  bit :class:`cmdsync.model.Permission` (which numbers the bits for manifests).
- :func:`base_permissions`: a member's guild permissions ("Permission Hierarchy":
  the owner and Administrator have every permission, otherwise ``@everyone``'s
  and each role's are ORed).
- :func:`in_channel`: those permissions after a channel's permission overwrites
  ("Permission Overwrites": ``@everyone``'s, then the roles' together, then the
  member's own; Administrator is not overwritten).
- :func:`outranks`: the role hierarchy ("Permission Hierarchy": a member may act on
  another only from a higher highest role; the owner outranks everyone).

Pure: values in, values out; permission sets are ints (Discord sends them as
decimal strings, which the callers convert).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


class Permissions(enum.IntFlag):
    """Discord's permission flags (``1 << bit``), as its "Permissions" topic lists them."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_AUDIT_LOG = 1 << 7
    PRIORITY_SPEAKER = 1 << 8
    STREAM = 1 << 9
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    SEND_TTS_MESSAGES = 1 << 12
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    VIEW_GUILD_INSIGHTS = 1 << 19
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    MUTE_MEMBERS = 1 << 22
    DEAFEN_MEMBERS = 1 << 23
    MOVE_MEMBERS = 1 << 24
    USE_VAD = 1 << 25
    CHANGE_NICKNAME = 1 << 26
    MANAGE_NICKNAMES = 1 << 27
    MANAGE_ROLES = 1 << 28
    MANAGE_WEBHOOKS = 1 << 29
    MANAGE_GUILD_EXPRESSIONS = 1 << 30
    USE_APPLICATION_COMMANDS = 1 << 31
    REQUEST_TO_SPEAK = 1 << 32
    MANAGE_EVENTS = 1 << 33
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    USE_EXTERNAL_STICKERS = 1 << 37
    SEND_MESSAGES_IN_THREADS = 1 << 38
    USE_EMBEDDED_ACTIVITIES = 1 << 39
    MODERATE_MEMBERS = 1 << 40
    VIEW_CREATOR_MONETIZATION_ANALYTICS = 1 << 41
    USE_SOUNDBOARD = 1 << 42
    CREATE_GUILD_EXPRESSIONS = 1 << 43
    CREATE_EVENTS = 1 << 44
    USE_EXTERNAL_SOUNDS = 1 << 45
    SEND_VOICE_MESSAGES = 1 << 46
    SET_VOICE_CHANNEL_STATUS = 1 << 48
    SEND_POLLS = 1 << 49
    USE_EXTERNAL_APPS = 1 << 50
    PIN_MESSAGES = 1 << 51
    BYPASS_SLOWMODE = 1 << 52


ALL = Permissions(sum(Permissions))
# What a new guild's @everyone may do (Discord's default), and what a bot may do in a DM.
EVERYONE = Permissions(2_248_473_465_835_073)


def base_permissions(*, owner: bool, everyone: int, roles: Iterable[int]) -> Permissions:
    """The guild permissions of a member: every permission for the guild's owner and for
    Administrator; otherwise ``everyone`` (the ``@everyone`` role's bits) ORed with
    each of the member's ``roles`` bits ("Permissions > Permission Hierarchy")."""
    if owner:
        return ALL
    bits = int(everyone)
    for role in roles:
        bits |= int(role)
    return ALL if bits & Permissions.ADMINISTRATOR else Permissions(bits)


@dataclass(frozen=True)
class ChannelOverwrite:
    """One entry of a channel's ``permission_overwrites``: ``type`` 0 a role, 1 a member;
    ``allow`` and ``deny`` are permission sets ("Channel > Overwrite Object")."""

    id: str
    type: int
    allow: int
    deny: int

    @classmethod
    def from_payload(cls, body: Mapping[str, object]) -> ChannelOverwrite:
        """From Discord's JSON (``allow`` and ``deny`` as decimal strings)."""
        return cls(str(body["id"]), int(str(body["type"])), int(str(body.get("allow", 0))),
                   int(str(body.get("deny", 0))))


def in_channel(base: int, overwrites: Sequence[ChannelOverwrite], *, guild_id: str,
               user_id: str, roles: Iterable[str]) -> Permissions:
    """``base`` (from :func:`base_permissions`) after a channel's overwrites, in Discord's
    order: ``@everyone``'s (the overwrite whose id is the guild's), then every role
    overwrite of the member's roles together (their denies, then their allows), then the
    member's own. Administrator keeps every permission ("Permission Overwrites")."""
    if base & Permissions.ADMINISTRATOR:
        return ALL
    bits = int(base)
    by_id = {(o.type, o.id): o for o in overwrites}
    everyone = by_id.get((0, guild_id))
    if everyone is not None:
        bits = (bits & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for role_id in roles:
        overwrite = by_id.get((0, role_id))
        if overwrite is not None and role_id != guild_id:
            allow |= overwrite.allow
            deny |= overwrite.deny
    bits = (bits & ~deny) | allow
    member = by_id.get((1, user_id))
    if member is not None:
        bits = (bits & ~member.deny) | member.allow
    return Permissions(bits & ALL)


def highest_position(roles: Iterable[str], positions: Mapping[str, int]) -> int:
    """The highest position among ``roles`` (0, ``@everyone``'s, when none is known)."""
    return max((positions.get(role, 0) for role in roles), default=0)


def outranks(*, actor_owner: bool, actor_top: int, target_owner: bool, target_top: int
             ) -> bool:
    """Whether a member whose highest role is at ``actor_top`` may act on (kick, ban,
    time out, rename, give roles to) one whose highest role is at ``target_top``: the
    owner outranks everyone and nobody outranks the owner; otherwise only from strictly
    higher ("Permissions > Permission Hierarchy")."""
    if target_owner:
        return False
    return actor_owner or actor_top > target_top
