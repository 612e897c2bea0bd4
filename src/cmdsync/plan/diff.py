"""A plan: what apply would change in Discord, as a pure value.

:func:`diff` compares a :class:`~cmdsync.state.DesiredState` with a
:class:`~cmdsync.state.LiveState` and returns a :class:`Plan`; nothing here
does I/O. Per scope the manifest manages (``"global"`` or a guild id):

- commands are matched by manifest ``id`` first, then by type and name
  (the entry point by type alone: an application has one); matched ones
  are no-op or update (field by field, see :mod:`cmdsync.plan.fields`),
  unmatched desired ones are creates;
- live commands the manifest does not name are deleted when pruning, else
  kept; a live PRIMARY_ENTRY_POINT the manifest does not manage is always
  kept, its body in the plan (a bulk overwrite without it fails with
  50240, Discord's documentation);
- when the live state carries the application, a global command without
  ``integration_types`` defaults to its installation contexts, and the
  rules that need the application (CS601, CS602) are plan errors;
- a rename (manifest ``id`` with another name) keeps the id and warns that
  Discord drops the command's overwrites; the manifest's overwrites for it
  are put again;
- permission overwrites are compared per command in each guild that lists
  ``permissions``: the manifest's set replaces the live one (Discord's documentation: a PUT
  replaces all); with pruning, live sets the manifest does not name are
  cleared.

Scopes the manifest does not name are never touched. Output order is
deterministic: global first, then guilds by id; within a scope by command
type, then name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from cmdsync.model import MAX_COMMANDS_PER_TYPE, CommandType, scope_label
from cmdsync.plan.changes import (
    Action,
    BodyWithId,
    CommandChange,
    FieldChange,
    LiveCommand,
    Plan,
    ScopePlan,
)
from cmdsync.plan.fields import field_changes
from cmdsync.plan.permissions import permission_changes, rename_warnings
from cmdsync.state import LiveState
from cmdsync.state.application import AppInfo
from cmdsync.state.normalize import canonical, fill_unknown, request_body

if TYPE_CHECKING:
    from cmdsync.state.desired import DesiredScope, DesiredState


def diff(desired: DesiredState, live: LiveState, *, prune: bool = True,
         default_integration_types: Iterable[int] | None = None) -> Plan:
    """The plan that makes ``live`` match ``desired``; pure and deterministic.

    ``prune`` False (``--no-prune``) keeps every live command the manifest
    does not name, whatever the manifest's ``prune`` says.
    ``default_integration_types`` is the application's installation
    contexts (see :func:`cmdsync.state.normalize.canonical`); by default those of
    ``live.application`` when known.
    """
    return Differ(desired, prune=prune, application=live.application,
                  default_integration_types=default_integration_types).plan(live)


class Differ:
    """:func:`diff` in steps, so that a plan costs little once the last read is in.

    :meth:`add` compares one scope's commands as soon as its live commands
    arrive, while the other reads are still under way; :meth:`plan` then
    does the rest (overwrites, renames, totals) and returns exactly what
    ``diff(desired, live, ...)`` returns, whatever the order of :meth:`add`
    calls, and whether or not each scope was added. ``application`` is the
    ``live.application`` the plan will see.
    """

    def __init__(self, desired: DesiredState, *, prune: bool = True,
                 application: AppInfo | None = None,
                 default_integration_types: Iterable[int] | None = None) -> None:
        if default_integration_types is None and application is not None:
            default_integration_types = application.integration_types
        self.desired = desired
        self.prune = prune
        from cmdsync.validate.check import application_errors  # brings in the rules

        self._application_errors = application_errors(
            [c.entry for s in desired.scopes.values() for c in s.commands
             if c.entry is not None], application) if application is not None else []
        self._forms = _Forms(list(default_integration_types)
                             if default_integration_types is not None else None)
        # scope -> (the live commands compared, changes, warnings, errors, rename hints)
        self._done: dict[str, tuple[Sequence[Mapping[str, Any]], list[CommandChange],
                                    list[str], list[str], list[str]]] = {}
        # scope -> (its live commands, their references, sorted)
        self._refs: dict[str, tuple[Sequence[Mapping[str, Any]],
                                    tuple[LiveCommand, ...]]] = {}

    def add(self, scope: str, commands: Sequence[Mapping[str, Any]]) -> None:
        """Compare ``scope``'s desired commands with its live ``commands`` (a list
        response, read only); a scope the manifest does not name is ignored."""
        wanted = self.desired.scopes.get(scope)
        if wanted is None:
            return
        self._live_refs(scope, commands)  # pragma: no mutate (worked out early, reused)
        if not wanted.manages_commands:
            return
        warnings: list[str] = []
        errors: list[str] = []
        changes = _scope_commands(wanted, commands, self.prune and wanted.prune, self._forms,
                                  warnings, errors)
        self._done[scope] = (commands, changes, warnings, errors,
                             _rename_hints({scope: changes}))

    def _live_refs(self, scope: str, commands: Sequence[Mapping[str, Any]]
                   ) -> tuple[LiveCommand, ...]:
        known = self._refs.get(scope)  # pragma: no mutate (a miss works them out again)
        if known is None or known[0] is not commands:
            known = self._refs[scope] = (commands, tuple(sorted(
                (LiveCommand(str(c["id"]), _type(c), str(c.get("name")), _version(c))
                 for c in commands), key=lambda r: (r.type, r.name, r.id))))
        return known[1]

    def plan(self, live: LiveState) -> Plan:
        """The plan that makes ``live`` match the desired state (see :func:`diff`)."""
        desired = self.desired
        warnings: list[str] = []
        errors: list[str] = list(self._application_errors)
        matched: dict[str, list[CommandChange]] = {}
        hints: list[str] = []
        for scope in desired.scopes.values():
            if scope.manages_commands:
                current = live.scope(scope.scope).commands
                done = self._done.get(scope.scope)  # pragma: no mutate (a miss: add again)
                if done is None or done[0] is not current:
                    self.add(scope.scope, current)
                    done = self._done[scope.scope]
                matched[scope.scope] = done[1]
                warnings += done[2]
                errors += done[3]
                hints += done[4]
        plans = []
        for scope in desired.scopes.values():
            commands = matched[scope.scope] if scope.manages_commands else []
            perms = permission_changes(scope, live, matched, prune=self.prune and scope.prune,
                                       errors=errors)
            refs = self._live_refs(scope.scope, live.scope(scope.scope).commands)
            plans.append(_scope_plan(scope, refs, commands, perms, errors))
        warnings.extend(rename_warnings(matched, desired, live))
        warnings.extend(hints)
        return Plan(live.application_id, tuple(plans), tuple(warnings), tuple(errors),
                    desired.digest, desired.files)


def _scope_commands(scope: DesiredScope, live: Iterable[Mapping[str, Any]], prune: bool,
                    forms: _Forms, warnings: list[str], errors: list[str]
                    ) -> list[CommandChange]:
    remaining = {str(c["id"]): c for c in live}
    changes: list[CommandChange] = []
    pending = []
    for command in scope.commands:  # ids first, so a rename keeps its command
        if command.id is not None and command.id in remaining:
            current = remaining.pop(command.id)
            if _type(command.body) != _type(current):
                errors.append(f"{scope_label(scope.scope)}: id {current['id']} is a "
                              f"{CommandType(_type(current)).name} command, but the manifest "
                              f"declares it as {CommandType(_type(command.body)).name}: "
                              "Discord cannot change a command's type; remove the id to "
                              "create a new command")
            changes.append(_compare(scope.scope, command.body, current, forms))
        else:
            if command.id is not None:
                warnings.append(f"{scope_label(scope.scope)}: {_kind(command.body)} "
                                f"{command.body.get('name')!r} names id {command.id}, which "
                                "is not a live command of this scope: it will be created "
                                "with a new id")
            pending.append(command)
    by_key: dict[tuple[int, Any], list[str]] = {}
    for live_id, live_command in remaining.items():
        by_key.setdefault(_match_key(live_command), []).append(live_id)
    for command in pending:  # the first live command of the same type and name
        candidates = by_key.get(_match_key(command.body))
        found = candidates.pop(0) if candidates else None
        if found is not None:  # of the same type: the match key holds it
            changes.append(_compare(scope.scope, command.body, remaining.pop(found), forms))
        else:
            body = {k: v for k, v in command.body.items() if k != "id"}
            changes.append(CommandChange(Action.CREATE, scope.scope, _type(body),
                                         str(body.get("name")), body=body))
    changes.extend(_unmanaged(scope.scope, remaining.values(), prune))
    return sorted(changes, key=lambda c: (c.type, c.name, str(c.id)))


def _compare(scope: str, body: Mapping[str, Any], current: Mapping[str, Any],
             forms: _Forms) -> CommandChange:
    kind, name = _type(current), str(current.get("name"))
    after, changes = forms.compare(current, body, scope)
    new_name = str(body.get("name"))
    sent: Mapping[str, Any] = BodyWithId(body, str(current["id"]))  # not a copy of body
    if scope == "global" and forms.defaults is None \
            and after.get("integration_types") is not None:
        # The plan compared against the live value where the manifest leaves it out (the
        # app's default is not known): send it, so apply keeps what the plan showed (where
        # the manifest sets it, ``after`` holds the manifest's own).
        sent = {**sent, "integration_types": list(after["integration_types"])}
    return CommandChange(
        Action.UPDATE if changes else Action.NO_OP, scope, kind, new_name,
        str(current["id"]), _version(current), changes, sent,
        renamed_from=name if new_name != name else None)


class _Forms:
    """Canonical forms and their field changes, worked out once per distinct pair.

    Hundreds of guilds usually hold the same commands: a desired body is one
    object wherever the manifest repeats it (``SharedBodies``), and live
    commands that differ only in their ids and version have equal
    :func:`_live_key`. :func:`~cmdsync.state.normalize.canonical` depends on
    the scope only through whether it is global.

    Each table keeps the :data:`FORMS_KEPT` most recently used entries: the
    forms of commands every guild shares stay, while those of one guild's own
    commands go as later guilds come in, so that a plan of distinct bodies
    neither keeps them all nor frees them all at its end.

    Lines marked ``# pragma: no mutate`` (mutation testing: docs/development.md)
    and :func:`_recent` only look a form up or keep it under the key it is
    looked up by: a change
    there makes a lookup miss and the form be worked out again, the same,
    which no test can see. What decides the keys (a live command's content, its
    scope being global, the body) is not marked: a key that mixed two forms up
    would change the plan.
    """

    def __init__(self, defaults: list[int] | None) -> None:
        self.defaults = defaults
        self._live: dict[tuple[tuple[Any, ...], bool], dict[str, Any]] = {}
        self._desired: dict[tuple[int, bool], tuple[Mapping[str, Any], dict[str, Any]]] = {}
        self._changes: dict[tuple[tuple[Any, ...], int, bool], tuple[FieldChange, ...]] = {}

    def compare(self, current: Mapping[str, Any], body: Mapping[str, Any], scope: str
                ) -> tuple[dict[str, Any], tuple[FieldChange, ...]]:
        """The desired command's canonical form (unknowns filled from live), and the
        fields that differ from the live command's."""
        is_global = scope == "global"
        live_key = (_live_key(current), is_global)
        before = _recent(self._live, live_key)  # pragma: no mutate
        if before is None:
            before = canonical(dict(current), scope=scope,
                               default_integration_types=self.defaults)
            _keep(self._live, live_key, before)  # pragma: no mutate
        body_key = (id(body), is_global)
        desired = _recent(self._desired, body_key)  # pragma: no mutate
        if desired is None or desired[0] is not body:  # an id() reused by a later body
            desired = (body, canonical(dict(body), scope=scope,
                                       default_integration_types=self.defaults))
            _keep(self._desired, body_key, desired)  # pragma: no mutate
        after = fill_unknown(desired[1], before)
        pair = (live_key[0], id(body), is_global)
        changes = _recent(self._changes, pair)  # pragma: no mutate
        if changes is None:
            changes = tuple(FieldChange(*c) for c in field_changes(before, after))
            _keep(self._changes, pair, changes)  # pragma: no mutate
        return after, changes


FORMS_KEPT = 256  # entries of each table of _Forms: above the 110 commands a scope can hold
K = TypeVar("K")
V = TypeVar("V")


def _recent(table: dict[K, V], key: K) -> V | None:  # pragma: no mutate block
    """``table[key]`` made the most recent entry, or None (a cache: see :class:`_Forms`)."""
    value = table.pop(key, None)
    if value is not None:
        table[key] = value
    return value


def _keep(table: dict[K, V], key: K, value: V) -> None:
    """``value`` kept under ``key``, the least recently used entry dropped past
    :data:`FORMS_KEPT`."""
    table[key] = value
    if len(table) > FORMS_KEPT:
        del table[next(iter(table))]


_INSTANCE_KEYS = frozenset({"id", "application_id", "guild_id", "version"})


def _live_key(command: Mapping[str, Any]) -> tuple[Any, ...]:
    """Equal for live commands that differ at most in ids and version.

    Nested lists and objects count by identity: the fetch keeps equal ones
    once (``runners.fetch._shared``), and the live state outlives the diff.
    A JSON value is a string, number, boolean, null, list or object, so the key
    is always hashable.
    """
    return tuple((k, id(v) if isinstance(v, (list, dict)) else v)
                 for k, v in command.items() if k not in _INSTANCE_KEYS)


def _unmanaged(scope: str, commands: Iterable[Mapping[str, Any]], prune: bool
               ) -> Iterable[CommandChange]:
    for command in commands:
        kind = _type(command)
        base = CommandChange(Action.NO_OP, scope, kind, str(command.get("name")),
                             str(command["id"]), _version(command), body=_kept_body(command))
        if kind == CommandType.PRIMARY_ENTRY_POINT:
            yield replace(base, note="entry point not in the manifest: kept")
        elif prune:
            yield replace(base, action=Action.DELETE, body=None)
        else:
            yield replace(base, note="not in the manifest: kept (prune is off)")


def _kept_body(command: Mapping[str, Any]) -> dict[str, Any]:
    return request_body(dict(command))


def _scope_plan(scope: DesiredScope, refs: tuple[LiveCommand, ...],
                commands: list[CommandChange], perms: list[Any], errors: list[str]
                ) -> ScopePlan:
    if not scope.manages_commands:
        return ScopePlan(scope.scope, (), tuple(perms), False, scope.prune, 0, {}, refs)
    creates = sum(1 for c in commands if c.action is Action.CREATE)
    kept = Counter(int(c.type) for c in commands if c.action is not Action.DELETE)
    totals = {kind.name: kept[int(kind)] for kind in CommandType}
    for kind in CommandType:
        if totals[kind.name] > MAX_COMMANDS_PER_TYPE[kind]:
            errors.append(f"{scope_label(scope.scope)}: {totals[kind.name]} {kind.name} commands "
                          f"after apply; Discord allows {MAX_COMMANDS_PER_TYPE[kind]}")
    return ScopePlan(scope.scope, tuple(commands), tuple(perms), True, scope.prune, creates,
                     totals, refs)


def _rename_hints(matched: Mapping[str, list[CommandChange]]) -> list[str]:
    """A hint where one delete and one create of a type in a scope look like a rename.

    Deleting and creating loses the command's id and its permission
    overwrites and spends a create (Discord's "Application Commands" documentation (endpoints)); the manifest's
    ``id`` turns it into an update in place.
    """
    hints = []
    for scope, changes in matched.items():
        for kind in CommandType:
            deletes = [c for c in changes if c.type == kind and c.action is Action.DELETE]
            creates = [c for c in changes if c.type == kind and c.action is Action.CREATE]
            if len(deletes) == 1 and len(creates) == 1:
                old, new = deletes[0], creates[0]
                hints.append(f"{scope_label(scope)}: {kind.name.lower()} {old.name!r} is deleted "
                             f"and {new.name!r} created; if this is a rename, add "
                             f"`id: \"{old.id}\"` to {new.name!r} in the manifest to keep "
                             "the command's id and spend no create")
    return hints



def _kind(body: Mapping[str, Any]) -> str:
    return CommandType(_type(body)).name.lower()


def _match_key(command: Mapping[str, Any]) -> tuple[int, Any]:
    """Type and name; the entry point by type alone (one per application, Discord's documentation)."""
    kind = _type(command)
    return (kind, None) if kind == CommandType.PRIMARY_ENTRY_POINT else (kind,
                                                                         command.get("name"))


_CHAT_INPUT = int(CommandType.CHAT_INPUT)


def _type(command: Mapping[str, Any]) -> int:
    """A command's type (an integer, validated or Discord's), CHAT_INPUT when it has none."""
    return int(command.get("type", _CHAT_INPUT))


def _version(command: Mapping[str, Any]) -> str | None:
    value = command.get("version")
    return str(value) if value is not None else None
