"""What seeded users do in a bot's test besides running commands: write messages, react,
join and leave a guild, change roles (the :class:`~cmdsync.testing.emulator.DiscordEmulator`
methods; Discord's "Gateway Events" each sends the bots).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cmdsync.emulator.instance import Emulator
from cmdsync.testing.results import Invocation, InvocationFailed, Said

SETTLE = 0.02  # seconds the bots are idle before an action returns (settle=True)
WAIT = 3.0  # seconds an action waits at most for what the bots do after it
_STEP = 0.005  # seconds between looks at the bots' activity


Snowflake = str | int  # an id as a test may write it: "333333333333333333" or 333333333333333333


def _id(value: Snowflake | None) -> str | None:
    """An id as the emulator takes it (a string), from a string or an int."""
    return None if value is None else str(value)


class UserActions:
    """The user actions of :class:`~cmdsync.testing.emulator.DiscordEmulator`, on its
    in-process ``emulator`` and ``_seed``."""

    emulator: Emulator
    _seed: dict[str, Any]

    async def send_message(self, content: str, *, channel: Snowflake | None = None,
                           user: Snowflake | None = None, dm: bool = False, replies: int = 0,
                           wait: float | None = None, settle: bool | float = True) -> Said:
        """A seeded user writes ``content`` in ``channel`` (default: the seed's first
        guild's first text channel; with ``dm``, the user's DM with the seed's first
        application's bot; a DM channel's id names the bot it is with) as ``user``
        (default: that guild's owner, else the seed's first user): the bots get MESSAGE_CREATE
        (``content`` empty for a bot without the MESSAGE_CONTENT intent, as Discord
        sends it), so prefix commands and ``on_message`` run. Returns the message and
        what bots sent to channels after it, once ``replies`` messages came and, with
        ``settle`` (the default), the bots have been idle :data:`SETTLE` seconds (or
        ``settle`` seconds); ``wait`` seconds at most (3 by default; with
        ``settle=False``, all of ``wait``, by default none). Raises
        :class:`InvocationFailed` for a user or channel the seed lacks, and when fewer
        than ``replies`` came."""
        from cmdsync.emulator.resources import message_events, messages
        from cmdsync.errors import UsageError

        store = self.emulator.store
        channel, user = _id(channel), _id(user)
        guild = next(iter(self._seed.get("guilds") or []), None)
        if channel is None and guild is not None:
            text = [c for c in store.channels(str(guild["id"])) if c["type"] == 0]
            channel = text[0]["id"] if text else None
        if user is None:
            found = store.guild(str(guild["id"])) if guild else None
            owner = found.get("owner_id") if found else None
            user = owner or next((u["id"] for u in store.users()), None)
        if dm:
            from cmdsync.emulator.resources import objects

            opened = objects.dm_channel(store, str(user or ""),
                                        str(self._seed["applications"][0]["id"]))
            if opened is None:
                raise InvocationFailed(f"the user could not send it: no user {user} in the "
                                       "emulator: add it to the seed's users")
            channel = opened["id"]
        try:
            said = await asyncio.to_thread(
                message_events.user_sends, store, self.emulator.gateway,
                channel_id=str(channel or ""), user_id=str(user or ""), content=content,
                now=self.emulator.clock())
        except UsageError as exc:
            raise InvocationFailed(f"the user could not send it: {exc}") from None
        quiet = SETTLE if settle is True else float(settle or 0.0)
        waited = wait if wait is not None else WAIT if replies or quiet else 0.0

        def replied() -> list[dict[str, Any]]:
            return [m for m in messages.sent(store, after=said["id"]) if m["author"].get("bot")]

        await self._until(lambda: len(replied()) >= replies, quiet, waited,
                          counted=bool(replies))
        sent = replied()
        if len(sent) < replies:
            raise InvocationFailed(f"asked for {replies} replies, {len(sent)} came within "
                                   f"{waited:g} s: {[m.get('content') for m in sent]!r}")
        return Said(said, sent)

    def messages(self, *, channel: Snowflake | None = None, after: Snowflake | None = None
                 ) -> list[dict[str, Any]]:
        """The messages bots sent to channels (not an interaction's answers), oldest
        first, as they are now (edits applied, deleted ones gone): those of ``channel``
        and with ids above ``after`` (a message's or an interaction's id: sent after it)
        when given. A welcome message after :meth:`join`, say, once :meth:`settle`
        returned."""
        from cmdsync.emulator.resources import messages

        return messages.sent(self.emulator.store, channel_id=_id(channel), after=_id(after))

    async def settle(self, *, quiet: float = SETTLE, wait: float = WAIT) -> bool:
        """Wait until the bots have been idle ``quiet`` seconds (no API request in flight,
        no gateway event queued): after :meth:`join`, :meth:`react` or a change the test
        made, before looking at what the bots did. ``wait`` (seconds) bounds it.
        Returns whether they settled in time."""
        return await self._until(lambda: True, quiet, wait, counted=False)

    async def _until(self, arrived: Callable[[], bool], quiet: float, wait: float, *, counted: bool) -> bool:
        """Poll until ``arrived()`` and the bots idle ``quiet`` seconds (with no ``quiet``:
        ``arrived()`` alone when ``counted``, else the whole ``wait``); False when ``wait``
        seconds passed first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            if arrived() and (self.emulator.idle_for() >= quiet if quiet else counted):
                return True
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(min(_STEP if quiet else 0.02, max(deadline - loop.time(), 0)))

    async def react(self, message: Invocation | Mapping[str, Any] | Snowflake, emoji: str, *,
                    user: Snowflake | None = None, remove: bool = False) -> dict[str, Any]:
        """``user`` (default: the guild's owner, else the seed's first user) adds the
        reaction ``emoji`` (``"👍"``, or ``"name:id"`` for a custom emoji) to ``message``
        (as :meth:`click` takes it), or removes it with ``remove``: the bots get
        MESSAGE_REACTION_ADD or _REMOVE. Returns the message with its ``reactions``."""
        from cmdsync.emulator.resources import message_events
        from cmdsync.errors import UsageError

        if isinstance(message, Invocation):
            message = message.message or {}
        message_id = str(message["id"]) if isinstance(message, Mapping) else str(message)
        if user is None:
            guild = next(iter(self._seed.get("guilds") or []), None)
            found = self.emulator.store.guild(str(guild["id"])) if guild else None
            user = (found.get("owner_id") if found else None) or next(
                (u["id"] for u in self.emulator.store.users()), "")
        try:
            return await asyncio.to_thread(
                message_events.user_reacts, self.emulator.store, self.emulator.gateway,
                message_id=message_id, user_id=str(user), emoji=emoji, add=not remove)
        except UsageError as exc:
            raise InvocationFailed(f"the user could not react: {exc}") from None

    async def join(self, user: Snowflake, *, guild: Snowflake | None = None,
                   roles: Sequence[Snowflake] = ()) -> None:
        """A seeded ``user`` joins ``guild`` (the seed's first by default) with ``roles``:
        the bots get GUILD_MEMBER_ADD (with the GUILD_MEMBERS intent). Raises
        :class:`InvocationFailed` for an unknown guild, user or role."""
        await self._members("join", user, guild, roles)

    async def leave(self, user: Snowflake, *, guild: Snowflake | None = None) -> None:
        """``user`` leaves ``guild``: GUILD_MEMBER_REMOVE."""
        await self._members("leave", user, guild, [])

    async def give_roles(self, user: Snowflake, roles: Sequence[Snowflake], *,
                         guild: Snowflake | None = None) -> None:
        """``user``'s roles in ``guild`` become ``roles``: GUILD_MEMBER_UPDATE."""
        await self._members("roles", user, guild, roles)

    async def _members(self, change: str, user: Snowflake, guild: Snowflake | None,
                       roles: Sequence[Snowflake]) -> None:
        who, given = str(user), [str(role) for role in roles]
        where = _id(guild) or next((str(g["id"]) for g in self._seed.get("guilds") or []), "")
        members = self.emulator.members
        try:
            if change == "join":
                await asyncio.to_thread(members.join, where, who, given)
            elif change == "leave":
                if not await asyncio.to_thread(members.remove, where, who):
                    raise KeyError(f"user {who} is not a member of guild {where}")
            else:
                await asyncio.to_thread(members.set_roles, where, who, given)
        except KeyError as exc:
            raise InvocationFailed(f"the user could not {change}: {exc.args[0]}") from None
