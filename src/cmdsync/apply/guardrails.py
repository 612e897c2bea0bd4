"""Guardrails on a plan: what apply refuses before its first write, and plan's budget warnings.

Pure functions of a :class:`~cmdsync.plan.Plan` (and the ledger, the live
state, the credentials present). Like octodns' ``Plan.raise_if_unsafe``,
:func:`raise_if_unsafe` collects every reason and raises once:

- the plan's own errors (per-type caps exceeded after apply, a command
  whose type the manifest changes, a permissions key naming no command);
- requests that cannot be made (:func:`cmdsync.apply.strategy.schedule`);
- creates over Discord's 200 per guild per UTC day, counting what the
  ledger (:mod:`cmdsync.apply.ledger`) recorded today (Discord's "Application Commands"
  docs: 200 creates a day per guild);
- permission overwrites to change without a user's Bearer token (a bot
  token gets 403 code 20001, Discord's "Application Commands" documentation (endpoints)).

:func:`stale_reasons` compares a plan with live state read again: a saved
plan, or one reviewed at a prompt, is applied only if nothing changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cmdsync.apply.ledger import LEDGER_PATH, Ledger, seconds_to_midnight, utc_day
from cmdsync.apply.strategy import ScopeSteps, StepKind
from cmdsync.errors import UnsafePlanError
from cmdsync.model import CommandType, scope_label
from cmdsync.plan import DAILY_CREATE_LIMIT, Action, Plan, ScopePlan
from cmdsync.state import LiveState
from cmdsync.state.normalize import same

if TYPE_CHECKING:
    from cmdsync.state.desired import DesiredState

LOW_BUDGET = 50  # plan warns when fewer creates than this would be left today


def unsafe_reasons(plan: Plan, scheduled: Sequence[ScopeSteps], problems: Sequence[str], *,
                   ledger: Ledger, api_url: str, now: float, has_user_token: bool
                   ) -> list[str]:
    """Every reason to refuse ``plan`` before writing; [] when it is safe.

    ``scheduled`` and ``problems`` come from
    :func:`~cmdsync.apply.strategy.schedule`; ``now`` is epoch seconds.
    """
    reasons = [*plan.errors, *problems]
    reasons += budget_reasons(plan.application_id, scheduled, ledger=ledger, api_url=api_url,
                              now=now)
    guilds = [s.scope for s in scheduled if any(step.kind is StepKind.PERMISSIONS for step in s.steps)]
    if guilds and not has_user_token:
        reasons.append(
            f"the plan changes permission overwrites in guild {', '.join(guilds)}: that needs "
            "a user's Bearer token with scope applications.commands.permissions.update; set "
            "DISCORD_BEARER_TOKEN or pass --bearer-token-file, or run `cmdsync login` (a bot "
            "token gets 403 code 20001)")
    return reasons


def raise_if_unsafe(reasons: Sequence[str]) -> None:
    """Raise :class:`UnsafePlanError` when there is any reason."""
    if reasons:
        count = "1 problem" if len(reasons) == 1 else f"{len(reasons)} problems"
        raise UnsafePlanError(reasons, heading=f"refusing to apply ({count}); nothing was "
                                               "changed:")


def budget_reasons(application_id: str, scheduled: Iterable[ScopeSteps], *, ledger: Ledger,
                   api_url: str, now: float) -> list[str]:
    """Scopes whose creates would go over today's budget of 200."""
    reasons = []
    for scope in scheduled:
        used = ledger.used(api_url, application_id, scope.scope, utc_day(now))
        if scope.creates and used + scope.creates > DAILY_CREATE_LIMIT:
            minutes = int(seconds_to_midnight(now)) // 60
            reasons.append(
                f"{scope_label(scope.scope)}: the plan creates {scope.creates} commands and "
                f"{used} were created today (UTC, {LEDGER_PATH}); Discord allows "
                f"{DAILY_CREATE_LIMIT} per day: apply fewer new commands, or wait until "
                f"midnight UTC (in {minutes // 60} h {minutes % 60} min)")
    return reasons


def with_budget_warnings(plan: Plan, *, ledger: Ledger, api_url: str, now: float) -> Plan:
    """``plan`` with a warning per scope where today's create budget runs low."""
    warnings = []
    for scope in plan.scopes:
        used = ledger.used(api_url, plan.application_id, scope.scope, utc_day(now))
        left = DAILY_CREATE_LIMIT - used - scope.creates
        if used and left < LOW_BUDGET:
            after = f"leaving {left}" if left >= 0 else "more than are left: apply will " \
                "refuse it until midnight UTC"
            warnings.append(
                f"{scope_label(scope.scope)}: {used} of Discord's {DAILY_CREATE_LIMIT} daily command "
                f"creates were used today (UTC, {LEDGER_PATH}); this plan creates "
                f"{scope.creates}, {after}")
    if not warnings:
        return plan
    return replace(plan, warnings=plan.warnings + tuple(warnings))


def stale_reasons(plan: Plan, live: LiveState) -> list[str]:
    """What changed in ``live`` since ``plan`` was computed: commands, versions, overwrites."""
    reasons = []
    for scope in plan.scopes:
        planned = {ref.id: ref for ref in scope.live}
        current = {str(c["id"]): c for c in live.scope(scope.scope).commands}
        where = scope_label(scope.scope)
        for ref in sorted(planned.values(), key=lambda r: (r.type, r.name)):
            now = current.get(ref.id)
            if now is None:
                reasons.append(f"{where}: {_kind(ref.type)} {ref.name!r} (id {ref.id}) was "
                               "deleted")
            elif str(now.get("version")) != str(ref.version) or now.get("name") != ref.name:
                reasons.append(f"{where}: {_kind(ref.type)} {ref.name!r} (id {ref.id}) changed "
                               f"(version {ref.version} -> {now.get('version')})")
        for command_id, command in current.items():
            if command_id not in planned:
                reasons.append(f"{where}: {_kind(command.get('type', 1))} "
                               f"{command.get('name')!r} (id {command_id}) was created")
        for change in scope.permissions:
            target = change.target_id
            if target is not None and not same(
                    list(live.scope(scope.scope).permissions.get(target, ())),
                    list(change.before)):
                reasons.append(f"{where}: the permission overwrites of {change.key!r} "
                               f"(id {target}) changed")
    return reasons



def _kind(value: object) -> str:
    if isinstance(value, int) and value in CommandType._value2member_map_:
        return CommandType(value).name.lower()
    return f"type {value}"


def manifest_reasons(plan: Plan, desired: DesiredState) -> list[str]:
    """How a saved plan's request bodies and overwrites differ from what its manifests
    give now.

    Every command the plan creates, updates or keeps as a no-op in a scope it
    manages must be in ``desired`` with the same body (the live ``id`` and an
    ``integration_types`` the plan filled in aside); every desired command
    must be in the plan. Every overwrite set the plan puts must be the one
    the manifests declare under its key, or, for a key they do not declare in
    a guild whose overwrites they set, an empty one (a set cleared). [] when
    they agree.
    """
    reasons = []
    for scope in plan.scopes:
        reasons.extend(_permission_reasons(scope, desired))
        if not scope.manages_commands:
            continue
        wanted = {(_type(c.body), str(c.body.get("name"))): c.body
                  for c in desired.scopes[scope.scope].commands} \
            if scope.scope in desired.scopes else {}
        planned = set()
        for change in scope.commands:
            if change.action is Action.DELETE or change.note is not None:
                continue
            key = (change.type, change.name)
            planned.add(key)
            body = wanted.get(key)
            where = f"{scope_label(scope.scope)}: {_kind(change.type)} {change.name!r}"
            if body is None:
                reasons.append(f"{where}: the plan would {change.action.word} it, but the "
                               "manifests do not declare it")
            elif not _same_body(change.body or {}, body):
                reasons.append(f"{where}: the plan sends another body than the manifests give")
        reasons.extend(f"{scope_label(scope.scope)}: {_kind(kind)} {name!r}: declared in the "
                       "manifests, missing from the plan"
                       for kind, name in sorted(set(wanted) - planned))
    if desired.digest != plan.manifest_digest and not reasons:
        reasons.append("the manifests changed since the plan was made (its manifest_digest "
                       "differs)")
    return reasons


def _permission_reasons(scope: ScopePlan, desired: DesiredState) -> list[str]:
    declared = desired.scopes[scope.scope].permissions if scope.scope in desired.scopes \
        else None
    reasons = []
    for change in scope.permissions:
        where = f"{scope_label(scope.scope)}: overwrites of {change.key!r}"
        if declared is None:
            reasons.append(f"{where}: the plan changes them, but the manifests set no "
                           "overwrites in this guild")
        elif not same(list(change.after), list(declared.get(change.key, ()))):
            reasons.append(f"{where}: the plan puts other overwrites than the manifests give")
    return reasons


def _same_body(sent: Mapping[str, Any], declared: Mapping[str, Any]) -> bool:
    sent = {k: v for k, v in sent.items() if k != "id"}
    declared = {k: v for k, v in declared.items() if k != "id"}
    if "integration_types" not in declared:
        sent.pop("integration_types", None)  # filled in by the plan from the live command
    return same(sent, declared)  # JSON's equality: true is not 1, as == would have it


def _type(body: Mapping[str, Any]) -> int:
    """A desired body's type (validated, in API form): CHAT_INPUT when it has none."""
    return int(body.get("type", 1))


def plan_differences(saved: Plan, fresh: Plan) -> list[str]:
    """How a saved plan differs from ``fresh``, the plan its manifests give against live
    state now; [] when they are the same plan.

    Every scope either names, and in each every command change (creates,
    updates, deletes and no-ops, whose bodies a bulk overwrite sends: action,
    id, body, note), the scope's ``manages_commands`` and ``prune``, and every
    overwrite change (key, target, overwrites put). A saved plan that nothing
    vouches for (no ``plan_hmac`` of the credential at hand) is applied only
    when this is [].
    """
    from cmdsync.plan.planfile import scope_document

    reasons = []
    before = {s.scope: s for s in saved.scopes}
    after = {s.scope: s for s in fresh.scopes}
    for name in sorted(before.keys() | after.keys()):
        where = scope_label(name)
        mine, theirs = before.get(name), after.get(name)
        if theirs is None:
            reasons.append(f"{where}: the plan names this scope, but the manifests do not")
            continue
        if mine is None:
            reasons.append(f"{where}: the manifests name this scope, but the plan does not")
            continue
        a, b = _plain(scope_document(mine)), _plain(scope_document(theirs))
        for flag in ("manages_commands", "prune"):
            if a[flag] != b[flag]:
                reasons.append(f"{where}: the plan has {flag} {a[flag]}, the manifests give "
                               f"{b[flag]}")
        reasons.extend(_differing(where, a["commands"], b["commands"], _command_key,
                                  lambda c: f"{_kind(c['type'])} {c['name']!r}"))
        reasons.extend(_differing(where, a["permissions"], b["permissions"], _permission_key,
                                  _permission_label))
    return reasons


def _plain(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples as lists)."""
    import json

    return json.loads(json.dumps(value))


def _command_key(change: Mapping[str, Any]) -> tuple[Any, ...]:
    return (change["type"], change["name"])


def _permission_key(change: Mapping[str, Any]) -> tuple[str, str]:
    """An overwrite change is one key's set on one command: a plan may hold a key twice
    (a set put on the command the manifests mean, another cleared elsewhere)."""
    return (change["key"], str(change["target_id"]))


def _permission_label(change: Mapping[str, Any]) -> str:
    target = change["target_id"]
    return f"overwrites of {change['key']!r}" + (f" (id {target})" if target else "")


def _differing(where: str, mine: Sequence[Mapping[str, Any]],
               theirs: Sequence[Mapping[str, Any]], key: Any, label: Any) -> list[str]:
    ours = {key(c): c for c in mine}
    fresh = {key(c): c for c in theirs}
    seen: set[Any] = set()
    reasons = []
    for change in mine:
        if key(change) in seen:
            reasons.append(f"{where}: {label(change)}: the plan changes it more than once")
        seen.add(key(change))
    for item in sorted(ours.keys() | fresh.keys()):
        a, b = ours.get(item), fresh.get(item)
        if a == b:
            continue
        if b is None:
            assert a is not None
            reasons.append(f"{where}: {label(a)}: the plan would {a['action']} it, but the "
                           "manifests do not give that change")
        elif a is None:
            reasons.append(f"{where}: {label(b)}: the manifests give a {b['action']}, missing "
                           "from the plan")
        elif a["action"] != b["action"]:
            reasons.append(f"{where}: {label(a)}: the plan would {a['action']} it, the "
                           f"manifests give {b['action']}")
        else:
            reasons.append(f"{where}: {label(a)}: the plan's {a['action']} differs from the "
                           "manifests'")
    return reasons
