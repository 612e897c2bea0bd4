"""State: the two inputs of a diff, in the canonical form both share. Pure: no I/O.

- :mod:`cmdsync.state.normalize`: canonical request bodies and overwrites
  (the normalize stage);
- :mod:`cmdsync.state.desired`: the manifest's commands and overwrites per
  scope (:class:`DesiredState`);
- :mod:`cmdsync.state.live`: what Discord returned (:class:`LiveState`);
- :mod:`cmdsync.state.application`: what is known of the application;
- :mod:`cmdsync.state.targets`: which command a permissions key names;
- :mod:`cmdsync.state.as_manifest`: live state written back as a manifest
  (pull and backups).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cmdsync.state.live import LiveScope, LiveState, Overwrite, live_scope, scope_order

if TYPE_CHECKING:
    from cmdsync.state.desired import (
        DesiredCommand,
        DesiredScope,
        DesiredState,
        desired_state,
        manifest_application_id,
        state_digest,
    )

_DESIRED = ("DesiredCommand", "DesiredScope", "DesiredState", "desired_state",
            "manifest_application_id", "state_digest")


def __getattr__(name: str) -> Any:
    """The desired-state names, imported on first use: they bring in the manifest
    loader (PyYAML and all), which applying a saved plan does not need."""
    if name in _DESIRED:
        from cmdsync.state import desired

        return getattr(desired, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["DesiredCommand", "DesiredScope", "DesiredState", "LiveScope", "LiveState",
           "Overwrite", "desired_state", "live_scope", "manifest_application_id",
           "scope_order", "state_digest"]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_DESIRED))
