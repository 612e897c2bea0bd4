"""Option names are unique within their ``options`` array.

Discord requires the options of one command, subcommand group or subcommand
to have distinct names (Discord's "Application Commands" documentation); a repeated name is
rejected with 50035 (Invalid Form Body). The same name in different arrays
(two subcommands that both take ``user``) is fine. Localized names are
checked by CS204.

Failing::

    - name: ban
      description: Ban a member
      options:
        - {type: user, name: user, description: Who to ban, required: true}
        - {type: string, name: user, description: Why}

Passing::

    - name: ban
      description: Ban a member
      options:
        - {type: user, name: user, description: Who to ban, required: true}
        - {type: string, name: reason, description: Why}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet, option_lists
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import kind_word, owner_label

ID = "CS203"
NAME = "duplicate-option-name"
TITLE = "Option names are unique among their siblings"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        for olist in option_lists(entry):
            first: dict[str, int] = {}  # name -> index of its first option
            for index, item in enumerate(olist.items):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    continue
                name: str = item["name"]
                if name not in first:
                    first[name] = index
                    continue
                yield Finding(entry.doc, olist.path + (index, "name"),
                              f"{kind_word(item)} name {name!r} is already taken in "
                              f"{owner_label(olist)}: names must be unique among siblings; "
                              "rename this one",
                              related=((entry.doc, olist.path + (first[name], "name")),))
