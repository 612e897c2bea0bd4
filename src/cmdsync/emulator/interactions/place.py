"""Where a user runs a command: the invocation as ``cmdsync invoke`` sends it, and the guild,
channel, user and member it names (check order: the module docstring of
:mod:`cmdsync.emulator.interactions.invocation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cmdsync.emulator.application_commands.command_line import (
    Refused,
)
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.emulator.domain.objects import Channel, Guild, Member, User
from cmdsync.emulator.domain.payloads import dm_channel_id
from cmdsync.emulator.domain.permissions import EVERYONE as EVERYONE_PERMISSIONS
from cmdsync.emulator.store.database import Store
from cmdsync.model import (
    ChannelType,
    CommandType,
    InteractionContext,
)

CONTEXT_NAMES = {"guild": InteractionContext.GUILD, "bot_dm": InteractionContext.BOT_DM,
                 "private_channel": InteractionContext.PRIVATE_CHANNEL}
KINDS = {"chat_input": CommandType.CHAT_INPUT, "user": CommandType.USER,
         "message": CommandType.MESSAGE}
# What a user does that is not running a command: using a component, submitting a modal.
ACTIONS = ("component", "modal_submit")


@dataclass(frozen=True)
class Invocation:
    """What a user does in the client.

    ``kind`` is ``chat_input`` (with ``line``, e.g. ``/mod ban user:<@1>
    reason:"spam"``), ``user`` or ``message`` (with ``name`` and
    ``target_id``), ``component`` (a click or a choice on the message ``message_id``:
    the component by ``custom_id`` or, for a button, ``label``; a select's ``values``)
    or ``modal_submit`` (the modal the interaction ``modal_of`` was answered with,
    its text inputs' ``fields`` by ``custom_id``). ``guild_id`` None means a DM with
    the bot (``context`` ``bot_dm``) unless ``context`` is ``private_channel``.
    ``user_id`` None is the guild's owner (or the first user fixture); ``channel_id``
    None the guild's first text channel.
    """

    application_id: str
    kind: str = "chat_input"
    line: str | None = None
    name: str | None = None
    target_id: str | None = None
    autocomplete: bool = False
    guild_id: str | None = None
    channel_id: str | None = None
    user_id: str | None = None
    locale: str = "en-US"
    context: str | None = None
    message_id: str | None = None
    custom_id: str | None = None
    label: str | None = None
    values: tuple[str, ...] | None = None
    modal_of: str | None = None
    fields: tuple[tuple[str, str], ...] | None = None

    @classmethod
    def from_json(cls, body: Any) -> Invocation:
        """An invocation from the admin API's JSON body; :class:`Refused` if malformed."""
        if not isinstance(body, dict):
            raise Refused(Refusal.INVALID_REQUEST, "the body must be a JSON object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(body) - known)
        if unknown:
            raise Refused(Refusal.INVALID_REQUEST,
                          f"unknown field {unknown[0]!r}: use {', '.join(sorted(known))}")
        body = dict(body)
        for key, value in body.items():
            if key == "autocomplete":
                if not isinstance(value, bool):
                    raise Refused(Refusal.INVALID_REQUEST, "autocomplete must be true or false")
            elif key == "values" and value is not None:
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise Refused(Refusal.INVALID_REQUEST, "values must be a list of strings")
            elif key == "fields" and value is not None:
                if not isinstance(value, dict) or not all(
                        isinstance(v, str) for v in value.values()):
                    raise Refused(Refusal.INVALID_REQUEST,
                                  "fields must map text inputs' custom_id to text")
            elif value is not None and not isinstance(value, str):
                raise Refused(Refusal.INVALID_REQUEST, f"{key} must be a string")
        if body.get("kind", "chat_input") not in (*KINDS, *ACTIONS):
            raise Refused(Refusal.INVALID_REQUEST,
                          f"kind must be one of {', '.join((*KINDS, *ACTIONS))}")
        if body.get("context") is not None and body["context"] not in CONTEXT_NAMES:
            raise Refused(Refusal.INVALID_REQUEST,
                          f"context must be one of {', '.join(CONTEXT_NAMES)}")
        if not body.get("application_id"):
            raise Refused(Refusal.INVALID_REQUEST, "application_id is required")
        if body.get("values") is not None:
            body["values"] = tuple(body["values"])
        if body.get("fields") is not None:
            body["fields"] = tuple(body["fields"].items())
        return cls(**body)



@dataclass(frozen=True)
class Where:
    """Where the user is: context, guild, channel, the user and (in a guild) the member."""

    context: InteractionContext
    guild: Guild | None
    channel: Channel
    user: User
    member: Member | None
    permissions: int  # the member's (in a guild) or the DM's





def place_of(store: Store, invocation: Invocation) -> Where:
    context = (CONTEXT_NAMES[invocation.context] if invocation.context
               else InteractionContext.GUILD if invocation.guild_id
               else InteractionContext.BOT_DM)
    if context == InteractionContext.GUILD and not invocation.guild_id:
        raise Refused(Refusal.WRONG_CONTEXT, "a guild context needs a guild: give --guild ID")
    if context != InteractionContext.GUILD and invocation.guild_id:
        raise Refused(Refusal.WRONG_CONTEXT,
                      f"--guild {invocation.guild_id} contradicts the {context.name.lower()} "
                      "context: leave one out")
    guild = store.guild(invocation.guild_id) if invocation.guild_id else None
    if invocation.guild_id and guild is None:
        raise Refused(Refusal.UNKNOWN_GUILD,
                      f"no guild {invocation.guild_id} in the emulator: add it with a seed")
    user_id = invocation.user_id or (guild.get("owner_id") if guild else None) or first_user(store)
    user = store.user(user_id) if user_id else None
    if user is None or user_id is None:
        raise Refused(Refusal.UNKNOWN_USER,
                      f"no user {user_id} in the emulator: add it to the seed's users")
    if guild is None:  # the DM with the invocation's application's bot
        apps = store.application_ids()
        rank = apps.index(invocation.application_id) if invocation.application_id in apps \
            else 0
        dm: Channel = {"id": dm_channel_id(user_id, context, rank), "type": int(
            ChannelType.DM if context == InteractionContext.BOT_DM else ChannelType.GROUP_DM)}
        if invocation.channel_id:
            dm["id"] = invocation.channel_id
        return Where(context, None, dm, user, None, int(EVERYONE_PERMISSIONS))
    member = store.member(guild["id"], user_id)
    if member is None:
        raise Refused(Refusal.NOT_A_MEMBER,
                      f"user {user_id} is not a member of guild {guild['id']}: add it to the "
                      "guild's members in the seed")
    channels = store.channels(guild["id"])
    if invocation.channel_id:
        channel = next((c for c in channels if c["id"] == invocation.channel_id), None)
        if channel is None:
            raise Refused(Refusal.UNKNOWN_CHANNEL,
                          f"no channel {invocation.channel_id} in guild {guild['id']}")
    else:
        channel = next((c for c in channels if c["type"] == ChannelType.GUILD_TEXT), None)
        if channel is None:
            raise Refused(Refusal.UNKNOWN_CHANNEL,
                          f"guild {guild['id']} has no text channel: give --channel ID or "
                          "add one to the seed")
    return Where(context, guild, channel, user, member,
                  store.member_permissions(guild, user_id, member))


def first_user(store: Store) -> str | None:
    users = store.users()
    return str(users[0]["id"]) if users else None
