"""What a bot's test gets back from the emulator: the answer to an invocation, a click,
a choice or a modal (:class:`Invocation`), a user's message and the replies
(:class:`Said`), and :class:`InvocationFailed` with its wording for a test.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.model import CALLBACK_TYPES, EPHEMERAL

_ORIGINAL_TYPES = (20, 23)  # a message of type CHAT_INPUT_COMMAND or CONTEXT_MENU_COMMAND


class InvocationFailed(AssertionError):
    """The command did not get an answer: the client refused to send it (``refused``), or
    the bot did not answer in time or answered what Discord refuses (``failure``).
    An AssertionError, so that pytest shows it as a failed test with its message."""


@dataclass(frozen=True)
class Invocation:
    """What the bot answered to one command (Discord's "Receiving and Responding").

    ``response_type`` is the callback type's name (``CHANNEL_MESSAGE_WITH_SOURCE``,
    ``DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE``, ``MODAL``,
    ``APPLICATION_COMMAND_AUTOCOMPLETE_RESULT``...). ``content``, ``embeds``,
    ``components`` and ``ephemeral`` are the reply's (the original message as
    the bot left it: after a deferral, its edit); ``deferred`` says the bot
    deferred; ``modal`` is the modal's ``data``; ``choices`` the autocomplete
    choices; ``follow_ups`` the follow-up messages that arrived;
    ``channel_messages`` the messages the bot sent to channels meanwhile
    (``interaction.channel.send``: the channel message routes);
    ``interaction`` the interaction the bot received; ``exchange`` all of it as
    the emulator recorded it. ``message`` is the message the answer shows, to click
    or choose on next: the reply, or, after a component's UPDATE_MESSAGE (or
    DEFERRED_UPDATE_MESSAGE and its edit), the message the component is on as it is now.
    """

    response_type: str | None
    content: str | None = None
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    ephemeral: bool = False
    deferred: bool = False
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] = field(default_factory=list)
    follow_ups: list[dict[str, Any]] = field(default_factory=list)
    channel_messages: list[dict[str, Any]] = field(default_factory=list)
    interaction: dict[str, Any] = field(default_factory=dict, repr=False)
    exchange: dict[str, Any] = field(default_factory=dict, repr=False)
    message: dict[str, Any] | None = field(default=None, repr=False)

    @classmethod
    def from_exchange(cls, exchange: Mapping[str, Any],
                      channel_messages: list[dict[str, Any]] | None = None) -> Invocation:
        """The invocation an exchange of ``GET /_emulator/interactions/{id}`` describes,
        with the channel messages sent meanwhile."""
        response = exchange.get("response") or {}
        kind = response.get("type")
        data = response.get("data") or {}
        messages = list(exchange.get("messages") or [])
        original = next((m for m in messages if m.get("type") in _ORIGINAL_TYPES), None)
        updated = exchange.get("updated")  # a component's message its answer updated
        flags = int((original or data).get("flags") or 0)
        return cls(
            response_type=CALLBACK_TYPES.get(kind, str(kind)) if kind is not None else None,
            content=(updated or original or {}).get("content") if updated or original
            else data.get("content"),
            embeds=list((updated or original or data).get("embeds") or []),
            components=list((updated or original or data).get("components") or []),
            ephemeral=bool(flags & EPHEMERAL), deferred=kind in (5, 6),
            modal=dict(data) if kind == 9 else None,
            choices=list(data.get("choices") or []) if kind == 8 else [],
            follow_ups=[m for m in messages if m is not original],
            channel_messages=list(channel_messages or []),
            interaction=dict(exchange.get("interaction") or {}), exchange=dict(exchange),
            message=updated or original)


@dataclass(frozen=True)
class Said:
    """A user's message (``message``, as the bots received it in MESSAGE_CREATE) and the
    messages bots sent to channels after it (``replies``, oldest first)."""

    message: dict[str, Any]
    replies: list[dict[str, Any]] = field(default_factory=list)


_SYNC = ("register the bot's commands in this test first: `await bot.tree.sync()`, or "
         "your library's sync")


def in_a_test(why: str, refusal: Mapping[str, Any]) -> str:
    """The client's refusal worded for a bot's test, chosen by its code: an unknown command
    is registered by the bot's own sync in the test, not by ``cmdsync apply`` (whose fix
    it replaces); another hint (a typo, another guild) gains the sync as an alternative."""
    from cmdsync.emulator.domain.enums import Refusal
    from cmdsync.emulator.interactions.invocation import APPLY_FIRST

    if refusal.get("refusal") != Refusal.UNKNOWN_COMMAND.value:
        return why
    if refusal.get("fix") == APPLY_FIRST:
        return f"{refusal.get('reason')}: {_SYNC}"
    return f"{why} (or {_SYNC})"
