"""The desired state's digest is the SHA-256 of one JSON document, written piece by piece.

:func:`cmdsync.state.desired.state_digest` encodes each distinct body once;
its bytes must be those of the whole document encoded at once (the digest
saved plans carry), which is what this test computes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cmdsync.state.desired import desired_state, state_digest
from cmdsync.validate import validate_paths

ROOT = Path(__file__).resolve().parents[2]
ENV = {"DISCORD_APPLICATION_ID": "111111111111111111", "GUILD_ID": "222222222222222222",
       "TEST_GUILD_ID": "222222222222222222", "STAFF_ROLE_ID": "333333333333333333"}


def _whole(application_id, scopes) -> str:
    document = {"application_id": application_id, "scopes": [
        {"scope": s.scope, "manages_commands": s.manages_commands, "prune": s.prune,
         "commands": [dict(c.body) for c in s.commands],
         "permissions": None if s.permissions is None else
         {k: [dict(o) for o in v] for k, v in s.permissions.items()}}
        for s in scopes]}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_digest_is_that_of_the_whole_document(example: Path) -> None:
    result = validate_paths([str(example)], env=ENV)
    if result.errors or result.manifest is None:
        pytest.skip("not valid without its environment")
    state = desired_state(result.manifest, application_id="111111111111111111")
    assert state.digest == _whole(state.application_id, state.scopes.values())
    assert state_digest(None, []) == _whole(None, [])
