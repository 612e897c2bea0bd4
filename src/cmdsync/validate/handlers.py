"""Handlers in bot code held against the manifest: what ``cmdsync check`` reports.

discord.py raises ``CommandSignatureMismatch`` at run time when the command
Discord has registered and the handler in code disagree; this finds the same
disagreements before deploy. Commands are matched by scope, type and name;
options by name within each command, subcommand group and subcommand. Each
difference is a diagnostic at the manifest's line, with the handler's
line as its related location (or the reverse, for a handler the manifest
lacks). Pure: both sides are given as API-form bodies.

==== =====================================================================
CK01 a manifest command has no handler in code
CK02 a handler has no command in the manifest
CK03 an option the manifest declares is missing from the handler
CK04 the handler has an option the manifest does not declare
CK05 an option renamed: one missing and one extra of the same type, in place
CK06 an option's type differs
CK07 an option's ``required`` differs
CK08 an option's choices differ
CK09 an option's range differs (min/max value or length)
==== =====================================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity
from cmdsync.model import CommandType, OptionType, scope_label

_RANGE = ("min_value", "max_value", "min_length", "max_length")
_NESTED = (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP)


@dataclass(frozen=True)
class Side:
    """One command on one side: its API-form body and where it is written.

    ``locate(path)`` gives the location of a path of keys and indexes inside
    the body (a manifest line), or the handler's line for code.
    """

    scope: str
    body: Mapping[str, Any]
    where: Any  # Callable[[tuple[str | int, ...]], Location]


def compare(manifest: Sequence[Side], code: Sequence[Side], *, source: str) -> list[Diagnostic]:
    """Every disagreement between the manifest's commands and the code's handlers."""
    found: list[Diagnostic] = []
    theirs = {_key(c): c for c in code}
    ours = {_key(m): m for m in manifest}
    for key, declared in ours.items():
        handler = theirs.get(key)
        if handler is None:
            found.append(_diag("CK01", f"{_what(declared)} has no handler in {source}",
                               declared.where(())))
            continue
        found += _options(declared, handler, (), declared.body.get("options") or [],
                          handler.body.get("options") or [])
    for key, handler in theirs.items():
        if key not in ours:
            found.append(_diag("CK02", f"{_what(handler)}: a handler in code, but no command "
                               "in the manifests: add it, or remove the handler",
                               handler.where(())))
    return sorted(found, key=Diagnostic.sort_key)


def _options(declared: Side, handler: Side, path: tuple[str | int, ...],
             ours: Sequence[Mapping[str, Any]], theirs: Sequence[Mapping[str, Any]]
             ) -> Iterator[Diagnostic]:
    by_name = {str(o.get("name")): (i, o) for i, o in enumerate(theirs)}
    matched = set()
    missing = []
    for index, option in enumerate(ours):
        name = str(option.get("name"))
        at = path + ("options", index)
        if name not in by_name:
            missing.append((index, option, at))
            continue
        matched.add(name)
        other = by_name[name][1]
        yield from _option(declared, handler, at, option, other)
    extra = [(i, o) for i, o in enumerate(theirs) if str(o.get("name")) not in matched]
    for index, option, at in missing:
        twin = next(((i, o) for i, o in extra if i == index
                     and o.get("type") == option.get("type")), None)
        label = _label(declared, at)
        if twin is not None:
            extra.remove(twin)
            yield _diag("CK05", f"{label}: renamed in the handler to {twin[1].get('name')!r}: "
                        "rename one of them", declared.where(at), handler.where(()))
        else:
            yield _diag("CK03", f"{label}: declared in the manifests, missing from the "
                        "handler", declared.where(at), handler.where(()))
    for _, option in extra:
        yield _diag("CK04", f"{_label(declared, path)}: the handler has option "
                    f"{option.get('name')!r}, which the manifests do not declare",
                    declared.where(path + ("options",)), handler.where(()))


def _option(declared: Side, handler: Side, at: tuple[str | int, ...],
            ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> Iterator[Diagnostic]:
    label = _label(declared, at)
    related = handler.where(())
    if ours.get("type") != theirs.get("type"):
        yield _diag("CK06", f"{label}: type {_type(ours)} in the manifests, {_type(theirs)} "
                    "in the handler", declared.where(at + ("type",)), related)
        return
    if ours.get("type") in _NESTED:
        yield from _options(declared, handler, at, ours.get("options") or [],
                            theirs.get("options") or [])
        return
    if bool(ours.get("required")) != bool(theirs.get("required")):
        yield _diag("CK07", f"{label}: required is {bool(ours.get('required'))} in the "
                    f"manifests, {bool(theirs.get('required'))} in the handler",
                    declared.where(at + ("required",)), related)
    if _choices(ours) != _choices(theirs):
        yield _diag("CK08", f"{label}: choices {_choices(ours)} in the manifests, "
                    f"{_choices(theirs)} in the handler",
                    declared.where(at + ("choices",)), related)
    ranges = [(k, ours.get(k), theirs.get(k)) for k in _RANGE if ours.get(k) != theirs.get(k)]
    for key, mine, other in ranges:
        yield _diag("CK09", f"{label}: {key} is {_set(mine)} in the manifests, {_set(other)} "
                    "in the handler", declared.where(at + (key,)), related)


def _set(value: Any) -> str:
    return "not set" if value is None else str(value)


def _choices(option: Mapping[str, Any]) -> list[tuple[str, Any]]:
    return [(str(c.get("name")), c.get("value")) for c in option.get("choices") or []]


def _key(side: Side) -> tuple[str, int, str]:
    kind = side.body.get("type", 1)
    return side.scope, int(kind) if isinstance(kind, int) else 1, str(side.body.get("name"))


def _what(side: Side) -> str:
    scope, kind, name = _key(side)
    return f"{scope_label(scope)}: {CommandType(kind).name.lower()} {name!r}"


def _label(side: Side, path: tuple[str | int, ...]) -> str:
    names = [str(side.body.get("name"))]
    node: Any = side.body
    for part in path:
        node = node[part]
        if isinstance(node, Mapping):
            names.append(str(node.get("name")))
    return f"{_what(side)}: option {' '.join(names[1:])!r}" if len(names) > 1 \
        else _what(side)


def _type(option: Mapping[str, Any]) -> str:
    value = option.get("type")
    try:
        return OptionType(int(value)).name  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return repr(value)


def _diag(rule: str, message: str, location: Location, *related: Location) -> Diagnostic:
    return Diagnostic(rule, Severity.ERROR, message, location, tuple(related))
