"""Where things are: the repository, the test data, the shared corpus beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent  # the repository
DATA = TESTS / "data"
CASSETTES = TESTS / "cassettes"
EXAMPLES = ROOT / "examples"
# The real-world corpus lives beside the repository, not in it (its files' licences
# are their authors'): tests that need it skip with a reason where it is absent.
# CMDSYNC_TEST_SHARED points elsewhere (CI runs the suite in a clone with nothing beside it).
SHARED = Path(os.environ.get("CMDSYNC_TEST_SHARED") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus"
OPENAPI = DATA / "discord-api-spec" / "openapi.json"  # shipped: MIT, see SOURCE.md beside it


def label(path: Path) -> str:
    """A test id for a file of the repository or of the corpus: its path from either."""
    for base, prefix in ((ROOT, ""), (CORPUS, "corpus/")):
        if path.is_relative_to(base):
            return prefix + path.relative_to(base).as_posix()
    return path.name
