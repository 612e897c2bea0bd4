"""Saved plans: the digest (json's bytes, orjson's speed), plan_hmac, manifest_sha256."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.files import text_digest
from cmdsync.plan import planfile
from cmdsync.plan.planfile import dumps, load_saved, plan_digest, plan_key
from tests.support.plan import cmd, desired, live

MANIFEST = "commands: [{name: ping, description: Ping}, {name: echo, description: Echo}]\n"


def _json_bytes(value: Any) -> bytes:
    """The digest's definition, written with json alone."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


# Any JSON value json.loads gives without a float: every character (lone surrogates
# included, as "\ud800" escapes give), integers past 64 bits, keys that sort
# differently as UTF-16 and as code points.
_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF))
_KEYS = st.one_of(_TEXT, st.sampled_from(["\uffff", "\U00010000", "\ue000", "a", "A", ""]))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | _TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.dictionaries(_KEYS, _JSON, max_size=6))
def test_the_fast_digest_writes_json_s_bytes_for_every_document_without_floats(
        document: dict[str, Any]) -> None:
    expected = _json_bytes({k: v for k, v in document.items()
                            if k not in ("plan_digest", "plan_hmac")})
    assert planfile._canonical(document, floats=False) == expected
    assert planfile._canonical(document, floats=True) == expected


def test_a_plan_with_floats_is_digested_the_json_way() -> None:
    """orjson writes 1e-07 as 1e-7: a plan holding a float is checked with json's bytes."""
    from cmdsync.plan import diff

    plan = diff(desired("commands: [{name: roll, description: Roll, options: [{type: number, "
                        "name: n, description: N, min_value: 0.0000001}]}]\n"),
                live({"global": []}))
    text = dumps(plan)
    document = json.loads(text)
    assert document["scopes"][0]["commands"][0]["body"]["options"][0]["min_value"] == 1e-07
    assert plan_digest(document) == document["plan_digest"]
    assert plan_digest(document, floats=False) != document["plan_digest"]  # orjson's bytes
    assert load_saved(text, path="plan.json").plan == plan


def _plan() -> planfile.Plan:
    from cmdsync.plan import diff

    return diff(desired(MANIFEST), live({"global": [cmd("10", "ping")]}))


def test_plan_hmac_proves_a_plan_cmdsync_wrote_with_the_same_credential() -> None:
    key = plan_key("a-bot-token")
    text = dumps(_plan(), key=key)
    document = json.loads(text)
    assert document["plan_hmac"].startswith("hmac-sha256:") and "a-bot-token" not in text
    assert plan_digest(document) == document["plan_digest"]  # the HMAC is not digested
    assert load_saved(text, path="plan.json", key=key).authentic
    assert not load_saved(text, path="plan.json", key=plan_key("another-token")).authentic
    assert not load_saved(text, path="plan.json").authentic
    assert not load_saved(dumps(_plan()), path="plan.json", key=key).authentic  # none
    # An edit, digested again: the digest matches, the HMAC no longer does.
    document["scopes"][0]["commands"][0]["body"]["description"] = "Pong"
    document["plan_digest"] = plan_digest(document)
    edited = load_saved(json.dumps(document), path="plan.json", key=key)
    assert not edited.authentic
    assert edited.plan.scopes[0].commands[0].body["description"] == "Pong"


def _sources(text: str) -> tuple[str | None, ...]:
    from cmdsync.manifest.entries import collect
    from cmdsync.manifest.loader import load_text
    from cmdsync.state.desired import manifest_sources

    return manifest_sources(collect([load_text(text, file="m.yaml", kind="yaml", env={})]))


def test_manifest_sha256_holds_each_text_unless_it_may_interpolate() -> None:
    assert _sources(MANIFEST) == (text_digest(MANIFEST),)
    assert text_digest(MANIFEST) == "sha256:" + hashlib.sha256(MANIFEST.encode()).hexdigest()
    assert _plan().manifest_sha256 == ()  # worked out only when a plan is saved
    assert _sources("commands: [{name: ping, description: '${WHAT:-Ping}'}]\n") == (None,)
    for escaped in ('"$\\x7BWHAT:-Ping}"', '"\\x24{WHAT:-Ping}"', '"\\u0024{WHAT:-Ping}"',
                    '"$\\\n  {WHAT:-Ping}"', '"\\U00000024{WHAT:-Ping}"'):  # "${" by escapes
        assert _sources(f"commands: [{{name: ping, description: {escaped}}}]\n") == (None,), \
            escaped


def test_commands_from_bot_code_are_recorded_by_their_reference() -> None:
    """A plan made from discord.py code names the reference, read again as given, not the
    handlers' source files (which are no manifests)."""
    from cmdsync.manifest.entries import collect
    from cmdsync.manifest.loader import Document
    from cmdsync.state import desired_state
    from cmdsync.state.desired import manifest_sources

    reference = "discord.py:bot:tree"
    documents = [Document(file="bot/shop.py", kind="yaml", source=reference,
                          data={"commands": [{"name": name, "description": name}]})
                 for name in ("buy", "sell")]
    state = desired_state(collect(documents), application_id="111111111111111111")
    assert state.files == (reference,)
    assert manifest_sources(collect(documents)) == (None,)


def test_a_malformed_saved_plan_is_an_error_not_a_traceback() -> None:
    document = json.loads(dumps(_plan()))
    document["prior"] = {"global": {"commands": [], "permissions": [
        {"id": "1", "permissions": [{"id": "2"}]}]}}  # an overwrite without its type
    document["plan_digest"] = plan_digest(document)
    with pytest.raises(CmdsyncError) as caught:
        load_saved(json.dumps(document), path="plan.json")
    assert str(caught.value) == ("the saved plan plan.json is malformed: its prior state: "
                                 "KeyError('type')")
    with pytest.raises(CmdsyncError, match="nests too deep"):
        load_saved("[" * 100_000, path="plan.json")
