"""A plan as Terraform-like text (plain or rich) and as JSON.

Text shows, per scope with changes, ``+`` (green) creates, ``~`` (yellow)
updates with only their changed fields, ``-`` (red) deletes, then permission
changes, the creates and per-type totals; then warnings (the plan's, and, from
:func:`warnings`, that apply needs a user's Bearer token the credentials
lack), errors and one summary line: ``Plan: N to create, N to update, N to
delete, N permission sets to change.`` or ``No changes. Live commands match
the manifest.``

:func:`lines` computes styled segments once; :func:`to_text` and
:func:`to_rich` only draw them, so colour never changes the words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from cmdsync.manifest.diagnostics import Location
from cmdsync.model import MAX_COMMANDS_PER_TYPE, CommandType, OverwriteType, scope_label
from cmdsync.plan import Action, CommandChange, FieldChange, PermissionChange, Plan, ScopePlan
from cmdsync.plan.changes import natural
from cmdsync.render.diagnostics import annotation
from cmdsync.render.escape import fenced, printable
from cmdsync.state.as_manifest import to_command, to_option

Segment = tuple[str, str]  # (text, rich style; "" for none)
Line = list[Segment]

NO_CHANGES = "No changes. Live commands match the manifest."
_STYLES = {Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red",
           Action.NO_OP: ""}


def summary(plan: Plan) -> str:
    """The last line of the text."""
    if not plan.has_changes:
        return NO_CHANGES
    sets = plan.permission_changes
    return (f"Plan: {plan.count(Action.CREATE)} to create, {plan.count(Action.UPDATE)} to "
            f"update, {plan.count(Action.DELETE)} to delete, {sets} "
            f"permission set{'s' if sets != 1 else ''} to change.")


def warnings(plan: Plan) -> tuple[str, ...]:
    """The plan's warnings, then, when its overwrite changes need a user's Bearer token
    the credentials that planned lack, what apply will need (it refuses them without;
    a bot token gets 403 code 20001, Discord's "Application Commands" documentation)."""
    guilds = plan.needs_user_token
    if not guilds:
        return plan.warnings
    needed = (f"apply will need a user's Bearer token to change the permission overwrites "
              f"above (guild {', '.join(guilds)}), and these credentials have none: run "
              "`cmdsync login`, or set DISCORD_BEARER_TOKEN (scope "
              "applications.commands.permissions.update; a bot token cannot edit overwrites)")
    return (*plan.warnings, needed)


def lines(plan: Plan) -> list[Line]:
    """Every line of the text as styled segments."""
    out: list[Line] = []
    changed = [s for s in plan.scopes if _has_changes(s)]
    if changed:
        heading = f"cmdsync will perform the following actions on {plan.application_label}:"
        out += [[(printable(heading), "bold")], []]
    for scope in changed:
        out.append([(printable(scope_label(scope.scope)) + ":", "bold")])
        for command in sorted(scope.commands, key=lambda c: (c.type, natural(c.name))):
            out.extend(_command(command))
        for perm in sorted(scope.permissions, key=lambda p: natural(p.key)):
            out.extend(_permission(perm))
        if scope.manages_commands:
            out.append([("  " + _totals(scope), "dim")])
        out.append([])
    notes = warnings(plan)
    out += [[("Warning: ", "bold yellow"), (printable(w), "")] for w in notes]
    out += [[("Error: ", "bold red"), (printable(e), "")] for e in plan.errors]
    if notes or plan.errors:
        out.append([])
    out.append([(summary(plan), "bold")])
    return out


def to_text(plan: Plan) -> str:
    """Plain text, for pipes, files and ``NO_COLOR``."""
    return "".join("".join(text for text, _ in line) + "\n" for line in lines(plan))


def to_rich(plan: Plan) -> Any:
    """A rich ``Text`` with the same words as :func:`to_text`, coloured."""
    from rich.text import Text

    text = Text()
    for line in lines(plan):
        for segment, style in line:
            text.append(segment, style=style or None)
        text.append("\n")
    return text


def to_json(plan: Plan, *, api_url: str | None = None) -> str:
    """The plan document of ``schemas/plan.schema.json`` as indented JSON; its
    ``warnings`` are those the text shows (:func:`warnings`)."""
    from cmdsync.plan.planfile import dumps

    return dumps(replace(plan, warnings=warnings(plan)), api_url=api_url)


def _has_changes(scope: ScopePlan) -> bool:
    return bool(scope.permissions) or any(c.action is not Action.NO_OP for c in scope.commands)



def _glyph(action: Action, indent: int) -> Line:
    """The indent, then the coloured glyph alone."""
    return [(" " * indent, ""), (action.value, _STYLES[action])]


def _command(change: CommandChange) -> Iterator[Line]:
    if change.action is Action.NO_OP:
        return
    details = []
    if change.id is not None:
        details.append(f"id {printable(str(change.id))}")
    if change.renamed_from is not None:
        details.append(f"renamed from {_show(change.renamed_from)}")
    suffix = f" ({', '.join(details)})" if details else ""
    yield [*_glyph(change.action, 2),
           (f" {CommandType(change.type).name.lower()} {_show(change.name)}{suffix}", "")]
    for field in change.changes:
        yield _field(field)


def _field(field: FieldChange) -> Line:
    path = printable(field.path)
    before, after = (_show(as_written(field.path, v)) for v in (field.before, field.after))
    if field.before is None:
        return [*_glyph(Action.CREATE, 6), (f" {path}: {after}", "")]
    if field.after is None:
        return [*_glyph(Action.DELETE, 6), (f" {path}: {before}", "")]
    return [*_glyph(Action.UPDATE, 6), (f" {path}: {before} -> {after}", "")]


_WHOLE_OPTION = re.compile(r"(?:^|\.)options\[name=[^\]]*\]$")
_OPTION_FIELD = re.compile(r"(?:^|\.)options\[name=[^\]]*\]\.(\w+)$")


def as_written(path: str, value: Any) -> Any:
    """A field's API value as a manifest writes it (:mod:`cmdsync.state.as_manifest`):
    option and channel types, contexts and installation types by name, an option
    without its defaults; other values as they are."""
    if value is None:
        return None
    if _WHOLE_OPTION.search(path) and isinstance(value, dict):
        return to_option(value)
    field = _OPTION_FIELD.search(path)
    if field:
        return to_option({field.group(1): value}).get(field.group(1), value)
    if re.fullmatch(r"\w+", path) and path not in ("type", "name", "description"):
        return to_command({path: value}, scope="global").get(path, value)
    return value


def _permission(change: PermissionChange) -> Iterator[Line]:
    target_id = printable(str(change.target_id))
    if change.key == "*":
        where = f"application-wide, id {target_id}"
    elif change.target_id is None:
        where = "global command created by this plan" if change.command_scope == "global" \
            else "command created by this plan"
    elif change.command_scope == "global":
        where = f"global command, id {target_id}"
    else:
        where = f"id {target_id}"
    reason = f"; {printable(change.reason)}" if change.reason else ""
    yield [*_glyph(change.action, 2),
           (f" permissions of {_show(change.key)} ({where}){reason}", "")]
    before = {(o["type"], o["id"]): o for o in change.before}
    after = {(o["type"], o["id"]): o for o in change.after}
    for key in _ordered(before, after):
        old, new = before.get(key), after.get(key)
        target = _target(key, change.guild_id)
        if old is None and new is not None:
            yield [*_glyph(Action.CREATE, 6), (f" {target}: {_allow(new)}", "")]
        elif new is None and old is not None:
            yield [*_glyph(Action.DELETE, 6), (f" {target}: {_allow(old)}", "")]
        elif old is not None and new is not None and old["permission"] != new["permission"]:
            yield [*_glyph(Action.UPDATE, 6),
                   (f" {target}: {_allow(old)} -> {_allow(new)}", "")]
        elif change.reason and new is not None:
            yield [(f"        {target}: {_allow(new)}", "")]


def _ordered(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> list[Any]:
    return sorted(set(before) | set(after),
                  key=lambda k: (k[0], int(k[1]) if str(k[1]).isdigit() else 0, k[1]))


def _target(key: tuple[int, str], guild_id: str) -> str:
    kind, target = key
    if target == guild_id:
        label = "@everyone"
    elif guild_id.isdigit() and target == str(int(guild_id) - 1):
        label = "all channels"
    else:
        label = printable(str(target))
    try:
        return f"{OverwriteType(kind).name.lower()} {label}"
    except ValueError:
        return f"type {kind} {label}"


def _allow(overwrite: Mapping[str, Any]) -> str:
    return "allow" if overwrite["permission"] else "deny"


def _totals(scope: ScopePlan) -> str:
    kinds: Sequence[CommandType] = list(CommandType)
    if scope.scope != "global":
        kinds = [k for k in kinds if k is not CommandType.PRIMARY_ENTRY_POINT]
    counts = ", ".join(f"{scope.totals.get(k.name, 0)}/{MAX_COMMANDS_PER_TYPE[k]} {k.name}"
                       for k in kinds)
    creates = ""
    if scope.scope != "global" and scope.creates:
        plural = "create counts" if scope.creates == 1 else "creates count"
        creates = (f"{scope.creates} {plural} toward Discord's limit of 200 per guild per "
                   "day; ")
    return f"{creates}after apply: {counts}"


def _show(value: Any) -> str:
    """A value as compact JSON, without the null keys canonical forms carry; what JSON
    leaves raw (C1 controls, U+2028, bidirectional controls) escaped, as JSON allows."""
    return printable(json.dumps(_drop_nulls(value), ensure_ascii=False))


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def to_github(plan: Plan, locations: Mapping[tuple[str, int, str], Location]) -> str:
    """GitHub Actions annotations, then the text: a ``notice`` at the manifest line of
    each command that changes (deletes and permission sets at no line), an ``error``
    for each plan error, a ``warning`` for each warning."""
    out = []
    for scope in plan.scopes:
        where = scope_label(scope.scope)
        for change in scope.commands:
            if change.action is Action.NO_OP:
                continue
            verb = {Action.CREATE: "created", Action.UPDATE: "updated",
                    Action.DELETE: "deleted"}[change.action]
            fields = f": {', '.join(f.path for f in change.changes)}" if change.changes else ""
            out.append(annotation(
                "notice", f"{CommandType(change.type).name.lower()} {_show(change.name)} "
                          f"will be {verb} ({where}){fields}",
                locations.get((scope.scope, change.type, change.name)), "cmdsync plan"))
        for perm in scope.permissions:
            out.append(annotation("notice", f"permissions of {_show(perm.key)} will change "
                                            f"({where})", title="cmdsync plan"))
    out += [annotation("warning", w, title="cmdsync plan") for w in warnings(plan)]
    out += [annotation("error", e, title="cmdsync plan") for e in plan.errors]
    return "".join(line + "\n" for line in out) + to_text(plan)


def to_markdown(plan: Plan) -> str:
    """The plan for a job summary or a pull-request comment: a heading, the summary line,
    and the text in a ``diff`` block (``+``/``-`` lines coloured by GitHub)."""
    body = []
    for line in to_text(plan).splitlines():
        stripped = line.lstrip()
        if stripped[:2] in ("+ ", "- "):  # the glyph first: GitHub's diff colours it
            body.append(stripped[0] + " " * (len(line) - len(stripped)) + stripped[1:])
        elif stripped[:2] == "~ ":
            body.append("!" + " " * (len(line) - len(stripped)) + stripped[1:])
        else:
            body.append(" " + line)
    diff = fenced("\n".join(body), "diff")
    return f"### cmdsync plan\n\n**{summary(plan)}**\n\n{diff}"
