"""Validate: every manifest problem Discord would reject, found offline. Pure after loading.

- :mod:`cmdsync.validate.check`: the stage itself (files -> documents ->
  schema and rule diagnostics; ``validate_paths``);
- :mod:`cmdsync.validate.schema`: the JSON Schemas in ``schemas/`` and their
  errors as diagnostics;
- :mod:`cmdsync.validate.rules`: the rule registry, one module per rule,
  keyed by stable id (``CS101``).
"""

from __future__ import annotations

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
