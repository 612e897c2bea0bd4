"""The desired state as read from manifest files, before normalization.

:func:`collect` walks loaded :class:`~cmdsync.manifest.document.Document`\\ s
and gathers every command and permission entry with its scope and address,
so that rules can check one command, one scope or the whole merged set.
Nothing here judges validity; it only skips what has the wrong shape (the
schema reports that).
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cmdsync.manifest.document import Document, Path
from cmdsync.model import GLOBAL, CommandType, OptionType, enum_value


@dataclass(frozen=True)
class CommandEntry:
    """One command object as declared: where it is and which scope it targets.

    ``scope`` is ``"global"`` or a guild id. ``raw`` is True for commands
    from a ``.json`` array (Discord's wire format, integers only).
    """

    doc: Document
    path: Path
    data: dict[str, Any]
    scope: str
    raw: bool = False
    # Its option lists and options, walked once for every rule that reads them.
    walked: dict[str, tuple[Any, ...]] = field(default_factory=dict, compare=False,
                                                repr=False)

    @functools.cached_property
    def type(self) -> int | None:
        """The command type as an int (default CHAT_INPUT), None if invalid."""
        return enum_value(CommandType, self.data.get("type", 1))

    @property
    def name(self) -> str | None:
        name = self.data.get("name")
        return name if isinstance(name, str) else None


@dataclass(frozen=True)
class OptionList:
    """An ``options`` array and what owns it.

    ``owner`` is ``"command"``, ``"group"`` (a SUB_COMMAND_GROUP) or
    ``"subcommand"``; ``depth`` is 0 for the command's own options.
    """

    entry: CommandEntry
    path: Path
    items: list[Any]
    owner: str
    depth: int


@dataclass(frozen=True)
class OptionEntry:
    """One option object with its address and parent list."""

    entry: CommandEntry
    path: Path
    data: dict[str, Any]
    parent: OptionList

    @property
    def type(self) -> int | None:
        return enum_value(OptionType, self.data.get("type"))


@dataclass(frozen=True)
class PermissionEntry:
    """The overwrites a guild's ``permissions`` mapping sets for one key."""

    doc: Document
    path: Path
    guild_id: str
    key: str
    overwrites: list[Any]


@dataclass
class ManifestSet:
    """Every command and permission entry of all the files given, merged."""

    documents: list[Document] = field(default_factory=list)
    commands: list[CommandEntry] = field(default_factory=list)
    permissions: list[PermissionEntry] = field(default_factory=list)

    def scopes(self) -> dict[str, list[CommandEntry]]:
        """Commands grouped by scope, in declaration order."""
        grouped: dict[str, list[CommandEntry]] = {}
        for entry in self.commands:
            grouped.setdefault(entry.scope, []).append(entry)
        return grouped


def collect(documents: list[Document]) -> ManifestSet:
    """Gather the command and permission entries of parsed documents."""
    result = ManifestSet(documents=list(documents))
    for doc in documents:
        data = doc.data
        if isinstance(data, list):
            _add_commands(result, doc, (), data, GLOBAL, raw=doc.kind == "json")
        elif isinstance(data, dict):
            _add_commands(result, doc, ("commands",), data.get("commands"), GLOBAL)
            guilds = data.get("guilds")
            if isinstance(guilds, dict):
                for guild_id, guild in guilds.items():
                    if isinstance(guild, dict):
                        _add_guild(result, doc, guild_id, guild)
    return result


def _add_commands(result: ManifestSet, doc: Document, path: Path, items: Any, scope: str,
                  *, raw: bool = False) -> None:
    if not isinstance(items, list):
        return
    for index, item in enumerate(items):
        if isinstance(item, dict):
            result.commands.append(CommandEntry(doc, path + (index,), item, scope, raw))


def _add_guild(result: ManifestSet, doc: Document, guild_id: str, guild: dict[str, Any]) -> None:
    base: Path = ("guilds", guild_id)
    _add_commands(result, doc, base + ("commands",), guild.get("commands"), guild_id)
    permissions = guild.get("permissions")
    if isinstance(permissions, dict):
        for key, overwrites in permissions.items():
            if isinstance(overwrites, list):
                result.permissions.append(PermissionEntry(
                    doc, base + ("permissions", key), guild_id, key, overwrites))


def option_lists(entry: CommandEntry) -> tuple[OptionList, ...]:
    """Every ``options`` array of a command, outermost first."""
    if "option_lists" not in entry.walked:
        entry.walked["option_lists"] = tuple(_option_lists(entry))
    return entry.walked["option_lists"]


def _option_lists(entry: CommandEntry) -> Iterator[OptionList]:
    stack = [(entry.path + ("options",), entry.data.get("options"), "command", 0)]
    while stack:
        path, items, owner, depth = stack.pop(0)
        if not isinstance(items, list):
            continue
        yield OptionList(entry, path, items, owner, depth)
        for index, item in enumerate(items):
            if not isinstance(item, dict) or "options" not in item:
                continue
            kind = enum_value(OptionType, item.get("type"))
            child_owner = "group" if kind == OptionType.SUB_COMMAND_GROUP else "subcommand"
            stack.append((path + (index, "options"), item["options"], child_owner, depth + 1))


def options(entry: CommandEntry) -> tuple[OptionEntry, ...]:
    """Every option object of a command at every depth."""
    if "options" not in entry.walked:
        entry.walked["options"] = tuple(_options(entry))
    return entry.walked["options"]


def _options(entry: CommandEntry) -> Iterator[OptionEntry]:
    for olist in option_lists(entry):
        for index, item in enumerate(olist.items):
            if isinstance(item, dict):
                yield OptionEntry(entry, olist.path + (index,), item, olist)


def option_keys(entry: CommandEntry) -> tuple[bytes | None, ...]:
    """For each of :func:`options`, its fields but its child options as ``marshal``
    bytes (equal data, types and key order give equal bytes), by which equal options
    are found among distinct commands; None where ``marshal`` cannot write them."""
    if "option_keys" not in entry.walked:
        entry.walked["option_keys"] = tuple(_own_fields(o.data) for o in options(entry))
    return entry.walked["option_keys"]


def _own_fields(data: dict[str, Any]) -> bytes | None:
    own = {k: v for k, v in data.items() if k != "options"} if "options" in data else data
    try:
        return marshal.dumps(own)
    except ValueError:
        return None


def choices(option: OptionEntry) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The choice objects of an option with their paths."""
    items = option.data.get("choices")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if isinstance(item, dict):
                yield option.path + ("choices", index), item
