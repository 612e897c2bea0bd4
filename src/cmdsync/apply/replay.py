"""Whether a saved plan was applied already: live state is what it would write.

Applying a saved plan a second time finds live state changed since the plan
(the first apply changed it), so the staleness check
(:func:`cmdsync.apply.guardrails.stale_reasons`) would list, as drift, the
very changes the plan made. :func:`already_applied` tells that case apart:
every command the plan creates or updates is live with the body it sends,
every command it deletes is gone, and every permission set it changes holds
its overwrites. Then the plan has nothing left to do, and apply says so
(:data:`ALREADY_APPLIED`) instead of calling it stale. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cmdsync.plan import Action, CommandChange, PermissionChange, Plan, ScopePlan
from cmdsync.state import LiveState
from cmdsync.state.normalize import canonical, fill_unknown, same

ALREADY_APPLIED = (
    "the saved plan {path} was applied already: live state holds every change it makes, so "
    "there is nothing left to do and nothing was changed. Plan again (`cmdsync plan --out "
    "FILE`) for new changes")


def already_applied(plan: Plan, live: LiveState) -> bool:
    """Whether ``live`` already holds every change ``plan`` makes (and it makes some).

    ``live`` is read as apply reads it for a saved plan: the commands of each
    scope the plan names, and the overwrites of the guilds whose overwrites
    it changes.
    """
    changed = [scope for scope in plan.scopes if scope.has_changes]
    return bool(changed) and all(_scope_done(scope, live) for scope in changed)


def _scope_done(scope: ScopePlan, live: LiveState) -> bool:
    current = list(live.scope(scope.scope).commands)
    planned_ids = {ref.id for ref in scope.live}
    return all(_command_done(change, current, planned_ids) for change in scope.commands) \
        and all(_permissions_done(change, live) for change in scope.permissions)


def _command_done(change: CommandChange, current: Sequence[Mapping[str, Any]],
                  planned_ids: set[str]) -> bool:
    if change.action is Action.NO_OP:
        return True
    if change.action is Action.DELETE:
        return not any(str(c.get("id")) == change.id for c in current)
    if change.action is Action.UPDATE:
        found = [c for c in current if str(c.get("id")) == change.id]
    else:  # a create: a command the plan did not see, of the same type and name
        found = [c for c in current if str(c.get("id")) not in planned_ids
                 and _type(c) == change.type and c.get("name") == change.name]
    return len(found) == 1 and change.body is not None \
        and _same_command(change.body, found[0], change.scope)


def _same_command(body: Mapping[str, Any], live: Mapping[str, Any], scope: str) -> bool:
    """As the plan compares: canonical forms, fields the body leaves unknown taken live."""
    before = canonical(dict(live), scope=scope)
    after = fill_unknown(canonical({k: v for k, v in body.items() if k != "id"}, scope=scope),
                         before)
    return same(before, after)


def _permissions_done(change: PermissionChange, live: LiveState) -> bool:
    target = change.target_id
    if target is None:  # the command was created by the plan: find its id now
        scope = live.scope(change.command_scope or change.guild_id)
        ids = [str(c.get("id")) for c in scope.commands
               if _type(c) == change.command_type and c.get("name") == change.command_name]
        if len(ids) != 1:
            return False
        target = ids[0]
    held = live.scope(change.guild_id).permissions.get(target, ())
    return same(_sorted(held), _sorted(change.after))


def _sorted(overwrites: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(overwrites, key=lambda o: (str(o.get("type")), str(o.get("id"))))


def _type(command: Mapping[str, Any]) -> int:
    kind = command.get("type", 1)
    return kind if isinstance(kind, int) else 1
