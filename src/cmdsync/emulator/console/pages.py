"""The console's pages: Commands, Who can use it, Run, Log and Messages.

Each page is a GET with its choices in the query string (``application``,
``scope`` or ``guild``, ``command``, ``locale``, filters), so every view has
an address to bookmark or share, and a reload shows it again. Unknown
choices fall back to the first there is; the Commands page's scope, when none
is chosen, to the first that has commands (global first).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cmdsync.emulator.application_commands import bodies
from cmdsync.emulator.console import views, web
from cmdsync.emulator.domain.objects import Application, Guild, StoredCommand
from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions import responses as interactions
from cmdsync.emulator.reference.log import LogEntry
from cmdsync.emulator.resources import messages
from cmdsync.emulator.routes import ROUTES
from cmdsync.model import LOCALES, CommandType

_BUCKETS = {f"{route.method} {route.path}": route.bucket for route in ROUTES}
LOCALE_CHOICES = sorted(LOCALES, key=lambda tag: (tag != "en-US", tag.lower()))
_LOG_LIMIT = 500
LOCAL_STATE = os.path.join(".cmdsync", "local.sqlite")  # cmdsync.runners.session's


def _emulator(request: Request) -> Emulator:
    emulator: Emulator = request.app.state.emulator
    return emulator


def _applications(emulator: Emulator) -> list[Application]:
    with emulator.store.transaction() as db:
        ids = [row[0] for row in db.execute("SELECT id FROM applications ORDER BY id")]
    return [app for app in map(emulator.store.application, ids) if app is not None]


def pick(value: str | None, choices: list[str], default: str | None = None) -> str | None:
    if value in choices:
        return value
    return default if default is not None else (choices[0] if choices else None)


def _guilds(emulator: Emulator, app_id: str | None) -> list[Guild]:
    store = emulator.store
    ids = store.guilds_of(app_id) if app_id else store.guild_ids()
    return [guild for guild in map(store.guild, ids) if guild is not None]


def scope_commands(emulator: Emulator, app_id: str, scopes: list[str]
                    ) -> list[StoredCommand]:
    with emulator.store.transaction() as db:
        return [c for scope in scopes for c in emulator.store.commands(db, app_id, scope)]


def scope_counts(emulator: Emulator, app_id: str) -> dict[str, int]:
    """How many commands ``app_id`` has in each scope that has any (``global`` or a
    guild's id)."""
    with emulator.store.transaction() as db:
        rows = db.execute("SELECT guild_id, COUNT(*) FROM commands WHERE application_id = ? "
                          "GROUP BY guild_id", (app_id,)).fetchall()
    return {row[0] or "global": int(row[1]) for row in rows}


def base(request: Request, current: str) -> dict[str, Any]:
    emulator = _emulator(request)
    apps = _applications(emulator)
    app_id = pick(request.query_params.get("application"), [a.id for a in apps])
    app = next((a for a in apps if a.id == app_id), None)
    return {"current": current, "applications": apps, "app": app,
            "guilds": _guilds(emulator, app_id), "query": dict(request.query_params)}


async def commands_page(request: Request) -> Response:
    emulator, context = _emulator(request), base(request, "commands")
    app: Application | None = context["app"]
    scopes = ["global", *[g["id"] for g in context["guilds"]]]
    counts = scope_counts(emulator, app.id) if app else {}
    with_commands = [s for s in scopes if counts.get(s)]
    scope = pick(request.query_params.get("scope"), scopes,
                 with_commands[0] if with_commands else "global") or "global"
    locale = pick(request.query_params.get("locale"), LOCALE_CHOICES, "en-US") or "en-US"
    stored = scope_commands(emulator, app.id, ["" if scope == "global" else scope]) \
        if app else []
    rendered = [bodies.command(c, app) for c in stored] if app else []
    context.update(scope=scope, scopes=scopes, locale=locale, locales=LOCALE_CHOICES,
                   picker=views.picker(stored, rendered, locale),
                   elsewhere=[(s, counts[s]) for s in with_commands if s != scope])
    return web.page(request, "commands.html", context)


async def permissions_page(request: Request) -> Response:
    emulator, context = _emulator(request), base(request, "permissions")
    app: Application | None = context["app"]
    guild_id = pick(request.query_params.get("guild"), [g["id"] for g in context["guilds"]])
    choices = scope_commands(emulator, app.id, [guild_id, ""]) if app and guild_id else []
    choices = [c for c in choices if c.type != CommandType.PRIMARY_ENTRY_POINT]
    command_id = pick(request.query_params.get("command"), [c.id for c in choices])
    command = next((c for c in choices if c.id == command_id), None)
    table = await run_in_threadpool(views.permission_table, emulator.store, app, command,
                                    guild_id) if app and command and guild_id else None
    context.update(guild_id=guild_id, choices=choices, command=command, table=table,
                   label=label)
    return web.page(request, "permissions.html", context)


async def log_page(request: Request) -> Response:
    emulator, context = _emulator(request), base(request, "log")
    query = request.query_params
    entries = [_log_row(entry) for entry in reversed(emulator.log.entries())]
    status, text = query.get("status", ""), query.get("q", "").strip().lower()
    if status in ("2xx", "3xx", "4xx", "5xx"):
        entries = [e for e in entries if str(e["status"]).startswith(status[0])]
    elif status == "429":
        entries = [e for e in entries if e["status"] == 429]
    if text:
        entries = [e for e in entries if text in e["route"].lower() or text in e["path"]
                   or text in e["bucket"].lower()
                   or text in e["ratelimit"].get("X-RateLimit-Bucket", "")]
    apps = [a.id for a in context["applications"]]
    path = state_file(emulator)
    context.update(entries=entries[:_LOG_LIMIT], shown=min(len(entries), _LOG_LIMIT),
                   matched=len(entries), counts=emulator.log.counts(), status=status, q=text,
                   budgets=views.budgets(emulator.store, apps, now=emulator.clock(),
                                         limit=emulator.limits.daily_creates),
                   exchanges=_exchanges(emulator, query.get("application")),
                   faults=emulator.faults.counts, sessions=emulator.gateway.sessions(),
                   ratelimit=emulator.limiter.config, state_file=path,
                   local=path.endswith(os.sep + LOCAL_STATE))
    return web.page(request, "log.html", context)


def state_file(emulator: Emulator) -> str:
    """The path of the emulator's SQLite state file, ``""`` when it is in memory."""
    with emulator.store.transaction() as db:
        row = db.execute("PRAGMA database_list").fetchone()
    return str(row[2] or "") if row is not None else ""


def _log_row(entry: LogEntry) -> dict[str, Any]:
    row = dataclasses.asdict(entry)
    row["bucket"] = _BUCKETS.get(entry.route, "")
    return row


def _exchanges(emulator: Emulator, app_id: str | None) -> list[dict[str, Any]]:
    """The last interactions, newest first: what was run, by whom, and how it ended."""
    with emulator.store.transaction() as db:
        rows = db.execute("SELECT id, created_at FROM interactions ORDER BY length(id) DESC, "
                          "id DESC LIMIT 100").fetchall()
    found = []
    for row in rows:
        exchange = interactions.exchange(emulator.store, row[0])
        payload = exchange["interaction"]
        if app_id and payload.get("application_id") != app_id:
            continue
        user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
        found.append({"id": row[0], "payload": web.without_token(payload),
                      "response": exchange["response"], "messages": exchange["messages"],
                      "failure": exchange["failure"],
                      "user": user, "command": _command_line(payload), "at": row[1],
                      "first": _after(row[1], exchange["messages"])})
    return found


def _after(created_at: float, sent: list[dict[str, Any]]) -> int | None:
    """Milliseconds from the interaction to its first message, if it has one."""
    if not sent:
        return None
    try:
        first = datetime.fromisoformat(str(sent[0]["timestamp"])).timestamp()
    except (KeyError, ValueError):
        return None
    return max(round((first - created_at) * 1000), 0)


def _command_line(payload: Mapping[str, Any]) -> str:
    data = payload.get("data") or {}
    if payload.get("type") == 3:  # MESSAGE_COMPONENT: what was clicked or chosen
        values = data.get("values")
        return f"component {data.get('custom_id')} on message " \
            f"{(payload.get('message') or {}).get('id')}" + (
                f" values {', '.join(map(str, values))}" if values else "")
    if payload.get("type") == 5:  # MODAL_SUBMIT
        return f"modal {data.get('custom_id')} submitted"
    words = [("/" if data.get("type", 1) == 1 else "") + str(data.get("name", "?"))]

    def walk(options: list[dict[str, Any]]) -> None:
        for option in options:
            if "value" in option:
                words.append(f"{option['name']}:{option['value']}")
            else:
                words.append(option["name"])
                walk(option.get("options") or [])

    walk(data.get("options") or [])
    if data.get("target_id"):
        words.append(f"(target {data['target_id']})")
    return " ".join(words) + (" [autocomplete]" if payload.get("type") == 4 else "")


async def messages_page(request: Request) -> Response:
    emulator, context = _emulator(request), base(request, "messages")
    sent = messages.sent(emulator.store)
    counts: dict[str, int] = {}
    for message in sent:
        counts[message["channel_id"]] = counts.get(message["channel_id"], 0) + 1
    channels = [(guild, [{**c, "count": counts.get(c["id"], 0)}
                         for c in emulator.store.channels(guild["id"])])
                for guild in _guilds(emulator, None)]
    known = {c["id"] for _, group in channels for c in group}
    others = sorted(set(counts) - known)  # DM channels
    wanted = request.query_params.get("channel")
    channel_id = wanted if wanted in counts or wanted in known else (
        next((c for c in counts), None))
    context.update(channels=channels, others=[(c, counts[c]) for c in others],
                   channel_id=channel_id,
                   shown=[m for m in sent if m["channel_id"] == channel_id])
    return web.page(request, "messages.html", context)


def label(command: StoredCommand) -> str:
    return f"/{command.name}" if command.type == CommandType.CHAT_INPUT else \
        f"{command.name} ({CommandType(command.type).name.lower()} command)"
