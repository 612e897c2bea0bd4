"""Discord's enums and constants for application commands, with their names.

Every value comes from Discord's developer documentation ("Enums"). Manifests
may spell an enum value as Discord's integer or as the lowercase name of the
member (``chat_input``, ``string``, ``bot_dm``, ``manage_guild`` ...);
:func:`enum_value` turns either into the integer the API wants.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from types import MappingProxyType


class Word(str, enum.Enum):
    """A string enum that prints as its value (``f"{status}"`` is ``applied``), as JSON does."""

    def __str__(self) -> str:
        return str(self.value)


class CommandType(enum.IntEnum):
    CHAT_INPUT = 1
    USER = 2
    MESSAGE = 3
    PRIMARY_ENTRY_POINT = 4


class OptionType(enum.IntEnum):
    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    CHANNEL = 7
    ROLE = 8
    MENTIONABLE = 9
    NUMBER = 10
    ATTACHMENT = 11


class EntryPointHandler(enum.IntEnum):
    APP_HANDLER = 1
    DISCORD_LAUNCH_ACTIVITY = 2


class InteractionContext(enum.IntEnum):
    GUILD = 0
    BOT_DM = 1
    PRIVATE_CHANNEL = 2


class IntegrationType(enum.IntEnum):
    GUILD_INSTALL = 0
    USER_INSTALL = 1


class OverwriteType(enum.IntEnum):
    ROLE = 1
    USER = 2
    CHANNEL = 3


class ChannelType(enum.IntEnum):
    GUILD_TEXT = 0
    DM = 1
    GUILD_VOICE = 2
    GROUP_DM = 3
    GUILD_CATEGORY = 4
    GUILD_ANNOUNCEMENT = 5
    ANNOUNCEMENT_THREAD = 10
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12
    GUILD_STAGE_VOICE = 13
    GUILD_DIRECTORY = 14
    GUILD_FORUM = 15
    GUILD_MEDIA = 16


class Permission(enum.IntEnum):
    """Bit positions of Discord permissions (Discord's "Permissions" documentation)."""

    CREATE_INSTANT_INVITE = 0
    KICK_MEMBERS = 1
    BAN_MEMBERS = 2
    ADMINISTRATOR = 3
    MANAGE_CHANNELS = 4
    MANAGE_GUILD = 5
    ADD_REACTIONS = 6
    VIEW_AUDIT_LOG = 7
    PRIORITY_SPEAKER = 8
    STREAM = 9
    VIEW_CHANNEL = 10
    SEND_MESSAGES = 11
    SEND_TTS_MESSAGES = 12
    MANAGE_MESSAGES = 13
    EMBED_LINKS = 14
    ATTACH_FILES = 15
    READ_MESSAGE_HISTORY = 16
    MENTION_EVERYONE = 17
    USE_EXTERNAL_EMOJIS = 18
    VIEW_GUILD_INSIGHTS = 19
    CONNECT = 20
    SPEAK = 21
    MUTE_MEMBERS = 22
    DEAFEN_MEMBERS = 23
    MOVE_MEMBERS = 24
    USE_VAD = 25
    CHANGE_NICKNAME = 26
    MANAGE_NICKNAMES = 27
    MANAGE_ROLES = 28
    MANAGE_WEBHOOKS = 29
    MANAGE_GUILD_EXPRESSIONS = 30
    USE_APPLICATION_COMMANDS = 31
    REQUEST_TO_SPEAK = 32
    MANAGE_EVENTS = 33
    MANAGE_THREADS = 34
    CREATE_PUBLIC_THREADS = 35
    CREATE_PRIVATE_THREADS = 36
    USE_EXTERNAL_STICKERS = 37
    SEND_MESSAGES_IN_THREADS = 38
    USE_EMBEDDED_ACTIVITIES = 39
    MODERATE_MEMBERS = 40
    VIEW_CREATOR_MONETIZATION_ANALYTICS = 41
    USE_SOUNDBOARD = 42
    CREATE_GUILD_EXPRESSIONS = 43
    CREATE_EVENTS = 44
    USE_EXTERNAL_SOUNDS = 45
    SEND_VOICE_MESSAGES = 46
    SET_VOICE_CHANNEL_STATUS = 48
    SEND_POLLS = 49
    USE_EXTERNAL_APPS = 50
    PIN_MESSAGES = 51
    BYPASS_SLOWMODE = 52


ALL_PERMISSION_BITS = sum(1 << p for p in Permission)

# Discord's "Locales" reference. ar and he appear only in the OpenAPI (unsettled).
LOCALES = frozenset(
    ["id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"]
)
UNSETTLED_LOCALES = frozenset({"ar", "he"})
LOCALE_FALLBACKS: Mapping[str, tuple[str, ...]] = {
    "en-US": ("en-GB",),
    "en-GB": ("en-US",),
    "es-419": ("es-ES",),
}

APPLICATION_FLAG_EMBEDDED = 1 << 17

GLOBAL = "global"  # the scope of global commands; a guild's scope is its id


def scope_label(scope: str) -> str:
    """``"global"``, or ``"guild <id>"``: a scope as plans, results and messages name it."""
    return GLOBAL if scope == GLOBAL else f"guild {scope}"


# Per scope and type (Discord's "Application Commands" documentation).
MAX_COMMANDS_PER_TYPE: Mapping[CommandType, int] = {
    CommandType.CHAT_INPUT: 100,
    CommandType.USER: 15,
    CommandType.MESSAGE: 15,
    CommandType.PRIMARY_ENTRY_POINT: 1,
}
MAX_OPTIONS = 25
MAX_CHOICES = 25
MAX_OVERWRITES = 100
MAX_COMMAND_SIZE = 8000
MAX_SAFE_INTEGER = 2**53 - 1
MAX_NUMBER = 2**53

# Fields that select an enum, and the enum that names their values.
ENUM_FIELDS: Mapping[str, type[enum.IntEnum]] = {
    "handler": EntryPointHandler,
    "contexts": InteractionContext,
    "integration_types": IntegrationType,
    "channel_types": ChannelType,
}


@functools.cache  # rules look names up for every option of every command
def enum_names(enum_cls: type[enum.IntEnum]) -> Mapping[str, int]:
    """Lowercase member names of ``enum_cls`` mapped to their integers."""
    return MappingProxyType({member.name.lower(): int(member) for member in enum_cls})


def enum_value(enum_cls: type[enum.IntEnum], value: object) -> int | None:
    """The integer for ``value`` (an int or a lowercase member name), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in enum_cls._value2member_map_ else None
    if isinstance(value, str):
        return enum_names(enum_cls).get(value)
    return None


# Message flags (Discord's "Message Object": Message Flags).
EPHEMERAL = 1 << 6  # only the user who invoked the interaction sees it
LOADING = 1 << 7  # a deferred response: "is thinking..."
# Interaction callback types by value (Discord's "Receiving and Responding").
CALLBACK_TYPES = {1: "PONG", 4: "CHANNEL_MESSAGE_WITH_SOURCE",
                  5: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE", 6: "DEFERRED_UPDATE_MESSAGE",
                  7: "UPDATE_MESSAGE", 8: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
                  9: "MODAL", 10: "PREMIUM_REQUIRED", 12: "LAUNCH_ACTIVITY"}
