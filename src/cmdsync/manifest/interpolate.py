"""``${VAR}`` and ``${VAR:-default}`` interpolation from the environment.

``$${`` writes a literal ``${``. The syntax and the ``:-`` default follow
POSIX shells and Docker Compose, which manifests' authors already know. A
variable that is unset and has no default is reported as
:func:`unset_variable` says (CS004).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from cmdsync.manifest.diagnostics import Diagnostic, Location, Severity

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


def unset_variable(name: str, location: Location, *, placeholder: bool) -> Diagnostic:
    """CS004 for ``${name}``, unset and without a default, written at ``location``: a
    note when it stays as a placeholder (offline validate), else an error."""
    return Diagnostic(
        "CS004", Severity.NOTE if placeholder else Severity.ERROR,
        f"environment variable {name} is not set: a placeholder here, but plan "
        f"and apply need it (export it, or write ${{{name}:-default}})"
        if placeholder else
        f"environment variable {name} is not set: export it, or write "
        f"${{{name}:-default}} to give a default",
        location,
    )
