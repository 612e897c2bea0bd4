"""Range checks for the emulator's settings (``PUT /_emulator/config``, ``new_emulator``).

A setting out of its range would break the emulator rather than configure
it: ``NaN`` cannot be sent back as JSON, and a latency of ``1e308`` seconds
holds every request forever. Each check raises :class:`ValueError` whose
message names the setting, its allowed range and the value given.
"""

from __future__ import annotations

import math
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
