"""Every value must have the JSON type Discord expects.

Checked by the JSON Schema. A common case in deploy scripts is
``"required": 1``: Discord wants a boolean.

Failing::

    [{"name": "echo", "description": "Echo text",
      "options": [{"type": 3, "name": "text", "description": "Text", "required": 1}]}]

Passing::

    [{"name": "echo", "description": "Echo text",
      "options": [{"type": 3, "name": "text", "description": "Text", "required": true}]}]
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS011"
NAME = "wrong-type"
TITLE = "Values have the expected type"
SEVERITY = Severity.ERROR
CHECKED_BY = "schema"
