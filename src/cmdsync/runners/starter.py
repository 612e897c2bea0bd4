"""What ``cmdsync init`` writes: a commented ``cmdsync.toml``, a starter manifest and the
editor schema (:func:`init_files`)."""

from __future__ import annotations

import os

from cmdsync.runners.project import CONFIG_FILE

STARTER_CONFIG = """\
# cmdsync's project configuration (https://cmdsync.github.io/cmdsync/configuration/).
# `cmdsync validate`, `plan` and `apply` read the manifests below when given no paths.

# Manifest files, directories or globs, relative to this file.
manifests = ["discord/"]

# Used when no --env is given (remove it to need --env every time).
default_environment = "production"

# Each environment: the application (an id, or ${VAR} from the environment), the
# API URL, and guild ids the manifests use as ${NAME}. A flag beats an environment
# variable, which beats this file.
[environments.production]
application_id = "${DISCORD_APPLICATION_ID}"

# A development guild: the same manifests, their global commands sent to that guild
# instead (the global ones are left alone), as discord.py's
# tree.copy_global_to(guild=...) does: `cmdsync plan --env dev`.
# [environments.dev]
# application_id = "123456789012345678"
# guilds = { DEV_GUILD_ID = "876543210987654321" }
# copy_global_to = "${DEV_GUILD_ID}"
"""

STARTER_MANIFEST = """\
# yaml-language-server: $schema=../cmdsync.schema.json
# Your bot's application commands: `cmdsync plan` shows what `cmdsync apply` would change.
commands:
  - name: ping
    description: Check the bot is alive

# Commands and permission overwrites of one guild:
# guilds:
#   "${DEV_GUILD_ID}":
#     commands:
#       - name: debug
#         description: Developer tools
"""


def init_files() -> dict[str, str]:
    """What `cmdsync init` writes: path (relative to the project) -> text."""
    from cmdsync.validate.editor_schema import dumps

    return {CONFIG_FILE: STARTER_CONFIG,
            os.path.join("discord", "commands.yaml"): STARTER_MANIFEST,
            "cmdsync.schema.json": dumps()}
