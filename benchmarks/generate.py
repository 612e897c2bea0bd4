"""Deterministic manifests for the benchmarks: many guilds, many realistic commands.

Every command has localized names and descriptions, a string option with
four localized choices, a bounded integer option and a user option; every
fifth command is a subcommand group of two subcommands. Nothing is random: the same arguments give
the same bytes, so runs and machines compare.

By default every guild gets the same commands; ``distinct=True`` salts each
guild's commands with the guild's number (descriptions, their localizations
and choice values), so that no two guilds share a command body. ``specific=N``
makes the last N of each guild's commands its own, the usual shape of
per-guild commands: the guild's name in the description, and localizations on
the options' and the command's descriptions naming it (:func:`guild_command`);
the others are shared by every guild.

Discord allows at most 100 CHAT_INPUT commands per type per scope, so a
large manifest spreads its commands over many guild scopes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import yaml

APPLICATION_ID = "111111111111111111"
FIRST_GUILD = 700_000_000_000_000_000
LOCALES = ("de", "fr")
_WORDS = ("ban", "kick", "mute", "warn", "note", "role", "poll", "tag", "rank", "play",
          "queue", "skip", "remind", "quote", "ticket", "event", "level", "shop", "trade",
          "report")


def guild_ids(count: int) -> list[str]:
    """``count`` guild snowflakes, ascending."""
    return [str(FIRST_GUILD + i) for i in range(count)]


def command(index: int, variant: int | None = None) -> dict[str, Any]:
    """The ``index``-th command: a name unique within a scope, up to 100 per scope.

    A ``variant`` (e.g. the guild's number) changes the description, its
    localizations and every choice value, so bodies of different variants
    never match; the name stays, and each field stays within Discord's
    100-character limits.
    """
    name = f"{_WORDS[index % len(_WORDS)]}-{index // len(_WORDS)}"
    salt = "" if variant is None else f" (v{variant})"
    body: dict[str, Any] = {
        "name": name,
        "name_localizations": {locale: f"{name}-{locale}" for locale in LOCALES},
        "description": f"Run {name} on a member of this server{salt}",
        "description_localizations": {locale: f"{name} ({locale}){salt}" for locale in LOCALES},
        "default_member_permissions": ["manage_messages"],
    }
    options = _options(name, variant)
    if index % 5 == 0:
        options = [{"type": "sub_command_group", "name": "config",
                    "description": "Configure it",
                    "options": [{"type": "sub_command", "name": verb,
                                 "description": f"{verb.title()} a setting",
                                 "options": _options(name, variant)[:2]}
                                for verb in ("set", "reset")]}]
    body["options"] = options
    return body


def guild_name(guild: str) -> str:
    """A guild's display name, as a per-guild command would quote it."""
    number = int(guild) - FIRST_GUILD
    return f"{_WORDS[number % len(_WORDS)].title()} Club {number}"


def guild_command(index: int, guild: str) -> dict[str, Any]:
    """The ``index``-th command made ``guild``'s own: :func:`command` with the guild's
    name in its description, and localized descriptions naming it on the command and
    on each of its options (within Discord's 100-character limits)."""
    body = command(index)
    name = guild_name(guild)
    body["description"] = f"Run {body['name']} on a member of {name}"
    body["description_localizations"] = {
        "de": f"{body['name']} auf einem Mitglied von {name} ausfuehren",
        "fr": f"Lancer {body['name']} sur un membre de {name}"}
    for option in _walk_options(body.get("options") or []):
        option["description_localizations"] = {
            "de": f"{option['description']} (in {name})",
            "fr": f"{option['description']} (sur {name})"}
    return body


def _walk_options(options: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for option in options:
        yield option
        yield from _walk_options(option.get("options") or [])


def guild_commands(guild: str, per_guild: int, *, distinct: bool = False, specific: int = 0
                   ) -> list[dict[str, Any]]:
    """The ``per_guild`` commands of ``guild``; salted with its number when ``distinct``;
    the last ``specific`` of them the guild's own (:func:`guild_command`)."""
    variant = int(guild) - FIRST_GUILD if distinct else None
    shared = per_guild - specific
    return [command(i, variant) if i < shared else guild_command(i, guild)
            for i in range(per_guild)]


def _options(name: str, variant: int | None = None) -> list[dict[str, Any]]:
    value = name if variant is None else f"{name}-v{variant}"
    choices = [{"name": f"Choice {n}", "value": f"{value}-{n}",
                "name_localizations": {locale: f"Wahl {n} {locale}" for locale in LOCALES}}
               for n in range(4)]
    return [
        {"type": "string", "name": "mode", "description": "How to do it",
         "description_localizations": {locale: f"Modus {locale}" for locale in LOCALES},
         "required": True, "choices": choices},
        {"type": "integer", "name": "amount", "description": "How many",
         "min_value": 1, "max_value": 100},
        {"type": "user", "name": "member", "description": "Who"},
    ]


def manifest_text(guilds: list[str], per_guild: int, *, distinct: bool = False,
                  specific: int = 0) -> str:
    """A manifest with ``per_guild`` commands (at most 100) in each of ``guilds``.

    Block-style YAML with flow-style leaves, as people write it; no anchors:
    every command is written out in every guild. ``distinct`` and
    ``specific``: see :func:`guild_commands`.
    """
    if per_guild > 100:
        raise ValueError("Discord allows at most 100 CHAT_INPUT commands per scope")
    shared_count = 0 if distinct else per_guild - specific
    shared = _commands_text([command(i) for i in range(shared_count)])
    lines = [f'application_id: "{APPLICATION_ID}"\n', "guilds:\n"]
    for guild in guilds:
        own = guild_commands(guild, per_guild, distinct=distinct,
                             specific=specific)[shared_count:]
        lines.append(f'  "{guild}":\n    commands:\n{shared}{_commands_text(own)}')
    return "".join(lines)


def _commands_text(commands: list[dict[str, Any]]) -> str:
    return "".join(_indent(dump_yaml([c]), "    ") for c in commands)


def dump_yaml(data: Any) -> str:
    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    # a flow-style leaf on one line, however long, as people write it (PyYAML would
    # otherwise fold a long one over several lines)
    text: str = yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True,
                          default_flow_style=None, width=1_000_000)
    if "&id" in text:
        raise AssertionError("generated commands must not share objects (anchors)")
    return text


def _indent(text: str, prefix: str) -> str:
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def write_manifests(directory: str, *, guilds: int, per_guild: int,
                    guilds_per_file: int = 100, distinct: bool = False,
                    specific: int = 0) -> list[str]:
    """One manifest file per ``guilds_per_file`` guilds; returns the paths written.

    Each file stays under cmdsync's 10 MiB limit per file.
    """
    os.makedirs(directory, exist_ok=True)
    paths = []
    for n, chunk in enumerate(_chunks(guild_ids(guilds), guilds_per_file)):
        path = os.path.join(directory, f"guilds-{n:03d}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(manifest_text(chunk, per_guild, distinct=distinct,
                                       specific=specific))
        paths.append(path)
    return paths


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
