"""One emulator: its state, seed, limits, rate limiter, faults, request log and clock.

:func:`new_emulator` is the way in, for the CLI, tests and in-process use::

    emulator = new_emulator()                      # in memory, default seed
    emulator = new_emulator(state=".cmdsync/local.sqlite", seed=load_seed("seed.yaml"))
    app = create_app(emulator)                     # cmdsync.emulator.app

``clock`` (epoch seconds) drives rate-limit windows, token expiry, the UTC
day of the daily create budget and snowflakes, so tests can move time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from cmdsync.emulator.gateway.hub import Gateway
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.faults import FaultConfig, Faults
from cmdsync.emulator.reference.log import Activity, RequestLog
from cmdsync.emulator.reference.rate_limits import RateLimitConfig, RateLimiter
from cmdsync.emulator.resources.members import Members
from cmdsync.emulator.seed import apply_seed, default_seed
from cmdsync.emulator.seed_checks import check_seed
from cmdsync.emulator.store.database import Store, opening


class Emulator:
    """Everything one emulator instance holds; see the module docstring."""

    def __init__(self, store: Store, *, seed: dict[str, Any],
                 ratelimit: RateLimitConfig | None = None, faults: FaultConfig | None = None,
                 limits: Limits | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.seed = seed
        self.limiter = RateLimiter(ratelimit)
        self.faults = Faults(faults)
        self.limits = limits or Limits()
        self.clock = clock
        self.log = RequestLog()
        self.activity = Activity()
        self.gateway = Gateway(store, clock=lambda: self.clock(), activity=self.activity)
        # The backend of each resource whose changes send gateway events.
        self.members = Members(store, self.gateway)

    def reset(self, seed: dict[str, Any] | None = None) -> None:
        """Forget every command, overwrite, token and count; apply ``seed``
        (or the current one) again. Raises UsageError for a bad seed."""
        if seed is not None:
            check_seed(seed)
            self.seed = seed
        self.store.reset()
        apply_seed(self.store, self.seed, now=self.clock())
        self.limiter.reset()
        self.log.clear()
        self.gateway.reset()

    def idle_for(self) -> float:
        """Seconds the bots have been idle: no API request in flight, no gateway payload
        queued, nothing begun or dispatched meanwhile (0.0 while busy)."""
        return 0.0 if self.gateway.queued() else self.activity.quiet_for()

    def add_seed(self, seed: dict[str, Any]) -> None:
        """Add a seed's applications, guilds (with their fixtures) and users to the
        current state; applications already there keep their settings, guilds and
        fixtures already there the keys the seed leaves out (:mod:`cmdsync.emulator.seed`).
        Members added or changed reach connected bots as GUILD_MEMBER_ADD / UPDATE."""
        check_seed(seed, complete=False)
        with self.members.watching(str(g["id"]) for g in seed.get("guilds") or []):
            apply_seed(self.store, seed, now=self.clock(), keep_applications=True, partial=True)


def new_emulator(*, state: str = ":memory:", seed: dict[str, Any] | None = None,
                 ratelimit: RateLimitConfig | None = None, faults: FaultConfig | None = None,
                 limits: Limits | None = None,
                 clock: Callable[[], float] = time.time) -> Emulator:
    """An emulator on ``state`` (``":memory:"`` or an SQLite file) with ``seed``
    applied (the default seed when None). Applying a seed to a state file
    that has it already changes nothing; commands and application settings
    in the file are kept. A state file is opened and seeded under its lock
    (:func:`~cmdsync.emulator.store.database.opening`), so processes starting on
    one new file at once do not collide."""
    seed = seed if seed is not None else default_seed()
    check_seed(seed)
    with opening(state):  # another process may be making the same file
        emulator = Emulator(Store(state), seed=seed, ratelimit=ratelimit, faults=faults,
                            limits=limits, clock=clock)
        apply_seed(emulator.store, seed, now=clock(), keep_applications=True)
    return emulator
