"""An update's body refers to the manifest's body plus the live id (BodyWithId): it must be
the dict it stands for, key for key and in order, and never change the body it reads."""

from __future__ import annotations

import json

from cmdsync.plan.changes import BodyWithId

BODY = {"name": "ping", "description": "Check the bot is alive",
        "options": [{"type": 3, "name": "who", "description": "Who"}]}


def test_it_is_the_body_with_the_id_last() -> None:
    sent = BodyWithId(BODY, "1575037707833311232")
    expected = {**BODY, "id": "1575037707833311232"}
    assert sent == expected and expected == sent
    assert list(sent) == list(expected) and len(sent) == 4
    assert dict(sent) == expected and json.dumps(dict(sent)) == json.dumps(expected)
    assert "id" in sent and "nsfw" not in sent and sent.get("nsfw") is None
    assert repr(sent) == repr(expected)


def test_an_id_in_the_body_is_replaced_in_place() -> None:
    body = {"id": "111111111111111112", **BODY}
    sent = BodyWithId(body, "1575037707833311232")
    assert list(sent) == list(body) and sent["id"] == "1575037707833311232"
    assert len(sent) == len(body)
    assert body["id"] == "111111111111111112"  # the manifest's body is not changed
