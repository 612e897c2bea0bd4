"""One gateway connection's protocol: what each client payload does, and what is sent.

No I/O: :class:`Connection` takes the client's frames (:meth:`receive`) and
queues payloads and a close on its :class:`~cmdsync.emulator.gateway.hub.Outlet`,
which the transport (:mod:`cmdsync.emulator.gateway.transport`) writes. As
Discord's "Gateway" documentation describes it: HELLO first; HEARTBEAT is
acknowledged (before IDENTIFY too); IDENTIFY starts a session (READY, then
GUILD_CREATE for each guild of the shard); RESUME takes one up again;
REQUEST_GUILD_MEMBERS is answered with GUILD_MEMBERS_CHUNK; PRESENCE_UPDATE,
VOICE_STATE_UPDATE, REQUEST_SOUNDBOARD_SOUNDS and REQUEST_CHANNEL_INFO are
accepted and ignored. Bad input gets the documented close code
(:class:`~cmdsync.emulator.gateway.protocol.Close`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from cmdsync.emulator.domain.enums import MAX_INTENTS, PRIVILEGED, Intent
from cmdsync.emulator.gateway import events
from cmdsync.emulator.gateway.hub import Gateway, Outlet, Session
from cmdsync.emulator.gateway.protocol import (
    Close,
    Closed,
    Op,
    decode,
    has,
    invalid,
    payload,
    snowflake,
)

MAX_NONCE_BYTES = 32  # a longer REQUEST_GUILD_MEMBERS nonce is ignored
MAX_QUERY_MEMBERS = 100  # members a query or user_ids request returns at most


class Connection:
    """The protocol state of one websocket (see the module docstring).

    ``url`` is the gateway's URL (READY's ``resume_gateway_url``); ``version``
    the API version the client connected with.
    """

    def __init__(self, gateway: Gateway, outlet: Outlet, *, url: str, version: int) -> None:
        self.gateway = gateway
        self.outlet = outlet
        self.url = url
        self.version = version
        self.session: Session | None = None
        self.compress_payloads = False  # IDENTIFY's ``compress``: zlib per payload
        self.opened = self.last_heartbeat = gateway.clock()
        self._received: deque[float] = deque()

    def hello(self) -> None:
        self.outlet.send(payload(Op.HELLO, {
            "heartbeat_interval": self.gateway.config.heartbeat_interval}))

    def timed_out(self) -> bool:
        """Close with 4009 when no heartbeat came in time, or with 4003 when no IDENTIFY
        or RESUME came within ``identify_timeout`` seconds of opening; whether it did."""
        config, now = self.gateway.config, self.gateway.clock()
        if self.session is None and now - self.opened > config.identify_timeout:
            self.outlet.close(Close.NOT_AUTHENTICATED, "Not authenticated: no IDENTIFY or "
                              f"RESUME within {config.identify_timeout:g} seconds")
            return True
        allowed = config.heartbeat_interval / 1000 * config.heartbeat_tolerance
        if now - self.last_heartbeat <= allowed:
            return False
        self.outlet.close(Close.SESSION_TIMED_OUT, "Session timed out: no heartbeat within "
                          f"{allowed:g} seconds")
        return True

    def receive(self, raw: str | bytes) -> None:
        """Act on one client frame; a problem closes the connection with its code."""
        try:
            self._count()
            message = decode(raw)
            self._handle(Op(message["op"]), message.get("d"))
        except Closed as closed:
            self.outlet.close(closed.code, closed.reason)

    def _count(self) -> None:
        """The send limit: ``send_limit`` payloads per ``send_window`` seconds, else 4008."""
        config, now = self.gateway.config, self.gateway.clock()
        while self._received and self._received[0] <= now - config.send_window:
            self._received.popleft()
        if len(self._received) >= config.send_limit:
            raise Closed(Close.RATE_LIMITED, f"Rate limited: more than {config.send_limit} "
                         f"payloads in {config.send_window:g} seconds")
        self._received.append(now)

    def _handle(self, op: Op, data: Any) -> None:
        if op == Op.HEARTBEAT:
            if data is not None and (isinstance(data, bool) or not isinstance(data, int)):
                raise invalid(op, "d must be the last sequence number or null")
            self.last_heartbeat = self.gateway.clock()
            self.outlet.send(payload(Op.HEARTBEAT_ACK))
        elif op in (Op.IDENTIFY, Op.RESUME):
            if self.session is not None:
                raise Closed(Close.ALREADY_AUTHENTICATED, "Already authenticated")
            self._identify(data) if op == Op.IDENTIFY else self._resume(data)
        elif self.session is None:
            raise Closed(Close.NOT_AUTHENTICATED, f"Not authenticated: {op.name} before "
                         "IDENTIFY")
        elif op == Op.REQUEST_GUILD_MEMBERS:
            self._request_members(data)
        elif not isinstance(data, dict):
            raise invalid(op, "d must be an object")

    # -- IDENTIFY and RESUME ----------------------------------------------------------

    def _identify(self, data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
            raise invalid(Op.IDENTIFY, "d must be an object with token, properties and "
                          "intents")
        app, token = self._authenticate(data.get("token"))
        intents = data.get("intents")
        # undocumented bits below the highest documented one are taken (enums.MAX_INTENTS)
        if isinstance(intents, bool) or not isinstance(intents, int) or intents < 0 \
                or intents > MAX_INTENTS:
            raise Closed(Close.INVALID_INTENTS, f"Invalid intent(s): {str(intents)[:30]}")
        missing = [i.name for i, flags in PRIVILEGED.items()
                   if has(intents, i) and not app.flags & flags]
        if missing:
            raise Closed(Close.DISALLOWED_INTENTS, "Disallowed intent(s): "
                         f"{', '.join(missing)} not enabled for the application")
        shard = self._shard(data.get("shard"), app.id)
        self.compress_payloads = data.get("compress") is True
        session = self.gateway.start(app, token, intents, shard, self.version, self.outlet)
        if session is None:  # the day's IDENTIFYs are spent
            self.outlet.send(payload(Op.INVALID_SESSION, False))
            return
        self.session = session
        self._ready(session, data)

    def _ready(self, session: Session, identify: dict[str, Any]) -> None:
        """READY, then GUILD_CREATE for each guild of the session's shard."""
        app, (shard_id, shards) = session.app, session.shard
        guild_ids = [g for g in self.gateway.store.guilds_of(app.id)
                     if (int(g) >> 22) % shards == shard_id]
        self.gateway.send(session, "READY", events.ready(
            app, session.id, self.url, guild_ids,
            [shard_id, shards] if identify.get("shard") is not None else None, self.version))
        threshold = identify.get("large_threshold")
        threshold = threshold if isinstance(threshold, int) and 50 <= threshold <= 250 \
            else events.LARGE_THRESHOLD
        for guild_id in guild_ids:
            self.gateway.send(session, "GUILD_CREATE", events.guild_create(
                self.gateway.store, app, guild_id,
                members=has(session.intents, Intent.GUILD_MEMBERS), large_threshold=threshold))
        self.gateway.mark_ready(session)

    def _authenticate(self, token: Any) -> tuple[Any, str]:
        value = token.removeprefix("Bot ").strip() if isinstance(token, str) else ""
        stored = self.gateway.store.token(value) if value else None
        app = self.gateway.store.application(stored.application_id) \
            if stored is not None and stored.kind == "bot" else None
        if app is None:
            raise Closed(Close.AUTHENTICATION_FAILED, "Authentication failed")
        return app, value

    def _shard(self, shard: Any, app_id: str) -> tuple[int, int]:
        if shard is None:
            shard = [0, 1]
        if not (isinstance(shard, list) and len(shard) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
                and shard[1] >= 1 and 0 <= shard[0] < shard[1]):
            raise Closed(Close.INVALID_SHARD, "Invalid shard: send [shard_id, num_shards] "
                         "with 0 <= shard_id < num_shards")
        needed = self.gateway.shards_needed(app_id)
        if shard[1] < needed:
            raise Closed(Close.SHARDING_REQUIRED, f"Sharding required: {needed} shards "
                         "needed (GET /gateway/bot)")
        return shard[0], shard[1]

    def _resume(self, data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("session_id"), str):
            raise invalid(Op.RESUME, "d must be an object with token, session_id and seq")
        seq = data.get("seq")
        if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
            raise invalid(Op.RESUME, "seq must be the last sequence number received")
        _, token = self._authenticate(data.get("token"))
        try:
            self.session = self.gateway.resume(data["session_id"], token, seq, self.outlet)
        except LookupError:
            self.outlet.send(payload(Op.INVALID_SESSION, False))

    # -- REQUEST_GUILD_MEMBERS -------------------------------------------------------

    def _request_members(self, data: Any) -> None:
        session = self.session
        assert session is not None
        request = _members_request(data)
        if request.everyone and not has(session.intents, Intent.GUILD_MEMBERS):
            raise invalid(Op.REQUEST_GUILD_MEMBERS, "the whole member list needs the "
                          "GUILD_MEMBERS intent")
        if request.guild_id not in self.gateway.store.guilds_of(session.app.id):
            return  # not one of the bot's guilds: Discord answers nothing
        retry_after = self.gateway.members_requested(session, request.guild_id) \
            if request.everyone else None
        if retry_after is not None:
            self.gateway.send(session, "RATE_LIMITED", {
                "opcode": int(Op.REQUEST_GUILD_MEMBERS), "retry_after": round(retry_after, 3),
                "meta": {"guild_id": request.guild_id, "nonce": request.nonce}})
            return
        self.gateway.send(session, "GUILD_MEMBERS_CHUNK", events.members_chunk(
            self.gateway.store, request.guild_id, query=request.query,
            limit=request.limit, user_ids=request.user_ids, nonce=request.nonce))


@dataclass(frozen=True)
class _MembersRequest:
    """A REQUEST_GUILD_MEMBERS: ``limit`` 0 is no limit (the whole list, ``everyone``)."""

    guild_id: str
    query: str | None
    limit: int
    user_ids: list[str] | None
    nonce: str | None

    @property
    def everyone(self) -> bool:
        return self.user_ids is None and self.query == "" and self.limit == 0


def _members_request(data: Any) -> _MembersRequest:
    """Read REQUEST_GUILD_MEMBERS' ``d``; :class:`Closed` 4001 when it is not one."""
    if not isinstance(data, dict):
        raise invalid(Op.REQUEST_GUILD_MEMBERS, "d must be an object")
    guild_id, user_ids = data.get("guild_id"), data.get("user_ids")
    if isinstance(guild_id, list) and len(guild_id) == 1:
        guild_id = guild_id[0]
    if isinstance(user_ids, str):
        user_ids = [user_ids]
    query, limit = data.get("query"), data.get("limit")
    if not snowflake(guild_id):
        raise invalid(Op.REQUEST_GUILD_MEMBERS, "guild_id must be one guild's id")
    if user_ids is not None and not (isinstance(user_ids, list)
                                     and all(map(snowflake, user_ids))):
        raise invalid(Op.REQUEST_GUILD_MEMBERS, "user_ids must be snowflakes")
    if user_ids is None and (not isinstance(query, str) or isinstance(limit, bool)
                             or not isinstance(limit, int) or limit < 0):
        raise invalid(Op.REQUEST_GUILD_MEMBERS, "query (a string) and limit (an integer) "
                      "are required without user_ids")
    nonce = data.get("nonce")
    if not isinstance(nonce, str) or len(nonce.encode()) > MAX_NONCE_BYTES:
        nonce = None
    everyone = user_ids is None and query == "" and limit == 0
    return _MembersRequest(
        str(guild_id), query if isinstance(query, str) else None,
        0 if everyone else min(int(limit or MAX_QUERY_MEMBERS), MAX_QUERY_MEMBERS),
        user_ids[:MAX_QUERY_MEMBERS] if user_ids else user_ids, nonce)
