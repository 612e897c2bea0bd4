"""The emulator's service limits (:class:`Limits`) and range checks for its settings
(``PUT /_emulator/config``, ``new_emulator``).

A setting out of its range would break the emulator rather than configure
it: ``NaN`` cannot be sent back as JSON, and a latency of ``1e308`` seconds
holds every request forever. Each check raises :class:`ValueError` whose
message names the setting, its allowed range and the value given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


def check_number(name: str, value: Any, low: float, high: float, *, unit: str = "",
                 integer: bool = False, above_low: bool = False) -> None:
    """Raise :class:`ValueError` unless ``value`` is a finite number (an integer when
    ``integer``; never a bool) from ``low`` (excluded when ``above_low``) to ``high``.

    ``unit`` names what the number counts (``"seconds"``), for the message.
    """
    kinds = (int,) if integer else (int, float)
    number = isinstance(value, kinds) and not isinstance(value, bool)
    if number and math.isfinite(value) and (low < value if above_low else low <= value) \
            and value <= high:
        return
    what = (("a whole number" if integer else "a number") + f" of {unit}" if unit
            else "an integer" if integer else "a number")
    span = (f"above {_text(low)} and at most {_text(high)}" if above_low
            else f"from {_text(low)} to {_text(high)}")
    raise ValueError(f"{name} must be {what} {span}, not {value!r}")


def _text(number: float) -> str:
    return f"{number:,}" if isinstance(number, int) else f"{number:g}"


# Each limit's range: (lowest, highest, unit); seconds must be above the lowest.
RANGES: dict[str, tuple[float, float, str]] = {
    "daily_creates": (1, 1_000_000, "creates"),
    "max_body_bytes": (1, 100 * 1024 * 1024, "bytes"),
    "interaction_deadline": (0, 15 * 60, "seconds"),
    "interaction_token_lifetime": (0, 86_400, "seconds"),
    "verification_deadline": (0, 60, "seconds")}


@dataclass(frozen=True)
class Limits:
    """Service limits: daily creates per scope, body sizes, interaction times.

    ``daily_creates_status`` is 400 or 429: Discord has answered 30034 both
    ways. ``max_body_bytes`` bounds request bodies (413) and an application's
    answers to interactions and endpoint verification (a larger answer fails).
    ``interaction_deadline`` (seconds, Discord's 3) is how long an application
    has to answer an interaction, the whole answer or its callback;
    ``interaction_token_lifetime`` (seconds, Discord's 15 minutes) how long its
    token works for follow-ups (Discord's "Receiving and Responding" docs);
    ``verification_deadline`` (seconds, 10) how long the endpoint check of
    ``interactions_endpoint_url`` may take, both its PINGs. Out of range
    (:data:`RANGES`), a value raises ValueError naming it.
    """

    daily_creates: int = 200
    daily_creates_status: int = 400
    max_body_bytes: int = 4 * 1024 * 1024
    interaction_deadline: float = 3.0
    interaction_token_lifetime: float = 15 * 60.0
    verification_deadline: float = 10.0

    def __post_init__(self) -> None:
        if isinstance(self.daily_creates_status, bool) or \
                self.daily_creates_status not in (400, 429):
            raise ValueError(f"daily_creates_status must be 400 or 429, not "
                             f"{self.daily_creates_status!r}")
        for name, (low, high, unit) in RANGES.items():
            check_number(name, getattr(self, name), low, high, unit=unit,
                         integer=unit in ("creates", "bytes"), above_low=unit == "seconds")
