"""The file must be readable YAML or JSON.

Checked while loading: an unreadable or binary file, invalid UTF-8, a syntax
error, an empty file or one larger than 10 MiB. The message gives the line
and column the parser stopped at.

Failing::

    commands:
      - name: ping
        description: "unterminated

Passing::

    commands:
      - name: ping
        description: "Check the bot is alive"
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS001"
NAME = "syntax"
TITLE = "File is valid YAML or JSON"
SEVERITY = Severity.ERROR
CHECKED_BY = "loader"
