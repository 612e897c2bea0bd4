"""Required options come before optional ones, in every ``options`` array.

Discord (Discord's "Application Commands" documentation) rejects an option with
``required: true`` placed after an optional one with 50035
``APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID`` ("Required options must be
placed before non-required options"). The rule applies to the command's own
options and to each subcommand's; an option without ``required`` (or with
``required: false``) is optional. Subcommands and groups are never required
(CS206) and are not ordered here. Discord has been seen to skip this check
inside subcommands (discord-api-docs issue 5615); cmdsync checks every level
so a later fix on Discord's side cannot break a deploy.

Failing::

    - name: ban
      description: Ban a member
      options:
        - {type: string, name: reason, description: Why}
        - {type: user, name: user, description: Who to ban, required: true}

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
from cmdsync.validate.rules.common import SUB_TYPES, label, option_type, owner_label

ID = "CS205"
NAME = "required-order"
TITLE = "Required options before optional ones"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        for olist in option_lists(entry):
            optional: int | None = None  # index of the first optional option
            for index, item in enumerate(olist.items):
                if not isinstance(item, dict) or option_type(item) in SUB_TYPES:
                    continue
                if item.get("required") is not True:
                    if optional is None:
                        optional = index
                    continue
                if optional is not None:
                    first = olist.items[optional]
                    yield Finding(entry.doc, olist.path + (index, "required"),
                                  f"required {label(item)} comes after optional {label(first)} "
                                  f"in {owner_label(olist)}: put required options first",
                                  related=((entry.doc, olist.path + (optional,)),))
