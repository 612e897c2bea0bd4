"""``${VAR}`` and ``${VAR:-default}`` interpolation from the environment.

``$${`` writes a literal ``${``. The syntax and the ``:-`` default follow
POSIX shells and Docker Compose, which manifests' authors already know.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_PATTERN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# A "$" in a value comes from a "$" in the text or from an escape that writes one
# (YAML's double-quoted \x24, \u0024 and \U00000024; JSON's \u0024).
_ESCAPED_DOLLAR = re.compile(rb"\\(?:x24|u0024|U00000024)", re.IGNORECASE)


def may_interpolate(text: bytes) -> bool:
    """Whether a manifest file's ``text`` (its bytes) could hold a value with ``${``,
    whose bodies may then depend on the environment: any ``$``, written or escaped."""
    return b"$" in text or (b"\\" in text and _ESCAPED_DOLLAR.search(text) is not None)


def interpolate(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Expand variables in ``text``.

    Returns the expanded string and the names of variables that are unset
    and have no default (those are left as written). An empty default
    (``${VAR:-}``) is allowed; as in POSIX, it also replaces an empty value.
    """
    missing: list[str] = []

    def expand(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is not None:
            return value
        missing.append(name)
        return match.group(0)

    return _PATTERN.sub(expand, text), missing
