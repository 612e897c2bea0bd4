"""What the emulator starts with: applications, guilds, users and their tokens.

Without ``--seed`` the emulator holds one application ``111111111111111111``
(flags 0, guild install only) with bot token ``emulator-bot-token`` and client
credentials ``111111111111111111`` / ``emulator-secret``; one guild
``222222222222222222``; and a user ``333333333333333333`` whose bearer token
``emulator-user-token`` has scope ``applications.commands.permissions.update``
and may manage that guild.

A seed (a YAML file for ``--seed``, YAML or JSON for the admin API) replaces
that default and has its shape::

    applications:
      - id: "444444444444444444"
        name: My Activity
        flags: [embedded]        # an int, or flag names (embedded = 1 << 17)
        integration_types: [guild_install, user_install]   # default [guild_install]
        bot_token: my-bot-token
        client_secret: my-secret
        entry_point: true        # EMBEDDED apps start with a global "Launch" entry point (FACTS.md)
    guilds:
      - {id: "555555555555555555", name: Test guild}
      - {id: "777777777777777777", name: Elsewhere, applications: []}  # installed apps
                                                # (default: every application)
    users:
      - id: "666666666666666666"
        application_id: "444444444444444444"   # the app the bearer token was issued to
        bearer_token: my-user-token
        scopes: [applications.commands.permissions.update, applications.commands.update]
        guilds: ["555555555555555555"]          # guilds the user may manage

Problems raise :class:`~cmdsync.errors.UsageError` naming the field.
"""

from __future__ import annotations

import copy
import sqlite3
from typing import Any

import yaml

from cmdsync.emulator.bodies import stored_body
from cmdsync.emulator.database import Application, Store, StoredCommand, Token
from cmdsync.errors import UsageError
from cmdsync.model import APPLICATION_FLAG_EMBEDDED, CommandType, IntegrationType, enum_value

APPLICATION_ID = "111111111111111111"
GUILD_ID = "222222222222222222"
USER_ID = "333333333333333333"
BOT_TOKEN = "emulator-bot-token"
CLIENT_SECRET = "emulator-secret"
USER_TOKEN = "emulator-user-token"
PERMISSIONS_SCOPE = "applications.commands.permissions.update"
COMMANDS_SCOPE = "applications.commands.update"

DEFAULT_SEED: dict[str, Any] = {
    "applications": [{"id": APPLICATION_ID, "name": "cmdsync emulator", "flags": 0,
                      "integration_types": ["guild_install"], "bot_token": BOT_TOKEN,
                      "client_secret": CLIENT_SECRET}],
    "guilds": [{"id": GUILD_ID, "name": "Emulator Guild"}],
    "users": [{"id": USER_ID, "application_id": APPLICATION_ID, "bearer_token": USER_TOKEN,
               "scopes": [PERMISSIONS_SCOPE], "guilds": [GUILD_ID]}],
}
FLAG_NAMES = {"embedded": APPLICATION_FLAG_EMBEDDED}
# The entry point Discord creates for an app with an Activity (FACTS.md).
ENTRY_POINT = {"type": int(CommandType.PRIMARY_ENTRY_POINT), "name": "Launch",
               "description": "Launch an activity", "handler": 2}


def default_seed() -> dict[str, Any]:
    return copy.deepcopy(DEFAULT_SEED)


def parse_seed(text: str, source: str = "seed") -> dict[str, Any]:
    """A seed from YAML (or JSON) text, checked; see the module docstring."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"{source} is not valid YAML: {exc}") from exc
    check_seed(data, source)
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


def check_seed(data: Any, source: str = "seed") -> None:
    """Raise :class:`UsageError` for the first problem in a seed."""
    if not isinstance(data, dict):
        raise UsageError(f"{source} must be a mapping with applications, guilds and users")
    required = {"applications": ("id", "bot_token", "client_secret"), "guilds": ("id",),
                "users": ("id", "application_id", "bearer_token")}
    for section, keys in required.items():
        items = data.get(section) or []
        if not isinstance(items, list):
            raise UsageError(f"{source}: {section} must be a list")
        for index, item in enumerate(items):
            where = f"{source}: {section}[{index}]"
            if not isinstance(item, dict):
                raise UsageError(f"{where} must be a mapping")
            for key in keys:
                if item.get(key) in (None, ""):
                    raise UsageError(f"{where}: {key!r} is required")
            if section == "applications":
                _application(item, where)
            if section == "guilds" and not isinstance(item.get("applications", []), list):
                raise UsageError(f"{where}: applications must be a list of application ids")
    if not data.get("applications"):
        raise UsageError(f"{source}: at least one application is required")


def apply_seed(store: Store, seed: dict[str, Any], *, now: float,
               keep_applications: bool = False) -> None:
    """Add the seed's applications, guilds, users and tokens to ``store``.

    An EMBEDDED application gets its global entry point if it has none.
    ``keep_applications`` keeps the settings of applications ``store``
    already has (a state file reopened: what ``PATCH /applications/@me``
    changed stays); otherwise the seed's replace them.
    """
    for item in seed.get("applications") or []:
        app = _application(item, "seed")
        existing = store.application(app.id) if keep_applications else None
        if existing is None:
            store.add_application(app)
        else:
            app = existing
        store.add_token(Token(str(item["bot_token"]), "bot", app.id, None, frozenset(),
                              None, frozenset()))
        if app.flags & APPLICATION_FLAG_EMBEDDED and item.get("entry_point", True):
            with store.transaction() as db:
                add_entry_point(store, db, app, now)
    for guild in seed.get("guilds") or []:
        installed = guild.get("applications")
        store.add_guild(str(guild["id"]), str(guild.get("name", "Guild")),
                        None if installed is None else [str(a) for a in installed])
    for user in seed.get("users") or []:
        store.add_token(Token(str(user["bearer_token"]), "bearer", str(user["application_id"]),
                              str(user["id"]), frozenset(str(s) for s in user.get("scopes") or []),
                              None, frozenset(str(g) for g in user.get("guilds") or [])))


def add_entry_point(store: Store, db: sqlite3.Connection, app: Application,
                    now: float) -> None:
    """Give ``app`` Discord's default global entry point ("Launch") unless it has one.

    Runs inside an open transaction; ``now`` is epoch seconds.
    """
    if any(c.type == CommandType.PRIMARY_ENTRY_POINT for c in store.commands(db, app.id, "")):
        return
    body = stored_body(ENTRY_POINT, guild=False, integration_types=app.integration_types)
    store.save_command(db, StoredCommand(
        id=store.next_snowflake(db, now), application_id=app.id, guild_id="",
        type=int(CommandType.PRIMARY_ENTRY_POINT), name=str(ENTRY_POINT["name"]),
        body=body, version=store.next_snowflake(db, now)))


def _application(item: dict[str, Any], where: str) -> Application:
    flags = item.get("flags", 0)
    if isinstance(flags, list):
        unknown = [name for name in flags if str(name).lower() not in FLAG_NAMES]
        if unknown:
            raise UsageError(f"{where}: unknown flag {unknown[0]!r}: use an integer or "
                             f"{', '.join(FLAG_NAMES)}")
        flags = sum(FLAG_NAMES[str(name).lower()] for name in flags)
    if not isinstance(flags, int) or isinstance(flags, bool) or flags < 0:
        raise UsageError(f"{where}: flags must be an integer or a list of flag names")
    types = []
    for value in item.get("integration_types") or ["guild_install"]:
        number = enum_value(IntegrationType, value)
        if number is None:
            raise UsageError(f"{where}: unknown integration type {value!r}: use guild_install "
                             "or user_install")
        types.append(number)
    return Application(str(item["id"]), str(item.get("name", "Application")), flags,
                       tuple(sorted(set(types))), str(item["client_secret"]))
