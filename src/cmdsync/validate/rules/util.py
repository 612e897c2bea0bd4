"""Small helpers shared by rule modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cmdsync.manifest.loader import Path


def localized(data: dict[str, Any], field: str, path: Path) -> Iterator[tuple[Path, str | None, Any]]:
    """The default value of ``field`` and each of its localizations.

    Yields ``(path, locale, value)``: locale None for the default value at
    ``path + (field,)``, then each ``<field>_localizations`` entry at
    ``path + (field + "_localizations", locale)``. Missing values are skipped;
    values are yielded whatever their type (the schema checks types).
    """
    if field in data:
        yield path + (field,), None, data[field]
    table = data.get(f"{field}_localizations")
    if isinstance(table, dict):
        for locale, value in table.items():
            if value is not None:
                yield path + (f"{field}_localizations", locale), locale, value


def where(locale: str | None) -> str:
    """``""`` or ``" (fr)"``, to name a localization in a message."""
    return f" ({locale})" if locale else ""
