"""What the console's pages show, as values: the command picker in a locale, the
permission table, the daily create budget.

The picker resolves a name or description as Discord's client does: the
user's locale, else its fallback (``en-US`` <-> ``en-GB``, ``es-419`` ->
``es-ES``: :data:`cmdsync.model.LOCALE_FALLBACKS`, the emulator's
``with_localizations=false`` rule,
:func:`cmdsync.emulator.application_commands.bodies.pick_locale`),
else the default; each value says which one it came from. Chat input
commands are listed by their shown name, as the picker sorts them; user and
message commands are in their own context menus ("Apps"), entry points
apart (Discord's "Application Commands" documentation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from cmdsync.emulator.domain.objects import Application, Channel, StoredCommand
from cmdsync.emulator.interactions.invocation import Decision, Refused, member_decision
from cmdsync.emulator.store.database import Store
from cmdsync.model import (
    LOCALE_FALLBACKS,
    ChannelType,
    CommandType,
    IntegrationType,
    InteractionContext,
    OptionType,
    Permission,
)

_NUMBERED = (OptionType.INTEGER, OptionType.NUMBER)


@dataclass(frozen=True)
class Shown:
    """A text as the client shows it, and where it came from (``source``)."""

    value: str
    source: str
    localized: bool


def shown(body: Mapping[str, Any], field_name: str, locale: str) -> Shown:
    """``field_name`` of ``body`` in ``locale``: its localization, a fallback's, or the
    default (see the module docstring)."""
    default = str(body.get(field_name) or "")
    table = body.get(f"{field_name}_localizations") or {}
    if table.get(locale):
        return Shown(table[locale], f"{field_name}_localizations[{locale}]", True)
    for fallback in LOCALE_FALLBACKS.get(locale, ()):
        if table.get(fallback):
            return Shown(table[fallback], f"{field_name}_localizations[{fallback}] (fallback "
                         f"of {locale})", True)
    return Shown(default, f"default {field_name} (no {locale} localization)", False)


@dataclass(frozen=True)
class OptionView:
    """One option as the picker lists it, with its rules in words."""

    name: Shown
    description: Shown
    type: str
    required: bool
    details: tuple[str, ...]
    choices: tuple[tuple[Shown, Any], ...]
    options: tuple[OptionView, ...]


@dataclass(frozen=True)
class CommandView:
    """One command as the picker shows it, with its settings and raw JSON."""

    id: str
    type: str
    name: Shown
    description: Shown
    options: tuple[OptionView, ...]
    facts: tuple[tuple[str, str], ...]  # (label, value) pairs: version, nsfw, contexts...
    body: dict[str, Any]  # as Discord returns it (with_localizations=true)


@dataclass(frozen=True)
class Picker:
    """A scope's commands in a locale, grouped as the client groups them."""

    chat_input: tuple[CommandView, ...]
    user: tuple[CommandView, ...]
    message: tuple[CommandView, ...]
    entry_points: tuple[CommandView, ...]

    @property
    def empty(self) -> bool:
        return not (self.chat_input or self.user or self.message or self.entry_points)


def picker(commands: Sequence[StoredCommand], rendered: Sequence[dict[str, Any]],
           locale: str) -> Picker:
    """The picker view of ``commands`` (``rendered``: each as Discord returns it)."""
    views = [_command_view(stored, body, locale) for stored, body in zip(commands, rendered)]
    by_type: dict[int, list[CommandView]] = {}
    for stored, view in zip(commands, views):
        by_type.setdefault(stored.type, []).append(view)

    def ordered(kind: CommandType) -> tuple[CommandView, ...]:
        return tuple(sorted(by_type.get(kind, []), key=lambda v: v.name.value.lower()))

    return Picker(ordered(CommandType.CHAT_INPUT), ordered(CommandType.USER),
                  ordered(CommandType.MESSAGE), ordered(CommandType.PRIMARY_ENTRY_POINT))


def _command_view(stored: StoredCommand, body: dict[str, Any], locale: str) -> CommandView:
    facts = [("version", str(body.get("version"))), ("id", stored.id)]
    required = body.get("default_member_permissions")
    facts.append(("default_member_permissions", "everyone" if required is None
                  else permission_names(int(required)) or "administrators only (\"0\")"))
    if "contexts" in body:
        contexts = body.get("contexts")
        facts.append(("contexts", "every context (null)" if contexts is None else ", ".join(
            InteractionContext(c).name.lower() for c in contexts) or "none"))
        facts.append(("integration_types", ", ".join(
            IntegrationType(t).name.lower() for t in body.get("integration_types") or [])))
    facts.append(("nsfw", "yes" if body.get("nsfw") else "no"))
    if stored.type == CommandType.PRIMARY_ENTRY_POINT:
        facts.append(("handler", {1: "APP_HANDLER", 2: "DISCORD_LAUNCH_ACTIVITY"}.get(
            body.get("handler", 1), str(body.get("handler")))))
    return CommandView(stored.id, CommandType(stored.type).name, shown(body, "name", locale),
                       shown(body, "description", locale),
                       tuple(_option_view(o, locale) for o in body.get("options") or []),
                       tuple(facts), body)


def _option_view(option: Mapping[str, Any], locale: str) -> OptionView:
    kind = OptionType(option["type"])
    details: list[str] = []
    if kind in _NUMBERED and ("min_value" in option or "max_value" in option):
        details.append(f"{option.get('min_value', '-∞')} to {option.get('max_value', '∞')}")
    if "min_length" in option or "max_length" in option:
        details.append(f"{option.get('min_length', 0)} to {option.get('max_length', 6000)} "
                       "characters")
    if option.get("channel_types"):
        details.append("channels: " + ", ".join(
            ChannelType(t).name.lower() for t in option["channel_types"]))
    if option.get("autocomplete"):
        details.append("autocomplete")
    return OptionView(
        shown(option, "name", locale), shown(option, "description", locale), kind.name,
        bool(option.get("required")), tuple(details),
        tuple((shown(c, "name", locale), c["value"]) for c in option.get("choices") or []),
        tuple(_option_view(o, locale) for o in option.get("options") or []))


def permission_names(bits: int) -> str:
    """``ban_members, kick_members`` for the bits set (Discord's permission names)."""
    return ", ".join(p.name.lower() for p in Permission if bits & (1 << p))


# -- who can use it -------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """A table row: a member (or a member holding one role) and a decision per channel."""

    label: str
    kind: str  # "member" or "role"
    cells: tuple[Decision, ...]


@dataclass(frozen=True)
class Table:
    """The permission table of one command in one guild."""

    channels: tuple[Channel, ...]
    rows: tuple[Row, ...] = field(default=())


ROLE_PROBE = "1"  # the user id of the imagined member holding a single role


def permission_table(store: Store, app: Application, command: StoredCommand,
                     guild_id: str) -> Table:
    """Each member fixture, and a member holding only each role (with ``@everyone``),
    against each channel of the guild: the decision :func:`member_decision` makes, the
    same as ``cmdsync invoke``'s."""
    channels = tuple(store.channels(guild_id))
    rows: list[Row] = []
    for member in store.members(guild_id):
        user_id = str(member["user_id"])
        if user_id == app.id:
            continue  # the application's own bot does not run its commands
        user = store.user(user_id)
        name = member.get("nick") or (user and (user.get("global_name") or user.get("username"))
                                      ) or "user"
        rows.append(Row(f"{name} ({user_id})", "member", tuple(
            _decide(store, app, command, guild_id, c["id"], user_id, None) for c in channels)))
    for role in store.roles(guild_id):
        roles = [] if role["id"] == guild_id else [role["id"]]
        label = "@everyone only" if not roles else f"{role['name']} ({role['id']})"
        rows.append(Row(label, "role", tuple(
            _decide(store, app, command, guild_id, c["id"], ROLE_PROBE, roles)
            for c in channels)))
    return Table(channels, tuple(rows))


def _decide(store: Store, app: Application, command: StoredCommand, guild_id: str,
            channel_id: str, user_id: str, roles: list[str] | None) -> Decision:
    try:
        decision = member_decision(store, app, command, guild_id=guild_id,
                                   channel_id=channel_id, user_id=user_id, roles=roles)
    except Refused as exc:
        decision = Decision(False, str(exc))
    if roles is None:
        return decision
    return Decision(decision.allowed, decision.rule.replace(f"user {ROLE_PROBE} ", "a member "
                                                            "with this role "))


# -- the daily create budget -------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """Commands created today (UTC) in one scope, of the daily limit."""

    application_id: str
    scope: str
    used: int
    limit: int


def budgets(store: Store, app_ids: Sequence[str], *, now: float, limit: int) -> list[Budget]:
    """Today's create count of every scope of ``app_ids`` (global, each guild)."""
    day = datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%d")
    found = []
    with store.transaction() as db:
        for app_id in app_ids:
            for scope in ["", *store.guilds_of(app_id)]:
                found.append(Budget(app_id, scope or "global",
                                    store.creates_today(db, app_id, scope, day), limit))
    return found
