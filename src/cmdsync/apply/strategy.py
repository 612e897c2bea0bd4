"""Which write requests apply makes for a plan: pure, no I/O.

Per scope with command changes (Discord's "Application Commands" documentation (endpoints)):

- **bulk**: one ``PUT .../commands`` with the complete desired list. Every
  item for an existing command carries its ``id`` (so a rename keeps it,
  and an unchanged command is not created again), including a live entry
  point the manifest does not manage (leaving it out fails with 50240) and
  commands kept by ``--no-prune``. At most 130 items (openapi.json).
- **per-command**: ``POST`` / ``PATCH`` / ``DELETE`` for exactly what changed.
  Deletes go first when creating first would exceed a per-type cap, or
  when they free a name a rename takes; otherwise renames and updates,
  then creates (a POST upserts by name, so after the renames), then
  deletes. Renames that take each other's names (a cycle) cannot be done
  one by one without a temporary name.
- **auto**: per scope, whichever makes fewer creates, then fewer requests;
  per-command on a tie (it touches only what changed).

Then, per guild, one ``PUT .../commands/{id}/permissions`` per changed
overwrite set (renamed commands included: Discord dropped theirs).
Nothing that can be updated in place is deleted and created again: the
plan matched it to a live id, and both strategies update that id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cmdsync.model import MAX_COMMANDS_PER_TYPE, CommandType, Word, scope_label
from cmdsync.plan import Action, CommandChange, PermissionChange, Plan, ScopePlan

MAX_BULK_ITEMS = 130  # openapi.json: maxItems of a bulk overwrite body
# What a PATCH sends for a field the desired body leaves at Discord's default:
# PATCH keeps the fields it is not sent, so a reset must be explicit.
PATCH_RESETS: Mapping[str, Any] = {
    "name_localizations": None, "description_localizations": None,
    "default_member_permissions": None, "nsfw": False, "options": [], "contexts": None,
    "dm_permission": True, "integration_types": None, "handler": 1}


class Strategy(Word):
    """``--strategy``: how command changes are written."""

    AUTO = "auto"
    BULK = "bulk"
    PER_COMMAND = "per-command"


class StepKind(Word):
    """What one write request does: its value names it in messages."""

    BULK = "bulk"  # PUT .../commands, a bulk overwrite of the scope
    CREATE = "create"  # POST .../commands
    UPDATE = "update"  # PATCH .../commands/{id}
    DELETE = "delete"  # DELETE .../commands/{id}
    PERMISSIONS = "permissions"  # PUT .../commands/{id}/permissions

    @property
    def method(self) -> str:
        """The HTTP method of the request."""
        return {"create": "POST", "update": "PATCH", "delete": "DELETE"}.get(self.value, "PUT")


@dataclass(frozen=True)
class Step:
    """One write request.

    ``kind`` says which request (:class:`StepKind`). ``commands`` are the
    command changes it carries (a bulk overwrite carries every change of its
    scope); ``permission`` the overwrite change; ``body`` the JSON sent (None
    for a DELETE).
    """

    kind: StepKind
    scope: str
    body: Any = None
    commands: tuple[CommandChange, ...] = ()
    permission: PermissionChange | None = None

    @property
    def method(self) -> str:
        return self.kind.method


@dataclass(frozen=True)
class ScopeSteps:
    """A scope's requests: commands first, then overwrites; and the creates they make.

    ``strategy`` is None when no command of the scope changes.
    """

    scope: str
    strategy: Strategy | None
    steps: tuple[Step, ...]
    creates: int


def schedule(plan: Plan, strategy: Strategy) -> tuple[list[ScopeSteps], list[str]]:
    """Every scope's requests in order (global first), and why some cannot be made.

    A problem (a bulk body over 130 items, a rename cycle under
    per-command) means apply must refuse before its first write.
    """
    scheduled: list[ScopeSteps] = []
    problems: list[str] = []
    for scope in plan.scopes:
        chosen = choose(scope, strategy)
        if isinstance(chosen, str):
            problems.append(chosen)
            continue
        if chosen.steps:
            scheduled.append(chosen)
    return scheduled, problems


def choose(scope: ScopePlan, strategy: Strategy) -> ScopeSteps | str:
    """The scope's steps under ``strategy``, or why it cannot be applied that way."""
    perms = tuple(Step(StepKind.PERMISSIONS, scope.scope, [dict(o) for o in p.after], permission=p)
                  for p in scope.permissions)
    if not any(c.action is not Action.NO_OP for c in scope.commands):
        return ScopeSteps(scope.scope, None, perms, 0)
    options: dict[Strategy, tuple[Step, ...] | str] = {}
    if strategy in (Strategy.AUTO, Strategy.BULK):
        options[Strategy.BULK] = bulk_steps(scope)
    if strategy in (Strategy.AUTO, Strategy.PER_COMMAND):
        options[Strategy.PER_COMMAND] = per_command_steps(scope)
    possible = {k: v for k, v in options.items() if not isinstance(v, str)}
    if not possible:
        return "; ".join(str(v) for v in options.values())
    # Creates are the same both ways (bulk items carry ids): fewer requests wins,
    # and on a tie per-command, which touches only what changed.
    best = min(possible, key=lambda k: (_creates(possible[k]), len(possible[k]),
                                        k is not Strategy.PER_COMMAND))
    steps = possible[best]
    assert not isinstance(steps, str)
    return ScopeSteps(scope.scope, best, steps + perms, _creates(steps))


def _creates(steps: Sequence[Step] | str) -> int:
    assert not isinstance(steps, str)
    return sum(1 for s in steps for c in s.commands if c.action is Action.CREATE)


def bulk_steps(scope: ScopePlan) -> tuple[Step, ...] | str:
    """One PUT with every command the scope keeps, or why not (over 130 items)."""
    kept = [c for c in scope.commands if c.action is not Action.DELETE]
    if len(kept) > MAX_BULK_ITEMS:
        return (f"{scope_label(scope.scope)}: a bulk overwrite would carry {len(kept)} commands; "
                f"Discord takes at most {MAX_BULK_ITEMS}: use --strategy per-command or auto")
    bodies = [dict(c.body) for c in kept if c.body is not None]
    changed = tuple(c for c in scope.commands if c.action is not Action.NO_OP)
    return (Step(StepKind.BULK, scope.scope, bodies, changed),)


def per_command_steps(scope: ScopePlan) -> tuple[Step, ...] | str:
    """POST / PATCH / DELETE in an order Discord accepts, or why there is none."""
    deletes = [c for c in scope.commands if c.action is Action.DELETE]
    updates = _rename_order([c for c in scope.commands if c.action is Action.UPDATE])
    if isinstance(updates, str):
        return f"{scope_label(scope.scope)}: {updates}"
    creates = [c for c in scope.commands if c.action is Action.CREATE]
    taken = {(u.type, u.name) for u in updates if u.renamed_from is not None}
    crowded = {kind for kind in CommandType
               if sum(1 for c in scope.commands if c.type == kind
                      and c.action is not Action.CREATE)
               + sum(1 for c in creates if c.type == kind) > MAX_COMMANDS_PER_TYPE[kind]}
    early = [d for d in deletes if d.type in crowded or (d.type, d.name) in taken]
    late = [d for d in deletes if d not in early]
    steps = [Step(StepKind.DELETE, scope.scope, None, (d,)) for d in early]
    steps += [Step(StepKind.UPDATE, scope.scope, patch_body(u), (u,)) for u in updates]
    steps += [Step(StepKind.CREATE, scope.scope, dict(c.body or {}), (c,)) for c in creates]
    steps += [Step(StepKind.DELETE, scope.scope, None, (d,)) for d in late]
    return tuple(steps)


def patch_body(change: CommandChange) -> dict[str, Any]:
    """The PATCH body of an update: the desired body, resets made explicit.

    ``change.body`` leaves fields at their defaults out (it is made for a
    bulk overwrite); a PATCH keeps what it is not sent, so every changed
    top-level field missing from the body is sent with its default
    (:data:`PATCH_RESETS`).
    """
    body = {k: v for k, v in (change.body or {}).items() if k not in ("id", "type")}
    for field_change in change.changes:
        key = field_change.path.partition(".")[0].partition("[")[0]  # "options[...]"
        if key not in body and key in PATCH_RESETS:
            body[key] = PATCH_RESETS[key]
    return body


def _rename_order(updates: list[CommandChange]) -> list[CommandChange] | str:
    """Updates ordered so that no rename takes a name another still holds."""
    holder = {(u.type, u.renamed_from): i for i, u in enumerate(updates)
              if u.renamed_from is not None}
    order: list[int] = []
    for start in range(len(updates)):
        chain: list[int] = []
        current: int | None = start
        while current is not None and current not in order:
            if current in chain:
                names = [repr(updates[i].renamed_from) for i in chain[chain.index(current):]]
                return (f"renames {' -> '.join(names)} -> {names[0]} take each other's "
                        "names: per-command would need a temporary name; use --strategy "
                        "bulk or auto")
            chain.append(current)
            change = updates[current]
            # who holds the name this update takes (a rename's only: live names differ)
            current = holder.get((change.type, change.name))
        order.extend(i for i in reversed(chain) if i not in order)
    return [updates[i] for i in order]

