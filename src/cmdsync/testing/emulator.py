"""A served emulator for a bot's own tests: connect the bot, run a command, read the answer.

:class:`DiscordEmulator` is what the ``discord_emulator`` fixture gives
(:mod:`cmdsync.testing.plugin`): an emulator served by uvicorn on a free
loopback port in a thread of its own, so that a bot running in the test's
event loop logs in to it over HTTP and the gateway websocket exactly as it
logs in to Discord. :meth:`DiscordEmulator.invoke` runs a command as a user
in Discord's client would (the checks of ``cmdsync invoke``) and returns an
:class:`Invocation`: what the bot answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import traceback
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from cmdsync.emulator import seed as seeds
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.testing import libraries
from cmdsync.testing.results import Invocation, InvocationFailed, in_a_test
from cmdsync.testing.users import SETTLE, WAIT, Snowflake, UserActions, _id

if TYPE_CHECKING:
    from cmdsync.emulator.baseline import Baseline
    from cmdsync.emulator.gateway import Gateway



@final
class DiscordEmulator(UserActions):
    """A served emulator of Discord's API and gateway, for a bot's tests.

    ``base_url`` is its root (``http://127.0.0.1:PORT``), ``api_url`` the
    API base a library is pointed at (``.../api/v10``). ``application_id`` and
    ``bot_token`` are the seed's first application's: the bot logs in with
    that token. Use it as a context manager (the fixture does) or call
    :meth:`start` and :meth:`stop`.
    """

    def __init__(self, seed: Mapping[str, Any] | str | os.PathLike[str] | None = None) -> None:
        self._seed = self.default_seed = _seed(seed)
        self._raised: dict[str, BaseException] = {}  # by interaction id: see connect
        self._baseline: Baseline | None = None  # what reset returns to while a bot stays
        self._began = 0.0  # when the test began (the last reset), on the emulator's clock
        self._bot_loops: list[asyncio.AbstractEventLoop] = []  # of the bots connected now
        self.emulator: Emulator = new_emulator(seed=self._seed)
        self._server: Any = None
        self.base_url = ""

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The gateway websocket's URL (``ws://127.0.0.1:PORT/gateway``)."""
        return self.base_url.replace("http", "ws", 1) + "/gateway"

    @property
    def gateway(self) -> Gateway:
        """The emulator's gateway: its sessions, and dropping or reconnecting one to test
        a bot's resume (docs/emulator/gateway.md)."""
        return self.emulator.gateway

    @property
    def application_id(self) -> str:
        return str(self._seed["applications"][0]["id"])

    @property
    def bot_token(self) -> str:
        return str(self._seed["applications"][0]["bot_token"])

    def start(self) -> DiscordEmulator:
        """Serve it on a free loopback port (uvicorn in a daemon thread)."""
        from cmdsync.emulator.app import create_app
        from cmdsync.emulator.server import BackgroundServer

        self._server = BackgroundServer(create_app(self.emulator))
        self.base_url = self._server.__enter__()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.__exit__(None, None, None)
            self._server = None

    def __enter__(self) -> DiscordEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self, seed: Mapping[str, Any] | str | os.PathLike[str] | None = None) -> None:
        """Start a test afresh.

        With no bot connected: forget every command, interaction, message and gateway
        session, and apply ``seed`` (else the one it was made with,
        :attr:`default_seed`) again. With a bot connected (for the whole test session):
        keep its gateway session and return to the state of the first reset it was
        connected at (:class:`~cmdsync.emulator.baseline.Baseline`: its commands
        registered), sending it the events that undo what the test changed.
        Raises :class:`~cmdsync.errors.UsageError` for a bad seed, and for a ``seed``
        while a bot stays connected (it saw the session's)."""
        from cmdsync.emulator.baseline import Baseline
        from cmdsync.errors import UsageError

        self._raised.clear()
        self._began = self.emulator.clock()
        if not any(s["connected"] for s in self.gateway.sessions()):
            if self._baseline is not None:
                self._baseline.close()
                self._baseline = None
            self._seed = _seed(seed) if seed is not None else self.default_seed
            self.emulator.reset(self._seed)
            return
        if seed is not None:
            raise UsageError("a bot is connected for the whole test session, and it has seen "
                             "the session's seed: a test with a discord_seed of its own "
                             "connects its bot in the test")
        if self._baseline is None:  # the state the connected bot left: every test's start
            self._baseline = Baseline(self.emulator)
            self.emulator.log.clear()
        elif self._baseline.restore():  # the bots were sent what undoes the last test
            self._caught_up()

    def _caught_up(self) -> None:
        """Run the connected bots' event loops (idle between tests) until the bots have
        read the events that undid the last test's changes and settled, so that the next
        test starts with their caches as the emulator's state is."""
        for loop in list(self._bot_loops):
            if not loop.is_running() and not loop.is_closed():
                loop.run_until_complete(self.settle())

    @property
    def public_key(self) -> str:
        """The seed's first application's public key (hex), which Discord calls its
        ``verify_key``: an HTTP-endpoint bot checks the emulator's signatures with it."""
        from cmdsync.emulator.interactions.signing import verify_key

        app = self.emulator.store.application(self.application_id)
        return verify_key(app) if app is not None else ""

    @contextlib.asynccontextmanager
    async def connect(self, bot: Any, *, timeout: float = 10.0) -> AsyncIterator[Any]:
        """Log ``bot`` in to the emulator and wait until it is ready; close it on exit.

        ``bot`` is a discord.py, py-cord, nextcord or disnake ``Client`` (or
        ``Bot``; its library's REST base is pointed at :attr:`api_url` meanwhile, it
        logs in with :attr:`bot_token`, and it waits :data:`~cmdsync.testing.libraries.GUILD_READY` seconds, not
        2, for more guilds after the last); an interactions.py ``Client`` (started
        with :attr:`bot_token`); a hikari ``GatewayBot`` made with
        ``rest_url=discord_emulator.api_url`` and ``token=discord_emulator.bot_token``
        (hikari reads the application id from the token: seed the application with
        :func:`discord_shaped_token`); or a hikari ``RESTBot`` made with those and
        ``public_key=discord_emulator.public_key``, served on a free loopback port
        and made the application's interactions endpoint
        (:mod:`cmdsync.testing.libraries`). The sessions the bot opened end as it
        closes. ``timeout`` is in seconds. Raises :class:`TimeoutError` when the bot
        is not ready in time, and :class:`TypeError` for another kind of bot.
        """
        library = libraries.library_of(bot)
        if library is None:
            raise TypeError(f"{type(bot).__name__} is not a discord.py, py-cord, nextcord, "
                            "disnake, interactions.py or hikari bot")
        before = {s["session_id"] for s in self.gateway.sessions()}
        loop = asyncio.get_running_loop()
        if library == "hikari":
            connected = libraries.hikari_gateway(bot, api_url=self.api_url, timeout=timeout,
                                                 heard=self._heard)
        elif library == "hikari-rest":
            connected = libraries.hikari_rest(bot, api_url=self.api_url,
                                              token=self.bot_token, timeout=timeout,
                                              heard=self._heard)
        elif library == "interactions":
            connected = libraries.interactions_py(bot, base_url=self.base_url,
                                                  token=self.bot_token, timeout=timeout,
                                                  heard=self._heard)
        else:
            connected = libraries.discord_family(bot, library, base_url=self.base_url,
                                                 token=self.bot_token, timeout=timeout,
                                                 heard=self._heard)
        self._bot_loops.append(loop)
        try:
            async with connected:
                # what the bot does as it starts (a library's own command sync) is done
                await self.settle()
                yield bot
        finally:
            self._bot_loops.remove(loop)
            self._closed(before)

    def transcript(self) -> str:
        """What the emulator did since this test's reset, oldest first, one line each:
        gateway dispatches (``gateway  INTERACTION_CREATE -> application 1 (seq 5):
        interaction 9 (type 2: ping)``) and API requests with their status, the
        callbacks included (``REST  POST /api/v10/interactions/{interaction_id}/
        {interaction_token}/callback -> 204``), each at seconds since the reset. The
        plugin adds it to a failing test's report; it never holds a token."""
        began = self._began
        lines: list[tuple[float, str]] = []
        for sent in self.gateway.dispatched:
            if sent.time >= began:
                lines.append((sent.time, f"gateway  {sent.event} -> application "
                              f"{sent.application_id} (seq {sent.seq})"
                              + (f": {sent.about}" if sent.about else "")))
        for entry in self.emulator.log.entries():
            if entry.time >= began:
                lines.append((entry.time, f"REST     {entry.method} {entry.path} -> "
                              f"{entry.status}"
                              + (" (not emulated)" if entry.kind == "unserved" else "")))
        lines.sort(key=lambda line: line[0])
        return "\n".join(f"+{max(when - began, 0.0):7.3f}s  {line}" for when, line in lines)

    def _heard(self, where: Any, error: BaseException) -> None:
        """A handler of the bot raised ``error`` for an interaction (``where``: it, or a
        library's context holding it): the emulator stops waiting for its answer, and
        the test fails with the bot's own exception and traceback."""
        error = getattr(error, "original", None) or error  # CommandInvokeError wraps
        interaction = where if getattr(where, "token", None) else getattr(
            where, "interaction", where)
        self._raised[str(getattr(interaction, "id", ""))] = error
        token = getattr(interaction, "token", None)
        if token:
            self.emulator.store.raised(str(token), f"{type(error).__name__}: {error}")

    def _closed(self, before: set[str]) -> None:
        """The bot closed: end the sessions it opened (all but ``before``) at once, so
        that none gets the next test's events before the emulator reads its close."""
        opened = {s["session_id"] for s in self.gateway.sessions()} - before
        self.gateway.end_sessions(opened)

    async def invoke(self, line: str | None = None, *, user_command: str | None = None,
                     message_command: str | None = None, target: Snowflake | None = None,
                     autocomplete: bool = False, guild: Snowflake | None = None,
                     dm: bool = False, channel: Snowflake | None = None,
                     user: Snowflake | None = None,
                     locale: str = "en-US", follow_ups: int = 0,
                     wait: float | None = None, settle: bool | float = True) -> Invocation:
        """Run a command as a user in Discord's client would, and return the bot's answer.

        ``line`` is a slash command as typed (``"/mod ban user:<@1> reason:spam"``;
        with ``autocomplete``, the option being typed is marked ``focused``);
        ``user_command`` or ``message_command`` name a context-menu command
        run on ``target`` (a user or message id). ``guild`` defaults to the
        seed's first guild (``dm=True``: a DM with the bot instead); ``channel``
        and ``user`` as ``cmdsync invoke``'s do: the guild's first text channel,
        and the guild's owner (else the seed's first user). After the answer, what
        the bot does next is collected: the edit of a deferred reply, messages,
        follow-ups. With ``settle`` (the default) the invocation returns once the bots
        have been idle for :data:`SETTLE` seconds (or ``settle`` seconds): no API
        request in flight, no gateway event queued; with ``follow_ups``, once that
        many arrived too. ``wait`` (seconds) bounds that, 3 by default; with
        ``settle=False`` what comes is collected for all of ``wait`` (by default
        none: the answer alone), ending early once ``follow_ups`` arrived. A bot that
        waits on something other than Discord (a timer, its database) before it sends
        more is not idle to the emulator: ask for ``follow_ups``.

        Raises :class:`InvocationFailed` when the client would refuse the
        command, or the bot did not answer within Discord's 3 seconds (or
        answered what Discord refuses); :class:`~cmdsync.errors.UsageError`
        for a malformed line.
        """
        from cmdsync.runners.invoke import Request

        waited, quiet = _waiting(wait, settle, follow_ups)
        if guild is None and not dm and self._seed.get("guilds"):
            guild = str(self._seed["guilds"][0]["id"])
        request = Request(guild=_id(guild), channel=_id(channel), user=_id(user),
                          locale=locale, wait=waited, follow_ups=follow_ups, settle=quiet)
        if user_command is not None or message_command is not None:
            request = dataclasses.replace(
                request, kind="user" if user_command is not None else "message",
                name=user_command or message_command, target=_id(target))
        else:
            request = dataclasses.replace(request, line=line, autocomplete=autocomplete)
        return await self._run(request)

    async def click(self, message: Invocation | Mapping[str, Any] | Snowflake, *,
                    label: str | None = None, custom_id: str | None = None,
                    user: Snowflake | None = None, follow_ups: int = 0,
                    wait: float | None = None, settle: bool | float = True) -> Invocation:
        """Click a button of ``message`` (an :class:`Invocation`, whose message it takes; a
        message object; or a message id) by its ``label`` or ``custom_id``, as ``user``
        (default: the user the message answered, else the guild's owner); the bot's
        answer, as :meth:`invoke` returns it. Raises :class:`InvocationFailed` for what
        the client would not do (no such button, a disabled or link button, another
        user's ephemeral message) and for an answer that failed."""
        return await self._act(message, custom_id=custom_id, label=label, user=user,
                               follow_ups=follow_ups, waiting=_waiting(wait, settle, follow_ups))

    async def select(self, message: Invocation | Mapping[str, Any] | Snowflake,
                     values: Sequence[str | int], *, custom_id: str | None = None,
                     user: Snowflake | None = None,
                     follow_ups: int = 0, wait: float | None = None,
                     settle: bool | float = True) -> Invocation:
        """Choose ``values`` in the select ``custom_id`` of ``message`` (as :meth:`click`;
        no ``custom_id`` needed for the message's only select):
        a string select's options by value or label, a user, role, mentionable or channel
        select's by id (``resolved`` built as Discord builds it). A value that is not an
        option, or fewer than ``min_values`` or more than ``max_values``, is refused."""
        return await self._act(message, custom_id=custom_id, values=tuple(map(str, values)),
                               user=user, follow_ups=follow_ups,
                               waiting=_waiting(wait, settle, follow_ups))

    async def submit_modal(self, opened: Invocation, fields: Mapping[str, str], *,
                           user: Snowflake | None = None, follow_ups: int = 0,
                           wait: float | None = None,
                           settle: bool | float = True) -> Invocation:
        """Submit the modal the bot answered ``opened`` with (its ``response_type`` is
        ``MODAL``), the text inputs' values by ``custom_id`` or by label. A required input
        left out, a value outside its length, an unknown input, or a modal submitted
        already (the client closed it) is refused."""
        from cmdsync.runners.invoke import Request

        shown = opened.interaction
        who = _id(user) or ((shown.get("member") or {}).get("user") or shown.get("user")
                            or {}).get("id")
        waited, quiet = _waiting(wait, settle, follow_ups)
        return await self._run(Request(
            kind="modal_submit", modal_of=str(shown.get("id")), fields=tuple(fields.items()),
            user=who, wait=waited, follow_ups=follow_ups, settle=quiet))

    async def _act(self, message: Invocation | Mapping[str, Any] | Snowflake, *,
                   custom_id: str | None = None, label: str | None = None,
                   values: tuple[str, ...] | None = None, user: Snowflake | None,
                   follow_ups: int, waiting: tuple[float, float]) -> Invocation:
        from cmdsync.runners.invoke import Request

        if isinstance(message, Invocation):
            if message.message is None:
                raise InvocationFailed("that answer shows no message to act on (its "
                                       f"response was {message.response_type})")
            message = message.message
        found = message if isinstance(message, Mapping) else None
        message_id = str(found["id"]) if found is not None else str(message)
        shown = ((found or {}).get("interaction_metadata") or {}).get("user") or {}
        return await self._run(Request(
            kind="component", message_id=message_id, custom_id=custom_id, label=label,
            values=values, user=_id(user) or shown.get("id"), wait=waiting[0],
            follow_ups=follow_ups, settle=waiting[1]))

    async def _run(self, request: Any) -> Invocation:
        from cmdsync.runners.invoke import invoke as run
        from cmdsync.runners.session import Connection

        connection = Connection(api_url=self.api_url)
        env = {"DISCORD_BOT_TOKEN": self.bot_token}
        invoked = await asyncio.to_thread(run, connection, request,
                                          application_id=self.application_id, env=env)
        if invoked.refused:
            raise InvocationFailed(f"the client would not send it: "
                                   f"{in_a_test(str(invoked.refused), invoked.refusal)}")
        if invoked.outdated:  # Discord's read repair: the next invocation goes
            raise InvocationFailed(f"the client would not send it: {invoked.outdated} (the "
                                   "client has the new version now: invoke it again)")
        failure = invoked.exchange.get("failure")
        raised = self._raised.pop(str((invoked.exchange.get("interaction") or {}).get("id")),
                                  None)
        from cmdsync.emulator.domain.enums import Failure

        # the bot's own exception, with its traceback: its handler raised, and so it did not
        # answer, or answered an error status (an HTTP endpoint); a callback Discord
        # refused first stays the reason (the root of what the handler raised next)
        if failure and raised is not None and invoked.exchange.get("failure_code") in (
                Failure.NO_RESPONSE.value, Failure.ERROR_STATUS.value):
            told = "".join(traceback.format_exception(type(raised), raised,
                                                      raised.__traceback__))
            why = ("the emulator stopped waiting for its answer" if "its handler raised"
                   in str(failure) else failure)  # else the failure says it again
            raise InvocationFailed(f"This interaction failed: the bot's handler raised "
                                   f"{type(raised).__name__}: {raised} ({why})\n\n"
                                   f"{told}") from raised
        if failure:
            hint = (" (did the handler raise? the bot's log says)"
                    if invoked.exchange.get("failure_code") == Failure.NO_RESPONSE.value
                    else "")
            raise InvocationFailed(f"This interaction failed: {failure}{hint}")
        from cmdsync.emulator.resources import messages

        sent = messages.sent(self.emulator.store,
                             after=str(invoked.exchange["interaction"]["id"]))
        result = Invocation.from_exchange(invoked.exchange, sent)
        if len(result.follow_ups) < request.follow_ups:
            came = len(result.follow_ups)
            raise InvocationFailed(
                f"asked for {request.follow_ups} follow-ups, {came} came within "
                f"{request.wait:g} s: {[m.get('content') for m in result.follow_ups]!r} "
                "(wait longer with wait=N, or ask for fewer)")
        return result


def _waiting(wait: float | None, settle: bool | float, follow_ups: int) -> tuple[float, float]:
    """The bound on the wait and the quiet period to settle on, both in seconds."""
    quiet = SETTLE if settle is True else float(settle or 0.0)
    return (wait if wait is not None else WAIT if follow_ups or quiet else 0.0), quiet


def _seed(seed: Mapping[str, Any] | str | os.PathLike[str] | None) -> dict[str, Any]:
    """A seed from Python values, a YAML or JSON file's path, or the default seed."""
    if seed is None:
        return seeds.default_seed()
    if isinstance(seed, (str, os.PathLike)):
        path = Path(seed)
        return seeds.parse_seed(path.read_text(encoding="utf-8"), str(path))
    seeds.check_seed(dict(seed))
    return dict(seed)
