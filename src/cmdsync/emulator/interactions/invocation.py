"""Running a command as a user in Discord's client: checks first, then the interaction.

:func:`prepare` takes an :class:`Invocation` (what ``cmdsync invoke`` sends
to ``POST /_emulator/interactions``) and, inside one store transaction,
checks what the Discord client checks before it sends anything, then builds
the interaction payload. A check that fails raises :class:`Refused` with
the reason, worded as the client would explain it. Sources are Discord's
developer documentation: "Interactions > Receiving and Responding" (the
interaction object, its ``data``, ``resolved``, ``app_permissions``,
``context``, ``authorizing_integration_owners``), "Application Commands"
(contexts, integration types, ``default_member_permissions``, option types
and their limits, autocomplete's ``focused``) and "Application Command
Permissions" (overwrites and their precedence).

The checks, in order:

1. the command exists in the scope (guild commands of ``guild_id``, then
   global ones), by its name or the name the client shows in the user's
   locale (its localization, a fallback's: :mod:`cmdsync.emulator.application_commands.command_line`
   reads the command line, localized names of subcommands, options and
   choices included, and the interaction carries the default names);
2. read-repair: the client remembers the ``version`` of each global
   command it last saw; a different version now means the client's copy is
   outdated, so the invocation is answered with Discord's 50035
   ``INTERACTION_APPLICATION_COMMAND_INVALID_VERSION`` and the client takes
   the new version (the next invocation goes through);
3. visibility in the context: ``contexts`` (null: every context; a legacy
   ``dm_permission: false`` hides it in bot DMs), ``integration_types``
   against how the application is installed (in the guild for
   GUILD_INSTALL; USER_INSTALL when the application supports it, taken as
   authorized by the user);
4. in a guild, for a guild-installed command, whether the member may use it:
   the guild owner and members with Administrator always may; otherwise the
   channel overwrites (the channel, then all channels ``guild_id - 1``;
   command-level before application-level) must not deny it, and the member
   overwrites decide (user; then the member's roles, where one allow wins;
   then ``@everyone``, the guild id; command-level before application-level),
   and without any, ``default_member_permissions`` must be a subset of the
   member's permissions;
5. the options: a subcommand (group) where the command has them, known
   names, required ones present, values of the option's type (users,
   channels, roles and messages must exist in the guild fixtures), choices,
   ``min_value``/``max_value``, ``min_length``/``max_length``,
   ``channel_types``. For autocomplete the last option given is the one
   being typed (``focused``): it must have ``autocomplete``, its value is
   sent as typed and nothing is required yet.
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from cmdsync.emulator.application_commands.bodies import command as render_command
from cmdsync.emulator.application_commands.command_line import (
    Line,
    Refused,
    parse_line,
)
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.emulator.domain.objects import Application, StoredCommand
from cmdsync.emulator.interactions.components import prepare_component, prepare_modal
from cmdsync.emulator.interactions.options import MAX_STRING, read_options, read_target, snowflake
from cmdsync.emulator.interactions.payload import (
    ATTACHMENT_SIZE_LIMIT,
    app_permissions,
    interaction_payload,
)
from cmdsync.emulator.interactions.place import ACTIONS, Invocation, place_of
from cmdsync.emulator.interactions.visibility import (
    APPLY_FIRST,
    Decision,
    check_permissions,
    find_command,
    installation_owners,
    member_decision,
    permission_decision,
)
from cmdsync.emulator.store.database import Store
from cmdsync.errors import EmulatorError
from cmdsync.model import (
    LOCALES,
    CommandType,
)

__all__ = [  # the names of the modules beside it that other rooms use are public here too
    "APPLY_FIRST", "ATTACHMENT_SIZE_LIMIT", "MAX_STRING", "Decision", "Invocation", "Line",
    "Outdated", "Prepared", "Refused", "app_permissions", "member_decision", "parse_line",
    "permission_decision", "prepare"]


class Outdated(EmulatorError):
    """The client's copy of a global command is older than the command (read-repair)."""


@dataclass
class Prepared:
    """A checked invocation: the command (None for a component or a modal), the
    interaction payload and its token."""

    app: Application
    command: StoredCommand | None
    payload: dict[str, Any]
    token: str
    outdated: bool = False


def prepare(store: Store, db: sqlite3.Connection, invocation: Invocation, *,
            interaction_id: str) -> Prepared:
    """Check ``invocation`` (see the module docstring) and build its interaction.

    Raises :class:`Refused`. For an outdated global command the returned
    :class:`Prepared` has ``outdated`` set (the new version is remembered in
    the same transaction, so the caller commits and then answers 50035).
    """
    app = store.application(invocation.application_id)
    if app is None:
        raise Refused(Refusal.UNKNOWN_APPLICATION,
                      f"no application {invocation.application_id} in the emulator")
    if invocation.locale not in LOCALES:
        raise Refused(Refusal.UNKNOWN_LOCALE,
                      f"unknown locale {invocation.locale!r}: use one of Discord's "
                      "(en-US, fr, pt-BR, ...)")
    if invocation.kind in ACTIONS:  # a component used, a modal submitted: no command
        prepare_action = prepare_component if invocation.kind == "component" else prepare_modal
        app, payload, token = prepare_action(store, db, invocation,
                                             interaction_id=interaction_id)
        return Prepared(app, None, payload, token)
    if invocation.kind == "message" and invocation.guild_id and not invocation.channel_id:
        message = store.seed_message(invocation.guild_id,
                                snowflake(invocation.target_id or ""))
        if message is not None:  # run from the message: in its channel
            invocation = replace(invocation, channel_id=message["channel_id"])
    where = place_of(store, invocation)
    command = find_command(store, db, app, invocation, where)
    body = render_command(command, app)
    prepared = Prepared(app, command, {}, secrets.token_urlsafe(48))
    if not command.guild_id:
        seen = store.seen_version(db, where.user["id"], command.id)
        store.see_version(db, where.user["id"], command.id, command.version)
        if seen is not None and seen != command.version:
            prepared.outdated = True
            return prepared
    owners = installation_owners(store, app, body, where, invocation)
    if where.guild is not None and "0" in owners:
        check_permissions(store, db, app, body, where)
    data: dict[str, Any] = {"id": command.id, "name": command.name, "type": command.type}
    if command.guild_id:
        data["guild_id"] = command.guild_id
    resolved: dict[str, dict[str, Any]] = {}
    if command.type == CommandType.CHAT_INPUT:
        line = parse_line(invocation.line or "")
        options = read_options(store, body, line, invocation, where, resolved)
        if options:
            data["options"] = options
    elif command.type in (CommandType.USER, CommandType.MESSAGE):
        data["target_id"] = read_target(store, command, invocation, where, resolved)
    if resolved:
        data["resolved"] = resolved
    prepared.payload = interaction_payload(app, invocation, where, data, owners, prepared.token,
                                interaction_id, app_permissions(store, app, where))
    return prepared
