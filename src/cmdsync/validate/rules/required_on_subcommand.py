"""Subcommands and subcommand groups are never ``required``.

Discord documents ``required`` for every option type but SUB_COMMAND and
SUB_COMMAND_GROUP (Discord's "Application Commands" documentation); ``required: true`` on one
is rejected with 400 Bad Request (reported by twilight and discord.js, which
removed the field from their subcommand types). The user always picks
exactly one subcommand, so there is nothing to require. ``required: false``
is the default and is read back as absent, so it is not reported.

Failing::

    - name: tag
      description: Manage tags
      options:
        - {type: sub_command, name: add, description: Add a tag, required: true}

Passing::

    - name: tag
      description: Manage tags
      options:
        - {type: sub_command, name: add, description: Add a tag}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import SUB_TYPES, label, option_type

ID = "CS206"
NAME = "required-on-subcommand"
TITLE = "No required flag on subcommands or groups"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check_option(option: OptionEntry) -> Iterator[Finding]:
    if option_type(option.data) in SUB_TYPES and option.data.get("required") is True:
        yield Finding(option.entry.doc, option.path + ("required",),
                      f"{label(option.data)} is marked required; subcommands and "
                      "groups cannot be required: remove 'required'")
