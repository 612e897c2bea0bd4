"""The plan as a value: what apply would change in Discord, scope by scope.

A :class:`Plan` holds one :class:`ScopePlan` per scope the manifest manages
(``"global"`` or a guild id), each with its :class:`CommandChange` and
:class:`PermissionChange` values; :class:`Action` is create, update, delete
or no-op, its value the glyph the plan shows. Built by
:func:`cmdsync.plan.diff.diff`; pure data, no I/O.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.state import Overwrite

DAILY_CREATE_LIMIT = 200  # creates per guild per day (Discord's "Application Commands" docs)


def natural(name: str) -> tuple[Any, ...]:
    """A sort key reading runs of digits as numbers: ``cmd2`` before ``cmd10``; otherwise
    by code point. The order the plan shows names in, and apply's report too."""
    parts = re.split(r"(\d+)", name)
    return (tuple((int(p), p) if i % 2 else p for i, p in enumerate(parts)), name)


class Action(str, enum.Enum):
    """What apply does to one command or permission set; the value is its glyph."""

    CREATE = "+"
    UPDATE = "~"
    DELETE = "-"
    NO_OP = " "

    @property
    def word(self) -> str:
        """``create``, ``update``, ``delete`` or ``no-op`` (JSON and messages)."""
        return {"+": "create", "~": "update", "-": "delete", " ": "no-op"}[self.value]


@dataclass(frozen=True)
class FieldChange:
    """One changed field: ``path`` as in :mod:`cmdsync.plan.fields`, API values."""

    path: str
    before: Any
    after: Any


@dataclass(frozen=True)
class CommandChange:
    """One command of a scope and what apply does to it.

    ``id`` and ``version`` are the live command's (None for a create).
    ``body`` is what apply sends: the manifest's request body for creates
    and updates (with the live ``id``: a :class:`BodyWithId`), the live command stripped of
    response-only keys for kept ones, None for deletes. ``note`` says why an
    unmanaged live command is kept.
    """

    action: Action
    scope: str
    type: int
    name: str
    id: str | None = None
    version: str | None = None
    changes: tuple[FieldChange, ...] = ()
    body: Mapping[str, Any] | None = None
    renamed_from: str | None = None
    note: str | None = None

    @property
    def declared(self) -> bool:
        """Whether the manifest declares this command: a create, update or no-op it was
        compared with. A live command it does not name is deleted, or kept with a
        ``note`` saying why (:func:`cmdsync.plan.diff.diff`)."""
        return self.action is not Action.DELETE and self.note is None


class BodyWithId(Mapping[str, Any]):
    """A request body with the live command's ``id`` set, read only: what apply sends to
    update a command (:attr:`CommandChange.body`), equal to ``{**body, "id": id}``, its
    keys in the same order; ``dict(sent)`` makes that dict.

    It refers to the manifest's body instead of copying it: a plan of 50,000
    commands would otherwise hold a copy of each (about 15 MiB).
    """

    __slots__ = ("_body", "_id")

    def __init__(self, body: Mapping[str, Any], command_id: str) -> None:
        self._body = body
        self._id = command_id

    def __getitem__(self, key: str) -> Any:
        if key == "id":
            return self._id
        return self._body[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._body
        if "id" not in self._body:
            yield "id"

    def __len__(self) -> int:
        return len(self._body) + ("id" not in self._body)

    def __contains__(self, key: object) -> bool:
        return key == "id" or key in self._body

    def __repr__(self) -> str:
        return repr(dict(self))


@dataclass(frozen=True)
class PermissionChange:
    """One command's overwrites in one guild: ``before`` live, ``after`` desired.

    ``key`` is the manifest's key (``ban``, ``message:Report``, ``*``) or, for
    a live set being cleared, the command's name. ``target_id`` is the command
    id, the application id for ``*``, or None when the command is created by
    this plan (apply learns the id then). ``reason`` explains a forced re-put.
    """

    action: Action
    guild_id: str
    key: str
    target_id: str | None
    command_scope: str | None
    command_type: int | None
    command_name: str | None
    before: tuple[Overwrite, ...]
    after: tuple[Overwrite, ...]
    reason: str | None = None


@dataclass(frozen=True)
class LiveCommand:
    """A live command as the plan saw it: a saved plan's check against drift."""

    id: str
    type: int
    name: str
    version: str | None


@dataclass(frozen=True)
class ScopePlan:
    """The plan for one scope.

    ``creates`` counts new commands (Discord's daily limit of 200 creates
    per guild counts them; renames and updates do not). ``totals`` is the
    number of commands per type name after apply, against ``caps``.
    """

    scope: str
    commands: tuple[CommandChange, ...] = ()
    permissions: tuple[PermissionChange, ...] = ()
    manages_commands: bool = True
    prune: bool = True
    creates: int = 0
    totals: Mapping[str, int] = field(default_factory=dict)
    live: tuple[LiveCommand, ...] = ()

    def count(self, action: Action) -> int:
        return sum(1 for c in self.commands if c.action is action)

    @property
    def has_changes(self) -> bool:
        """Whether apply writes anything here: a command created, updated or deleted, or
        a permission set changed (the plan lists only changed sets)."""
        return any(c.action is not Action.NO_OP for c in self.commands) or bool(
            self.permissions)


@dataclass(frozen=True)
class Plan:
    """Every scope's plan, with warnings and errors (errors make it unsafe to apply)."""

    application_id: str
    scopes: tuple[ScopePlan, ...] = ()
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    manifest_digest: str = ""
    manifests: tuple[str, ...] = ()  # the files the plan was made from, as given
    # "sha256:<hex>" of each of those files' text, None where its bodies depend on
    # the environment (${VAR}) or it is not a file (see DesiredState.sources)
    manifest_sha256: tuple[str | None, ...] = ()
    # the application's name as Discord gave it when planning ("" when not read); not saved
    application_name: str = ""
    # whether the credentials that planned hold a user's Bearer token, which apply needs
    # to put overwrites (None: not known, as in a saved plan); not saved
    user_token: bool | None = None

    @property
    def application_label(self) -> str:
        """``application NAME (ID)``, or ``application ID`` when the name is not known."""
        name = self.application_name
        return f"application {name} ({self.application_id})" if name \
            else f"application {self.application_id}"

    def count(self, action: Action) -> int:
        return sum(scope.count(action) for scope in self.scopes)

    @property
    def permission_changes(self) -> int:
        return sum(len(scope.permissions) for scope in self.scopes)

    @property
    def has_changes(self) -> bool:
        return any(scope.has_changes for scope in self.scopes)

    @property
    def needs_user_token(self) -> tuple[str, ...]:
        """The guilds whose overwrites change when the credentials that planned hold no
        user's Bearer token (apply refuses those without one); () otherwise."""
        if self.user_token is not False:
            return ()
        return tuple(s.scope for s in self.scopes if s.permissions)
