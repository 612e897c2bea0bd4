"""Where things are: the repository, the test data, and the real-world corpus when given."""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent  # the repository
DATA = TESTS / "data"
CASSETTES = TESTS / "cassettes"
EXAMPLES = ROOT / "examples"
# The real-world corpus is not in the repository (its files' licences are their
# authors'), and the tests read nothing outside it unless told: CMDSYNC_TEST_SHARED
# names a folder holding corpus/ (.ci/run sets it when one is there). Without it,
# CORPUS names a folder that does not exist and the tests that need it skip.
_GIVEN = os.environ.get("CMDSYNC_TEST_SHARED", "")
CORPUS = Path(_GIVEN) / "corpus" if _GIVEN else TESTS / "data" / "corpus-not-given"
NO_CORPUS = ("the real-world corpus is not given: set CMDSYNC_TEST_SHARED to a folder "
             "holding corpus/ (it stays outside the repository)")
OPENAPI = DATA / "discord-api-spec" / "openapi.json"  # shipped: MIT, see SOURCE.md beside it


def label(path: Path) -> str:
    """A test id for a file of the repository or of the corpus: its path from either."""
    for base, prefix in ((ROOT, ""), (CORPUS, "corpus/")):
        if path.is_relative_to(base):
            return prefix + path.relative_to(base).as_posix()
    return path.name
