"""Where things are: the repository, the test data, the shared corpus beside the repository."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent  # the repository
DATA = TESTS / "data"
CASSETTES = TESTS / "cassettes"
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"  # beside the repository, not in it
CORPUS = SHARED / "corpus"
