"""Every key must be one Discord (or the manifest format) knows.

Discord silently ignores unknown keys in a command, so a typo such as
``descripton`` or ``requried`` ships a command without the intended field.
Checked by the JSON Schema (``additionalProperties: false``); the message
suggests the closest known key.

Failing::

    - name: ping
      descripton: Check the bot is alive

Passing::

    - name: ping
      description: Check the bot is alive
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS010"
NAME = "unknown-key"
TITLE = "No unknown keys"
SEVERITY = Severity.ERROR
CHECKED_BY = "schema"
