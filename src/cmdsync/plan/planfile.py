"""A plan as a JSON document (``schemas/plan.schema.json``), and back; no I/O.

The same document is printed by ``cmdsync plan --format json`` and saved by
``--out FILE`` for ``cmdsync apply FILE``. It holds the manifest digest and
each live command's id and version (so apply can refuse a stale plan), the
request bodies apply sends, the manifest files it was made from, and never a
token or any other credential. A saved plan also holds its ``prior`` state:
the live commands and overwrites of the scopes it changes, as Terraform's
saved plans hold theirs, for ``apply --no-refresh``. ``plan_digest`` is the SHA-256 of the whole
document but itself (:func:`plan_digest`): :func:`loads` refuses a plan
whose content no longer matches it, so what apply sends is what the plan
showed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.model import MAX_COMMANDS_PER_TYPE
from cmdsync.plan.changes import (
    Action,
    CommandChange,
    FieldChange,
    LiveCommand,
    PermissionChange,
    Plan,
    ScopePlan,
)
from cmdsync.state import LiveState, live_scope

FORMAT_VERSION = 1
PLAN_SCHEMA = "plan.schema.json"
_ACTIONS = {action.word: action for action in Action}


@dataclass(frozen=True)
class SavedPlan:
    """A saved plan as read: the plan, where live state was read (``api_url``, None
    if not recorded) and the live state it was made from (``prior``; None in a
    plan saved without it)."""

    plan: Plan
    api_url: str | None
    prior: LiveState | None


def to_document(plan: Plan, *, api_url: str | None = None, prior: LiveState | None = None
                ) -> dict[str, Any]:
    """The JSON document of ``plan``; ``api_url`` records where live state was read.

    With ``prior`` (the live state the plan was made from), the document
    keeps, under ``prior``, the live commands of each scope the plan changes
    and, where they were read, its overwrites, as Discord returned them (a
    saved plan applied with ``--no-refresh`` backs them up and writes by
    their ids without reading again).
    """
    document = {
        "format_version": FORMAT_VERSION,
        "application_id": plan.application_id,
        "api_url": api_url,
        "manifest_digest": plan.manifest_digest,
        "manifests": list(plan.manifests),
        "summary": {"create": plan.count(Action.CREATE), "update": plan.count(Action.UPDATE),
                    "delete": plan.count(Action.DELETE),
                    "permission_sets": plan.permission_changes,
                    "has_changes": plan.has_changes},
        "scopes": [_scope(scope) for scope in plan.scopes],
        "warnings": list(plan.warnings),
        "errors": list(plan.errors),
    }
    if prior is not None:
        document["prior"] = _prior(plan, prior)
    return document


def _prior(plan: Plan, live: LiveState) -> dict[str, Any]:
    changed = [scope.scope for scope in plan.scopes if scope.has_changes]
    if any(s != "global" for s in changed) and "global" in live.scopes:
        changed.append("global")  # guild overwrites may name global commands
    prior: dict[str, Any] = {}
    for name in dict.fromkeys(changed):
        scope = live.scope(name)
        prior[name] = {
            "commands": [dict(c) for c in scope.commands],
            "permissions": [{"id": target, "permissions": [dict(o) for o in overwrites]}
                            for target, overwrites in scope.permissions.items()]
            if scope.permissions_read else None}
    return prior


def prior_state(application_id: str, prior: Mapping[str, Any]) -> LiveState:
    """The :class:`~cmdsync.state.LiveState` a document's ``prior`` holds."""
    return LiveState(application_id, {
        name: live_scope(name, scope["commands"], scope["permissions"])
        for name, scope in prior.items()})


def _scope(scope: ScopePlan) -> dict[str, Any]:
    caps = {kind.name: cap for kind, cap in MAX_COMMANDS_PER_TYPE.items()}
    return {
        "scope": scope.scope, "manages_commands": scope.manages_commands,
        "prune": scope.prune, "creates": scope.creates, "totals": dict(scope.totals),
        "caps": caps if scope.manages_commands else {},
        "commands": [_command(c) for c in scope.commands],
        "permissions": [_permission(p) for p in scope.permissions],
        "live": [{"id": r.id, "type": r.type, "name": r.name, "version": r.version}
                 for r in scope.live],
    }


def _command(change: CommandChange) -> dict[str, Any]:
    return {
        "action": change.action.word, "type": change.type, "name": change.name,
        "id": change.id, "version": change.version, "renamed_from": change.renamed_from,
        "note": change.note,
        "changes": [{"path": f.path, "before": f.before, "after": f.after}
                    for f in change.changes],
        "body": None if change.body is None else dict(change.body),
    }


def _permission(change: PermissionChange) -> dict[str, Any]:
    command = None
    if change.command_name is not None:
        command = {"scope": change.command_scope, "type": change.command_type,
                   "name": change.command_name}
    return {"action": change.action.word, "key": change.key, "target_id": change.target_id,
            "command": command, "before": [dict(o) for o in change.before],
            "after": [dict(o) for o in change.after], "reason": change.reason}


def from_document(data: Mapping[str, Any]) -> Plan:
    """The :class:`Plan` a document describes.

    Raises :class:`~cmdsync.errors.CmdsyncError` for a document of another
    format version or shape; validate it against the schema first for
    precise messages (:func:`load`).
    """
    if data.get("format_version") != FORMAT_VERSION:
        raise CmdsyncError(f"saved plan has format_version {data.get('format_version')!r}; "
                           f"this cmdsync reads {FORMAT_VERSION}")
    try:
        return Plan(str(data["application_id"]),
                    tuple(_scope_from(s) for s in data["scopes"]),
                    tuple(data["warnings"]), tuple(data["errors"]),
                    str(data["manifest_digest"]), tuple(data.get("manifests") or ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise CmdsyncError(f"saved plan is malformed: {exc}") from exc


def _scope_from(data: Mapping[str, Any]) -> ScopePlan:
    commands = tuple(CommandChange(
        _ACTIONS[c["action"]], data["scope"], c["type"], c["name"], c["id"], c["version"],
        tuple(FieldChange(f["path"], f["before"], f["after"]) for f in c["changes"]),
        c["body"], c["renamed_from"], c["note"]) for c in data["commands"])
    perms = tuple(PermissionChange(
        _ACTIONS[p["action"]], data["scope"], p["key"], p["target_id"],
        (p["command"] or {}).get("scope"), (p["command"] or {}).get("type"),
        (p["command"] or {}).get("name"), tuple(p["before"]), tuple(p["after"]),
        p["reason"]) for p in data["permissions"])
    live = tuple(LiveCommand(r["id"], r["type"], r["name"], r["version"])
                 for r in data["live"])
    return ScopePlan(data["scope"], commands, perms, data["manages_commands"], data["prune"],
                     data["creates"], dict(data["totals"]), live)


def plan_digest(document: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of ``document`` without its ``plan_digest`` (keys sorted, compact)."""
    content = {k: v for k, v in document.items() if k != "plan_digest"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def dumps(plan: Plan, *, api_url: str | None = None, prior: LiveState | None = None) -> str:
    """The document (see :func:`to_document`), with its ``plan_digest``, as indented
    JSON text ending with a newline: each command change, and each scope of
    ``prior``, on a line of its own (a large plan stays quick to write and
    read, and still reads line by line)."""
    document = to_document(plan, api_url=api_url, prior=prior)
    document["plan_digest"] = plan_digest(document)
    return _text(document)


def _text(document: Mapping[str, Any]) -> str:
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in document.items():
        if key == "scopes":
            scopes = []
            for scope in value:
                fields = [f"      {one(k)}: " + (
                    "[\n" + ",\n".join(f"        {one(c)}" for c in v) + "\n      ]"
                    if k == "commands" and v else one(v)) for k, v in scope.items()]
                scopes.append("    {\n" + ",\n".join(fields) + "\n    }")
            lines.append('  "scopes": [\n' + ",\n".join(scopes) + "\n  ]"
                         if scopes else '  "scopes": []')
        elif key == "prior" and value:
            lines.append('  "prior": {\n' + ",\n".join(
                f"    {one(k)}: {one(v)}" for k, v in value.items()) + "\n  }")
        else:
            lines.append(f"  {one(key)}: " + json.dumps(value, indent=2, ensure_ascii=False)
                         .replace("\n", "\n  "))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def loads(text: str, *, path: str) -> tuple[Plan, str | None]:
    """A saved plan's text as a :class:`Plan` and its ``api_url`` (see :func:`load_saved`)."""
    saved = load_saved(text, path=path)
    return saved.plan, saved.api_url


def load_saved(text: str, *, path: str) -> SavedPlan:
    """A saved plan's text as a :class:`SavedPlan`.

    ``path`` only names the file in messages. The document is checked
    against ``schemas/plan.schema.json`` (jsonschema-rs's verdict first,
    jsonschema's message for a document it refuses). Raises
    :class:`~cmdsync.errors.CmdsyncError` for text that is not JSON or not a
    cmdsync plan.
    """
    import jsonschema_rs

    from cmdsync.validate.schema import load_schema

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CmdsyncError(f"cannot read the saved plan {path}: {exc}") from exc
    schema = load_schema(PLAN_SCHEMA)
    if not jsonschema_rs.Draft202012Validator(schema).is_valid(data):
        from jsonschema import Draft202012Validator  # words the message

        problems = sorted(Draft202012Validator(schema).iter_errors(data),
                          key=lambda e: list(e.absolute_path))
        if problems:
            where = "/".join(str(p) for p in problems[0].absolute_path)
            raise CmdsyncError(f"{path} is not a cmdsync plan: /{where}: "
                               f"{problems[0].message}")
    if data.get("plan_digest") != plan_digest(data):
        raise CmdsyncError(f"the saved plan {path} was changed after cmdsync wrote it (its "
                           "plan_digest does not match its content); nothing was changed. "
                           "Plan again: `cmdsync plan --out FILE`")
    api_url = data.get("api_url")
    plan = from_document(data)
    prior = prior_state(plan.application_id, data["prior"]) if "prior" in data else None
    return SavedPlan(plan, api_url if isinstance(api_url, str) else None, prior)
