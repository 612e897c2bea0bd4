"""What a manifest's permissions key names: a command of the guild, a global one, or the application.

Keys are a command name (``ban``), ``type:name`` (``message:Report``) or
``*``, the application-wide entry whose target id is the application id
(Discord's "Application Command Permissions" docs). Used by the plan to put
overwrites on the right command, and by pull to write keys back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cmdsync.model import GLOBAL, CommandType

APPLICATION_WIDE = "*"


_TYPE_NAMES = {kind.name.lower(): int(kind) for kind in CommandType}


@dataclass(frozen=True)
class Target:
    """A command as it will be after apply; ``id`` None if this plan creates it."""

    scope: str
    type: int
    name: str
    id: str | None
    renamed: bool = False


def resolve(key: str, targets: Sequence[Target], application_id: str) -> Target | None:
    """The command a permissions key names: the guild's first, then global; or None.

    Without a ``type:`` prefix, CHAT_INPUT wins over USER and MESSAGE (CS402
    reports such ambiguity before a plan). A ``type:name`` key that finds
    nothing is tried as a whole name, since USER and MESSAGE names may
    contain ``:`` (as CS402 does).
    """
    if key == APPLICATION_WIDE:
        return Target("", 0, "", application_id)
    prefix, sep, rest = key.partition(":")
    kind = _TYPE_NAMES.get(prefix) if sep else None
    if kind is not None:
        found = _find(rest, kind, targets)
        if found is not None:
            return found
    return _find(key, None, targets)


def _find(name: str, kind: int | None, targets: Sequence[Target]) -> Target | None:
    for in_guild in (True, False):
        found = sorted((t for t in targets if t.name == name
                        and (kind is None or t.type == kind)
                        and (t.scope != GLOBAL) == in_guild), key=lambda t: t.type)
        if found:
            return found[0]
    return None
