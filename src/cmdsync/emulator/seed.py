"""What the emulator starts with: applications, guilds, users and their tokens.

Without ``--seed`` the emulator holds one application ``111111111111111111``
(flags 0, guild install only) with bot token ``emulator-bot-token`` and client
credentials ``111111111111111111`` / ``emulator-secret``; one guild
``222222222222222222``; and a user ``333333333333333333`` whose bearer token
``emulator-user-token`` has scope ``applications.commands.permissions.update``
and may manage that guild.

A seed file (YAML) has the same shape as :data:`DEFAULT_SEED`::

    applications:
      - id: "444444444444444444"
        name: My Activity
        flags: [embedded]          # an int, or flag names: embedded
        integration_types: [guild_install, user_install]   # supported installs
        bot_token: my-bot-token
        client_secret: my-secret
    guilds:
      - {id: "555555555555555555", name: Test guild}
    users:
      - id: "666666666666666666"
        application_id: "444444444444444444"
        bearer_token: my-user-token
        scopes: [applications.commands.permissions.update]
        guilds: ["555555555555555555"]    # guilds the user may manage
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from cmdsync.emulator.store import Application, Store, Token
from cmdsync.errors import UsageError
from cmdsync.model import APPLICATION_FLAG_EMBEDDED, IntegrationType, enum_value

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
_FLAG_NAMES = {"embedded": APPLICATION_FLAG_EMBEDDED}


def default_seed() -> dict[str, Any]:
    return copy.deepcopy(DEFAULT_SEED)


def load_seed(path: str) -> dict[str, Any]:
    """Read a seed file; a bad one raises :class:`UsageError` naming the problem."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read seed file {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise UsageError(f"seed file {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"seed file {path} must be a mapping with applications, guilds "
                         "and users")
    return data


def apply_seed(store: Store, seed: dict[str, Any]) -> None:
    """Add the seed's applications, guilds, users and tokens to ``store``."""
    try:
        for app in seed.get("applications") or []:
            store.add_application(_application(app))
            store.add_token(Token(str(app["bot_token"]), "bot", str(app["id"]), None,
                                  frozenset(), None, frozenset()))
        for guild in seed.get("guilds") or []:
            store.add_guild(str(guild["id"]), str(guild.get("name", "Guild")))
        for user in seed.get("users") or []:
            store.add_token(Token(str(user["bearer_token"]), "bearer",
                                  str(user["application_id"]), str(user["id"]),
                                  frozenset(user.get("scopes") or []), None,
                                  frozenset(str(g) for g in user.get("guilds") or [])))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"seed is missing or has a bad field: {exc}") from exc


def _application(app: dict[str, Any]) -> Application:
    flags = app.get("flags", 0)
    if isinstance(flags, list):
        flags = sum(_FLAG_NAMES[str(name).lower()] for name in flags)
    types = []
    for item in app.get("integration_types", ["guild_install"]):
        value = enum_value(IntegrationType, item)
        if value is None:
            raise ValueError(f"integration type {item!r}")
        types.append(value)
    app_id = str(app["id"])
    return Application(app_id, str(app.get("name", "Application")), int(flags), sorted(types),
                       bot_user_id=app_id, bot_username=str(app.get("name", "Application")),
                       client_secret=str(app["client_secret"]))
