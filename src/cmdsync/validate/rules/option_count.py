"""A command, subcommand or subcommand group has at most 25 options.

Discord allows at most 25 options in each ``options`` array: the command's
own, each subcommand group's and each subcommand's (Discord's "Application Commands" documentation). A longer array is rejected with 50035 (Invalid Form Body). Exactly
25 is fine.

Failing::

    - name: survey
      description: Answer the survey
      options:  # 26 options
        - {type: string, name: q1, description: Question 1}
        # ... q2 to q25 ...
        - {type: string, name: q26, description: Question 26}

Passing::

    - name: survey
      description: Answer the survey
      options:
        - type: sub_command
          name: part-1
          description: Questions 1-13
          options:
            - {type: string, name: q1, description: Question 1}
            # ... up to 25 per subcommand ...
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet, OptionList, option_lists
from cmdsync.model import MAX_OPTIONS, OptionType
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import SUB_TYPES, option_type, owner_data, owner_label

ID = "CS201"
NAME = "option-count"
TITLE = "At most 25 options per command, subcommand or group"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        for olist in option_lists(entry):
            count = len(olist.items)
            if count > MAX_OPTIONS:
                yield Finding(entry.doc, olist.path,
                              f"{owner_label(olist)} has {count} options; Discord allows at "
                              f"most {MAX_OPTIONS}: remove {count - MAX_OPTIONS}{_hint(olist)}",
                              key=True)


def _hint(olist: OptionList) -> str:
    """Where the surplus options could go instead."""
    if olist.depth > 0:
        owner = option_type(owner_data(olist))
        return " or move some into another group" if owner == OptionType.SUB_COMMAND_GROUP else ""
    subs = any(isinstance(item, dict) and option_type(item) in SUB_TYPES for item in olist.items)
    return " or gather some into subcommand groups" if subs else " or split them into subcommands"
