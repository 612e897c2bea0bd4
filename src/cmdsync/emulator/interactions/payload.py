"""The interaction object sent for an invocation (Discord's "Interactions > Receiving and
Responding > Interaction Object"): its user or member, channel and ``app_permissions``.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import InteractionType
from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.domain.permissions import EVERYONE as EVERYONE_PERMISSIONS
from cmdsync.emulator.interactions.place import Invocation, Where
from cmdsync.emulator.store.database import Store

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # bytes, a guild without boosts




def interaction_payload(app: Application, invocation: Invocation, where: Where,
                        data: dict[str, Any],
             owners: dict[str, str], token: str, interaction_id: str,
             app_permissions: int, kind: InteractionType | None = None) -> dict[str, Any]:
    guild = where.guild
    user = payloads.seeded_user(where.user)
    payload: dict[str, Any] = {
        "id": interaction_id, "application_id": app.id,
        "type": int(kind if kind is not None
                    else InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE
                    if invocation.autocomplete else InteractionType.APPLICATION_COMMAND),
        "data": data, "token": token, "version": 1, "locale": invocation.locale,
        "context": int(where.context), "authorizing_integration_owners": owners,
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT, "entitlements": [],
        "entitlement_sku_ids": []}
    if guild is not None and where.member is not None:
        payload.update(guild_id=guild["id"], guild_locale=guild.get("preferred_locale", "en-US"),
                       guild={"id": guild["id"], "locale": guild.get("preferred_locale",
                                                                      "en-US"),
                              "features": []},
                       member=payloads.interaction_member(where.member, user, where.permissions))
    else:
        payload["user"] = user
    payload["channel"] = payloads.interaction_channel(where.channel, guild["id"] if guild else None,
                                  where.permissions)
    payload["channel_id"] = where.channel["id"]
    payload["app_permissions"] = str(app_permissions)
    return payload


def app_permissions(store: Store, app: Application, where: Where) -> int:
    """What the application may do where it is invoked: in a guild its bot's permissions
    (:meth:`~cmdsync.emulator.store.database.Store.bot_permissions`), in DMs
    ``@everyone``'s defaults."""
    if where.guild is None:
        return int(EVERYONE_PERMISSIONS)
    return store.bot_permissions(where.guild, app.id)
