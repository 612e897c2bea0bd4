"""Discord's objects as it sends them, built from the emulator's types (pure: no store).

One serializer per resource, shared by REST, the gateway and the interaction
payload: users (``UserResponse``, a bot user), a seeded message (Discord's
"Message Object"). Fields the emulator does not model take the values a new
account has. The serializers that need the store to find related objects (a
member's user, a channel's siblings) are in :mod:`cmdsync.emulator.resources.objects`.
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain.objects import Application, SeedMessage, User
from cmdsync.model import InteractionContext

JOINED_AT = "2024-01-01T00:00:00+00:00"  # every seeded member's join date, and a thread's


def bot_user(app: Application, *, pii: bool = True) -> dict[str, Any]:
    """The application's bot user; ``pii`` adds the ``UserPIIResponse`` fields."""
    body = _user_base(app.id, app.name, bot=True)
    if pii:
        body.update(mfa_enabled=True, locale="en-US", premium_type=0, email=None,
                    verified=True)
    return body


def user(user_id: str, *, pii: bool = False, username: str | None = None,
         global_name: str | None = None) -> dict[str, Any]:
    """A (human) user: ``username`` or ``user<last four digits>``; ``pii`` as in
    :func:`bot_user`."""
    body = _user_base(user_id, username or f"user{user_id[-4:]}", bot=False)
    body["global_name"] = global_name
    if pii:
        body.update(mfa_enabled=False, locale="en-US", premium_type=0, verified=True)
    return body


def _user_base(user_id: str, username: str, *, bot: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": user_id, "username": username, "avatar": None,
        "discriminator": f"{int(user_id) % 10000:04d}" if bot else "0",
        "public_flags": 0, "flags": 0}
    body.update(banner=None, accent_color=None, global_name=None,
                avatar_decoration_data=None, collectibles=None, primary_guild=None)
    if bot:
        body["bot"] = True
    return body


def dm_channel_id(user_id: str, context: InteractionContext) -> str:
    """The id of the user's DM (BOT_DM) or group DM (PRIVATE_CHANNEL) channel: stable per
    user and context, below the user's own (never the same); ``POST /users/@me/channels``
    gives the bot the same DM channel."""
    return str(max(int(user_id) - 1 - int(context), 1))


def fixture_message(message: SeedMessage, author: dict[str, Any], guild_id: str | None
                    ) -> dict[str, Any]:
    """A fixture message as Discord's message object."""
    body = {"id": message["id"], "channel_id": message["channel_id"], "type": 0,
            "author": author, "content": message.get("content", ""),
            "timestamp": JOINED_AT, "edited_timestamp": None, "tts": False,
            "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [], "embeds": [], "pinned": False, "flags": 0, "components": []}
    if guild_id:
        body["guild_id"] = guild_id
    return body


def person(user_id: str, seeded: User | None, app: Application | None
           ) -> dict[str, Any] | None:
    """The user ``user_id`` as Discord shows it (``UserResponse``): the ``seeded`` user,
    else the bot user of the application with that id, else None."""
    if seeded is not None:
        return user(user_id, username=seeded.get("username"),
                    global_name=seeded.get("global_name"))
    return bot_user(app, pii=False) if app is not None else None
