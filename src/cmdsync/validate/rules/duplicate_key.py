"""A mapping must not set the same key twice.

YAML and JSON parsers keep the last value silently, so a duplicated key
hides an edit. Checked while loading; the message names the first place.

Failing::

    - name: ping
      description: Check the bot is alive
      description: Pong!

Passing::

    - name: ping
      description: Check the bot is alive
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS002"
NAME = "duplicate-key"
TITLE = "No key is set twice in one mapping"
SEVERITY = Severity.ERROR
CHECKED_BY = "loader"
