"""An overwrite ``id`` is a snowflake or a constant matching its type, once per list.

An overwrite allows or denies a role (type 1), a user (2) or a channel (3)
by its snowflake id (Discord's "Application Commands" documentation (endpoints): overwrite types ROLE 1, USER 2,
CHANNEL 3). Two ids are constants: the guild id is the @everyone role and
the guild id minus 1 means all channels. cmdsync lets you write them as
``everyone`` and ``all_channels``; since they name a role and a set of
channels, ``everyone`` (or the guild id) is an error with any type but
``role``, and ``all_channels`` (or the guild id minus 1) with any type but
``channel``. Any other id must be a snowflake, a string of 17-20 digits
(see CS501). Two overwrites with the same type and id in one list repeat
or contradict each other (Discord's documentation does not say which one Discord would
keep): an error at the second, with the first as the related location;
``everyone`` and the guild id are the same id. Ids still holding a
``${VAR}`` placeholder were reported by CS004 and are skipped.

Failing::

    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive}
        permissions:
          ping:
            - {type: user, id: everyone, permission: false}
            - {type: role, id: "@moderators", permission: true}
            - {type: channel, id: all_channels, permission: false}
            - {type: channel, id: "333333333333333332", permission: true}

Passing::

    guilds:
      "333333333333333333":
        commands:
          - {name: ping, description: Check the bot is alive}
        permissions:
          ping:
            - {type: role, id: everyone, permission: false}
            - {type: role, id: "444444444444444444", permission: true}
            - {type: channel, id: all_channels, permission: false}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet, PermissionEntry
from cmdsync.model import OverwriteType, enum_value
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import is_snowflake, judgeable, snowflake_problem

ID = "CS403"
NAME = "overwrite-id"
TITLE = "Overwrite ids are snowflakes or everyone/all_channels, unique per type in a list"
SEVERITY = Severity.ERROR

EVERYONE = "everyone"
ALL_CHANNELS = "all_channels"
# The constant, the type it goes with, and what it means.
_CONSTANTS = {EVERYONE: (OverwriteType.ROLE, "the @everyone role"),
              ALL_CHANNELS: (OverwriteType.CHANNEL, "all channels")}


def resolve_id(value: str, guild_id: str) -> str:
    """The snowflake an overwrite id stands for (constants become the guild's ids)."""
    if not is_snowflake(guild_id):
        return value
    if value == EVERYONE:
        return guild_id
    if value == ALL_CHANNELS:
        return str(int(guild_id) - 1)
    return value


def constant_of(value: str, guild_id: str) -> str | None:
    """``everyone`` / ``all_channels`` if ``value`` is, or spells out, that constant."""
    for name in _CONSTANTS:
        if value == name or (is_snowflake(guild_id) and value == resolve_id(name, guild_id)):
            return name
    return None


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.permissions:
        yield from _check_list(entry)


def _check_list(entry: PermissionEntry) -> Iterator[Finding]:
    first: dict[tuple[int, str], int] = {}
    for index, overwrite in enumerate(entry.overwrites):
        if not isinstance(overwrite, dict) or not judgeable(overwrite.get("id")):
            continue
        value: str = overwrite["id"]
        at = entry.path + (index, "id")
        kind = enum_value(OverwriteType, overwrite.get("type"))
        problem = _problem(value, kind, entry.guild_id)
        if problem:
            yield Finding(entry.doc, at, problem)
            continue
        if kind is None:
            continue
        seen = first.setdefault((kind, resolve_id(value, entry.guild_id)), index)
        if seen != index:
            constant = constant_of(value, entry.guild_id)
            shown = f"{value!r} ({constant})" if constant and constant != value else repr(value)
            yield Finding(entry.doc, at,
                          f"{OverwriteType(kind).name.lower()} {shown} has a second overwrite "
                          f"in {entry.key!r} (same type and id): remove one",
                          related=((entry.doc, entry.path + (seen, "id")),))


def _problem(value: str, kind: int | None, guild_id: str) -> str | None:
    constant = constant_of(value, guild_id)
    if constant is not None:
        wanted, meaning = _CONSTANTS[constant]
        if kind is None or kind == wanted:
            return None
        shown = repr(value) if value == constant else f"{value!r} ({constant})"
        return (f"overwrite id {shown} means {meaning} but the type is "
                f"{OverwriteType(kind).name.lower()}: use type {wanted.name.lower()}")
    why = snowflake_problem(value)
    if why is None:
        return None
    hint = value.strip().lstrip("@").lower().replace("-", "_").replace(" ", "_")
    if hint in _CONSTANTS:
        return f"overwrite id {value!r} is not a snowflake; did you mean {hint!r}?"
    return (f"overwrite id {value!r} {why}: write the role, user or channel id (17-20 digits), "
            f"or {EVERYONE} or {ALL_CHANNELS}")
