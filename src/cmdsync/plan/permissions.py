"""The permission-overwrite part of :func:`cmdsync.plan.diff`.

In each guild whose manifest lists ``permissions``, every key is bound to a
command as it will be after apply, one the manifest declares: the guild's
own first, else a global one (``type:name`` picks a type, ``*`` is the
application-wide entry whose target id is the application id; Discord's
"Application Commands" documentation (endpoints)). A live command the
manifest does not declare (in a guild whose commands it does not manage, or
kept by ``prune: false``) never takes a key a declared command answers to:
the change then says which command it is not. Only a key no declared command
answers to (a desired state CS402 did not check) falls back to the live
commands. The manifest's overwrites replace the live set when they differ,
and always after a rename (Discord drops a renamed command's overwrites).
With pruning, live sets the manifest does not name are cleared, except those
of commands the plan deletes or renames (Discord drops them anyway).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cmdsync.model import GLOBAL, CommandType
from cmdsync.plan.changes import Action, CommandChange, PermissionChange
from cmdsync.state import LiveState, Overwrite
from cmdsync.state.normalize import same
from cmdsync.state.targets import APPLICATION_WIDE, Target, resolve

if TYPE_CHECKING:
    from cmdsync.state.desired import DesiredScope, DesiredState


def permission_changes(scope: DesiredScope, live: LiveState,
                       matched: Mapping[str, Sequence[CommandChange]], *, prune: bool,
                       errors: list[str]) -> list[PermissionChange]:
    """The overwrite changes of one guild scope ([] for global or unmanaged permissions)."""
    if scope.scope == GLOBAL or scope.permissions is None:
        return []
    guild = scope.scope
    live_sets = live.scope(guild).permissions
    keys = Keys.of(guild, live, matched)
    changes: list[PermissionChange] = []
    named: set[str] = set()
    for key, after in sorted(scope.permissions.items()):
        target, other = keys.bind(key)
        if target is None:
            errors.append(f"guild {guild}: permissions key {key!r} names no command of this "
                          "guild and no global command")
            continue
        before = live_sets.get(target.id, ()) if target.id else ()
        if target.id:
            named.add(target.id)
        forced = target.renamed and bool(after)
        if same(list(before), list(after)) and not forced:
            continue
        action = Action.CREATE if not before else Action.DELETE if not after \
            else Action.UPDATE
        reasons = ["renamed: Discord drops its overwrites"] if forced else []
        if other is not None:
            reasons.append(_not_that_one(other))
        changes.append(PermissionChange(
            action, guild, key, target.id, target.scope or None,
            target.type or None, target.name or None, tuple(before), tuple(after),
            "; ".join(reasons) or None))
    if prune:
        changes.extend(_cleared(guild, live_sets, named, keys.every, live.application_id))
    return changes


@dataclass(frozen=True)
class Keys:
    """What one guild's permissions keys can name: the commands after apply.

    ``declared`` are those the manifest declares, the guild's own, then the
    global ones; ``every`` adds the live commands it keeps without declaring
    them, or whose scope it does not manage.
    """

    declared: tuple[Target, ...]
    every: tuple[Target, ...]
    application_id: str

    @classmethod
    def of(cls, guild: str, live: LiveState,
           matched: Mapping[str, Sequence[CommandChange]]) -> Keys:
        every = (*targets_after(guild, live, matched), *targets_after(GLOBAL, live, matched))
        declared = (*_declared(guild, matched), *_declared(GLOBAL, matched))
        return cls(declared, every, live.application_id)

    def bind(self, key: str) -> tuple[Target | None, Target | None]:
        """The command ``key`` names, and the undeclared one it would have named by
        name alone (the guild's own of that name), if another; (None, None) for none."""
        loose = resolve(key, self.every, self.application_id)
        target = resolve(key, self.declared, self.application_id)
        if target is None:
            return loose, None
        return target, loose if loose != target else None


def _declared(scope: str, matched: Mapping[str, Sequence[CommandChange]]) -> Iterator[Target]:
    for change in matched.get(scope, ()):
        if change.declared:
            yield Target(scope, change.type, change.name, change.id,
                         change.renamed_from is not None)


def _not_that_one(other: Target) -> str:
    """Why a key does not go to the undeclared command of its name."""
    owner = "the global" if other.scope == GLOBAL else "the guild's own"
    name = json.dumps(other.name, ensure_ascii=False)
    return (f"not {owner} {CommandType(other.type).name.lower()} {name} (id {other.id}), "
            "which the manifest does not declare")


def _cleared(guild: str, live_sets: Mapping[str, tuple[Overwrite, ...]], named: set[str],
             targets: Sequence[Target], application_id: str) -> Iterator[PermissionChange]:
    by_id = {t.id: t for t in targets if t.id is not None}
    for target_id, before in sorted(live_sets.items()):
        if target_id in named or not before:
            continue
        if target_id == application_id:
            yield PermissionChange(Action.DELETE, guild, APPLICATION_WIDE, target_id, None,
                                   None, None, tuple(before), ())
            continue
        target = by_id.get(target_id)
        if target is None or target.renamed:
            continue  # deleted, renamed or stale: Discord drops or ignores these
        yield PermissionChange(Action.DELETE, guild, target.name, target_id, target.scope,
                               target.type, target.name, tuple(before), ())


def targets_after(scope: str, live: LiveState,
                  matched: Mapping[str, Sequence[CommandChange]]) -> Iterator[Target]:
    """The commands of ``scope`` after apply: planned ones, else the live ones."""
    if scope not in matched:
        for command in live.scope(scope).commands:
            yield Target(scope, _type(command), str(command.get("name")), str(command["id"]))
        return
    for change in matched[scope]:
        if change.action is not Action.DELETE:
            yield Target(scope, change.type, change.name, change.id,
                         change.renamed_from is not None)


def rename_warnings(matched: Mapping[str, Sequence[CommandChange]], desired: DesiredState,
                    live: LiveState) -> list[str]:
    """A warning per rename of a command with overwrites, live or in the manifest (or
    whose live ones were not read): Discord drops a renamed command's overwrites.
    A rename of a command with none warns of nothing."""
    warnings = []
    for scope, changes in matched.items():
        for change in changes:
            if change.renamed_from is None:
                continue
            where = _where(change, desired, live, matched)
            if where:
                warnings.append(
                    f"{'global' if scope == GLOBAL else f'guild {scope}'}: renaming "
                    f"{CommandType(change.type).name.lower()} {change.renamed_from!r} to "
                    f"{change.name!r} (id {change.id}) keeps its id, but Discord drops a "
                    "renamed command's permission overwrites" + where)
    return warnings


def _where(change: CommandChange, desired: DesiredState, live: LiveState,
           matched: Mapping[str, Sequence[CommandChange]]) -> str:
    """Where the renamed command has overwrites, and what becomes of them: the
    manifest's put back (or set), live ones lost where the manifest sets none, and
    guilds whose overwrites were not read; "" where it has none."""
    if change.scope != GLOBAL:  # a guild command's overwrites are in its guild alone
        guilds = {change.scope}
    else:
        guilds = {g for g in live.scopes if g != GLOBAL} | {
            g for g, s in desired.scopes.items() if g != GLOBAL and s.permissions is not None}
    back: list[str] = []
    new: list[str] = []
    lost: list[str] = []
    unmanaged: list[str] = []
    unread: list[str] = []
    for guild in sorted(guilds, key=lambda g: (0, int(g)) if g.isdigit() else (1, 0)):
        current = live.scope(guild)
        live_has = bool(current.permissions.get(str(change.id))) if change.id else False
        scope = desired.scopes.get(guild)
        sets = scope is not None and scope.permissions is not None and _sets_overwrites(
            scope.permissions, change, guild, live, matched)
        if sets:
            (back if live_has else new).append(guild)
        elif live_has:
            managed = scope is not None and scope.permissions is not None
            (lost if managed else unmanaged).append(guild)
        elif not current.permissions_read:
            unread.append(guild)
    text = ""
    if back:
        text += "; cmdsync puts the manifest's back in guild " + ", ".join(back)
    if new:
        text += "; cmdsync sets the manifest's in guild " + ", ".join(new)
    if lost:
        text += "; lost in guild " + ", ".join(lost) + " (the manifest sets none for it)"
    if unmanaged:
        text += "; lost in guild " + ", ".join(unmanaged) + " (not in the manifest)"
    if unread:
        text += ("; guild " + ", ".join(unread) + ": not known (its overwrites were not "
                 "read: a bot token or a user's Bearer token reads them)")
    return text


def _sets_overwrites(permissions: Mapping[str, tuple[Overwrite, ...]], change: CommandChange,
                     guild: str, live: LiveState,
                     matched: Mapping[str, Sequence[CommandChange]]) -> bool:
    """Whether a guild's manifest permissions give the renamed command overwrites."""
    keys = Keys.of(guild, live, matched)
    for key, after in permissions.items():
        target = keys.bind(key)[0]
        if after and target is not None and target.id is not None and \
                target.id == change.id:
            return True
    return False


def _type(command: Mapping[str, Any]) -> int:
    value = command.get("type", 1)
    return int(value) if isinstance(value, int) else 1
