"""Fixtures of the CLI tests that drive a served emulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cmdsync.emulator.instance import new_emulator
from tests.support.emulator import http_server


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[str]:
    """The emulator served with the test module's ``SEED``, for all its tests; its base
    URL (no path). Tests start from a fresh state with ``as_ci_would``."""
    with http_server(new_emulator(seed=request.module.SEED)) as base_url:
        yield base_url
