"""A user clicking a button, choosing in a select, or submitting a modal: only what the
client lets them do, then the interaction Discord sends for it.

Discord's "Interactions > Receiving and Responding" (``MESSAGE_COMPONENT`` and
``MODAL_SUBMIT`` interactions, their ``data``) and "Message Components" (buttons,
selects and their ``resolved``, text inputs). :func:`prepare_component` finds the
component on a message the application sent (by ``custom_id``, or a button by its
``label``) and refuses, as the client would not send it, a message that is not there,
an ephemeral message of another user, a component that is not there, a disabled one, a
link or premium button (it sends no interaction), and a choice that is not an option
or is outside ``min_values``-``max_values``. :func:`prepare_modal` takes the modal an
interaction was answered with (``MODAL``) and the text of its inputs by ``custom_id``:
a required one must be given, each within its ``min_length``-``max_length``, and only
the user the modal was shown to may submit it.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from cmdsync.emulator.application_commands.command_line import Refused
from cmdsync.emulator.domain import payloads
from cmdsync.emulator.domain.enums import (
    ButtonStyle,
    CallbackType,
    ComponentType,
    InteractionType,
    Refusal,
)
from cmdsync.emulator.domain.objects import Application, Interaction
from cmdsync.emulator.interactions.options import resolve_user
from cmdsync.emulator.interactions.payload import app_permissions, interaction_payload
from cmdsync.emulator.interactions.place import Invocation, Where, place_of
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.store.database import Store

SELECTS = (ComponentType.STRING_SELECT, ComponentType.USER_SELECT, ComponentType.ROLE_SELECT,
           ComponentType.MENTIONABLE_SELECT, ComponentType.CHANNEL_SELECT)
MAX_INPUT = 4000  # characters in a text input's value


def prepare_component(store: Store, db: sqlite3.Connection, invocation: Invocation, *,
                      interaction_id: str) -> tuple[Application, dict[str, Any], str]:
    """``(app, payload, token)`` of the MESSAGE_COMPONENT interaction ``invocation``
    (``kind`` ``component``) sends; :class:`Refused` (see the module docstring)."""
    app = _application(store, invocation)
    if not invocation.message_id:
        raise Refused(Refusal.INVALID_REQUEST, "a component is on a message: give message_id")
    found = store.any_message(db, invocation.message_id)
    if found is None:
        raise Refused(Refusal.UNKNOWN_MESSAGE, f"no message {invocation.message_id} in the "
                      "emulator: click a component of a message the bot sent")
    message = found[1]
    if app.id not in (message.get("application_id"), (message.get("author") or {}).get("id")):
        raise Refused(Refusal.UNKNOWN_MESSAGE, f"message {message['id']} was not sent by "
                      f"application {app.id}: its components send it nothing")
    where = place_of(store, _here(invocation, message))
    _check_viewer(message, where, "message", message["id"])
    component = _find(message, invocation)
    data: dict[str, Any] = {"custom_id": component["custom_id"],
                            "component_type": int(component["type"])}
    if component["type"] in SELECTS:
        data["values"], resolved = _choose(store, component, invocation.values or (), where)
        if resolved:
            data["resolved"] = resolved
    elif invocation.values:
        raise Refused(Refusal.INVALID_VALUES, f"{_name(component)} is a button: it takes no "
                      "values")
    metadata = message.get("interaction_metadata") or {}
    owners = dict(metadata.get("authorizing_integration_owners") or _owners(where))
    token = secrets.token_urlsafe(48)
    payload = interaction_payload(app, invocation, where, data, owners, token, interaction_id,
                                  app_permissions(store, app, where),
                                  kind=InteractionType.MESSAGE_COMPONENT)
    payload["message"] = message
    return app, payload, token


def prepare_modal(store: Store, db: sqlite3.Connection, invocation: Invocation, *,
                  interaction_id: str) -> tuple[Application, dict[str, Any], str]:
    """``(app, payload, token)`` of the MODAL_SUBMIT interaction of the modal the
    interaction ``invocation.modal_of`` was answered with; :class:`Refused`."""
    app = _application(store, invocation)
    opened = store.interaction(db, interaction_id=invocation.modal_of or "")
    if opened is None or opened.application_id != app.id:
        raise Refused(Refusal.UNKNOWN_COMPONENT, f"no interaction {invocation.modal_of} of "
                      f"application {app.id}: give the interaction a modal answered")
    response = opened.response or {}
    if response.get("type") != 9:
        raise Refused(Refusal.UNKNOWN_COMPONENT, f"interaction {opened.id} was not answered "
                      "with a modal (MODAL): there is nothing to submit")
    modal, shown = response.get("data") or {}, opened.payload
    user = (shown.get("member") or {}).get("user") or shown.get("user") or {}
    where = place_of(store, replace(invocation, guild_id=shown.get("guild_id"),
                                    channel_id=shown.get("channel_id"),
                                    user_id=invocation.user_id or user.get("id")))
    if where.user["id"] != user.get("id"):
        raise Refused(Refusal.NOT_YOURS, f"the modal {modal.get('custom_id')!r} was shown to "
                      f"user {user.get('id')}, not {where.user['id']}")
    if any(((s.payload.get("member") or {}).get("user") or s.payload.get("user") or {}
            ).get("id") == where.user["id"]
           for s in store.later_submits(db, opened, str(modal.get("custom_id")))):
        raise Refused(Refusal.CLOSED, f"the modal {modal.get('custom_id')!r} was submitted "
                      "already, and the client closed it: run the command again to open it")
    data = {"custom_id": modal.get("custom_id"),
            "components": _submitted(modal, dict(invocation.fields or ()))}
    token = secrets.token_urlsafe(48)
    payload = interaction_payload(app, invocation, where, data, dict(
        shown.get("authorizing_integration_owners") or _owners(where)), token, interaction_id,
        app_permissions(store, app, where), kind=InteractionType.MODAL_SUBMIT)
    if shown.get("message"):  # a modal opened from a component: its message comes along
        payload["message"] = shown["message"]
    return app, payload, token


def components(tree: Sequence[Any] | None) -> Iterator[dict[str, Any]]:
    """Every component of a message or modal, depth first: action rows' children, a
    section's accessory, a label's component."""
    for item in tree or ():
        if not isinstance(item, dict):
            continue
        yield item
        yield from components(item.get("components"))
        for key in ("accessory", "component"):
            if isinstance(item.get(key), dict):
                yield from components([item[key]])


# -- a component ------------------------------------------------------------------


def _application(store: Store, invocation: Invocation) -> Application:
    app = store.application(invocation.application_id)
    if app is None:
        raise Refused(Refusal.UNKNOWN_APPLICATION,
                      f"no application {invocation.application_id} in the emulator")
    return app


def _here(invocation: Invocation, message: Mapping[str, Any]) -> Invocation:
    """Where the user is: the message's channel (and guild, or the DM)."""
    return replace(invocation, guild_id=message.get("guild_id"),
                   channel_id=message["channel_id"], context=None)


def _check_viewer(message: Mapping[str, Any], where: Where, what: str, name: str) -> None:
    """An ephemeral message is seen by the user it answered only."""
    if not int(message.get("flags") or 0) & 64:
        return
    shown = ((message.get("interaction_metadata") or {}).get("user") or {}).get("id")
    if shown != where.user["id"]:
        raise Refused(Refusal.NOT_YOURS, f"{what} {name} is ephemeral: only user {shown} "
                      f"sees it, not {where.user['id']}")


def _find(message: Mapping[str, Any], invocation: Invocation) -> dict[str, Any]:
    usable = [c for c in components(message.get("components"))
              if c.get("type") == ComponentType.BUTTON or c.get("type") in SELECTS]
    if invocation.custom_id is not None:
        found = [c for c in usable if c.get("custom_id") == invocation.custom_id]
        wanted = f"custom_id {invocation.custom_id!r}"
    elif invocation.label is not None:
        found = [c for c in usable if c.get("type") == ComponentType.BUTTON
                 and c.get("label") == invocation.label]
        wanted = f"a button labelled {invocation.label!r}"
    elif invocation.values is not None and len(selects := [
            c for c in usable if c.get("type") in SELECTS]) == 1:
        found, wanted = selects, "a select"  # the message's only select needs no name
    else:
        raise Refused(Refusal.INVALID_REQUEST, "name the component: custom_id, or a "
                      "button's label (a select's custom_id, unless it is the message's "
                      "only select)")
    if not found:
        there = ", ".join(_name(c) for c in usable) or "no buttons or selects"
        raise Refused(Refusal.UNKNOWN_COMPONENT, f"message {message['id']} has no component "
                      f"with {wanted}: it has {there}")
    component = found[0]
    if component.get("type") == ComponentType.BUTTON and component.get("style") in (
            ButtonStyle.LINK, ButtonStyle.PREMIUM):
        raise Refused(Refusal.UNKNOWN_COMPONENT, f"{_name(component)} is a "
                      f"{ButtonStyle(component['style']).name.lower()} button: the client "
                      "opens it, and no interaction is sent")
    if component.get("disabled"):
        raise Refused(Refusal.DISABLED, f"{_name(component)} is disabled")
    return component


def _name(component: Mapping[str, Any]) -> str:
    kind = ComponentType(component["type"]).name.lower().replace("_", " ")
    if component.get("type") == ComponentType.BUTTON and component.get("label"):
        return f"button {component['label']!r}"
    return f"{kind} {component.get('custom_id')!r}"


def _choose(store: Store, component: Mapping[str, Any], values: Sequence[str], where: Where
            ) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The values of a select (a string select's given by value or label), checked as the
    client allows, and the ``resolved`` objects of the others' ids."""
    low = int(component.get("min_values", 1))
    high = int(component.get("max_values", 1))
    if not low <= len(values) <= high:
        span = f"{low}" if low == high else f"{low} to {high}"
        raise Refused(Refusal.INVALID_VALUES, f"{_name(component)} takes {span} "
                      f"value{'s' * (high != 1)}, not {len(values)}")
    if component["type"] == ComponentType.STRING_SELECT:
        options = component.get("options") or []
        by_label = {o.get("label"): o.get("value") for o in options}
        chosen = []
        for value in values:
            if any(o.get("value") == value for o in options):
                chosen.append(value)
            elif value in by_label:
                chosen.append(str(by_label[value]))
            else:
                there = ", ".join(repr(o.get("label")) for o in options)
                raise Refused(Refusal.INVALID_VALUES, f"{value!r} is not an option of "
                              f"{_name(component)}: choose one of {there}")
        return chosen, {}
    return list(values), _resolved(store, component, values, where)


def _resolved(store: Store, component: Mapping[str, Any], values: Sequence[str],
              where: Where) -> dict[str, dict[str, Any]]:
    """Discord's ``resolved`` for a user, role, mentionable or channel select."""
    kind, guild = component["type"], where.guild
    resolved: dict[str, dict[str, Any]] = {}
    for value in values:
        role = store.role(guild["id"], value) if guild else None
        user = store.user(value)
        if kind in (ComponentType.ROLE_SELECT, ComponentType.MENTIONABLE_SELECT) and role:
            resolved.setdefault("roles", {})[value] = payloads.resolved_role(role)
        elif kind in (ComponentType.USER_SELECT, ComponentType.MENTIONABLE_SELECT) and user:
            resolve_user(store, value, user, where, resolved)
        elif kind == ComponentType.CHANNEL_SELECT and guild and (
                channel := store.channel(guild["id"], value)):
            allowed = component.get("channel_types")
            if allowed and channel["type"] not in allowed:
                raise Refused(Refusal.INVALID_VALUES, f"{_name(component)} takes channels of "
                              f"types {allowed}, not channel {value}")
            resolved.setdefault("channels", {})[value] = payloads.interaction_channel(
                channel, guild["id"], where.permissions)
        else:
            what = {ComponentType.USER_SELECT: "user", ComponentType.ROLE_SELECT: "role",
                    ComponentType.CHANNEL_SELECT: "channel"}.get(kind, "user or role")
            raise Refused(Refusal.INVALID_VALUES, f"no {what} {value} here to choose in "
                          f"{_name(component)}")
    return resolved


def _owners(where: Where) -> dict[str, str]:
    return {"0": where.guild["id"]} if where.guild else {"1": where.user["id"]}


# -- a modal ------------------------------------------------------------------------


def _submitted(modal: Mapping[str, Any], fields: dict[str, str]) -> list[dict[str, Any]]:
    """The modal's components as MODAL_SUBMIT carries them: each text input with the
    ``value`` typed (rows stay rows, labels stay labels, a text display is its ``type``
    and ``id``), every one with the ``id`` Discord gave it in the modal
    (:func:`~cmdsync.emulator.domain.payloads.numbered_components`; "Component
    Reference": each "Interaction Response Structure" has ``type`` and ``id``);
    :class:`Refused` for a required input left out, a value out of its length, or an
    unknown ``custom_id``."""
    inputs = {str(c.get("custom_id")): c for c in components(modal.get("components"))
              if c.get("type") == ComponentType.TEXT_INPUT}
    labels = _labels(modal.get("components"))
    by_label = {label: custom_id for custom_id, label in labels.items()
                if list(labels.values()).count(label) == 1}
    fields = {key if key in inputs else by_label.get(key, key): value
              for key, value in fields.items()}  # an input by its custom_id, or its label
    unknown = sorted(set(fields) - set(inputs))
    if unknown:
        there = ", ".join(f"{c!r} (label {labels[c]!r})" if c in labels else repr(c)
                          for c in inputs)
        raise Refused(Refusal.UNKNOWN_COMPONENT, f"the modal {modal.get('custom_id')!r} has "
                      f"no text input {unknown[0]!r}: it has {there}")
    for custom_id, field in inputs.items():
        value = fields.get(custom_id, str(field.get("value") or ""))
        low, high = int(field.get("min_length", 0)), int(field.get("max_length", MAX_INPUT))
        if field.get("required", True) and not value:
            raise Refused(Refusal.INVALID_VALUES, f"text input {custom_id!r} is required: "
                          "give it a value")
        if value and not low <= len(value) <= high:
            raise Refused(Refusal.INVALID_VALUES, f"text input {custom_id!r} takes {low} to "
                          f"{high} characters, not {len(value)}")
        fields[custom_id] = value

    def submit(item: Mapping[str, Any]) -> dict[str, Any]:
        kind = int(item.get("type", ComponentType.ACTION_ROW))
        if kind == ComponentType.TEXT_INPUT:
            return {"type": kind, "id": item["id"], "custom_id": item.get("custom_id"),
                    "value": fields[str(item.get("custom_id"))]}
        if kind == ComponentType.LABEL and isinstance(item.get("component"), dict):
            return {"type": kind, "id": item["id"], "component": submit(item["component"])}
        if kind == ComponentType.TEXT_DISPLAY:
            return {"type": kind, "id": item["id"]}
        return {"type": kind, "id": item["id"], "components": [
            submit(child) for child in item.get("components") or []
            if isinstance(child, dict)]}

    shown = payloads.numbered_components(list(modal.get("components") or []))
    return [submit(item) for item in shown if isinstance(item, dict)]


def _labels(tree: Sequence[Any] | None) -> dict[str, str]:
    """``{custom_id: label}`` of a modal's text inputs: a text input's own ``label``, or
    that of the label component (type 18) around it."""
    found: dict[str, str] = {}
    for item in components(tree):
        inner = item.get("component") if item.get("type") == ComponentType.LABEL else item
        if isinstance(inner, dict) and inner.get("type") == ComponentType.TEXT_INPUT \
                and isinstance(item.get("label"), str):
            found[str(inner.get("custom_id"))] = item["label"]
    return found


# -- the message a component is on, updated ---------------------------------------


def update_message(store: Store, db: Any, message_id: str, data: Mapping[str, Any], now: float
            ) -> None:
    """UPDATE_MESSAGE: the message the component is on takes the response's content,
    embeds, components and flags (what it gives), edited now."""
    found = store.any_message(db, message_id)
    if found is None:
        raise error_replies.unknown_message()
    kept_as, message = found
    for key in ("content", "embeds", "components"):
        if key in data:
            message[key] = data[key] if data[key] is not None else (
                "" if key == "content" else [])
    if "components" in data:  # the new ones, numbered afresh
        message["components"] = payloads.numbered_components(message["components"])
    message["edited_timestamp"] = payloads.iso(now)
    store.replace_message(db, kept_as, message)


def updated(store: Store, db: Any, record: Interaction) -> dict[str, Any]:
    """``{"updated": message}``: the message a component or modal interaction's response
    updated (UPDATE_MESSAGE, or DEFERRED_UPDATE_MESSAGE and its later edits), as it is now."""
    message_id = (record.payload.get("message") or {}).get("id")
    if not message_id or (record.response or {}).get("type") not in (CallbackType.DEFERRED_UPDATE_MESSAGE,
                                                           CallbackType.UPDATE_MESSAGE):
        return {}
    found = store.any_message(db, message_id)
    return {"updated": found[1]} if found else {}
