"""Who the caller is: the current user, the application, and changes to the application.

Endpoints (openapi.json ``paths``; bodies rendered by
:mod:`cmdsync.emulator.resources.profiles`):

- ``GET /users/@me``: a bot token's bot user (``bot: true``); a Bearer
  token with scope ``identify``: its user, or for a client-credentials token
  the application's owner (as Discord does); without ``identify`` 401 code 40001.
- ``GET /applications/@me``, ``GET /oauth2/applications/@me``: the bot
  token's application. ``GET /applications/{application.id}``: that
  application, for its own bot token (else 404 code 10002 / 403 code 20012).
  A Bearer token gets 403 code 20002 "Only bots can use this endpoint"
  (openapi.json: bot tokens only; the code is Discord's, not in Discord's documentation).
- ``PATCH /applications/@me`` (and ``/applications/{application.id}``):
  ``flags`` (a non-negative integer, every bit) and
  ``integration_types_config`` (``{"0": {...} | null, "1": ...}``, one or
  two keys: the installation contexts supported from now on, each with
  optional ``oauth2_install_params`` ``{"scopes": ["applications.commands",
  "bot"], "permissions": int}``). Other ``ApplicationFormPartial`` fields are
  accepted and ignored. ``interactions_endpoint_url`` (an http(s) URL, or
  null or "" to clear it) is verified first as Discord verifies it
  (:mod:`cmdsync.emulator.interactions.delivery`: a signed PING answered ``{"type": 1}``,
  a badly signed one refused) and refused with 50035 otherwise. Bad values
  answer 50035. Setting EMBEDDED gives the
  application Discord's default "Launch" entry point if it has none (as a
  seeded EMBEDDED application starts); clearing it deletes the entry point
  (the emulator's choice: Discord does not document it), so that a
  non-EMBEDDED application never holds one. Existing commands keep their
  ``integration_types``.
- ``GET /oauth2/@me`` with a Bearer token: ``{"application" (public fields),
  "expires", "scopes", "user" (with identify)}``; bot tokens get 401.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from cmdsync.emulator.application_commands.commands import add_entry_point
from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.interactions import delivery
from cmdsync.emulator.reference import access, error_replies
from cmdsync.emulator.reference.call import Call, Reply
from cmdsync.emulator.reference.form_body import nest
from cmdsync.emulator.resources import profiles
from cmdsync.model import APPLICATION_FLAG_EMBEDDED, CommandType, IntegrationType

INSTALL_SCOPES = ("applications.commands", "bot")  # openapi.json ApplicationOAuth2InstallParams
MAX_PERMISSIONS = 2**54 - 1
_CONTEXTS = {str(int(kind)) for kind in IntegrationType}
Leaf = tuple[list[str], str, str]


def current_user(call: Call) -> Reply:
    """``GET /users/@me``."""
    token = call.token
    app = _own_application(call)
    if token.kind == "bot":
        return Reply(200, payloads.bot_user(app))
    if "identify" not in token.scopes:
        raise error_replies.missing_scope()
    return Reply(200, _person(call, token.user_id or profiles.owner_id(call.store, app),
                              pii=True))


def my_application(call: Call) -> Reply:
    """``GET /applications/@me``, ``GET /oauth2/applications/@me``."""
    _bot_only(call)
    return Reply(200, profiles.application(call.store, _own_application(call)))


def get_application(call: Call) -> Reply:
    """``GET /applications/{application.id}``."""
    _bot_only(call)
    app = access.application(call.store, call.token, call.params["application_id"])
    return Reply(200, profiles.application(call.store, app))


def edit_application(call: Call) -> Reply:
    """``PATCH /applications/@me`` or ``/applications/{application.id}``."""
    _bot_only(call)
    app_id = call.params.get("application_id") or call.token.application_id
    store = call.store
    endpoint: tuple[str | None] | None = None
    if isinstance(call.body, dict) and "interactions_endpoint_url" in call.body:
        url = delivery.check_endpoint_url(call.body["interactions_endpoint_url"])
        if url is not None:  # outside the transaction: the bot may call back meanwhile
            delivery.verify_endpoint(access.application(store, call.token, app_id), url,
                                     now=call.now, deadline=call.limits.verification_deadline,
                                     max_bytes=call.limits.max_body_bytes)
        endpoint = (url,)
    with store.transaction() as db:  # read and write in one: concurrent PATCHes serialize
        app = access.application(store, call.token, app_id)
        changed = patched(app, call.body)
        if endpoint is not None:
            changed = replace(changed, interactions_endpoint_url=endpoint[0])
        store.save_application(db, changed)
        was, now = _embedded(app), _embedded(changed)
        if now and not was:
            add_entry_point(store, db, changed, call.now)
        elif was and not now:
            for command in store.commands(db, app.id, ""):
                if command.type == CommandType.PRIMARY_ENTRY_POINT:
                    store.delete_command(db, command)
    return Reply(200, profiles.application(store, changed))


def authorization(call: Call) -> Reply:
    """``GET /oauth2/@me``: the Bearer token's authorization."""
    token = call.token
    if token.kind != "bearer":
        raise error_replies.unauthorized()
    app = _own_application(call)
    expires = token.expires_at if token.expires_at is not None else call.now + 7 * 86400
    body: dict[str, Any] = {
        "application": profiles.application(call.store, app, private=False),
        "expires": datetime.fromtimestamp(expires, timezone.utc).isoformat(),
        "scopes": sorted(token.scopes)}
    if "identify" in token.scopes:
        body["user"] = _person(call, token.user_id or profiles.owner_id(call.store, app))
    return Reply(200, body)


def _person(call: Call, user_id: str, *, pii: bool = False) -> dict[str, Any]:
    """The user, named as the seed names them."""
    fixture = call.store.user(user_id)
    return payloads.user(user_id, pii=pii, username=fixture.get("username") if fixture else None,
                         global_name=fixture.get("global_name") if fixture else None)


def _own_application(call: Call) -> Application:
    app = call.store.application(call.token.application_id)
    if app is None:
        raise error_replies.unknown("application")
    return app


def _bot_only(call: Call) -> None:
    if call.token.kind != "bot":
        raise error_replies.bots_only()


def _embedded(app: Application) -> bool:
    return bool(app.flags & APPLICATION_FLAG_EMBEDDED)


def patched(app: Application, body: Any) -> Application:
    """``app`` with a PATCH body's ``flags`` and ``integration_types_config``; 50035 if bad."""
    if not isinstance(body, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                 "Only dictionaries may be used in a ModelType")
    leaves: list[Leaf] = []
    flags = body.get("flags")
    if flags is not None and (not isinstance(flags, int) or isinstance(flags, bool)
                              or flags < 0):
        leaves.append((["flags"], "NUMBER_TYPE_COERCE", f'Value "{flags}" is not int.'))
    config = body.get("integration_types_config")
    types, params = _config(config, leaves) if config is not None else (None, None)
    if leaves:
        raise error_replies.invalid_form(nest(leaves))
    changed = app if flags is None else replace(app, flags=flags)
    if types is not None:
        changed = replace(changed, integration_types=types, install_params=params or {})
    return changed


def _config(config: Any, leaves: list[Leaf]
            ) -> tuple[tuple[int, ...] | None, dict[str, Any] | None]:
    """Supported contexts and their install params from ``integration_types_config``."""
    where = ["integration_types_config"]
    if not isinstance(config, dict):
        leaves.append((where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType"))
        return None, None
    if not 1 <= len(config) <= 2:
        leaves.append((where, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 2 in length."))
    params: dict[str, Any] = {}
    for key, value in config.items():
        if key not in _CONTEXTS:
            leaves.append((where + [key], "ENUM_TYPE_COERCE",
                           f'Value "{key}" is not a valid enum value.'))
        elif value is not None and not isinstance(value, dict):
            leaves.append((where + [key], "MODEL_TYPE_CONVERT",
                           "Only dictionaries may be used in a ModelType"))
        elif value and value.get("oauth2_install_params") is not None:
            found = _install_params(value["oauth2_install_params"],
                                    where + [key, "oauth2_install_params"], leaves)
            if found:
                params[key] = found
    return tuple(sorted(int(k) for k in config if k in _CONTEXTS)), params


def _install_params(value: Any, where: list[str], leaves: list[Leaf]) -> dict[str, Any] | None:
    """``{"scopes": [...], "permissions": "<decimal>"}`` as Discord returns them."""
    if not isinstance(value, dict):
        leaves.append((where, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"))
        return None
    scopes = value.get("scopes") or []
    if not isinstance(scopes, list) or not scopes or any(s not in INSTALL_SCOPES for s in scopes):
        leaves.append((where + ["scopes"], "ENUM_TYPE_COERCE",
                       f"Scopes must be one or more of {', '.join(INSTALL_SCOPES)}."))
        return None
    permissions = value.get("permissions") or 0
    if isinstance(permissions, str) and permissions.isdigit():
        permissions = int(permissions)
    if not isinstance(permissions, int) or isinstance(permissions, bool) \
            or not 0 <= permissions <= MAX_PERMISSIONS:
        leaves.append((where + ["permissions"], "NUMBER_TYPE_COERCE",
                       f'Value "{permissions}" is not int.'))
        return None
    return {"scopes": list(dict.fromkeys(scopes)), "permissions": str(permissions)}
