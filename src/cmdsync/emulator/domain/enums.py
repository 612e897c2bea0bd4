"""Discord's enumerations the emulator speaks, each defined once.

Types of interaction and of interaction callback ("Interactions > Receiving and
Responding"), gateway intents ("Gateway > Gateway Intents"), application flags
("Resources > Application > Application Flags") and OAuth2 scopes ("Topics >
OAuth2 > Shared Resources > OAuth2 Scopes"). Enums shared with manifests (command,
option, channel and integration types, contexts, permission bits) live in
:mod:`cmdsync.model` and are imported from there.
"""

from __future__ import annotations

import enum

from cmdsync.model import APPLICATION_FLAG_EMBEDDED, IntegrationType

__all__ = [
    "ALL_INTENTS",
    "MAX_INTENTS",
    "PRIVILEGED",
    "ApplicationFlag",
    "ButtonStyle",
    "CallbackType",
    "ComponentType",
    "Failure",
    "IntegrationType",
    "Intent",
    "InteractionType",
    "OAuth2Scope",
    "Refusal",
]


class InteractionType(enum.IntEnum):
    """An interaction's ``type``."""

    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    APPLICATION_COMMAND_AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(enum.IntEnum):
    """An interaction response's ``type`` ("Interaction Callback Type")."""

    PONG = 1
    CHANNEL_MESSAGE_WITH_SOURCE = 4
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    LAUNCH_ACTIVITY = 12


class Intent(enum.IntEnum):
    """The gateway intents: bit numbers (the intents value is ``sum(1 << intent)``)."""

    GUILDS = 0
    GUILD_MEMBERS = 1
    GUILD_MODERATION = 2
    GUILD_EXPRESSIONS = 3
    GUILD_INTEGRATIONS = 4
    GUILD_WEBHOOKS = 5
    GUILD_INVITES = 6
    GUILD_VOICE_STATES = 7
    GUILD_PRESENCES = 8
    GUILD_MESSAGES = 9
    GUILD_MESSAGE_REACTIONS = 10
    GUILD_MESSAGE_TYPING = 11
    DIRECT_MESSAGES = 12
    DIRECT_MESSAGE_REACTIONS = 13
    DIRECT_MESSAGE_TYPING = 14
    MESSAGE_CONTENT = 15
    GUILD_SCHEDULED_EVENTS = 16
    AUTO_MODERATION_CONFIGURATION = 20
    AUTO_MODERATION_EXECUTION = 21
    GUILD_MESSAGE_POLLS = 24
    DIRECT_MESSAGE_POLLS = 25


ALL_INTENTS = sum(1 << intent for intent in Intent)
# Every bit up to the highest documented intent, the gaps (17-19, 22, 23) included: what
# IDENTIFY may carry without 4013. Discord's "Gateway > Gateway Intents" names no bit in
# the gaps and does not say that one is invalid; interactions.py's default intents set
# bit 17, and Discord takes them (that library's default connects), so the emulator
# infers that undocumented bits are accepted and ignored. Above the highest documented
# bit, it answers 4013 "Invalid intent(s)" (the emulator's inference too).
MAX_INTENTS = (1 << (max(Intent) + 1)) - 1


class ApplicationFlag(enum.IntFlag):
    """An application's ``flags``."""

    GATEWAY_PRESENCE = 1 << 12
    GATEWAY_PRESENCE_LIMITED = 1 << 13
    GATEWAY_GUILD_MEMBERS = 1 << 14
    GATEWAY_GUILD_MEMBERS_LIMITED = 1 << 15
    VERIFICATION_PENDING_GUILD_LIMIT = 1 << 16
    EMBEDDED = APPLICATION_FLAG_EMBEDDED  # 1 << 17, an Activity (manifests use it too)
    GATEWAY_MESSAGE_CONTENT = 1 << 18
    GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19
    APPLICATION_COMMAND_BADGE = 1 << 23


# A privileged intent -> the application flags (either one) that allow it.
PRIVILEGED: dict[Intent, ApplicationFlag] = {
    Intent.GUILD_PRESENCES: ApplicationFlag.GATEWAY_PRESENCE
    | ApplicationFlag.GATEWAY_PRESENCE_LIMITED,
    Intent.GUILD_MEMBERS: ApplicationFlag.GATEWAY_GUILD_MEMBERS
    | ApplicationFlag.GATEWAY_GUILD_MEMBERS_LIMITED,
    Intent.MESSAGE_CONTENT: ApplicationFlag.GATEWAY_MESSAGE_CONTENT
    | ApplicationFlag.GATEWAY_MESSAGE_CONTENT_LIMITED,
}


class OAuth2Scope(str, enum.Enum):
    """The OAuth2 scopes the emulator grants (compare with ``.value``: tokens keep strings)."""

    COMMANDS_UPDATE = "applications.commands.update"
    PERMISSIONS_UPDATE = "applications.commands.permissions.update"
    COMMANDS = "applications.commands"
    BOT = "bot"
    IDENTIFY = "identify"


class Refusal(str, enum.Enum):
    """Why Discord's client would not send an invocation: the code of a refusal, which the
    CLI, the console and the pytest plugin word for their reader (the value travels in
    the admin API's JSON as ``refusal``)."""

    INVALID_REQUEST = "invalid_request"  # the invocation itself is malformed
    INVALID_LINE = "invalid_line"  # the command line cannot be read
    UNKNOWN_APPLICATION = "unknown_application"
    UNKNOWN_LOCALE = "unknown_locale"
    UNKNOWN_GUILD = "unknown_guild"
    UNKNOWN_USER = "unknown_user"
    NOT_A_MEMBER = "not_a_member"
    UNKNOWN_CHANNEL = "unknown_channel"
    WRONG_CONTEXT = "wrong_context"  # --guild and --context disagree
    UNKNOWN_COMMAND = "unknown_command"
    NOT_SHOWN = "not_shown"  # contexts, integration types, another guild's command
    NOT_PERMITTED = "not_permitted"  # permission overwrites, default_member_permissions
    INVALID_OPTION = "invalid_option"  # an option, value or target the client refuses
    NOT_DELIVERED = "not_delivered"  # no interactions endpoint and no bot connected
    UNKNOWN_MESSAGE = "unknown_message"  # the message a component is on
    UNKNOWN_COMPONENT = "unknown_component"  # no such button, select or modal field
    DISABLED = "disabled"  # a disabled component cannot be used
    NOT_YOURS = "not_yours"  # another user's ephemeral message, or modal
    INVALID_VALUES = "invalid_values"  # a choice that is not an option, too few or many
    CLOSED = "closed"  # a modal submitted already: the client closed it


class Failure(str, enum.Enum):
    """Why an interaction the client sent failed ("This interaction failed"): the code the
    exchange carries as ``failure_code`` beside its ``failure`` in words."""

    NOT_DELIVERED = "not_delivered"  # no interactions endpoint and no bot connected
    NO_RESPONSE = "no_response"  # nothing acceptable within Discord's 3 seconds
    INVALID_RESPONSE = "invalid_response"  # an answer Discord refuses
    ERROR_STATUS = "error_status"  # an interactions endpoint answered an HTTP error status


class ComponentType(enum.IntEnum):
    """A message component's ``type`` ("Message Components > Component Types")."""

    ACTION_ROW = 1
    BUTTON = 2
    STRING_SELECT = 3
    TEXT_INPUT = 4
    USER_SELECT = 5
    ROLE_SELECT = 6
    MENTIONABLE_SELECT = 7
    CHANNEL_SELECT = 8
    SECTION = 9
    TEXT_DISPLAY = 10
    CONTAINER = 17
    LABEL = 18


class ButtonStyle(enum.IntEnum):
    """A button's ``style``: LINK and PREMIUM send no interaction."""

    PRIMARY = 1
    SECONDARY = 2
    SUCCESS = 3
    DANGER = 4
    LINK = 5
    PREMIUM = 6
