"""Discord's gateway protocol as data: opcodes, close codes, intents, frames.

Sources: Discord's "Gateway" documentation (connecting, identifying,
resuming, rate limiting, intents) and "Opcodes and Status Codes" (Gateway
Opcodes, Gateway Close Event Codes). Nothing here does I/O.
"""

from __future__ import annotations

import json
from enum import IntEnum
from typing import Any

from cmdsync.emulator.domain.enums import Intent
from cmdsync.errors import EmulatorError

API_VERSIONS = ("9", "10")  # the versions the emulator speaks (JSON the same for both)
MAX_PAYLOAD_BYTES = 4096  # a client's payload larger than this is a decode error (4002)


# Discord's dispatch (op 0) events, its "Gateway Events > Receive Events" list (Hello,
# Reconnect and Invalid Session are opcodes of their own): what the docs' events table
# is made of (scripts/routes_table.py)
RECEIVE_EVENTS = (
    "READY", "RESUMED", "RATE_LIMITED", "APPLICATION_COMMAND_PERMISSIONS_UPDATE",
    "AUTO_MODERATION_RULE_CREATE", "AUTO_MODERATION_RULE_UPDATE", "AUTO_MODERATION_RULE_DELETE",
    "AUTO_MODERATION_ACTION_EXECUTION", "CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE",
    "CHANNEL_PINS_UPDATE", "THREAD_CREATE", "THREAD_UPDATE", "THREAD_DELETE",
    "THREAD_LIST_SYNC", "THREAD_MEMBER_UPDATE", "THREAD_MEMBERS_UPDATE", "ENTITLEMENT_CREATE",
    "ENTITLEMENT_UPDATE", "ENTITLEMENT_DELETE", "GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE",
    "GUILD_AUDIT_LOG_ENTRY_CREATE", "GUILD_BAN_ADD", "GUILD_BAN_REMOVE", "GUILD_EMOJIS_UPDATE",
    "GUILD_STICKERS_UPDATE", "GUILD_INTEGRATIONS_UPDATE", "GUILD_MEMBER_ADD",
    "GUILD_MEMBER_REMOVE", "GUILD_MEMBER_UPDATE", "GUILD_MEMBERS_CHUNK", "GUILD_ROLE_CREATE",
    "GUILD_ROLE_UPDATE", "GUILD_ROLE_DELETE", "GUILD_SCHEDULED_EVENT_CREATE",
    "GUILD_SCHEDULED_EVENT_UPDATE", "GUILD_SCHEDULED_EVENT_DELETE",
    "GUILD_SCHEDULED_EVENT_USER_ADD", "GUILD_SCHEDULED_EVENT_USER_REMOVE",
    "GUILD_SOUNDBOARD_SOUND_CREATE", "GUILD_SOUNDBOARD_SOUND_UPDATE",
    "GUILD_SOUNDBOARD_SOUND_DELETE", "GUILD_SOUNDBOARD_SOUNDS_UPDATE", "SOUNDBOARD_SOUNDS",
    "INTEGRATION_CREATE", "INTEGRATION_UPDATE", "INTEGRATION_DELETE", "INTERACTION_CREATE",
    "INVITE_CREATE", "INVITE_DELETE", "MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE",
    "MESSAGE_DELETE_BULK", "MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE",
    "MESSAGE_REACTION_REMOVE_ALL", "MESSAGE_REACTION_REMOVE_EMOJI", "PRESENCE_UPDATE",
    "STAGE_INSTANCE_CREATE", "STAGE_INSTANCE_UPDATE", "STAGE_INSTANCE_DELETE",
    "SUBSCRIPTION_CREATE", "SUBSCRIPTION_UPDATE", "SUBSCRIPTION_DELETE", "TYPING_START",
    "USER_UPDATE", "VOICE_CHANNEL_EFFECT_SEND", "VOICE_STATE_UPDATE", "VOICE_SERVER_UPDATE",
    "WEBHOOKS_UPDATE", "MESSAGE_POLL_VOTE_ADD", "MESSAGE_POLL_VOTE_REMOVE")


class Op(IntEnum):
    """Gateway opcodes ("Opcodes and Status Codes > Gateway Opcodes")."""

    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE_UPDATE = 3
    VOICE_STATE_UPDATE = 4
    RESUME = 6
    RECONNECT = 7
    REQUEST_GUILD_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11
    REQUEST_SOUNDBOARD_SOUNDS = 31
    REQUEST_CHANNEL_INFO = 43


CLIENT_OPS = frozenset({Op.HEARTBEAT, Op.IDENTIFY, Op.PRESENCE_UPDATE, Op.VOICE_STATE_UPDATE,
                        Op.RESUME, Op.REQUEST_GUILD_MEMBERS, Op.REQUEST_SOUNDBOARD_SOUNDS,
                        Op.REQUEST_CHANNEL_INFO})


class Close(IntEnum):
    """Gateway close event codes ("Gateway Close Event Codes")."""

    UNKNOWN_ERROR = 4000
    UNKNOWN_OPCODE = 4001
    DECODE_ERROR = 4002
    NOT_AUTHENTICATED = 4003
    AUTHENTICATION_FAILED = 4004
    ALREADY_AUTHENTICATED = 4005
    INVALID_SEQ = 4007
    RATE_LIMITED = 4008
    SESSION_TIMED_OUT = 4009
    INVALID_SHARD = 4010
    SHARDING_REQUIRED = 4011
    INVALID_API_VERSION = 4012
    INVALID_INTENTS = 4013
    DISALLOWED_INTENTS = 4014


# After these the session cannot be resumed: a client starts a new one (or gives up).
ENDS_SESSION = frozenset({Close.AUTHENTICATION_FAILED, Close.INVALID_SEQ,
                          Close.SESSION_TIMED_OUT, Close.INVALID_SHARD,
                          Close.SHARDING_REQUIRED, Close.INVALID_API_VERSION,
                          Close.INVALID_INTENTS, Close.DISALLOWED_INTENTS})


class Closed(EmulatorError):
    """The server closes the connection: ``code`` and a ``reason`` (at most 123 bytes,
    the room a websocket close frame has)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason.encode()[:123].decode("utf-8", "ignore")


def has(intents: int, intent: Intent) -> bool:
    return bool(intents & (1 << intent))


def payload(op: Op, data: Any = None, *, seq: int | None = None,
            event: str | None = None) -> dict[str, Any]:
    """A gateway payload ``{"op", "d", "s", "t"}``."""
    return {"op": int(op), "d": data, "s": seq, "t": event}


def decode(raw: str | bytes) -> dict[str, Any]:
    """A client's frame as a payload, or :class:`Closed` 4002 (not JSON, not an object,
    over :data:`MAX_PAYLOAD_BYTES`) or 4001 (``op`` not a client opcode)."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > MAX_PAYLOAD_BYTES:
        raise Closed(Close.DECODE_ERROR, f"Decode error: payload of {size} bytes is over "
                     f"{MAX_PAYLOAD_BYTES}")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Closed(Close.DECODE_ERROR, "Decode error: the payload is not JSON") from None
    if not isinstance(data, dict):
        raise Closed(Close.DECODE_ERROR, "Decode error: the payload is not a JSON object")
    op = data.get("op")
    if isinstance(op, bool) or not isinstance(op, int) or op not in CLIENT_OPS:
        raise Closed(Close.UNKNOWN_OPCODE, f"Unknown opcode: {str(op)[:20]}")
    return data


def invalid(op: Op, why: str) -> Closed:
    """4001 for a payload an opcode does not accept ("or invalid payload for an opcode")."""
    return Closed(Close.UNKNOWN_OPCODE, f"Invalid {op.name} payload: {why}")


def snowflake(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() \
        and int(value) < 2**64
