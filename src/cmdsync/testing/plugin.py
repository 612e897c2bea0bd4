"""The pytest plugin (the ``pytest11`` entry point ``cmdsync``): the ``discord_emulator``
fixture, so that installing cmdsync is the whole set-up of a bot's tests.

- ``discord_emulator``: a :class:`~cmdsync.testing.DiscordEmulator` served on a
  free loopback port for the whole test session, reset before each test to
  its seed: state, interactions, messages and gateway sessions; or, while a bot
  stays connected for the session, to the state it connected to, keeping its
  gateway session (:meth:`~cmdsync.testing.DiscordEmulator.reset`).
- ``discord_emulator_session``: the same emulator, not reset, for a session-scoped
  fixture that connects a bot once.

A failing test that used ``discord_emulator`` gets a report section "discord
emulator transcript": the gateway dispatches and API requests of the test, in order.
- ``discord_seed``: the seed each test starts from; override this fixture to
  seed from Python values (a mapping as ``cmdsync emulator --seed`` reads) or
  a file's path. By default the ``discord_seed`` ini option's file
  (relative to the rootdir), else the emulator's default seed.

Works with pytest-asyncio and anyio (asyncio backend): the fixture is
synchronous, and :meth:`~cmdsync.testing.DiscordEmulator.connect` and
:meth:`~cmdsync.testing.DiscordEmulator.invoke` are coroutines of the test's
own event loop.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported by the fixture: a test session that does not use it pays nothing
    from cmdsync.testing.emulator import DiscordEmulator


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("discord_seed", "a seed file (YAML or JSON) the discord_emulator fixture "
                  "starts each test from (default: the emulator's default seed)", default="")


@pytest.fixture(scope="session")
def _cmdsync_served_emulator(pytestconfig: pytest.Config) -> Iterator[DiscordEmulator]:
    from cmdsync.testing.emulator import DiscordEmulator

    name = str(pytestconfig.getini("discord_seed") or "")
    seed = Path(pytestconfig.rootpath, name) if name else None
    if seed is not None and not seed.is_file():
        raise pytest.UsageError(f"discord_seed = {name!r} (pytest's ini options): no such "
                                f"file {seed}")
    with DiscordEmulator(seed) as served:
        yield served


@pytest.fixture(scope="session")
def discord_emulator_session(_cmdsync_served_emulator: DiscordEmulator) -> DiscordEmulator:
    """The session's emulator, not reset: connect a bot once for the whole session in a
    session-scoped fixture of yours; each test's ``discord_emulator`` then keeps its
    gateway session and returns to the state it connected to."""
    return _cmdsync_served_emulator


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failing test that used ``discord_emulator`` reports what the emulator did during
    it: a section "discord emulator transcript" (gateway dispatches and API requests,
    callbacks included, in order: :meth:`DiscordEmulator.transcript`)."""
    report: pytest.TestReport = yield
    emulator = getattr(item, "funcargs", {}).get("discord_emulator")
    if report.failed and report.when == "call" and emulator is not None:
        report.sections.append(("discord emulator transcript",
                                emulator.transcript() or "(nothing happened)"))
    return report


@pytest.fixture
def discord_seed() -> Mapping[str, Any] | str | Path | None:
    """The seed each test starts from (None: the session's). Override it to seed from
    Python values or another file."""
    return None


@pytest.fixture
def discord_emulator(_cmdsync_served_emulator: DiscordEmulator,
                     discord_seed: Mapping[str, Any] | str | Path | None) -> DiscordEmulator:
    """A served emulator of Discord, reset to ``discord_seed`` for this test."""
    _cmdsync_served_emulator.reset(discord_seed)
    return _cmdsync_served_emulator
