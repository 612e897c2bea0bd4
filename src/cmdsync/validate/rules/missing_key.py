"""Keys Discord requires must be present.

A command needs ``name``; an option ``type`` and ``name``; a choice ``name``
and ``value``; a permission overwrite ``type``, ``id`` and ``permission``.
Checked by the JSON Schema. (Descriptions depend on the command type and are
checked by CS103.)

Failing::

    options:
      - {name: target, description: Who to ping}

Passing::

    options:
      - {type: user, name: target, description: Who to ping}
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS012"
NAME = "missing-key"
TITLE = "Required keys are present"
SEVERITY = Severity.ERROR
CHECKED_BY = "schema"
