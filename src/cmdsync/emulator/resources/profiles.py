"""Applications as Discord returns them (openapi.json schemas); users and bot users are
:mod:`cmdsync.emulator.domain.payloads`.

- :func:`application`: ``GET /applications/@me`` and ``GET
  /applications/{id}`` (``PrivateApplicationResponse``); with
  ``private=False`` the public ``ApplicationResponse`` of ``GET /oauth2/@me``.
  ``flags`` holds the bits that fit its int32, ``flags_new`` every bit as a
  decimal string; ``integration_types_config`` has a key per supported
  installation context (``"0"`` GUILD_INSTALL, ``"1"`` USER_INSTALL).

Fields the emulator does not model take fixed values: no icon, an empty
description, no team, the owner the application's first seeded user. ``summary`` is
``""``: Discord's "Application Resource > Application Object" listed it as deprecated,
"an empty string", to be removed in API v11; the docs stopped listing it in 2024
(discord-api-docs #7114) and openapi.json has none, but v10 still sends it, and
interactions.py's ``Application`` requires it.
``verify_key`` is the hex Ed25519 public key the emulator signs interactions
with (:mod:`cmdsync.emulator.interactions.signing`); ``interactions_endpoint_url`` is
the one set with ``PATCH /applications/@me``.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.domain.payloads import bot_user, user
from cmdsync.emulator.interactions.signing import verify_key
from cmdsync.emulator.store.database import Store

INT32_MAX = 2**31 - 1
_SCOPES = ["applications.commands", "bot"]  # eligible_oauth2_scopes of a bot application


def owner_id(store: Store, app: Application) -> str:
    """The owner: the application's first seeded user, else the id after the app's."""
    return store.first_user(app.id) or str(int(app.id) + 1)


def application(store: Store, app: Application, *, private: bool = True) -> dict[str, Any]:
    """The application object; see the module docstring."""
    body: dict[str, Any] = {
        "id": app.id, "name": app.name, "icon": None, "description": "", "summary": "",
        "type": None,
        "bot": bot_user(app, pii=False), "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": verify_key(app),
        "flags": app.flags & INT32_MAX, "flags_new": str(app.flags),
        "integration_types_config": integration_types_config(app)}
    if not private:
        return body
    body.update(
        redirect_uris=[], interactions_endpoint_url=app.interactions_endpoint_url,
        role_connections_verification_url=None, event_webhooks_url=None,
        event_webhooks_status=1, event_webhooks_types=[],
        owner=user(owner_id(store, app)), approximate_guild_count=store.guild_count(),
        approximate_user_install_count=0, approximate_user_authorization_count=0,
        explicit_content_filter=0, team=None, eligible_oauth2_scopes=list(_SCOPES))
    return body


def integration_types_config(app: Application) -> dict[str, dict[str, Any]]:
    """``{"0": {...}, "1": {...}}``: a key per supported context, with its install params."""
    config: dict[str, dict[str, Any]] = {}
    for kind in app.integration_types:
        params = app.install_params.get(str(kind))
        config[str(kind)] = {"oauth2_install_params": params} if params else {}
    return config
