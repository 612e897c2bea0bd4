"""Follow-up messages and the original response, through the interaction's webhook.

Discord's "Interactions > Receiving and Responding > Followup Messages": ``POST
/webhooks/{application.id}/{interaction.token}`` (:func:`execute`), and ``GET``,
``PATCH`` and ``DELETE`` of ``.../messages/@original`` or ``.../messages/{message.id}``,
while the interaction token lives (15 minutes).
"""

from __future__ import annotations

from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.objects import Interaction
from cmdsync.emulator.interactions import attachments
from cmdsync.emulator.interactions import response_checks as checks
from cmdsync.emulator.interactions.responses import DEFERRED, application_of, message_of
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.call import Call, Reply
from cmdsync.model import EPHEMERAL, LOADING


def execute(call: Call) -> Reply:
    """``POST /webhooks/{application_id}/{interaction_token}``: a follow-up message.

    200 and the message, ``wait`` or not ("Create Followup Message": "wait is
    always true"). The first follow-up after a deferred response takes the
    ephemerality of that response, whatever its own ``flags`` say ("the flags
    field will be ignored"); later ones may be ephemeral (``flags: 64``).
    """
    body = call.body if isinstance(call.body, dict) else {}
    checks.check_message(attachments.with_uploads(body, call.uploads), require_content=True,
                         prefix=())
    _await_answer(call)
    with call.store.transaction() as db:
        record = _acknowledged(call, db)
        app = application_of(call, record)
        flags = checks.message_flags(body) & EPHEMERAL
        response = record.response or {}  # acknowledged: never None here
        if response.get("type") == DEFERRED and not any(
                not original for original, _ in call.store.messages(db, record.id)):
            deferred = response.get("data") or {}
            flags = checks.message_flags(deferred) & EPHEMERAL
        message = message_of(call.store, db, app, record.payload, body, call.now,
                           flags=flags, original=False)
        message["attachments"] = attachments.build(
            body, call.uploads, message["channel_id"],
            lambda: call.store.next_snowflake(db, call.now))
        call.store.save_message(db, record.id, message, original=False)
    return Reply(200, message)


def get_message(call: Call) -> Reply:
    """``GET /webhooks/{application_id}/{interaction_token}/messages/{message_id}``."""
    _await_answer(call)
    with call.store.transaction() as db:
        return Reply(200, _find_message(call, db)[1])


def edit_message(call: Call) -> Reply:
    """``PATCH .../messages/{message_id}`` (``@original`` too; a deferred response's
    original loses its loading state)."""
    body = call.body if isinstance(call.body, dict) else {}
    checks.check_message(attachments.with_uploads(body, call.uploads), require_content=False,
                         prefix=())
    _await_answer(call)
    with call.store.transaction() as db:
        record, message, kept_as = _find_kept(call, db)
        for key in ("content", "embeds", "components"):
            if key in body:
                message[key] = body[key] if body[key] is not None else (
                    "" if key == "content" else [])
        if "components" in body:  # the new ones, numbered afresh
            message["components"] = payloads.numbered_components(message["components"])
        message["attachments"] = attachments.build(
            body, call.uploads, message["channel_id"],
            lambda: call.store.next_snowflake(db, call.now), existing=message["attachments"])
        message["flags"] = int(message["flags"]) & ~LOADING
        message["edited_timestamp"] = payloads.iso(call.now)
        if kept_as is not None:  # the message a component is on, where it is kept
            call.store.replace_message(db, kept_as, message)
        else:
            call.store.save_message(db, record.id, message,
                                    original=call.params["message_id"] == "@original"
                                    or _is_original(call, db, record.id, message["id"]))
    return Reply(200, message)


def delete_message(call: Call) -> Reply:
    """``DELETE .../messages/{message_id}``: 204."""
    _await_answer(call)
    with call.store.transaction() as db:
        call.store.delete_message(db, _find_message(call, db)[1]["id"])
    return Reply(204, None)


def _is_original(call: Call, db: Any, interaction_id: str, message_id: str) -> bool:
    return any(original and message["id"] == message_id
               for original, message in call.store.messages(db, interaction_id))


def _find_message(call: Call, db: Any) -> tuple[Interaction, dict[str, Any]]:
    record, message, _ = _find_kept(call, db)
    return record, message


def _find_kept(call: Call, db: Any) -> tuple[Interaction, dict[str, Any], str | None]:
    """The interaction, the message the path names, and where it is kept when it is not
    the interaction's own (``@original`` of a component or modal interaction answered
    with UPDATE_MESSAGE or DEFERRED_UPDATE_MESSAGE: the message its component is on)."""
    record = _acknowledged(call, db)
    wanted = call.params["message_id"]
    for original, message in call.store.messages(db, record.id):
        if (wanted == "@original" and original) or message["id"] == wanted:
            return record, message, None
    updated = (record.payload.get("message") or {}).get("id")
    if wanted == "@original" and updated and (record.response or {}).get("type") in (6, 7):
        found = call.store.any_message(db, updated)
        if found is not None:
            return record, found[1], found[0]
    raise error_replies.unknown_message()


def _await_answer(call: Call) -> None:
    """Wait while the HTTP answer to this token's interaction is on its way (see above),
    unless the interaction is answered already (through the callback route: a bot
    may then follow up before it sends its HTTP answer)."""
    token = call.params["interaction_token"]
    with call.store.transaction() as db:
        record = call.store.interaction(db, token=token)
        if record is not None and record.response is not None:
            return
    call.store.wait_for_answer(token, call.limits.interaction_deadline)


def _acknowledged(call: Call, db: Any) -> Interaction:
    """The interaction of the path's token, answered already (follow-ups come after)."""
    record = call.store.interaction(db, token=call.params["interaction_token"])
    if record is None or call.now - record.created_at > \
            call.limits.interaction_token_lifetime:
        raise error_replies.invalid_webhook_token()
    if record.application_id != call.params["application_id"] \
            or record.response is None:
        raise error_replies.unknown("webhook")
    return record
