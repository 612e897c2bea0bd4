"""``default_member_permissions`` is a bit set of real permissions, null, or permission names.

Discord takes a decimal string of permission bits (Discord's "Permissions"
docs: bits 0-46 and 48-52 are assigned; 47 is not), the same bits as an
integer (its OpenAPI document types the field so), or null for everyone; ``"0"`` hides the command from all but administrators.
cmdsync also accepts a list of lowercase permission names
(``[manage_guild, kick_members]``) and sends their bit set. A decimal string
that sets an unassigned bit is an error here. Strings that are not decimal
digits and values of the wrong type are reported by the schema (CS011), and
so is every unknown name of a list (CS013, with the closest name).

Failing::

    - name: ban
      description: Ban a member
      default_member_permissions: "140737488355332"   # bit 47 is not a permission

Passing::

    - name: ban
      description: Ban a member
      default_member_permissions: [ban_members]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.model import ALL_PERMISSION_BITS, Permission
from cmdsync.validate.rules.base import Finding

ID = "CS308"
NAME = "default-member-permissions"
TITLE = "default_member_permissions names only real permissions"
SEVERITY = Severity.ERROR
PER_COMMAND = True

FIELD = "default_member_permissions"
NAMES = [p.name.lower() for p in Permission]
# Permission sets fit in 64 bits; longer strings are judged without int() (which
# refuses strings of thousands of digits).
_DECIMAL = re.compile(r"0*([0-9]{1,40})")


def unassigned_bits(value: int) -> list[int]:
    """Bit positions set in ``value`` that are not Discord permissions."""
    extra = value & ~ALL_PERMISSION_BITS
    return [bit for bit in range(extra.bit_length()) if extra >> bit & 1]


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        value = entry.data.get(FIELD)
        path = entry.path + (FIELD,)
        if isinstance(value, bool):
            continue
        if (isinstance(value, str) and _DECIMAL.fullmatch(value)) or isinstance(value, int):
            bits = unassigned_bits(int(value))
            if bits:
                yield Finding(entry.doc, path, _bad_bits(str(value), bits))
        elif isinstance(value, str) and value.isascii() and value.isdigit():
            yield Finding(entry.doc, path, f"{FIELD} has {len(value)} digits, far more than any "
                          "set of Discord permissions: write names such as [manage_guild]")


def _bad_bits(value: str, bits: list[int]) -> str:
    shown = ", ".join(map(str, bits[:5])) + (", ..." if len(bits) > 5 else "")
    what = ("bits {}, which are not Discord permissions" if len(bits) > 1
            else "bit {}, which is not a Discord permission").format(shown)
    return f"{FIELD} {value!r} sets {what}: use {str(int(value) & ALL_PERMISSION_BITS)!r}"
