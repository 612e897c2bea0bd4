"""Interactions: delivering one, the application's response, follow-up messages.

:func:`invoke` runs an :class:`~cmdsync.emulator.interactions.invocation.Invocation`: it
checks and builds the interaction (:mod:`cmdsync.emulator.interactions.invocation`),
stores it, POSTs it signed to the application's interactions endpoint and
takes the response from the HTTP answer or, when the answer is empty (202 or
204), from ``POST /interactions/{id}/{token}/callback``, called before or
after that answer: all within ``Limits.interaction_deadline`` seconds
(Discord's 3), the whole answer included, which may be at most
``Limits.max_body_bytes`` long. It returns the whole exchange:
``{"interaction", "response", "failure", "messages"}``. The failure is
stored with the interaction (:func:`exchange` gives it back), whoever ran
it: ``cmdsync invoke`` (served or ``--local``, through the state file), the
console, the pytest plugin.

The routes an application answers with (Discord's "Interactions > Receiving
and Responding"; no ``Authorization``, the interaction token is the
credential, valid ``Limits.interaction_token_lifetime`` seconds, 15 minutes):

- ``POST /interactions/{id}/{token}/callback``: the initial response, once
  (400 40060 "Interaction has already been acknowledged."; after the
  deadline 404 10062 "Unknown interaction"). 204, or with
  ``?with_response=true`` 200 ``{"interaction", "resource"}`` (``response_message_*``
  only when the response made a message).
- ``POST /webhooks/{application.id}/{token}``: a follow-up message, 200 and
  the message (``wait`` is always true, "Create Followup Message"); the
  first one after a deferred response is as ephemeral as that response,
  whatever its ``flags``.
- ``GET``/``PATCH``/``DELETE /webhooks/{application.id}/{token}/messages/@original``
  and ``.../messages/{message.id}``.

An application may edit or follow up the moment it has answered over HTTP,
before that answer has been taken here; these webhook routes first wait (at
most the deadline) for an answer still on its way, so that a bot that
defers and then edits at once is served in order, as Discord serves it.

Responses are checked as Discord checks them: the response type must fit
the interaction (4 CHANNEL_MESSAGE_WITH_SOURCE, 5 DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
9 MODAL and 12 LAUNCH_ACTIVITY for a command; 8
APPLICATION_COMMAND_AUTOCOMPLETE_RESULT for autocomplete; 12 only for
applications with Activities, the EMBEDDED flag), ``content`` at most 2000
characters, at most 10 embeds, a message not empty (50006), at most 25
autocomplete choices, a modal's ``custom_id`` (1-100), ``title`` (1-45) and
1-5 components, and fields of the right JSON type
(:mod:`cmdsync.emulator.interactions.response_checks`). A bad token answers 401 50027
"Invalid Webhook Token".
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import CallbackType, Failure, InteractionType, Refusal
from cmdsync.emulator.domain.objects import Application, Interaction
from cmdsync.emulator.interactions import attachments, components, delivery
from cmdsync.emulator.interactions import response_checks as checks
from cmdsync.emulator.interactions.invocation import (
    Invocation,
    Prepared,
    Refused,
    prepare,
)
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.call import Call, Events, Reply
from cmdsync.emulator.reference.request_body import Upload
from cmdsync.emulator.store.database import Store
from cmdsync.errors import EmulatorError
from cmdsync.model import APPLICATION_FLAG_EMBEDDED, EPHEMERAL, LOADING, CommandType

MESSAGE = CallbackType.CHANNEL_MESSAGE_WITH_SOURCE
DEFERRED = CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
AUTOCOMPLETE_RESULT = CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
MODAL, LAUNCH_ACTIVITY = CallbackType.MODAL, CallbackType.LAUNCH_ACTIVITY
DEFERRED_UPDATE, UPDATE = CallbackType.DEFERRED_UPDATE_MESSAGE, CallbackType.UPDATE_MESSAGE
RESPONSE_TYPES = {
    InteractionType.APPLICATION_COMMAND: (MESSAGE, DEFERRED, MODAL, LAUNCH_ACTIVITY),
    InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE: (AUTOCOMPLETE_RESULT,),
    InteractionType.MESSAGE_COMPONENT: (MESSAGE, DEFERRED, DEFERRED_UPDATE, UPDATE, MODAL,
                                        LAUNCH_ACTIVITY),
    InteractionType.MODAL_SUBMIT: (MESSAGE, DEFERRED, DEFERRED_UPDATE, UPDATE)}


class Failed(EmulatorError):
    """The application did not answer the interaction acceptably: ``code`` (a
    :class:`~cmdsync.emulator.domain.enums.Failure`) and the message say why."""

    def __init__(self, code: Failure, message: str) -> None:
        super().__init__(message)
        self.code = code


# -- invoking ------------------------------------------------------------------------


def invoke(store: Store, invocation: Invocation, *, now: float, limits: Limits,
           gateway: Events | None = None) -> dict[str, Any]:
    """Run ``invocation`` end to end; see the module docstring.

    Without an interactions endpoint URL the interaction goes to a bot
    connected to ``gateway`` as INTERACTION_CREATE (Discord's "Receiving and
    Responding": the two are mutually exclusive), which answers through the
    callback route within the same deadline.

    Raises :class:`~cmdsync.emulator.interactions.invocation.Refused` (the client would
    not send it) and :class:`~cmdsync.emulator.reference.error_replies.ErrorReply`
    50035 ``INTERACTION_APPLICATION_COMMAND_INVALID_VERSION`` for an
    outdated global command (read-repair). A response that is missing,
    late or invalid is not an exception: ``failure`` says what went wrong.
    """
    with store.transaction() as db:
        interaction_id = store.next_snowflake(db, now)
        prepared = prepare(store, db, invocation, interaction_id=interaction_id)
        if not prepared.outdated:
            store.save_interaction(db, interaction_id, prepared.app.id, prepared.token, now,
                                   prepared.payload, None)
    if prepared.outdated:
        raise error_replies.field_error(
            ("data",), "INTERACTION_APPLICATION_COMMAND_INVALID_VERSION",
            "This command is outdated, please try again in a few minutes")
    app = prepared.app
    if not app.interactions_endpoint_url:
        return _over_gateway(store, gateway, prepared, interaction_id, limits)
    failure, code = None, None
    # The application may edit or follow up as soon as it has answered, before the
    # answer is taken here: the webhook routes wait for it (_acknowledged).
    started = time.monotonic()
    with store.answering(prepared.token) as called_back:
        answer = delivery.post_signed(app, app.interactions_endpoint_url, prepared.payload,
                                      now=now, deadline=limits.interaction_deadline,
                                      max_bytes=limits.max_body_bytes)
        try:
            if _empty(answer):  # the response comes through the callback route, within
                # the deadline, if it has not come already
                called_back.wait(limits.interaction_deadline - (time.monotonic() - started))
            _take_answer(store, app, interaction_id, answer, now,
                         refusal=store.refusal(prepared.token))
        except Failed as exc:
            failure, code = str(exc), exc.code
    record_failure(store, interaction_id, failure, code)
    return exchange(store, interaction_id)


def _over_gateway(store: Store, gateway: Events | None, prepared: Prepared,
                  interaction_id: str, limits: Limits) -> dict[str, Any]:
    """INTERACTION_CREATE to one session of the bot; the exchange once it called back,
    or with ``failure`` when it did not within the deadline."""
    app, payload = prepared.app, prepared.payload
    with store.answering(prepared.token) as called_back:
        # a session only waiting for a RESUME (its bot closed) gets none: the test that
        # runs it hears at once that no bot is connected, not after Discord's 3 seconds
        sent = gateway.dispatch(app.id, "INTERACTION_CREATE", payload, one=True,
                                guild_id=payload.get("guild_id"),
                                connected=True) if gateway else 0
        if not sent:
            refused = Refused(
                Refusal.NOT_DELIVERED,
                f"no bot is connected for application {app.id} (it has no interactions "
                "endpoint URL, and no session of the emulator's gateway has a connection)",
                fix="set one (PATCH /applications/@me {\"interactions_endpoint_url\": URL}, "
                "or cmdsync invoke --endpoint URL) where your bot serves interactions, or "
                "start your gateway bot against the emulator (GET /api/v10/gateway/bot)")
            record_failure(store, interaction_id, f"not delivered: {refused}",
                           Failure.NOT_DELIVERED)
            raise refused
        called_back.wait(limits.interaction_deadline)
        refusal = store.refusal(prepared.token)
        raised = store.raised_error(prepared.token)
    if exchange(store, interaction_id)["response"] is None:
        if refusal:  # the root of what the handler may have raised next
            record_failure(store, interaction_id, refused_callback(
                refusal, f"{limits.interaction_deadline:g} seconds of INTERACTION_CREATE"),
                Failure.INVALID_RESPONSE)
        elif raised:
            record_failure(store, interaction_id, "the application did not respond: its "
                           f"handler raised {raised}", Failure.NO_RESPONSE)
        else:
            record_failure(store, interaction_id, "the application did not respond: no POST "
                           "/interactions/{id}/{token}/callback within "
                           f"{limits.interaction_deadline:g} seconds of INTERACTION_CREATE",
                           Failure.NO_RESPONSE)
    return exchange(store, interaction_id)


def refused_callback(refusal: str, deadline: str) -> str:
    """The failure of an interaction whose bot did call back, with a response Discord
    refused (``refusal``: the HTTP status, code and message), and that had no other
    response within ``deadline``: a refused callback does not acknowledge the
    interaction, so the client shows "This interaction failed" once Discord's 3
    seconds pass (Discord's "Receiving and Responding": the initial response)."""
    return (f"the bot's callback was refused: {refusal}; no other response came within "
            f"{deadline}, so the interaction stayed unanswered")


def _empty(answer: delivery.Answer) -> bool:
    """An answer without a response: 202, 204, or 200 without a body."""
    return not answer.failure and (answer.status in (202, 204) or (
        answer.status == 200 and not answer.raw.strip()))


def _take_answer(store: Store, app: Application, interaction_id: str,
                 answer: delivery.Answer, now: float, *, refusal: str | None = None) -> None:
    if answer.failure:
        raise Failed(Failure.NO_RESPONSE, f"the application did not respond: {answer.failure}")
    if _empty(answer):
        with store.transaction() as db:
            record = store.interaction(db, interaction_id=interaction_id)
            if record is not None and record.response is not None:
                return  # answered through the callback route
        if refusal:
            raise Failed(Failure.INVALID_RESPONSE, refused_callback(refusal, "the deadline"))
        raise Failed(Failure.NO_RESPONSE,
                     f"the application answered HTTP {answer.status} with no response and "
                     "did not call POST /interactions/{id}/{token}/callback within "
                     "the deadline")
    if answer.not_json and 200 <= answer.status < 300:
        raise Failed(Failure.INVALID_RESPONSE,
                     f"the application answered HTTP {answer.status} with a body of "
                     f"{len(answer.raw):,} bytes that is not JSON (NaN and Infinity are not "
                     "JSON either): send the response as a JSON object")
    if not 200 <= answer.status < 300:
        text = answer.raw[:300].decode("utf-8", "replace")
        raise Failed(Failure.ERROR_STATUS,
                     f"the application answered HTTP {answer.status}: {text}")
    try:
        with store.transaction() as db:
            record = store.interaction(db, interaction_id=interaction_id)
            assert record is not None
            if record.response is not None:
                raise Failed(Failure.INVALID_RESPONSE,
                             "the application answered twice: through the callback route and "
                             "in the HTTP answer")
            respond(store, db, app, record, answer.body, now)
    except error_replies.ErrorReply as exc:
        raise Failed(Failure.INVALID_RESPONSE,
                     f"Discord would refuse the response: {_describe(exc)}") from exc


def exchange(store: Store, interaction_id: str) -> dict[str, Any]:
    """``{"interaction", "response", "failure", "messages"}`` of a stored interaction (404
    if none); ``failure`` is what :func:`invoke` found wrong with the application's
    answer, or None."""
    with store.transaction() as db:
        record = store.interaction(db, interaction_id=interaction_id)
        if record is None:
            raise error_replies.unknown_interaction()
        messages = [message for _, message in store.messages(db, interaction_id)]
        updated = components.updated(store, db, record)
    return {"interaction": record.payload, "response": record.response,
            **store.failure(interaction_id), "messages": messages, **updated}


def record_failure(store: Store, interaction_id: str, failure: str | None,
                   code: Failure | None = None) -> None:
    """Keep why the interaction ``interaction_id`` failed (nothing when it did not)."""
    if failure is not None:
        store.record_failure(interaction_id, failure, code.value if code else None)


def _describe(exc: error_replies.ErrorReply) -> str:
    leaves: list[str] = []

    def walk(node: Any, path: list[str]) -> None:
        if isinstance(node, dict):
            for item in node.get("_errors", []):
                leaves.append(f"{'.'.join(path) or 'body'}: {item['message']}")
            for key, value in node.items():
                if key != "_errors":
                    walk(value, path + [key])

    walk(exc.errors, [])
    return f"{exc.code} {exc.message}" + (f" ({'; '.join(leaves)})" if leaves else "")


# -- the initial response ------------------------------------------------------------


def respond(store: Store, db: Any, app: Application, record: Interaction, body: Any,
            now: float, uploads: Sequence[Upload] = ()) -> dict[str, Any] | None:
    """Check and record the initial response ``body`` (with the files of a multipart
    body); the original message it makes (types 4 and 5), else None. Raises 50035 /
    50006 as Discord does."""
    payload = record.payload
    if not isinstance(body, dict):
        raise error_replies.field_error((), "MODEL_TYPE_CONVERT",
                                        "Only dictionaries may be used in a ModelType")
    kind = body.get("type")
    allowed = RESPONSE_TYPES[payload["type"]]
    if kind is None:
        raise error_replies.field_error(("type",), "BASE_TYPE_REQUIRED",
                                        "This field is required")
    if kind not in allowed:
        raise error_replies.field_error(
            ("type",), "BASE_TYPE_CHOICES",
            f"Value must be one of ({', '.join(map(str, sorted(allowed)))}).")
    data = checks.response_data(body)
    if kind == MESSAGE:
        checks.check_message(attachments.with_uploads(data, uploads), require_content=True)
    elif kind == DEFERRED:
        checks.check_flags(data)
    elif kind == AUTOCOMPLETE_RESULT:
        checks.check_choices(data)
    elif kind == MODAL:
        checks.check_modal(data)
    elif kind == UPDATE:
        checks.check_message(attachments.with_uploads(data, uploads), require_content=False)
        if not payload.get("message"):  # a modal opened by a command has no message
            raise error_replies.field_error(
                ("type",), "INTERACTION_CALLBACK_TYPE_INVALID",
                "UPDATE_MESSAGE is for a component's message: this interaction has none")
    elif kind == LAUNCH_ACTIVITY and not app.flags & APPLICATION_FLAG_EMBEDDED:
        raise error_replies.field_error(
            ("type",), "INTERACTION_LAUNCH_ACTIVITY_NOT_ENABLED",
            "This application does not have Activities enabled.")
    response = {"type": kind, "data": data} if data else {"type": kind}
    store.save_interaction(db, record.id, record.application_id, record.token,
                           record.created_at, payload, response)
    if kind == UPDATE:
        components.update_message(store, db, payload["message"]["id"], data, now)
    if kind not in (MESSAGE, DEFERRED):
        return None
    flags = checks.message_flags(data) & EPHEMERAL
    if kind == DEFERRED:
        data, flags = {}, flags | LOADING
    message = message_of(store, db, app, payload, data, now, flags=flags, original=True)
    message["attachments"] = attachments.build(data, uploads, payload["channel_id"],
                                               lambda: store.next_snowflake(db, now))
    store.save_message(db, record.id, message, original=True)
    return message


def message_of(store: Store, db: Any, app: Application, payload: Mapping[str, Any],
             data: Mapping[str, Any], now: float, *, flags: int, original: bool,
             message_id: str | None = None) -> dict[str, Any]:
    command_type = payload["data"].get("type", CommandType.CHAT_INPUT)
    body: dict[str, Any] = {
        "id": message_id or store.next_snowflake(db, now),
        "type": (20 if command_type == CommandType.CHAT_INPUT else 23) if original else 0,
        "channel_id": payload["channel_id"], "author": payloads.bot_user(app, pii=False),
        "content": data.get("content") or "", "timestamp": payloads.iso(now), "edited_timestamp": None,
        "tts": bool(data.get("tts", False)), "mention_everyone": False, "mentions": [],
        "mention_roles": [], "attachments": [], "embeds": list(data.get("embeds") or []),
        "pinned": False, "flags": flags,
        "components": payloads.numbered_components(list(data.get("components") or [])),
        "webhook_id": app.id, "application_id": app.id,
        "interaction_metadata": {"id": payload["id"], "type": payload["type"],
                                 "user": payload.get("member", {}).get("user")
                                 or payload.get("user"),
                                 "authorizing_integration_owners":
                                     payload["authorizing_integration_owners"]}}
    if payload.get("guild_id"):
        body["guild_id"] = payload["guild_id"]
    return body


# -- the routes the application calls -------------------------------------------------


def callback(call: Call) -> Reply:
    """``POST /interactions/{interaction_id}/{interaction_token}/callback``."""
    with call.store.transaction() as db:
        record = call.store.interaction(db, interaction_id=call.params["interaction_id"])
        if record is None or record.token != call.params["interaction_token"] \
                or call.now - record.created_at > call.limits.interaction_deadline:
            raise error_replies.unknown_interaction()
        if record.response is not None:
            raise error_replies.already_acknowledged()
        app = application_of(call, record)
        try:
            message = respond(call.store, db, app, record, call.body, call.now, call.uploads)
        except error_replies.ErrorReply as exc:  # the bot is told; the invoker will be too
            call.store.refused(record.token, f"HTTP {exc.status} {_describe(exc)}")
            raise
    call.store.responded(record.token)
    if call.query.get("with_response", "").lower() not in ("true", "1"):
        return Reply(204, None)
    return Reply(200, _callback_response(record, call.body["type"], message))


def _callback_response(record: Interaction, kind: int, message: dict[str, Any] | None
                       ) -> dict[str, Any]:
    """The Interaction Callback Response ("Interactions > Receiving and Responding"):
    ``{"interaction", "resource"}``. The ``response_message_*`` fields are there only
    when the response made a message (they are optional, not nullable: a response
    without a message, autocomplete or a modal, has none; hikari reads the id as a
    snowflake whenever the key is present)."""
    interaction: dict[str, Any] = {"id": record.id, "type": record.payload["type"],
                                   "activity_instance_id": None}
    resource: dict[str, Any] = {"type": kind}
    if message is not None:
        interaction.update(response_message_id=message["id"],
                           response_message_loading=kind == DEFERRED,
                           response_message_ephemeral=bool(message["flags"] & EPHEMERAL))
        resource["message"] = message
    return {"interaction": interaction, "resource": resource}


def application_of(call: Call, record: Interaction) -> Application:
    app = call.store.application(record.application_id)
    if app is None:
        raise error_replies.unknown("application")
    return app
