"""Enum fields must hold one of Discord's values, and lists no duplicates.

Command and option types, contexts, integration types, channel types,
handlers, overwrite types and permission names accept Discord's integer or
its lowercase name (``chat_input``, ``string``, ``bot_dm``, ``manage_guild``).
Checked by the JSON Schema; the message suggests the closest name.

Failing::

    - {type: 3, name: text, description: Text}          # fine
    - {type: text, name: words, description: Words}     # no option type "text"

Passing::

    - {type: string, name: words, description: Words}
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS013"
NAME = "invalid-value"
TITLE = "Enum values are Discord's"
SEVERITY = Severity.ERROR
CHECKED_BY = "schema"
