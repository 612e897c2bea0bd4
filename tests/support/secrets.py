"""Fake credentials: never valid anywhere, never in a cassette or any output.
"""

from __future__ import annotations

FAKE_TOKEN = "cassette-fake-bot-token-0"  # never valid anywhere; never in a cassette


FAKE_BEARER = "cassette-fake-bearer-token-0"
