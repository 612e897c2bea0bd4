"""The console tests' fixtures (defined in :mod:`tests.console.world`)."""

from tests.console.world import browser, page, world

__all__ = ["browser", "page", "world"]
