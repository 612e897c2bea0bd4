"""Sessions of the emulator's gateway, and dispatching events to them.

A :class:`Gateway` belongs to one :class:`~cmdsync.emulator.instance.Emulator`
(``emulator.gateway``). It holds every session an IDENTIFY started: its
sequence number, the dispatches it was sent (kept for RESUME, at most
``GatewayConfig.replay_limit``), and the connection it is attached to, if
any. A session outlives its connection for ``resume_timeout`` seconds,
during which dispatches are kept for it and a RESUME may take it up again
(Discord's "Gateway > Resuming").

Thread-safe: dispatches come from API handlers in worker threads
(:meth:`Gateway.dispatch`), while connections live in the server's event
loop; each connection is woken through the ``notify`` callback it was
opened with. Time is the emulator's injected clock (epoch seconds), so
tests move heartbeat timeouts and the 30 s / 60 s / 24 h windows by hand.
"""

from __future__ import annotations

import math
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from cmdsync.emulator.domain.objects import Application
from cmdsync.emulator.gateway.dispatched import DISPATCH_KEPT, Dispatched, about
from cmdsync.emulator.gateway.protocol import ENDS_SESSION, Close, Closed, Op, payload
from cmdsync.emulator.reference.log import Activity
from cmdsync.emulator.store.database import Store

DAY = 86_400.0


@dataclass(frozen=True)
class GatewayConfig:
    """The gateway's limits; times in seconds unless the name says ms.

    Discord's values: a HELLO ``heartbeat_interval`` of 41250 ms; 120
    payloads per connection per 60 s (then 4008); 1000 IDENTIFYs per 24 h;
    2500 guilds per shard (more: 4011). A connection without a heartbeat for
    ``heartbeat_interval`` times ``heartbeat_tolerance`` is closed with 4009,
    and one without IDENTIFY or RESUME ``identify_timeout`` seconds after its
    HELLO, heartbeats or not, with 4003 (Not authenticated): Discord documents
    no such bound, but an unauthenticated socket must not stay open forever.
    ``members_window``: an empty-query, limit-0 REQUEST_GUILD_MEMBERS again for
    the same guild within it gets RATE_LIMITED. ``tick``: how often (real
    seconds) a connection looks at the clock for its heartbeat deadline.
    ``seed`` seeds session ids.
    """

    heartbeat_interval: int = 41_250
    heartbeat_tolerance: float = 1.5
    send_limit: int = 120
    send_window: float = 60.0
    identify_limit: int = 1000
    guilds_per_shard: int = 2500
    resume_timeout: float = 60.0
    identify_timeout: float = 30.0
    replay_limit: int = 1000
    members_window: float = 30.0
    tick: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("heartbeat_interval", "send_limit", "identify_limit",
                     "guilds_per_shard", "replay_limit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number from 1, not {value!r}")
        for name in ("heartbeat_tolerance", "send_window", "resume_timeout",
                     "identify_timeout", "members_window", "tick"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or not 0 < value <= 10 * DAY:
                raise ValueError(f"{name} must be a number of seconds above 0, not {value!r}")


class Outlet:
    """Where a session's payloads go: one websocket connection (see
    :mod:`cmdsync.emulator.gateway.connection`). ``send`` and ``close`` only queue
    and wake the connection's writer; they never block."""

    def __init__(self, notify: Callable[[], None], activity: Activity | None = None) -> None:
        self._notify = notify
        self._lock = threading.Lock()
        self._queue: deque[dict[str, Any]] = deque()
        self.closing: Closed | None = None
        self.activity = activity  # dispatches sent and taken count as the bots' activity

    def send(self, item: dict[str, Any]) -> None:
        with self._lock:
            if self.closing is None:
                self._queue.append(item)
        if self.activity is not None and item.get("op") == Op.DISPATCH:
            self.activity.touch()
        self._notify()

    @property
    def pending(self) -> int:
        """Payloads queued and not yet written to the connection."""
        return len(self._queue)

    def close(self, code: int, reason: str) -> None:
        with self._lock:
            if self.closing is None:
                self.closing = Closed(code, reason)
        self._notify()

    def take(self) -> list[dict[str, Any]]:
        """Every queued payload, oldest first (the writer's side)."""
        with self._lock:
            items = list(self._queue)
            self._queue.clear()
        return items


@dataclass
class Session:
    """One gateway session (see the module docstring)."""

    id: str
    app: Application
    token: str
    intents: int
    shard: tuple[int, int]
    version: int
    seq: int = 0
    sent: deque[dict[str, Any]] = field(default_factory=deque)
    outlet: Outlet | None = None
    left_at: float | None = None  # when its connection went (clock seconds)
    ended: bool = False
    ready: threading.Event = field(default_factory=threading.Event)

    def info(self) -> dict[str, Any]:
        return {"session_id": self.id, "application_id": self.app.id,
                "shard": list(self.shard), "intents": self.intents, "seq": self.seq,
                "connected": self.outlet is not None, "ready": self.ready.is_set()}


class Gateway:
    """The sessions of one emulator; see the module docstring."""

    def __init__(self, store: Store, *, clock: Callable[[], float],
                 config: GatewayConfig | None = None, activity: Activity | None = None) -> None:
        self.store = store
        self.clock = clock
        self.activity = activity or Activity()
        self.config = config or GatewayConfig()
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._random = random.Random(self.config.seed)
        self._sessions: dict[str, Session] = {}
        self._identifies: dict[str, deque[float]] = {}  # application -> IDENTIFY times
        self._member_requests: dict[tuple[str, str], float] = {}  # (session, guild) -> time
        self._outlets: set[Outlet] = set()
        # every dispatch, for a failing test's transcript (the last DISPATCH_KEPT)
        self.dispatched: deque[Dispatched] = deque(maxlen=DISPATCH_KEPT)

    def reset(self) -> None:
        """Forget IDENTIFY counts, member-request times and every session not connected
        (a RESUME of one gets INVALID_SESSION); connected bots stay connected."""
        with self._lock:
            self._identifies.clear()
            self._member_requests.clear()
            self.dispatched.clear()
            self._sessions = {key: s for key, s in self._sessions.items()
                              if s.outlet is not None and not s.ended}

    # -- sessions ----------------------------------------------------------------

    def opened(self, outlet: Outlet) -> None:
        """A connection opened (before any IDENTIFY); :meth:`left` when it closes."""
        with self._lock:
            self._outlets.add(outlet)

    def queued(self) -> int:
        """Payloads queued on every connection and not yet written (0: all sent)."""
        with self._lock:
            return sum(outlet.pending for outlet in self._outlets)

    def shards_needed(self, app_id: str) -> int:
        """``GET /gateway/bot``'s ``shards``: one per ``guilds_per_shard`` guilds."""
        guilds = len(self.store.guilds_of(app_id))
        return max(1, math.ceil(guilds / self.config.guilds_per_shard))

    def session_start_limit(self, app_id: str) -> dict[str, int]:
        """``{"total", "remaining", "reset_after" (ms), "max_concurrency"}``."""
        now = self.clock()
        with self._lock:
            times = self._recent_identifies(app_id, now)
            reset_after = int((times[0] + DAY - now) * 1000) if times else 0
            return {"total": self.config.identify_limit,
                    "remaining": max(self.config.identify_limit - len(times), 0),
                    "reset_after": max(reset_after, 0), "max_concurrency": 1}

    def _recent_identifies(self, app_id: str, now: float) -> deque[float]:
        times = self._identifies.setdefault(app_id, deque())
        while times and times[0] <= now - DAY:
            times.popleft()
        return times

    def start(self, app: Application, token: str, intents: int, shard: tuple[int, int],
              version: int, outlet: Outlet) -> Session | None:
        """A new session on ``outlet``, or None when the day's IDENTIFYs are spent."""
        now = self.clock()
        with self._lock:
            times = self._recent_identifies(app.id, now)
            if len(times) >= self.config.identify_limit:
                return None
            times.append(now)
            self._sessions = {key: s for key, s in self._sessions.items()
                              if self._alive(s, now)}  # an ended one is never resumed
            session = Session(f"{self._random.getrandbits(128):032x}", app, token, intents,
                              shard, version, outlet=outlet)
            self._sessions[session.id] = session
            return session

    def resume(self, session_id: str, token: str, seq: int | None, outlet: Outlet) -> Session:
        """Take up a session on ``outlet``: replay what came after ``seq``, then RESUMED.

        Raises :class:`LookupError` (INVALID_SESSION: unknown, ended or
        expired, another token, or ``seq`` older than what is kept) or
        :class:`Closed` 4007 (``seq`` never sent).
        """
        now = self.clock()
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None or not self._alive(session, now) or session.token != token:
                raise LookupError(session_id)
            last = seq or 0
            if last > session.seq:
                session.ended = True
                raise Closed(Close.INVALID_SEQ, f"Invalid seq: {last} was never sent "
                             f"(last {session.seq})")
            if session.sent and last < session.sent[0]["s"] - 1:
                raise LookupError(session_id)
            if session.outlet is not None:
                session.outlet.close(Close.UNKNOWN_ERROR, "Session resumed elsewhere")
            session.outlet, session.left_at = outlet, None
            for item in session.sent:
                if item["s"] > last:
                    outlet.send(item)
            self._dispatch_to(session, "RESUMED", {})
            return session

    def _alive(self, session: Session, now: float) -> bool:
        if session.ended:
            return False
        if session.outlet is None and session.left_at is not None \
                and now - session.left_at > self.config.resume_timeout:
            session.ended = True
            return False
        return True

    def left(self, outlet: Outlet, code: int | None) -> None:
        """``outlet``'s connection closed with ``code``: its session waits for a RESUME,
        unless the code ends it (client 1000 / 1001, or :data:`ENDS_SESSION`)."""
        now = self.clock()
        with self._lock:
            self._outlets.discard(outlet)
            for session in self._sessions.values():
                if session.outlet is outlet:
                    session.outlet, session.left_at = None, now
                    if code in (1000, 1001) or code in ENDS_SESSION:
                        session.ended = True
            self._changed.notify_all()

    def end(self, session: Session) -> None:
        with self._lock:
            session.ended = True
            self._changed.notify_all()

    def end_sessions(self, session_ids: Iterable[str]) -> int:
        """End these sessions now (a test's bot closed: none of them may get the next
        test's events, even before its connection's close is read); their connections
        close with 1000. Returns how many were still alive."""
        with self._lock:
            ended = [self._sessions[i] for i in session_ids
                     if i in self._sessions and not self._sessions[i].ended]
            for session in ended:
                session.ended = True
                if session.outlet is not None:
                    session.outlet.close(1000, "the test's bot closed")
            self._changed.notify_all()
            return len(ended)

    def mark_ready(self, session: Session) -> None:
        with self._lock:
            session.ready.set()
            self._changed.notify_all()

    def sessions(self) -> list[dict[str, Any]]:
        """Every session not ended, as ``{"session_id", "application_id", "shard",
        "intents", "seq", "connected", "ready"}``."""
        now = self.clock()
        with self._lock:
            return [s.info() for s in self._sessions.values() if self._alive(s, now)]

    def wait_ready(self, application_id: str, *, timeout: float) -> dict[str, Any]:
        """Block until a session of the application is connected and its READY and
        GUILD_CREATEs are sent; its :meth:`sessions` entry. Raises TimeoutError after
        ``timeout`` (real) seconds."""
        def found() -> Session | None:
            return next((s for s in self._sessions.values() if s.app.id == application_id
                         and not s.ended and s.outlet is not None and s.ready.is_set()), None)

        with self._lock:
            if not self._changed.wait_for(found, timeout):
                raise TimeoutError(f"no bot of application {application_id} connected to "
                                   f"the gateway within {timeout:g} seconds")
            session = found()
            assert session is not None
            return session.info()

    # -- dispatching --------------------------------------------------------------

    def _dispatch_to(self, session: Session, event: str, data: Any) -> None:
        session.seq += 1
        self.dispatched.append(Dispatched(self.clock(), session.app.id, session.id,
                                          session.seq, event, about(event, data)))
        item = payload(Op.DISPATCH, data, seq=session.seq, event=event)
        session.sent.append(item)
        while len(session.sent) > self.config.replay_limit:
            session.sent.popleft()
        if session.outlet is not None:
            session.outlet.send(item)

    def send(self, session: Session, event: str, data: Any) -> None:
        """Dispatch ``event`` to one session."""
        with self._lock:
            self._dispatch_to(session, event, data)

    def _targets(self, application_id: str, guild_id: str | None, intent: int | None
                 ) -> list[Session]:
        now = self.clock()
        targets = []
        for session in self._sessions.values():
            if session.app.id != application_id or not self._alive(session, now):
                continue
            if intent is not None and not session.intents & (1 << intent):
                continue
            shard_id, count = session.shard
            home = (int(guild_id) >> 22) % count if guild_id else 0
            if home == shard_id:
                targets.append(session)
        return targets

    def dispatch(self, application_id: str, event: str, data: Any, *,
                 guild_id: str | None = None, intent: int | None = None,
                 one: bool = False, connected: bool = False,
                 shaped: Callable[[int], Any] | None = None) -> int:
        """Dispatch ``event`` to the application's sessions: those of the shard of
        ``guild_id`` (shard 0 without one) that asked for ``intent`` (a bit number;
        None: every session); only the newest with ``one`` (with a connection, if one has
        it: a bot connected in a test takes the interactions from one connected for the
        whole test session while it is there). Sessions waiting for a
        RESUME keep it, unless ``connected``: then only sessions with a connection get
        it. With ``shaped``, each session gets ``shaped(its intents)`` instead of
        ``data`` (a message without its content for one that did not ask for
        MESSAGE_CONTENT). Returns how many sessions got it."""
        with self._lock:
            targets = self._targets(application_id, guild_id, intent)
            live = [s for s in targets if s.outlet is not None]
            if connected:
                targets = live
            if one:  # the newest: a bot connected in a test while an older one stays
                targets = (live or targets)[-1:]
            for session in targets:
                self._dispatch_to(session, event,
                                  data if shaped is None else shaped(session.intents))
            return len(targets)

    def members_requested(self, session: Session, guild_id: str) -> float | None:
        """Record a full member list request; None if allowed, else ``retry_after``
        (seconds) when one came for the guild within ``members_window``."""
        now = self.clock()
        with self._lock:
            key = (session.id, guild_id)
            last = self._member_requests.get(key)
            if last is not None and now - last < self.config.members_window:
                return self.config.members_window - (now - last)
            self._member_requests[key] = now
            return None

    # -- what the admin API can force -------------------------------------------------

    def _outlets_of(self, application_id: str | None) -> list[Outlet]:
        with self._lock:
            if application_id is None:
                return list(self._outlets)
            return [s.outlet for s in self._sessions.values()
                    if s.outlet is not None and s.app.id == application_id]

    def drop(self, application_id: str | None = None, *, code: int = Close.UNKNOWN_ERROR,
             reason: str = "Dropped by the emulator's admin API") -> int:
        """Close the connections (of the application's sessions, or every one) with
        ``code``; their sessions may be resumed unless ``code`` ends them. The count."""
        outlets = self._outlets_of(application_id)
        for outlet in outlets:
            outlet.close(code, reason)
        return len(outlets)

    def reconnect(self, application_id: str | None = None) -> int:
        """Send RECONNECT (op 7): the client should resume on a new connection."""
        outlets = self._outlets_of(application_id)
        for outlet in outlets:
            outlet.send(payload(Op.RECONNECT))
        return len(outlets)

    def ask_heartbeat(self, application_id: str | None = None) -> int:
        """Send HEARTBEAT (op 1): the client must answer with one at once."""
        outlets = self._outlets_of(application_id)
        for outlet in outlets:
            outlet.send(payload(Op.HEARTBEAT))
        return len(outlets)
