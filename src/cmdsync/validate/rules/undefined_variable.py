"""Every ``${VAR}`` without a default must be set in the environment.

YAML manifests interpolate ``${VAR}`` and ``${VAR:-default}`` from the
environment (``$${`` is a literal ``${``). An unset variable with no default
is an error naming the variable; it is left as written. JSON files are sent
to Discord verbatim and are not interpolated.

Failing (with DEV_GUILD_ID unset)::

    guilds:
      "${DEV_GUILD_ID}":
        commands: []

Passing::

    guilds:
      "${DEV_GUILD_ID:-222222222222222222}":
        commands: []
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS004"
NAME = "undefined-variable"
TITLE = "Environment variables are set or have a default"
SEVERITY = Severity.ERROR
CHECKED_BY = "loader"
