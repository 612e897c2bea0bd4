"""What cmdsync knows of an application: its id, name, flags and installation contexts.

:func:`app_info` reads the application object Discord returns from ``GET
/applications/@me`` (``PrivateApplicationResponse`` in openapi.json), or the
``application`` of ``GET /oauth2/@me`` (``ApplicationResponse``, for Bearer
tokens). Two of its fields decide what a manifest may ask for (Discord's "Application Commands" documentation):

- ``flags``: EMBEDDED (``1 << 17``, Discord's "Application Commands" documentation (its enums)) means the application
  has an Activity, the only kind that may have a PRIMARY_ENTRY_POINT
  command or a ``handler``;
- ``integration_types_config``: an object keyed by the installation
  contexts the application supports (``"0"`` GUILD_INSTALL, ``"1"``
  USER_INSTALL). A command's ``integration_types`` must be among them, and
  a global command that leaves them unset gets exactly these.

A partial application object may lack either field (the ``application`` of
``GET /oauth2/@me`` is documented as partial); the matching attribute is
then None, "unknown", and what depends on it is skipped. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmdsync.model import APPLICATION_FLAG_EMBEDDED, IntegrationType


@dataclass(frozen=True)
class AppInfo:
    """An application as cmdsync uses it.

    ``flags`` is the full bit set (``flags_new`` when Discord sends it, as it
    carries bits past 32), None when unknown; ``integration_types`` the
    supported installation contexts, sorted (``(0,)`` guild install only,
    ``(0, 1)`` with user install), None when unknown.
    """

    id: str
    name: str = ""
    flags: int | None = None
    integration_types: tuple[int, ...] | None = None

    @property
    def embedded(self) -> bool | None:
        """Whether the application has an Activity (flag EMBEDDED); None when unknown."""
        return None if self.flags is None else bool(self.flags & APPLICATION_FLAG_EMBEDDED)

    def describe_types(self) -> str:
        """The supported installation contexts by name: ``guild_install, user_install``."""
        return ", ".join(IntegrationType(t).name.lower() for t in self.integration_types or ())


def app_info(data: Mapping[str, Any]) -> AppInfo:
    """An :class:`AppInfo` from Discord's application object.

    Raises ValueError when ``data`` has no ``id``; unknown installation
    context keys (a future context) are ignored.
    """
    if not isinstance(data, Mapping) or data.get("id") in (None, ""):
        raise ValueError("the application object has no id")
    return AppInfo(str(data["id"]), str(data.get("name") or ""), _flags(data),
                   _integration_types(data.get("integration_types_config")))


def _flags(data: Mapping[str, Any]) -> int | None:
    for key in ("flags_new", "flags"):
        value = data.get(key)
        if isinstance(value, str) and value.isdigit():
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _integration_types(config: Any) -> tuple[int, ...] | None:
    if not isinstance(config, Mapping):
        return None
    known = {str(int(kind)): int(kind) for kind in IntegrationType}
    found = tuple(sorted(known[key] for key in config if key in known))
    return found or None  # every application supports one at least: {} says nothing
