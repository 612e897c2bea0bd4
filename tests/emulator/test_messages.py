"""Channel messages a bot sends beside the interaction (issue 23, part 3), over real
HTTP: create, get, list, edit and delete, checked as Discord checks them, stored per
channel, read back through ``GET /_emulator/messages`` and forgotten on a reset.
Every body form Discord takes (JSON, multipart/form-data and form-urlencoded with
``payload_json``) on the message, callback and webhook routes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from starlette.responses import Response

from cmdsync.emulator import Emulator, Limits
from cmdsync.emulator.seed import default_seed
from tests.support.bot import StandInBot, serve
from tests.support.emulator import (
    APP,
    BOT,
    GUILD,
    GUILD_COMMANDS,
    USER,
    chat,
    emulator,
    http_client,
    http_server,
)

GENERAL = "222222222222222223"
VOICE = "222222222222222224"
SEEDED = "222222222222222226"  # the seed's message by "member" in general
MEMBER = "333333333333333334"
MESSAGES = f"/channels/{GENERAL}/messages"


def seed() -> dict[str, Any]:
    """The default seed, with a category and a forum in the guild."""
    data = default_seed()
    data["guilds"][0]["channels"] += [{"id": "222222222222222227", "name": "Lobby", "type": 4},
                                      {"id": "222222222222222228", "name": "Ideas", "type": 15}]
    return data


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Emulator, str]]:
    instance = emulator(seed=seed(), limits=Limits(interaction_deadline=30))
    with http_server(instance) as url:
        yield instance, url


@pytest.fixture
def api(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    """The bot's client of a freshly reset emulator."""
    with http_client(served[1]) as admin:
        assert admin.post("/_emulator/reset", json=seed()).status_code == 204
    with http_client(f"{served[1]}/api/v10", headers=BOT) as client:
        yield client


@pytest.fixture
def admin(served: tuple[Emulator, str]) -> Iterator[httpx.Client]:
    with http_client(f"{served[1]}/_emulator") as client:
        yield client


def form(payload: dict[str, Any], *files: tuple[str, bytes]) -> dict[str, Any]:
    """httpx arguments of a multipart body: ``payload_json`` and ``files[n]``."""
    return {"data": {"payload_json": json.dumps(payload)},
            "files": {f"files[{n}]": (name, data, "text/plain")
                      for n, (name, data) in enumerate(files)} or None}


def urlencoded(payload: dict[str, Any]) -> dict[str, Any]:
    return {"content": urlencode({"payload_json": json.dumps(payload)}).encode(),
            "headers": {"Content-Type": "application/x-www-form-urlencoded"}}


def test_a_message_is_created_read_edited_listed_and_deleted(
        api: httpx.Client, admin: httpx.Client) -> None:
    sent = api.post(MESSAGES, json={"content": f"hi <@{MEMBER}>", "nonce": "n1",
                                    "embeds": [{"title": "T", "fields": [
                                        {"name": "a", "value": "b"}]}],
                                    "components": [{"type": 1, "components": [
                                        {"type": 2, "style": 1, "label": "Go",
                                         "custom_id": "go"}]}]})
    assert sent.status_code == 200, sent.text
    message = sent.json()
    assert (message["type"], message["content"], message["channel_id"], message["nonce"],
            message["author"]["id"], message["author"]["bot"]) == (
        0, f"hi <@{MEMBER}>", GENERAL, "n1", APP, True)
    assert [u["id"] for u in message["mentions"]] == [MEMBER]
    assert message["embeds"][0]["title"] == "T" and message["components"][0]["type"] == 1
    one = f"{MESSAGES}/{message['id']}"
    assert api.get(one).json() == message
    edited = api.patch(one, json={"content": "changed", "embeds": []}).json()
    assert (edited["content"], edited["embeds"], edited["mentions"]) == ("changed", [], [])
    assert edited["edited_timestamp"] is not None
    assert [m["id"] for m in api.get(MESSAGES).json()] == [message["id"], SEEDED]
    assert [m["id"] for m in api.get(MESSAGES, params={"limit": 1}).json()] == [message["id"]]
    assert admin.get("/messages").json()["messages"] == [edited]
    assert api.delete(one).status_code == 204
    assert api.get(one).json() == {"message": "Unknown Message", "code": 10008}
    assert admin.get("/messages").json() == {"messages": []}


def test_stored_messages_are_read_back_per_channel_and_forgotten_on_reset(
        api: httpx.Client, admin: httpx.Client) -> None:
    first = api.post(MESSAGES, json={"content": "one"}).json()
    api.post(f"/channels/{VOICE}/messages", json={"content": "in voice"})
    second = api.post(MESSAGES, json={"content": "two"}).json()
    assert [m["content"] for m in admin.get("/messages", params={
        "channel_id": GENERAL}).json()["messages"]] == ["one", "two"]
    assert [m["id"] for m in admin.get("/messages", params={
        "after": first["id"]}).json()["messages"]] == [m["id"] for m in admin.get(
            "/messages").json()["messages"][1:]]
    assert second["id"] in [m["id"] for m in admin.get("/messages").json()["messages"]]
    assert admin.post("/reset").status_code == 204
    assert admin.get("/messages").json() == {"messages": []}


def test_a_reply_refers_to_the_seeded_message_and_pings_its_author(api: httpx.Client) -> None:
    reply = api.post(MESSAGES, json={"content": "yes",
                                     "message_reference": {"message_id": SEEDED}}).json()
    assert (reply["type"], reply["message_reference"]["message_id"],
            reply["referenced_message"]["content"]) == (19, SEEDED, "hello")
    assert [u["id"] for u in reply["mentions"]] == [MEMBER]
    quiet = api.post(MESSAGES, json={"content": "yes", "message_reference": {
        "message_id": SEEDED}, "allowed_mentions": {"parse": []}}).json()
    assert quiet["mentions"] == []
    missing = api.post(MESSAGES, json={"content": "?", "message_reference": {
        "message_id": "1"}})
    assert (missing.status_code, missing.json()) == (400, {
        "message": "Invalid Form Body", "code": 50035, "errors": {"message_reference": {
            "_errors": [{"code": "REPLIES_UNKNOWN_MESSAGE", "message": "Unknown message"}]}}})


def test_allowed_mentions_decide_who_is_mentioned(api: httpx.Client) -> None:
    text = f"<@{MEMBER}> <@&222222222222222225> @everyone"
    every = api.post(MESSAGES, json={"content": text}).json()
    assert ([u["id"] for u in every["mentions"]], every["mention_roles"],
            every["mention_everyone"]) == ([MEMBER], ["222222222222222225"], True)
    none = api.post(MESSAGES, json={"content": text, "allowed_mentions": {"parse": []}}).json()
    assert (none["mentions"], none["mention_roles"], none["mention_everyone"]) == (
        [], [], False)
    listed = api.post(MESSAGES, json={"content": text, "allowed_mentions": {
        "users": [MEMBER]}}).json()
    assert ([u["id"] for u in listed["mentions"]], listed["mention_roles"]) == ([MEMBER], [])


def leaf(path: list[str], code: str, message: str) -> dict[str, Any]:
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path):
        errors = {part: errors}
    return {"message": "Invalid Form Body", "code": 50035, "errors": errors}


@pytest.mark.parametrize(("body", "answer"), [
    ({"content": "x" * 2001},
     leaf(["content"], "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")),
    ({"embeds": [{"title": "t" * 257}]},
     leaf(["embeds", "0", "title"], "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length.")),
    ({"embeds": [{"fields": [{"name": "n"}]}]},
     leaf(["embeds", "0", "fields", "0", "value"], "BASE_TYPE_REQUIRED",
          "This field is required")),
    ({"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
     leaf(["embeds"], "BASE_TYPE_MAX_LENGTH", "Embed size exceeds maximum size of 6000")),
    ({"content": "x", "components": [{"type": 1, "components": []}] * 6},
     leaf(["components"], "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")),
    ({"content": "x", "allowed_mentions": {"parse": ["users"], "users": [MEMBER]}},
     leaf(["allowed_mentions"], "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
          'parse:["users"] and users: [ids...] are mutually exclusive.')),
    ({"content": "x", "allowed_mentions": {"parse": ["people"]}},
     leaf(["allowed_mentions", "parse", "0"], "ENUM_TYPE_COERCE",
          'Value "people" is not a valid enum value.')),
    ({}, {"message": "Cannot send an empty message", "code": 50006}),
    ({"content": ""}, {"message": "Cannot send an empty message", "code": 50006}),
])
def test_bad_messages_are_refused_as_discord_refuses_them(
        api: httpx.Client, admin: httpx.Client, body: dict[str, Any],
        answer: dict[str, Any]) -> None:
    response = api.post(MESSAGES, json=body)
    assert (response.status_code, response.json()) == (400, answer)
    assert admin.get("/messages").json() == {"messages": []}


@pytest.mark.parametrize(("method", "path", "body", "status", "answer"), [
    ("POST", "/channels/222222222222222227/messages", {"content": "x"}, 400,
     {"message": "Cannot send messages in a non-text channel", "code": 50008}),
    ("POST", "/channels/222222222222222228/messages", {"content": "x"}, 400,
     {"message": "Cannot send messages in a non-text channel", "code": 50008}),
    ("POST", "/channels/999/messages", {"content": "x"}, 404,
     {"message": "Unknown Channel", "code": 10003}),
    ("GET", f"{MESSAGES}/1", None, 404, {"message": "Unknown Message", "code": 10008}),
    ("PATCH", f"{MESSAGES}/{SEEDED}", {"content": "mine now"}, 403,
     {"message": "Cannot edit a message authored by another user", "code": 50005}),
    ("GET", "/channels/abc/messages", None, 400,
     leaf(["channel_id"], "NUMBER_TYPE_COERCE", 'Value "abc" is not snowflake.')),
    ("GET", MESSAGES, {"limit": "101"}, 400,
     leaf(["limit"], "NUMBER_TYPE_MAX", "int value should be <= 100 and >= 1.")),
])
def test_unknown_and_forbidden_messages(api: httpx.Client, method: str, path: str,
                                        body: dict[str, Any] | None, status: int,
                                        answer: dict[str, Any]) -> None:
    if method == "GET":
        response = api.get(path, params=body)
    else:
        response = api.request(method, path, json=body)
    assert (response.status_code, response.json()) == (status, answer)


def test_a_bearer_token_and_a_missing_token_are_refused(api: httpx.Client) -> None:
    bearer = api.post(MESSAGES, headers=USER, json={"content": "x"})
    assert (bearer.status_code, bearer.json()) == (
        403, {"message": "Only bots can use this endpoint", "code": 20002})
    anonymous = httpx.post(str(api.base_url).rstrip("/") + MESSAGES, json={"content": "x"})
    assert (anonymous.status_code, anonymous.json()) == (
        401, {"message": "401: Unauthorized", "code": 0})


def test_the_bot_needs_send_messages(served: tuple[Emulator, str]) -> None:
    without = seed()
    without["guilds"][0]["roles"][0]["permissions"] = ["view_channel", "read_message_history"]
    with http_client(served[1]) as admin:
        assert admin.post("/_emulator/reset", json=without).status_code == 204
    with http_client(f"{served[1]}/api/v10", headers=BOT) as api:
        refused = api.post(MESSAGES, json={"content": "x"})
        assert (refused.status_code, refused.json()) == (
            403, {"message": "Missing Permissions", "code": 50013})
        assert api.delete(f"{MESSAGES}/{SEEDED}").status_code == 403
        assert api.get(f"{MESSAGES}/{SEEDED}").status_code == 200


# -- every body form ------------------------------------------------------------------


def test_multipart_and_urlencoded_bodies_carry_payload_json_and_files(
        api: httpx.Client, admin: httpx.Client) -> None:
    sent = api.post(MESSAGES, **form({"content": "with files", "attachments": [
        {"id": 1, "filename": "renamed.txt", "description": "second"}]},
        ("a.txt", b"hello"), ("b.txt", b"longer body")))
    assert sent.status_code == 200, sent.text
    message = sent.json()
    assert [(a["filename"], a["size"], a.get("description")) for a in
            message["attachments"]] == [("renamed.txt", 11, "second"), ("a.txt", 5, None)]
    only_files = api.post(MESSAGES, **form({}, ("c.txt", b"c"))).json()
    assert [a["filename"] for a in only_files["attachments"]] == ["c.txt"]
    one = f"{MESSAGES}/{message['id']}"
    edited = api.patch(one, **urlencoded({"content": "kept one", "attachments": [
        {"id": message["attachments"][1]["id"]}]}))
    assert edited.status_code == 200, edited.text
    assert (edited.json()["content"], [a["filename"] for a in edited.json()["attachments"]]) \
        == ("kept one", ["a.txt"])
    plain = api.post(MESSAGES, content=b"content=plain+field",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert plain.json()["content"] == "plain field"
    assert [m["content"] for m in admin.get("/messages").json()["messages"]] == [
        "kept one", "", "plain field"]


def test_a_form_whose_payload_json_is_not_json_is_50109(api: httpx.Client) -> None:
    response = api.post(MESSAGES, data={"payload_json": "{nope"}, files={
        "files[0]": ("a.txt", b"a")})
    assert (response.status_code, response.json()) == (
        400, {"message": "The request body contains invalid JSON.", "code": 50109})


def test_command_routes_still_take_json_only(api: httpx.Client) -> None:
    response = api.post(GUILD_COMMANDS,
                        data={"payload_json": json.dumps(chat("ping"))})
    assert (response.status_code, response.json()["code"]) == (400, 50109)


@pytest.fixture
def bot(served: tuple[Emulator, str], api: httpx.Client) -> Iterator[StandInBot]:
    """A stand-in interactions endpoint for /ping."""
    assert api.put(GUILD_COMMANDS, json=[chat("ping")]).status_code == 200
    with serve(StandInBot(api.get("/applications/@me").json()["verify_key"])) as stub:
        assert api.patch("/applications/@me", json={
            "interactions_endpoint_url": stub.url}).status_code == 200
        yield stub


def test_callback_and_webhook_routes_take_forms_too(
        served: tuple[Emulator, str], api: httpx.Client, bot: StandInBot) -> None:
    """The bot calls back with a multipart body (a file, as libraries send one), then
    follows up in multipart and edits its original response form-urlencoded."""
    base = f"{served[1]}/api/v10"
    called: list[httpx.Response] = []

    def call_back(payload: dict[str, Any]) -> Response:
        with httpx.Client(timeout=10) as client:
            called.append(client.post(
                f"{base}/interactions/{payload['id']}/{payload['token']}/callback",
                **form({"type": 4, "data": {"content": "pong"}}, ("log.txt", b"12345"))))
        return Response(status_code=204)

    bot.answer = call_back
    with httpx.Client(timeout=60) as client:
        result = client.post(f"{served[1]}/_emulator/interactions", json={
            "application_id": APP, "line": "/ping", "guild_id": GUILD}).json()
    assert [r.status_code for r in called] == [204], [r.text for r in called]
    assert result["failure"] is None
    [original] = result["messages"]
    assert (original["content"], [(a["filename"], a["size"]) for a in
                                  original["attachments"]]) == ("pong", [("log.txt", 5)])
    webhook = f"{base}/webhooks/{APP}/{result['interaction']['token']}"
    with httpx.Client(timeout=10) as client:
        follow_up = client.post(webhook, **form({"content": "more"}, ("x.txt", b"x")))
        assert follow_up.status_code == 200, follow_up.text
        assert [a["filename"] for a in follow_up.json()["attachments"]] == ["x.txt"]
        edited = client.patch(f"{webhook}/messages/@original",
                              **urlencoded({"content": "pong!", "attachments": []}))
        assert edited.status_code == 200, edited.text
        assert (edited.json()["content"], edited.json()["attachments"]) == ("pong!", [])


def test_a_dm_interaction_carries_the_bots_dm_channel(
        served: tuple[Emulator, str], api: httpx.Client, bot: StandInBot) -> None:
    """A handler answering a DM opens the same DM channel and sends into it."""
    assert api.put(f"/applications/{APP}/commands", json=[chat("hello")]).status_code == 200
    with httpx.Client(timeout=60) as client:
        result = client.post(f"{served[1]}/_emulator/interactions", json={
            "application_id": APP, "line": "/hello", "user_id": MEMBER}).json()
    assert result["failure"] is None, result
    dm = api.post("/users/@me/channels", json={"recipient_id": MEMBER}).json()
    assert result["interaction"]["channel_id"] == dm["id"]
    sent = api.post(f"/channels/{dm['id']}/messages", json={"content": "in your DMs"})
    assert (sent.status_code, sent.json()["channel_id"]) == (200, dm["id"])
    with http_client(served[1]) as admin:  # what was sent after the interaction began
        assert admin.get("/_emulator/messages", params={"after": result["interaction"]["id"]}
                         ).json()["messages"] == [sent.json()]


@pytest.mark.parametrize(("content_type", "body", "reason"), [
    ("multipart/form-data", b"--x\r\n", "Missing boundary in multipart."),
    ("multipart/form-data; boundary=x",
     b"".join(b'--x\r\nContent-Disposition: form-data; name="files[%d]"; filename="f"\r\n\r\n'
              b"a\r\n" % n for n in range(11)) + b"--x--\r\n",
     "Too many files. Maximum number of files is 10."),
])
def test_a_form_that_cannot_be_read_is_refused_saying_why(
        api: httpx.Client, content_type: str, body: bytes, reason: str) -> None:
    response = api.post(MESSAGES, content=body, headers={"Content-Type": content_type})
    assert (response.status_code, response.json()) == (400, {
        "message": f"400: Bad Request (the multipart/form-data body cannot be read: {reason}; "
                   "send the message as JSON, or as a form whose payload_json field holds it)",
        "code": 0})
