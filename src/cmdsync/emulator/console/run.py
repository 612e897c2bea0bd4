"""Run a command from the console: the form built from its options, and the run.

The form sends what a user picks (place, command, subcommand, option
values); :func:`invocation_of` turns it into the
:class:`~cmdsync.emulator.interactions.invocation.Invocation` ``cmdsync invoke`` would
send, and :func:`run` hands it to
:func:`cmdsync.emulator.interactions.responses.invoke`: the same checks, the same
refusals, the same interaction. Autocomplete sends the option being typed
last, as the client does, and shows the choices the bot answers.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from cmdsync.emulator.console import actions, pages, views, web
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.emulator.domain.objects import StoredCommand
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions import responses as interactions
from cmdsync.emulator.interactions.invocation import Invocation, Refused
from cmdsync.emulator.reference.error_replies import ErrorReply
from cmdsync.emulator.store.database import Store
from cmdsync.model import ChannelType, CommandType, OptionType

_SUBCOMMANDS = (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP)
_FIELDS = {OptionType.STRING: "text", OptionType.INTEGER: "integer",
           OptionType.NUMBER: "number", OptionType.BOOLEAN: "boolean",
           OptionType.USER: "user", OptionType.CHANNEL: "channel", OptionType.ROLE: "role",
           OptionType.MENTIONABLE: "mentionable", OptionType.ATTACHMENT: "attachment"}


@dataclass(frozen=True)
class Field:
    """One input of the form: an option, its widget and what it accepts."""

    name: str
    label: views.Shown
    description: views.Shown
    kind: str  # a key of _FIELDS' values, or "choice"
    required: bool
    autocomplete: bool
    attributes: tuple[tuple[str, str], ...]  # min, max, step, minlength, maxlength
    choices: tuple[tuple[str, str], ...]  # (value, label)


@dataclass(frozen=True)
class Path:
    """A subcommand path (empty for a command without subcommands) and its fields."""

    words: tuple[str, ...]
    fields: tuple[Field, ...]

    @property
    def key(self) -> str:
        return " ".join(self.words)


def paths(command: StoredCommand, locale: str, store: Store, guild_id: str | None
          ) -> list[Path]:
    """Every subcommand path of ``command`` with the fields of its options."""
    found: list[Path] = []

    def walk(options: list[dict[str, Any]], words: tuple[str, ...]) -> None:
        nested = [o for o in options if o["type"] in _SUBCOMMANDS]
        if not nested:
            found.append(Path(words, tuple(_field(o, locale, store, guild_id)
                                           for o in options)))
        for option in nested:
            walk(list(option.get("options") or []), (*words, option["name"]))

    if command.type == CommandType.CHAT_INPUT:
        walk(list(command.body.get("options") or []), ())
    return found


def _field(option: Mapping[str, Any], locale: str, store: Store, guild_id: str | None
           ) -> Field:
    kind = OptionType(option["type"])
    attributes: list[tuple[str, str]] = []
    for key, attribute in (("min_value", "min"), ("max_value", "max"),
                           ("min_length", "minlength"), ("max_length", "maxlength")):
        if key in option:
            attributes.append((attribute, str(option[key])))
    if kind == OptionType.INTEGER:
        attributes.append(("step", "1"))
    elif kind == OptionType.NUMBER:
        attributes.append(("step", "any"))
    choices: list[tuple[str, str]] = []
    field_kind = _FIELDS[kind]
    if option.get("choices"):
        field_kind = "choice"
        choices = [(str(c["value"]), views.shown(c, "name", locale).value)
                   for c in option["choices"]]
    elif kind in (OptionType.USER, OptionType.MENTIONABLE):
        choices = _users(store, guild_id)
        if kind == OptionType.MENTIONABLE:
            choices += _roles(store, guild_id)
    elif kind == OptionType.ROLE:
        choices = _roles(store, guild_id)
    elif kind == OptionType.CHANNEL and guild_id:
        allowed = option.get("channel_types")
        choices = [(f"<#{c['id']}>", (f"#{c.get('name') or c['id']} "
                    f"({ChannelType(c['type']).name.lower()})"))
                   for c in store.channels(guild_id)
                   if not allowed or c["type"] in allowed]
    return Field(option["name"], views.shown(option, "name", locale),
                 views.shown(option, "description", locale), field_kind,
                 bool(option.get("required")), bool(option.get("autocomplete")),
                 tuple(attributes), tuple(choices))


def _users(store: Store, guild_id: str | None) -> list[tuple[str, str]]:
    if guild_id:
        ids = [str(m["user_id"]) for m in store.members(guild_id)]
    else:
        ids = [str(u["id"]) for u in store.users()]
    return [(f"<@{user_id}>", f"@{user_label(store, user_id)}") for user_id in ids]


def _roles(store: Store, guild_id: str | None) -> list[tuple[str, str]]:
    if not guild_id:
        return []
    return [(f"<@&{r['id']}>", f"@{r['name']}") for r in store.roles(guild_id)
            if r["id"] != guild_id]


def user_label(store: Store, user_id: str) -> str:
    user = store.user(user_id)
    if user is None:
        app = store.application(user_id)
        return f"{app.name} (bot)" if app else user_id
    return str(user.get("global_name") or user.get("username") or user_id)


# -- running -------------------------------------------------------------------------


def invocation_of(form: Mapping[str, Any], command: StoredCommand) -> Invocation:
    """The invocation the form describes (see the module docstring); :class:`Refused`
    when the form is malformed."""
    def text(key: str) -> str | None:
        value = form.get(key)
        if value is not None and not isinstance(value, str):
            raise Refused(Refusal.INVALID_REQUEST, f"{key} must be a string")
        return value or None

    place = Invocation(command.application_id, guild_id=text("guild"),
                       channel_id=text("channel"), user_id=text("user"),
                       locale=text("locale") or "en-US")
    if command.type in (CommandType.USER, CommandType.MESSAGE):
        kind = "user" if command.type == CommandType.USER else "message"
        return replace(place, kind=kind, name=command.name, target_id=text("target"))
    if command.type != CommandType.CHAT_INPUT:
        raise Refused(Refusal.INVALID_REQUEST,
                      f"{command.name} is an entry point: the client launches the activity "
                      "instead of sending an interaction you can run here")
    options = form.get("options") or {}
    focused = text("focused")
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise Refused(Refusal.INVALID_REQUEST, "options must map option names to text")
    words = [f"/{command.name}", *(text("path") or "").split()]
    given = [(name, value) for name, value in options.items() if value != "" and name != focused]
    if focused is not None:
        given.append((focused, options.get(focused, "")))
    words += [f"{name}:{shlex.quote(value)}" for name, value in given]
    return replace(place, line=" ".join(words), autocomplete=focused is not None)


async def submit(request: Request) -> Response:
    """``POST /console/run``: run the form's command; ``{"interaction": id}`` or
    ``{"refused": why}`` (the autocomplete choices with ``focused``)."""
    emulator: Emulator = request.app.state.emulator
    form = web.posted_object(request)
    if form is None:
        return JSONResponse({"refused": "send the form as a JSON object"}, status_code=400)
    command = _command(emulator, form)
    try:
        if command is None:
            raise Refused(Refusal.INVALID_REQUEST,
                          "choose a command: it is not in the emulator (any more)")
        invocation = invocation_of(form, command)
        result = await run_in_threadpool(
            interactions.invoke, emulator.store, invocation, now=emulator.clock(),
            limits=emulator.limits, gateway=emulator.gateway)
    except Refused as exc:
        return web.json_answer(request, {"refused": f"The client would not send it: {exc}"})
    except ErrorReply as exc:
        return web.json_answer(request, {"refused": f"Discord answered {exc.status} {exc.code}: "
                               f"{exc.message} (run it again: the client now has the new "
                               "version)"})
    interaction_id = result["interaction"]["id"]
    if invocation.autocomplete:
        data = (result.get("response") or {}).get("data") or {}
        return web.json_answer(request, {"interaction": interaction_id, "failure": result["failure"],
                               "choices": [{"name": c.get("name"), "value": c.get("value")}
                                           for c in data.get("choices") or []]})
    return web.json_answer(request, {"interaction": interaction_id, "failure": result["failure"]})


def _command(emulator: Emulator, form: Mapping[str, Any]) -> StoredCommand | None:
    app_id, command_id = form.get("application"), form.get("command")
    if not isinstance(app_id, str) or not isinstance(command_id, str):
        return None
    guild = form.get("guild") if isinstance(form.get("guild"), str) else ""
    with emulator.store.transaction() as db:
        for scope in ([guild] if guild else []) + [""]:
            found = emulator.store.command(db, app_id, scope, command_id)
            if found is not None:
                return found
    return None


# -- the page --------------------------------------------------------------------------


async def page(request: Request) -> Response:
    """``GET /console/run``: the place, the command, its form, and the last run."""
    emulator: Emulator = request.app.state.emulator
    store, query = emulator.store, request.query_params
    context = pages.base(request, "run")
    app = context["app"]
    guild_ids = [g["id"] for g in context["guilds"]]
    guild_id = query.get("guild", guild_ids[0] if guild_ids else "")
    guild_id = guild_id if guild_id in guild_ids else ""
    choices = [c for c in pages.scope_commands(emulator, app.id, [guild_id, ""] if guild_id
                                               else [""])
               if c.type != CommandType.PRIMARY_ENTRY_POINT] if app else []
    command_id = pages.pick(query.get("command"), [c.id for c in choices])
    command = next((c for c in choices if c.id == command_id), None)
    locale = pages.pick(query.get("locale"), pages.LOCALE_CHOICES, "en-US") or "en-US"
    channels = store.channels(guild_id) if guild_id else []
    users = _users(store, guild_id or None)
    # Secrets hidden before a message is cut short: a cut one would not be recognised.
    hide = web.redactor_of(emulator)
    targets: list[tuple[str, str]] = []
    if command is not None and command.type == CommandType.USER:
        targets = users
    elif command is not None and command.type == CommandType.MESSAGE and guild_id:
        targets = [(m["id"], (f"{user_label(store, str(m['author_id']))}: "
                    f"{hide.text(str(m.get('content', '')))[:40]} (#{m['channel_id']})"))
                   for m in store.seed_messages(guild_id)]
    exchange = None
    wanted = query.get("interaction", "")
    if wanted.isdigit():
        try:
            exchange = interactions.exchange(store, wanted)
        except ErrorReply:
            exchange = None
    if exchange is not None:
        exchange = {**exchange, "interaction": web.without_token(exchange["interaction"]),
                    "id": wanted}
    context.update(guild_id=guild_id, choices=choices, command=command, locale=locale,
                   locales=pages.LOCALE_CHOICES, channels=channels, users=users,
                   targets=targets, exchange=exchange, label=pages.label,
                   paths=paths(command, locale, store, guild_id or None) if command else [],
                   chosen={"channel": query.get("channel", ""), "user": query.get("user", "")},
                   user_label=lambda user_id: user_label(store, user_id),
                   **actions.context(store, exchange))
    return web.page(request, "run.html", context, redactor=hide)
