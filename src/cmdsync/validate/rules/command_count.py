"""A scope may hold at most 100 CHAT_INPUT, 15 USER and 15 MESSAGE commands.

Discord caps commands per scope (global, or one guild) and per type
(Discord's "Application Commands" documentation: 100 CHAT_INPUT, 15 USER, 15 MESSAGE, 1
PRIMARY_ENTRY_POINT); a bulk overwrite over a cap fails with 50035 and a
create with 30032 (maximum number of application commands reached). All
files of one run are one desired state, so the count spans files. A name
declared twice (CS303) counts once, as Discord keeps one command per name.
The error is on the first command over the cap. The entry-point cap of one
is CS304's, which reports every extra entry point.

Failing::

    commands:   # 16 message commands in the global scope
      - {type: message, name: Report 1}
      # ... Report 2 to Report 15
      - {type: message, name: Report 16}

Passing::

    commands:   # 15 message commands, and 15 more in a guild
      - {type: message, name: Report 1}
      # ... Report 2 to Report 15
    guilds:
      "333333333333333333":
        commands:
          - {type: message, name: Report 1}
          # ... Report 2 to Report 15
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.model import MAX_COMMANDS_PER_TYPE, CommandType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import scope_phrase

ID = "CS302"
NAME = "command-count"
TITLE = "At most 100 CHAT_INPUT, 15 USER and 15 MESSAGE commands per scope"
SEVERITY = Severity.ERROR

_COUNTED = frozenset(map(int, (CommandType.CHAT_INPUT, CommandType.USER, CommandType.MESSAGE)))


def check(manifest: ManifestSet) -> Iterator[Finding]:
    groups: dict[tuple[str, int], dict[str, CommandEntry]] = {}
    for entry in manifest.commands:
        kind, name = entry.type, entry.name
        if kind in _COUNTED and name is not None:
            groups.setdefault((entry.scope, kind), {}).setdefault(name, entry)
    for (scope, kind), named in groups.items():
        limit = MAX_COMMANDS_PER_TYPE[CommandType(kind)]
        if len(named) <= limit:
            continue
        extra = len(named) - limit
        first_over = list(named.values())[limit]
        yield Finding(first_over.doc, first_over.path + ("name",),
                      f"{scope_phrase(scope)} has {len(named)} {CommandType(kind).name} commands; "
                      f"Discord allows at most {limit} per scope: remove {extra}")
