"""What the emulator starts with: applications, guilds, users and their tokens,
and the guild fixtures interactions are built from.

Without ``--seed`` the emulator holds one application ``111111111111111111``
(flags 0; guild and user install, as Discord makes a new application) with bot
token ``emulator-bot-token`` and client credentials ``111111111111111111`` /
``emulator-secret`` and the OAuth2 redirect URI
``http://127.0.0.1:53682/callback`` (``cmdsync login``'s); one guild
``222222222222222222`` (the one every example in ``examples/`` names by default,
so that each plans the same against ``cmdsync emulator`` as with ``--local``); and
a user ``333333333333333333`` whose bearer token
``emulator-user-token`` has scope ``applications.commands.permissions.update``
and may manage that guild. That guild is owned by user ``333333333333333333``
(``owner``) and has a second member ``333333333333333334`` (``member``), the
``@everyone`` role (the guild's id, Discord's default permissions), a role
``Admin`` ``222222222222222225`` (Administrator) that nobody holds, a text
channel ``general`` ``222222222222222223``, a voice channel ``Voice``
``222222222222222224`` and one message ``222222222222222226`` by ``member``
in ``general``. The application's bot is a member too, with ``@everyone``'s
permissions.

A seed (a YAML file for ``--seed``, YAML or JSON for the admin API) replaces
that default and has its shape::

    applications:
      - id: "444444444444444444"
        name: My Activity
        flags: [embedded]        # an int, or flag names (embedded = 1 << 17,
                                 # gateway_message_content = 1 << 18, ...)
        integration_types: [guild_install, user_install]   # default [guild_install]
        bot_token: my-bot-token
        client_secret: my-secret
        entry_point: true        # EMBEDDED apps start with a global "Launch" entry point (Discord's documentation)
        redirect_uris: ["http://127.0.0.1:53682/callback"]  # OAuth2, matched exactly
    guilds:
      - id: "555555555555555555"
        name: Test guild
        owner_id: "666666666666666666"        # bypasses every command permission
        preferred_locale: en-US               # the interactions' guild_locale
        roles:                                # @everyone is the role with the guild's id
          - {id: "555555555555555555", name: "@everyone", permissions: [view_channel, send_messages]}
          - {id: "888888888888888888", name: Mods, permissions: 8}  # int, "8" or names
        members:
          - {user_id: "666666666666666666"}
          - {user_id: "999999999999999999", roles: ["888888888888888888"], nick: Mod}
        channels:
          - {id: "555555555555555556", name: general}            # type 0 (text) by default
          - {id: "555555555555555557", name: Stage, type: 13}
        messages:
          - {id: "555555555555555558", channel_id: "555555555555555556",
             author_id: "999999999999999999", content: hello}
      - {id: "777777777777777777", name: Elsewhere, applications: []}  # installed apps
                                                # (default: every application)
    users:
      - id: "666666666666666666"
        username: alice                         # default: user<last four digits>
        application_id: "444444444444444444"   # the app the bearer token was issued to
        bearer_token: my-user-token            # optional: a user can just be a fixture
        scopes: [applications.commands.permissions.update, applications.commands.update]
        guilds: ["555555555555555555"]          # guilds the user may manage
      - {id: "999999999999999999", username: bob}

Every user may log in on the consent page of ``/oauth2/authorize``
(:mod:`cmdsync.emulator.oauth2.consent`); the tokens it leads to may manage the
user's ``guilds``.

Fixtures can be added later the same way (``POST /_emulator/seed``). Such
a seed is partial: a guild, role, member, channel, message or user the
emulator has already keeps every key the seed leaves out (a guild its
``name``, ``owner_id``, ``preferred_locale`` and ``applications``; a member
its ``nick`` and ``roles``...) and takes the ones it gives; one it does not
have yet gets the defaults of a fresh seed (a guild named ``Guild`` with no
owner, every application installed; a role named ``role`` with no
permission...). A seed file and a reset are complete: what they leave out
takes those defaults.
Problems raise :class:`~cmdsync.errors.UsageError` naming the field.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from cmdsync.emulator.application_commands.commands import add_entry_point
from cmdsync.emulator.domain.enums import OAuth2Scope
from cmdsync.emulator.domain.objects import Token
from cmdsync.emulator.domain.permissions import EVERYONE
from cmdsync.emulator.seed_checks import (
    application_of,
    check_seed,
    permission_bits,
)
from cmdsync.emulator.store.database import Store
from cmdsync.emulator.store.fixtures import ID_KEYS, Kind
from cmdsync.errors import UsageError
from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.loader import load_text
from cmdsync.model import (
    APPLICATION_FLAG_EMBEDDED,
)

__all__ = ["APPLICATION_ID", "BOT_TOKEN", "DEFAULT_SEED", "GUILD_ID", "USER_TOKEN", "apply_seed",
           "check_seed", "default_seed", "load_seed", "parse_seed", "permission_bits"]

APPLICATION_ID = "111111111111111111"
GUILD_ID = "222222222222222222"
USER_ID = "333333333333333333"
BOT_TOKEN = "emulator-bot-token"
CLIENT_SECRET = "emulator-secret"
USER_TOKEN = "emulator-user-token"
REDIRECT_URI = "http://127.0.0.1:53682/callback"  # where `cmdsync login` listens by default
PERMISSIONS_SCOPE = OAuth2Scope.PERMISSIONS_UPDATE.value
COMMANDS_SCOPE = OAuth2Scope.COMMANDS_UPDATE.value
MEMBER_ID = "333333333333333334"
CHANNEL_ID = "222222222222222223"
ADMIN_ROLE_ID = "222222222222222225"
# The @everyone permissions of a new guild: view channels, send messages, read history,
# add reactions, embed links, attach files, use application commands and others.
EVERYONE_PERMISSIONS = int(EVERYONE)

DEFAULT_SEED: dict[str, Any] = {
    # Both installation contexts: what Discord gives a new application (change log,
    # "User-Installed Apps General Availability", 2024-06-27), and what --local's has.
    "applications": [{"id": APPLICATION_ID, "name": "cmdsync emulator", "flags": 0,
                      "integration_types": ["guild_install", "user_install"],
                      "bot_token": BOT_TOKEN, "client_secret": CLIENT_SECRET,
                      "redirect_uris": [REDIRECT_URI]}],
    "guilds": [{
        "id": GUILD_ID, "name": "Emulator Guild", "owner_id": USER_ID,
        "preferred_locale": "en-US",
        "roles": [{"id": GUILD_ID, "name": "@everyone", "permissions": EVERYONE_PERMISSIONS},
                  {"id": ADMIN_ROLE_ID, "name": "Admin", "permissions": 8}],
        "members": [{"user_id": USER_ID}, {"user_id": MEMBER_ID},
                    {"user_id": APPLICATION_ID}],
        "channels": [{"id": CHANNEL_ID, "name": "general", "type": 0},
                     {"id": "222222222222222224", "name": "Voice", "type": 2}],
        "messages": [{"id": "222222222222222226", "channel_id": CHANNEL_ID,
                      "author_id": MEMBER_ID, "content": "hello"}]}],
    "users": [{"id": USER_ID, "username": "owner", "application_id": APPLICATION_ID,
               "bearer_token": USER_TOKEN, "scopes": [PERMISSIONS_SCOPE],
               "guilds": [GUILD_ID]},
              {"id": MEMBER_ID, "username": "member"}],
}

def default_seed() -> dict[str, Any]:
    return copy.deepcopy(DEFAULT_SEED)


def parse_seed(text: str, source: str = "seed", *, complete: bool = True) -> dict[str, Any]:
    """A seed from YAML (or JSON) text, checked (see :func:`check_seed`).

    Read as manifests are (:func:`cmdsync.manifest.loader.load_text`), so
    alias expansion and nesting are bounded (a billion-laughs seed is
    refused at once) and a duplicate key is an error; ``${VAR}`` is not
    interpolated. Raises :class:`UsageError` naming ``source``, the line and
    the column.
    """
    data = None
    if text.strip():
        document = load_text(text, file=source, kind="yaml", interpolate=False)
        errors = [d for d in document.diagnostics if d.severity is Severity.ERROR]
        if errors:
            first = min(errors, key=lambda d: d.sort_key())
            where = first.location
            raise UsageError(f"{source}, line {where.line}, column {where.column}: "
                             f"{first.message}")
        data = document.data
    check_seed(data, source, complete=complete)
    assert isinstance(data, dict)
    return data


def load_seed(path: str) -> dict[str, Any]:
    """Read and check a seed file."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read seed file {path}: {exc.strerror}") from exc
    return parse_seed(text, f"seed file {path}")


def apply_seed(store: Store, seed: dict[str, Any], *, now: float,
               keep_applications: bool = False, partial: bool = False) -> None:
    """Add the seed's applications, guilds, users and tokens to ``store``.

    An EMBEDDED application gets its global entry point if it has none.
    ``keep_applications`` keeps the settings of applications ``store``
    already has (a state file reopened: what ``PATCH /applications/@me``
    changed stays); otherwise the seed's replace them, but for the
    interactions endpoint URL, which a seed does not set. ``partial`` (``POST
    /_emulator/seed``): guilds and fixtures ``store`` has already keep the keys
    the seed leaves out (see the module docstring); otherwise those keys take
    their defaults.
    """
    for item in seed.get("applications") or []:
        app = application_of(item, "seed")
        existing = store.application(app.id)
        if existing is not None and keep_applications:  # but the seed's redirect URIs
            app = replace(existing, redirect_uris=app.redirect_uris)
            store.add_application(app)
        else:  # a seed does not set the interactions endpoint: an existing one stays
            app = replace(app, interactions_endpoint_url=existing.interactions_endpoint_url
                          if existing else None)
            store.add_application(app)
        store.add_token(Token(str(item["bot_token"]), "bot", app.id, None, frozenset(),
                              None, frozenset()))
        if app.flags & APPLICATION_FLAG_EMBEDDED and item.get("entry_point", True):
            with store.transaction() as db:
                add_entry_point(store, db, app, now)
    def put(kind: Kind, guild_id: str, item: dict[str, Any], body: dict[str, Any]) -> None:
        """Store a fixture; in a partial seed, one already there keeps what ``item``
        leaves out (each body key is the seed key of the same name)."""
        stored = store.fixture(kind, guild_id, body[ID_KEYS[kind]]) if partial else None
        if stored is not None:
            body = {**stored, **{key: value for key, value in body.items() if key in item}}
        store.put_fixture(None, kind, guild_id, body[ID_KEYS[kind]], body)

    for guild in seed.get("guilds") or []:
        guild_id = str(guild["id"])
        installed = guild.get("applications")
        name = str(guild.get("name", "Guild"))
        settings = {key: str(guild[key]) for key in ("owner_id", "preferred_locale")
                    if guild.get(key) is not None}
        current = store.guild(guild_id) if partial else None
        if current is not None:  # keys left out keep what the guild has
            if "applications" not in guild:
                installed = _installed(store, guild_id)
            name = str(guild.get("name", current["name"]))
            settings = {**{key: str(value) for key in ("owner_id", "preferred_locale")
                           if (value := current.get(key)) is not None}, **settings}
        store.add_guild(guild_id, name,
                        None if installed is None else [str(a) for a in installed], settings)
        for role in guild.get("roles") or []:
            put("role", guild_id, role, {
                "id": str(role["id"]), "name": str(role.get("name", "role")),
                "permissions": str(permission_bits(role.get("permissions", 0), "seed"))})
        for member in guild.get("members") or []:
            put("member", guild_id, member, {
                "user_id": str(member["user_id"]), "nick": member.get("nick"),
                "roles": [str(r) for r in member.get("roles") or []]})
        for channel in guild.get("channels") or []:
            put("channel", guild_id, channel, {
                "id": str(channel["id"]), "name": str(channel.get("name", "channel")),
                "type": int(channel.get("type", 0))})
        for message in guild.get("messages") or []:
            put("message", guild_id, message, {
                "id": str(message["id"]), "channel_id": str(message["channel_id"]),
                "author_id": str(message["author_id"]),
                "content": str(message.get("content", ""))})
    for user in seed.get("users") or []:
        put("user", "", user, {
            "id": str(user["id"]), "username": user.get("username"),
            "global_name": user.get("global_name"),
            "guilds": [str(g) for g in user.get("guilds") or []]})
        if user.get("bearer_token") in (None, ""):
            continue
        store.add_token(Token(str(user["bearer_token"]), "bearer", str(user["application_id"]),
                              str(user["id"]), frozenset(str(s) for s in user.get("scopes") or []),
                              None, frozenset(str(g) for g in user.get("guilds") or [])))


def _installed(store: Store, guild_id: str) -> list[str] | None:
    """The applications installed in a guild (None: every one)."""
    with store.transaction() as db:
        row = db.execute("SELECT installed FROM guilds WHERE id = ?", (guild_id,)).fetchone()
    return None if row is None or row[0] is None else [str(a) for a in json.loads(row[0])]
