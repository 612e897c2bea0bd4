"""Fixtures for the emulator tests: the emulator in-process, reached through ``api``.

``api`` is an ``httpx.AsyncClient`` on a fresh emulator over ASGI, sending
``api_headers`` (the bot token unless a module overrides it). A module that
needs another emulator overrides ``emulator_options``, the keyword
arguments of :func:`tests.support.emulator.emulator`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from cmdsync.emulator.instance import Emulator
from tests.support.emulator import BOT, FakeClock, asgi_client, emulator, http_client


@pytest.fixture
def clock() -> FakeClock:
    """A clock the test moves by hand."""
    return FakeClock()


@pytest.fixture
def emulator_options() -> dict[str, Any]:
    return {}


@pytest.fixture
def api_headers() -> dict[str, str]:
    return dict(BOT)


@pytest.fixture
async def api(emulator_options: dict[str, Any],
              api_headers: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(emulator(**emulator_options)) as client:
        client.headers.update(api_headers)
        yield client


@pytest.fixture
def http_api(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    """A client of the module's ``served`` emulator (over loopback), with the bot token."""
    with http_client(f"{served[1]}/api/v10", headers=BOT) as client:
        yield client
