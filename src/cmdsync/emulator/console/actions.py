"""Use the components of a bot's message and submit a modal from the Run page.

What a user does in Discord's client with what a bot sent: click a button,
choose in a select, fill in a modal and submit it. The page sends it
(``POST /console/act``) as the
:class:`~cmdsync.emulator.interactions.invocation.Invocation` ``cmdsync invoke``
would send (``kind`` ``component`` with ``message_id``, ``custom_id`` and a
select's ``values``; ``modal_submit`` with ``modal_of`` and the text inputs'
``fields``), and :func:`submit` hands it to
:func:`cmdsync.emulator.interactions.responses.invoke`: the emulator's checks
(:mod:`cmdsync.emulator.interactions.components`: a disabled component, a value
that is not an option, another user's ephemeral message, a modal submitted
already...) refuse what the client would not send, in their words, and the page
then shows the interaction's exchange as it shows a run's (an UPDATE_MESSAGE:
the message, updated).

:func:`context` gives the Run page's template what it needs to offer this: who
acts (the application, the user and locale of the interaction shown), what the
user, role, mentionable and channel selects list, and a modal's text inputs as
form fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from cmdsync.emulator.console import web
from cmdsync.emulator.domain.enums import ComponentType, Refusal
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions import components
from cmdsync.emulator.interactions import responses as interactions
from cmdsync.emulator.interactions.invocation import Invocation, Refused
from cmdsync.emulator.interactions.place import ACTIONS
from cmdsync.emulator.reference.error_replies import ErrorReply
from cmdsync.emulator.store.database import Store
from cmdsync.model import ChannelType

# What the page sends: the Invocation's fields for a component or a modal, no others.
SENT = ("application_id", "kind", "message_id", "custom_id", "values", "modal_of", "fields",
        "user_id", "locale")


async def submit(request: Request) -> Response:
    """``POST /console/act``: use a component or submit a modal; ``{"interaction": id,
    "failure"}`` or ``{"refused": why}``, as ``POST /console/run`` answers."""
    emulator: Emulator = request.app.state.emulator
    body = web.posted_object(request)
    if body is None:
        return JSONResponse({"refused": "send the action as a JSON object"}, status_code=400)
    try:
        if body.get("kind") not in ACTIONS:
            raise Refused(Refusal.INVALID_REQUEST, f"kind must be one of {', '.join(ACTIONS)} "
                          "(a command runs with POST /console/run)")
        unknown = sorted(set(body) - set(SENT))
        if unknown:
            raise Refused(Refusal.INVALID_REQUEST,
                          f"unknown field {unknown[0]!r}: use {', '.join(SENT)}")
        invocation = Invocation.from_json(body)
        result = await run_in_threadpool(
            interactions.invoke, emulator.store, invocation, now=emulator.clock(),
            limits=emulator.limits, gateway=emulator.gateway)
    except Refused as exc:
        return web.json_answer(request, {"refused": f"The client would not send it: {exc}"})
    except ErrorReply as exc:
        return web.json_answer(request, {"refused": f"Discord answered {exc.status} {exc.code}: "
                                                    f"{exc.message}"})
    return web.json_answer(request, {"interaction": result["interaction"]["id"],
                                     "failure": result["failure"]})


# -- what the page offers ----------------------------------------------------------------


@dataclass(frozen=True)
class TextInput:
    """A modal's text input as a form field (its label is its own or its label
    component's)."""

    custom_id: str
    label: str
    description: str
    paragraph: bool
    required: bool
    value: str
    placeholder: str
    attributes: tuple[tuple[str, str], ...]  # minlength, maxlength


def context(store: Store, exchange: Mapping[str, Any] | None) -> dict[str, Any]:
    """``{"acting", "pick", "modal"}`` for the Run page showing ``exchange`` (None: no
    interaction shown). ``acting``: the application, user and locale of the
    interaction; ``pick``: the users, roles and channels (``(id, name, type)``) of its
    place; ``modal``: its modal's text inputs and text displays (markdown), in order,
    when it was answered with one."""
    if exchange is None:
        return {"acting": None, "pick": {}, "modal": []}
    payload = exchange["interaction"]
    user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
    acting = {"application": str(payload.get("application_id") or ""),
              "user": str(user.get("id") or ""), "locale": str(payload.get("locale") or "")}
    response = exchange.get("response") or {}
    modal = modal_items(response.get("data") or {}) if response.get("type") == 9 else []
    return {"acting": acting, "pick": _pick(store, payload.get("guild_id")), "modal": modal}


def modal_items(modal: Mapping[str, Any]) -> list[TextInput | str]:
    """A modal's text inputs (:class:`TextInput`) and text displays (their markdown), in
    the order the client shows them."""
    found: list[TextInput | str] = []
    seen: set[str] = set()
    for item in components.components(modal.get("components")):
        kind = item.get("type")
        if kind == ComponentType.TEXT_DISPLAY:
            found.append(str(item.get("content") or ""))
            continue
        inner, description = item, ""
        if kind == ComponentType.LABEL and isinstance(item.get("component"), dict):
            inner, description = item["component"], str(item.get("description") or "")
        custom_id = str(inner.get("custom_id"))
        if inner.get("type") != ComponentType.TEXT_INPUT or custom_id in seen:
            continue
        seen.add(custom_id)
        attributes = tuple((attribute, str(inner[key])) for key, attribute in (
            ("min_length", "minlength"), ("max_length", "maxlength")) if key in inner)
        found.append(TextInput(custom_id, str(item.get("label") or inner.get("label") or
                                              custom_id), description,
                               inner.get("style") == 2, bool(inner.get("required", True)),
                               str(inner.get("value") or ""),
                               str(inner.get("placeholder") or ""), attributes))
    return found


def _pick(store: Store, guild_id: Any) -> dict[str, list[tuple[str, str, int]]]:
    """What the user, role, mentionable and channel selects list in the guild (in a DM,
    the users)."""
    def named(user_id: str) -> str:
        user = store.user(user_id)
        if user is not None:
            return str(user.get("global_name") or user.get("username") or user_id)
        app = store.application(user_id)
        return f"{app.name} (bot)" if app else user_id

    if not isinstance(guild_id, str) or store.guild(guild_id) is None:
        return {"users": [(str(u["id"]), f"@{named(str(u['id']))}", 0) for u in store.users()],
                "roles": [], "channels": []}
    return {"users": [(str(m["user_id"]), f"@{named(str(m['user_id']))}", 0)
                      for m in store.members(guild_id)],
            "roles": [(str(r["id"]), f"@{r['name']}", 0) for r in store.roles(guild_id)
                      if r["id"] != guild_id],
            "channels": [(str(c["id"]), (f"#{c.get('name') or c['id']} "
                                         f"({ChannelType(c['type']).name.lower()})"),
                          int(c["type"]))
                         for c in store.channels(guild_id)]}
