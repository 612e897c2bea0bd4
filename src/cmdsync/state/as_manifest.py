"""Live state as a manifest document: what `cmdsync pull` writes and backups keep.

:func:`to_manifest` turns a :class:`~cmdsync.state.LiveState` into manifest
data: enum names instead of integers, ``default_member_permissions`` as
permission names, no field at its default (Discord's application command object (checked against real responses)),
ids kept (so renames keep them), response-only keys dropped; per guild its
commands and its permission sets keyed by command name (``type:name`` when
names are shared, ``*`` for the application-wide set) with ``everyone`` and
``all_channels`` for the guild constants. Planning the result against the
same live state shows no changes. :func:`to_yaml` writes it.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cmdsync.model import (
    ChannelType,
    CommandType,
    EntryPointHandler,
    IntegrationType,
    InteractionContext,
    OptionType,
    OverwriteType,
)
from cmdsync.state.live import LiveState, Overwrite, scope_order
from cmdsync.state.normalize import DEFAULT_DM_PERMISSION, DEFAULT_HANDLER, permission_names
from cmdsync.state.targets import APPLICATION_WIDE, Target, resolve

_COMMAND_KEYS = ("id", "type", "name", "name_localizations", "description",
                 "description_localizations", "default_member_permissions", "contexts",
                 "integration_types", "dm_permission", "nsfw", "handler", "options")
_GLOBAL_ONLY = ("contexts", "integration_types", "dm_permission")
_OPTION_KEYS = ("type", "name", "name_localizations", "description",
                "description_localizations", "required", "autocomplete", "choices",
                "channel_types", "min_value", "max_value", "min_length", "max_length", "options")


def _name(enum_cls: Any, value: Any) -> Any:
    try:
        return enum_cls(value).name.lower()
    except ValueError:
        return value  # a value Discord added after this cmdsync: keep the integer


def to_command(command: Mapping[str, Any], *, scope: str,
               default_integration_types: Sequence[int] | None = None) -> dict[str, Any]:
    """One live command as a manifest command (see the module docstring).

    ``integration_types`` is kept unless it equals the application's
    default, when known: dropping it otherwise could change it on apply.
    """
    out: dict[str, Any] = {}
    for key in _COMMAND_KEYS:
        if key not in command or (scope != "global" and key in _GLOBAL_ONLY):
            continue
        value = _command_field(key, command[key], command, default_integration_types)
        if value is not None:
            out[key] = value
    return out


def _command_field(key: str, value: Any, command: Mapping[str, Any],
                   defaults: Sequence[int] | None) -> Any:
    kind = command.get("type", 1)
    if value is None or value == {} or value == [] and key == "options":
        return None
    if key == "type":
        return None if value == CommandType.CHAT_INPUT else _name(CommandType, value)
    if key == "description" and (value == "" or kind in (CommandType.USER,
                                                          CommandType.MESSAGE)):
        return None
    if key == "default_member_permissions":
        return permission_names(value) or str(value)
    if key == "contexts":
        return [_name(InteractionContext, v) for v in value]
    if key == "integration_types":
        if defaults is not None and sorted(value) == sorted(defaults):
            return None
        return [_name(IntegrationType, v) for v in value]
    if key in ("dm_permission", "nsfw"):
        default = DEFAULT_DM_PERMISSION if key == "dm_permission" else False
        return None if bool(value) == default else bool(value)
    if key == "handler":
        return None if value == DEFAULT_HANDLER else _name(EntryPointHandler, value)
    if key == "options":
        return [to_option(o) for o in value]
    return value


def to_option(option: Mapping[str, Any]) -> dict[str, Any]:
    """One live option (at any depth) as a manifest option."""
    out: dict[str, Any] = {}
    for key in _OPTION_KEYS:
        value = option.get(key)
        if value is None or value is False or value == {} or value == []:
            continue
        if key == "type":
            value = _name(OptionType, value)
        elif key == "channel_types":
            value = [_name(ChannelType, v) for v in value]
        elif key == "choices":
            value = [{k: v for k, v in c.items() if k in ("name", "name_localizations", "value")
                      and v not in (None, {})} for c in value]
        elif key == "options":
            value = [to_option(o) for o in value]
        out[key] = value
    return out


def to_overwrite(overwrite: Overwrite, guild_id: str) -> dict[str, Any]:
    """A live overwrite with the guild constants and the type by name."""
    target = str(overwrite["id"])
    if target == guild_id:
        target = "everyone"
    elif guild_id.isdigit() and target == str(int(guild_id) - 1):
        target = "all_channels"
    return {"type": _name(OverwriteType, overwrite["type"]), "id": target,
            "permission": bool(overwrite["permission"])}


_INSTANCE_KEYS = ("id", "application_id", "guild_id", "version")


def _guild_command(command: Mapping[str, Any], guild: str,
                   converted: dict[bytes, dict[str, Any]]) -> dict[str, Any]:
    """:func:`to_command` of a guild command, worked out once per distinct body: hundreds
    of guilds hold the same commands under other ids (``converted`` keeps them)."""
    try:
        key = marshal.dumps([(k, v) for k, v in command.items() if k not in _INSTANCE_KEYS])
    except ValueError:  # not plain data
        return to_command(command, scope=guild)
    rest = converted.get(key)
    if rest is None:
        rest = converted[key] = {k: v for k, v in to_command(command, scope=guild).items()
                                 if k != "id"}
    ident = _command_field("id", command["id"], command, None) if "id" in command else None
    return {"id": ident, **rest} if ident is not None else dict(rest)


def to_manifest(live: LiveState, *, guilds: Iterable[str] = (),
                default_integration_types: Sequence[int] | None = None
                ) -> tuple[dict[str, Any], list[str]]:
    """Manifest data for the global scope and ``guilds``, and warnings.

    Warnings name overwrite sets that cannot be written as a manifest key (a
    stale command id, or a global command hidden by a guild command of the
    same type and name).
    """
    warnings: list[str] = []
    manifest: dict[str, Any] = {"application_id": live.application_id}
    manifest["commands"] = [to_command(c, scope="global",
                                       default_integration_types=default_integration_types)
                            for c in live.scope("global").commands]
    guild_data: dict[str, Any] = {}
    converted: dict[bytes, dict[str, Any]] = {}
    for guild in sorted(set(guilds), key=scope_order):
        scope = live.scope(guild)
        entry: dict[str, Any] = {"commands": [_guild_command(c, guild, converted)
                                              for c in scope.commands]}
        permissions = _permissions(live, guild, warnings)
        if permissions:
            entry["permissions"] = permissions
        guild_data[guild] = entry
    if guild_data:
        manifest["guilds"] = guild_data
    return manifest, warnings


def _permissions(live: LiveState, guild: str, warnings: list[str]) -> dict[str, Any]:
    targets = [Target(guild, _type(c), str(c.get("name")), str(c["id"]))
               for c in live.scope(guild).commands]
    targets += [Target("global", _type(c), str(c.get("name")), str(c["id"]))
                for c in live.scope("global").commands]
    by_id = {t.id: t for t in targets}
    out: dict[str, Any] = {}
    for target_id, overwrites in sorted(live.scope(guild).permissions.items()):
        target = by_id.get(target_id)
        key: str | None = APPLICATION_WIDE
        if target_id != live.application_id and target is None:
            warnings.append(f"guild {guild}: overwrites for {target_id}, which is no command of "
                            "this guild or global command, are not written")
            continue
        if target is not None and target_id != live.application_id:
            key = _key(target, targets, live.application_id)
        if key is None:
            warnings.append(f"guild {guild}: the global command {target_id} has overwrites but "
                            "a guild command of the same type and name hides it: not written")
            continue
        out[key] = [to_overwrite(o, guild) for o in overwrites]
    return out


def _key(target: Target, targets: Sequence[Target], application_id: str) -> str | None:
    """The shortest manifest key that resolves to ``target``, or None."""
    for key in (target.name, f"{CommandType(target.type).name.lower()}:{target.name}"):
        if resolve(key, targets, application_id) == target:
            return key
    return None


def _type(command: Mapping[str, Any]) -> int:
    value = command.get("type", 1)
    return int(value) if isinstance(value, int) else 1


def to_yaml(manifest: Mapping[str, Any], *, header: str | None = None,
            schema: str | None = None, application: str | None = None) -> str:
    """The manifest as YAML: keys in Discord's order, Unicode kept, ids quoted, small
    leaf mappings and lists (choices, overwrites, ``contexts``) in compact flow style.

    ``header`` (comment lines) replaces pull's own; ``schema`` (a path) adds the editor
    modeline as the first line; ``application`` is the application the header names
    (default: the manifest's ``application_id``).
    """
    import yaml

    if header is None:
        header = ("# Written by cmdsync pull from the live commands of application "
                  f"{application or manifest.get('application_id')}.\n"
                  "# `cmdsync plan` on this file shows no changes.\n")
    if schema is not None:
        header = f"# yaml-language-server: $schema={schema}\n" + header
    body = yaml.dump(dict(manifest), Dumper=_dumper(), sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)
    return header + body


FLOW_WIDTH = 100  # a leaf mapping or list this short (as Python repr) is written on one line


def _flow(value: Any) -> bool:
    """Whether ``value`` (a mapping or list of scalars) fits one short flow line."""
    items = value.values() if isinstance(value, dict) else value
    if not value or any(isinstance(v, (dict, list)) for v in items):
        return False
    return len(repr(value)) <= FLOW_WIDTH and not any(
        isinstance(v, str) and (any(mark in v for mark in _LINE_BREAKS) or "\n" in v)
        for v in items)


_LINE_BREAKS = ("\x85", "\u2028", "\u2029")  # YAML line breaks beside \n and \r


def _dumper() -> Any:
    """PyYAML's safe dumper, double-quoting strings that hold NEL, LS or PS.

    PyYAML writes those raw in plain and single-quoted scalars, and its loader
    then reads them as line breaks: a double-quoted scalar escapes them
    (``\\N``, ``\\L``, ``\\P``), so the text loads back as it was.
    """
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = '"' if any(mark in value for mark in _LINE_BREAKS) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    def mapping(dumper: yaml.SafeDumper, value: dict[Any, Any]) -> yaml.MappingNode:
        return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(),
                                        flow_style=_flow(value))

    def sequence(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value,
                                         flow_style=_flow(value))

    Dumper.add_representer(str, string)
    Dumper.add_representer(dict, mapping)
    Dumper.add_representer(list, sequence)
    return Dumper
