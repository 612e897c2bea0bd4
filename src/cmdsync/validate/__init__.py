"""Validate: every manifest problem Discord would reject, found offline. Pure after loading.

- :mod:`cmdsync.validate.check`: the stage itself (files -> documents ->
  schema and rule diagnostics; ``validate_paths``);
- :mod:`cmdsync.validate.schema`: the JSON Schemas in ``schemas/`` and their
  errors as diagnostics;
- :mod:`cmdsync.validate.rules`: the rule registry, one module per rule,
  keyed by stable id (``CS101``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cmdsync.validate.check import (
        MANIFEST_SUFFIXES,
        ValidationResult,
        application_errors,
        expand_paths,
        run_rules,
        validate_api_commands,
        validate_documents,
        validate_paths,
        with_application,
    )

__all__ = ["MANIFEST_SUFFIXES", "ValidationResult", "application_errors", "expand_paths",
           "run_rules", "validate_api_commands", "validate_documents", "validate_paths",
           "with_application"]


def __getattr__(name: str) -> Any:
    """The stage's names, imported from :mod:`cmdsync.validate.check` on first use, so
    that :mod:`cmdsync.validate.schema` alone (a saved plan's schema) does not bring in
    the loader and every rule."""
    if name in __all__:
        from cmdsync.validate import check

        return getattr(check, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
