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
showed. Anyone can compute that digest again after an edit, so a saved
plan also carries ``plan_hmac``, the same content's HMAC keyed with the
credential that read live state (:func:`plan_key`; the credential itself is
never written), or, where that credential is one anyone has (``--local``,
the emulator's published tokens), with a random key kept in
``.cmdsync/plan.key`` (:func:`cmdsync.runners.files.local_plan_key`): an
apply holding that key knows the plan is cmdsync's own. ``manifest_sha256`` holds the digest of each manifest file's
text: with both, apply knows the files beside an authentic plan are the ones
it was made from without reading them as manifests again. A plan made in an
environment of the project configuration records it (``environment``: its
name, and the guild its global commands were copied to, ``copy_global_to``),
so that ``cmdsync apply plan.json`` applies it there without ``--env``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from cmdsync.errors import CmdsyncError
from cmdsync.model import GLOBAL, MAX_COMMANDS_PER_TYPE
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
from cmdsync.validate import gcpause

FORMAT_VERSION = 1
# the plan_hmac key (plan_key), or how to find it from the api_url the plan was read at
Key = bytes | Callable[[str | None], "bytes | None"] | None
PLAN_SCHEMA = "plan.schema.json"
_ACTIONS = {action.word: action for action in Action}


@dataclass(frozen=True)
class SavedPlan:
    """A saved plan as read: the plan, where live state was read (``api_url``, None
    if not recorded), the live state it was made from (``prior``; None in a
    plan saved without it), and whether its ``plan_hmac`` proves it
    cmdsync's own (``authentic``, see :func:`load_saved`)."""

    plan: Plan
    api_url: str | None
    prior: LiveState | None
    # its plan_hmac matches the key it was loaded with: cmdsync wrote it with that
    # credential, so its bodies are what its manifests gave then
    authentic: bool = False
    # the apply serial of each scope when it was made (cmdsync.apply.history); None in a
    # plan saved without them
    serials: Mapping[str, int] | None = None
    digest: str | None = None  # its plan_digest
    # the environment of cmdsync.toml it was made in: {"name", "copy_global_to"}; None
    # when made without one
    environment: Mapping[str, Any] | None = None


def to_document(plan: Plan, *, api_url: str | None = None, prior: LiveState | None = None,
                environment: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document of ``plan``; ``api_url`` records where live state was read, and
    ``environment`` (``{"name": ..., "copy_global_to": ...}``) the environment of the
    project configuration it was made in, when there was one.

    With ``prior`` (the live state the plan was made from), the document
    keeps, under ``prior``, what undoing the plan needs of each scope it
    changes, as Discord returned it: the live commands it updates or deletes
    (all of the scope's where it creates or overwrites were read) and the
    overwrites that were read (see :func:`_prior`). A saved plan applied
    with ``--no-refresh`` backs them up and writes by their ids without
    reading again.
    """
    document: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "application_id": plan.application_id,
        "api_url": api_url,
        "manifest_digest": plan.manifest_digest,
        "manifests": list(plan.manifests),
        "manifest_sha256": list(plan.manifest_sha256),
        "summary": {"create": plan.count(Action.CREATE), "update": plan.count(Action.UPDATE),
                    "delete": plan.count(Action.DELETE),
                    "permission_sets": plan.permission_changes,
                    "has_changes": plan.has_changes},
        "scopes": [scope_document(scope) for scope in plan.scopes],
        "warnings": list(plan.warnings),
        "errors": list(plan.errors),
    }
    if environment is not None:  # near the top, on one line: read before the rest
        document = {**dict(list(document.items())[:3]), "environment": {
            "name": environment.get("name"),
            "copy_global_to": environment.get("copy_global_to")},
            **dict(list(document.items())[3:])}
    if prior is not None:
        document["prior"] = _prior(plan, prior)
    return document


def _prior(plan: Plan, live: LiveState) -> dict[str, Any]:
    """Per scope the plan changes, what a backup needs to undo it, as Discord returned it.

    That is the live commands the plan updates or deletes (``"partial":
    true``, and a restore leaves the others), or all of them where it also
    creates commands (a restore deletes those) or the guild's overwrites
    were read (the backup names their commands); and those overwrites.
    Global commands come whole too when guild overwrites are kept, which
    may name them.
    """
    prior: dict[str, Any] = {}
    for plan_scope in plan.scopes:
        if not plan_scope.has_changes:
            continue
        scope = live.scope(plan_scope.scope)
        commands: list[Mapping[str, Any]] = list(scope.commands)
        partial = not scope.permissions_read and not plan_scope.permissions and all(
            c.action is not Action.CREATE for c in plan_scope.commands)
        if partial:
            changed = {c.id for c in plan_scope.commands
                       if c.action in (Action.UPDATE, Action.DELETE)}
            commands = [c for c in commands if str(c.get("id")) in changed]
        prior[plan_scope.scope] = {
            "commands": [dict(c) for c in commands],
            "permissions": [{"id": target, "permissions": [dict(o) for o in overwrites]}
                            for target, overwrites in scope.permissions.items()]
            if scope.permissions_read else None,
            **({"partial": True} if partial else {})}
    overwrites_kept = any(live.scope(name).permissions_read for name in prior
                          if name != GLOBAL)
    if overwrites_kept and GLOBAL in live.scopes and prior.get(GLOBAL, {"partial": True}).get(
            "partial"):
        prior[GLOBAL] = {"commands": [dict(c) for c in live.scope(GLOBAL).commands],
                         "permissions": None}
    return prior


def prior_state(application_id: str, prior: Mapping[str, Any]) -> LiveState:
    """The :class:`~cmdsync.state.LiveState` a document's ``prior`` holds."""
    return LiveState(application_id, {
        name: live_scope(name, scope["commands"], scope["permissions"],
                         complete=not scope.get("partial", False))
        for name, scope in prior.items()})


def scope_document(scope: ScopePlan) -> dict[str, Any]:
    """One scope of a plan as the saved plan writes it (``scopes`` items)."""
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
                    str(data["manifest_digest"]), tuple(data.get("manifests") or ()),
                    tuple(data.get("manifest_sha256") or ()))
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


def _short(message: str, limit: int = 200) -> str:
    """``message`` cut to ``limit`` characters (jsonschema quotes the whole bad value)."""
    return message if len(message) <= limit else message[:limit] + "..."


def plan_digest(document: Mapping[str, Any], *, floats: bool = True) -> str:
    """``"sha256:<hex>"`` of ``document`` without its ``plan_digest`` and ``plan_hmac``:
    of its JSON with keys sorted, no spaces, non-ASCII characters as UTF-8
    (``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)``).

    ``floats=False`` says the document holds no float (nor NaN or
    infinity), as :func:`load_saved` knows from parsing it: then orjson
    writes the same bytes several times faster (floats are the one thing
    the two write differently: ``1e-07`` and ``1e-7``). An integer past 64
    bits or a lone surrogate, which orjson refuses, goes the ``json`` way.
    """
    return _sha256(_canonical(document, floats=floats))


def plan_key(secret: str) -> bytes:
    """The ``plan_hmac`` key of a credential (a bot token or a client secret): its
    SHA-256 under a label of its own, so the credential serves no other MAC."""
    return hashlib.sha256(b"cmdsync saved plan\x00" + secret.encode("utf-8")).digest()


def _sha256(canonical: bytes) -> str:
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


def _hmac(key: bytes, canonical: bytes) -> str:
    return "hmac-sha256:" + hmac.new(key, canonical, hashlib.sha256).hexdigest()


def _canonical(document: Mapping[str, Any], *, floats: bool) -> bytes:
    content = {k: v for k, v in document.items() if k not in ("plan_digest", "plan_hmac")}
    if not floats:
        try:
            return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def dumps(plan: Plan, *, api_url: str | None = None, prior: LiveState | None = None,
          key: bytes | None = None, serials: Mapping[str, int] | None = None,
          environment: Mapping[str, Any] | None = None) -> str:
    """The document (see :func:`to_document`), with its ``plan_digest`` (and with
    ``key``, from :func:`plan_key`, its ``plan_hmac``), as indented JSON text
    ending with a newline: each command change, and each scope of ``prior``,
    on a line of its own (a large plan stays quick to write and read, and
    still reads line by line). ``serials``: the apply serial of each scope the plan
    was made at (:mod:`cmdsync.apply.history`), so that apply refuses a replay.
    ``environment``: see :func:`to_document`."""
    document = to_document(plan, api_url=api_url, prior=prior, environment=environment)
    if serials is not None:
        document["serials"] = dict(serials)
    canonical = _canonical(document, floats=True)
    document["plan_digest"] = _sha256(canonical)
    if key is not None:
        document["plan_hmac"] = _hmac(key, canonical)
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
        elif key == "environment":
            lines.append(f"  {one(key)}: {one(value)}")
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


def load_saved(text: str, *, path: str, key: Key = None) -> SavedPlan:
    """A saved plan's text as a :class:`SavedPlan`.

    ``path`` only names the file in messages; ``key`` (:func:`plan_key` of
    the credential at hand, or a function of the plan's ``api_url`` giving
    it) checks its ``plan_hmac``: ``authentic`` when it matches. One that
    does not (another credential) is no error. The document is checked
    against ``schemas/plan.schema.json`` (jsonschema-rs's verdict first,
    jsonschema's message for a document it refuses). Raises
    :class:`~cmdsync.errors.CmdsyncError` for text that is not JSON or not a
    cmdsync plan.
    """
    with gcpause.paused():  # an acyclic tree of many objects (see cmdsync.validate.gcpause)
        return _load_saved(text, path=path, key=key)


def _load_saved(text: str, *, path: str, key: Key) -> SavedPlan:
    import jsonschema_rs

    from cmdsync.validate.schema import load_schema

    floats: list[str] = []

    def number(literal: str) -> float:
        floats.append(literal)
        return float(literal)

    try:
        data = json.loads(text, parse_float=number, parse_constant=number)
    except ValueError as exc:
        raise CmdsyncError(f"cannot read the saved plan {path}: {exc}") from exc
    except RecursionError as exc:
        raise CmdsyncError(f"cannot read the saved plan {path}: it nests too deep") from exc
    schema = load_schema(PLAN_SCHEMA)
    if not jsonschema_rs.Draft202012Validator(schema).is_valid(data):
        from jsonschema import Draft202012Validator  # words the message

        # the first error found, not every one: a plan of a million bad entries is
        # refused as fast, and in as little memory, as a plan of one
        problem = next(iter(Draft202012Validator(schema).iter_errors(data)), None)
        if problem is not None:
            where = "/".join(str(p) for p in problem.absolute_path)
            raise CmdsyncError(f"{path} is not a cmdsync plan: /{where}: "
                               f"{_short(problem.message)}")
    canonical = _canonical(data, floats=bool(floats))
    if data.get("plan_digest") != _sha256(canonical):
        raise CmdsyncError(f"the saved plan {path} was changed after cmdsync wrote it (its "
                           "plan_digest does not match its content); nothing was changed. "
                           "Plan again: `cmdsync plan --out FILE`")
    api_url = data.get("api_url")
    plan = from_document(data)
    try:
        prior = prior_state(plan.application_id, data["prior"]) if "prior" in data else None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CmdsyncError(f"the saved plan {path} is malformed: its prior state: {exc!r}"
                           ) from exc
    if callable(key):
        key = key(api_url if isinstance(api_url, str) else None)
    authentic = key is not None and isinstance(data.get("plan_hmac"), str) and \
        hmac.compare_digest(data["plan_hmac"], _hmac(key, canonical))
    return SavedPlan(plan, api_url if isinstance(api_url, str) else None, prior, authentic,
                     data.get("serials"), data["plan_digest"], data.get("environment"))
