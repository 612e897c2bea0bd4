"""The Discord resources the emulator keeps, one type per resource.

Applications, tokens and commands are frozen dataclasses. Guilds and what the seed
puts in them (users, members, roles, channels, messages) are kept as the JSON
rows the seed gives, typed here as :class:`typing.TypedDict` s (Discord's
"Resources" pages name their fields); :mod:`~cmdsync.emulator.domain.payloads`
turns each into the object Discord sends. An interaction is kept with the payload
it was delivered with (:class:`Interaction`), and a command's permission
overwrites as Discord sends them (:class:`Overwrite`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(frozen=True)
class Application:
    """An application: its flags (EMBEDDED = 1 << 17) and supported install types.

    ``integration_types`` are the installation contexts it supports (0
    GUILD_INSTALL, 1 USER_INSTALL), sorted; ``install_params`` maps a
    context (``"0"``, ``"1"``) to its ``oauth2_install_params`` as Discord
    returns them (``{"scopes": [...], "permissions": "0"}``), where set.
    Its bot user has the application's id (as on Discord since 2016).
    ``interactions_endpoint_url`` is where interactions are POSTed (None:
    not set; Discord's "Receiving an Interaction"). ``redirect_uris`` are the
    OAuth2 redirect URIs registered for it, matched exactly (Discord's "OAuth2"
    topic).
    """

    id: str
    name: str
    flags: int
    integration_types: tuple[int, ...]
    client_secret: str
    install_params: Mapping[str, Any] = field(default_factory=dict, compare=False)
    interactions_endpoint_url: str | None = None
    redirect_uris: tuple[str, ...] = ()


@dataclass(frozen=True)
class Token:
    """A bot or bearer token and what it may do.

    ``expires_at`` is in epoch seconds (None: never). ``guilds`` are the
    guilds the token's user may manage (bearer tokens of seeded users).
    ``grant_id`` is the OAuth2 grant (authorization code) that issued it, if
    one did (:mod:`cmdsync.emulator.oauth2.grants`).
    """

    token: str
    kind: str  # "bot" or "bearer"
    application_id: str
    user_id: str | None
    scopes: frozenset[str]
    expires_at: float | None
    guilds: frozenset[str]
    grant_id: str | None = None


@dataclass(frozen=True)
class StoredCommand:
    """A command as stored: its scope, identity and the fields that were set."""

    id: str
    application_id: str
    guild_id: str  # "" for a global command
    type: int
    name: str
    body: dict[str, Any]
    version: str
    # the body as JSON text, when the writer has it already (saved as is)
    text: str | None = field(default=None, compare=False, repr=False)


class _GuildKeys(TypedDict):
    id: str
    name: str


class Guild(_GuildKeys, total=False):
    """A guild: ``owner_id`` bypasses every command permission; ``preferred_locale`` is
    its interactions' ``guild_locale`` (Discord's "Guild Resource")."""

    owner_id: str | None
    preferred_locale: str


class _UserKeys(TypedDict):
    id: str


class User(_UserKeys, total=False):
    """A seeded user ("User Resource"): ``guilds`` are the guilds it may manage."""

    username: str | None
    global_name: str | None
    guilds: list[str]


class _MemberKeys(TypedDict):
    user_id: str


class Member(_MemberKeys, total=False):
    """A guild member ("Guild Member Object"): its user, nickname and role ids."""

    nick: str | None
    roles: list[str]
    communication_disabled_until: str | None  # a timeout's end (ISO 8601)


class Role(TypedDict):
    """A role ("Permissions > Role Object"): ``permissions`` as an int or decimal string;
    ``@everyone`` is the role whose id is the guild's."""

    id: str
    name: str
    permissions: int | str


class _ChannelKeys(TypedDict):
    id: str
    type: int


class Channel(_ChannelKeys, total=False):
    """A channel ("Channel Resource"): ``type`` a ChannelType; a DM has no ``name``."""

    name: str | None


class _SeedMessageKeys(TypedDict):
    id: str
    channel_id: str
    author_id: str


class SeedMessage(_SeedMessageKeys, total=False):
    """A message the seed put in a channel ("Message Resource"), by ``author_id``."""

    content: str


class Overwrite(TypedDict):
    """One application command permission overwrite, as Discord sends it ("Application
    Command Permissions Object"): ``type`` 1 role, 2 user, 3 channel."""

    id: str
    type: int
    permission: bool


@dataclass(frozen=True)
class Interaction:
    """An interaction the emulator delivered: ``created_at`` in epoch seconds, the
    ``payload`` it was delivered with, and the application's ``response`` once one came
    (Discord's "Interaction Object" and "Interaction Response Object")."""

    id: str
    application_id: str
    token: str
    created_at: float
    payload: Mapping[str, Any]
    response: Mapping[str, Any] | None = field(default=None)
