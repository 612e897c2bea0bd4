"""How each Python library's bot is connected to a served emulator, and heard when its
handlers raise (:meth:`~cmdsync.testing.DiscordEmulator.connect`).

- discord.py, py-cord, nextcord, disnake (``"discord"``, ``"nextcord"``,
  ``"disnake"``): their ``http.Route`` base is pointed at the emulator
  (:func:`~cmdsync.emulator.gateway.clients.pointed_at`), the bot logs in with the
  seed's token and connects; its command tree's, views' and modals' error hooks, and
  the bot's application-command error events, are heard.
- hikari's ``GatewayBot`` (``"hikari"``), made with ``rest_url=`` the emulator's API:
  started, then closed; a listener that raises is heard through ``ExceptionEvent``.
- hikari's ``RESTBot`` (``"hikari-rest"``): an HTTP-endpoint bot, served on a free
  loopback port and set as the application's interactions endpoint (``PATCH
  /applications/@me``, which the emulator verifies with signed PINGs, as Discord does);
  its interaction listeners are wrapped to hear what they raise (hikari answers 500).
- interactions.py (``"interactions"``): its ``Route.BASE`` pointed at the emulator,
  started with ``astart``; its command, component and modal error events heard. It
  is stopped gateway first: its ``Client.stop()`` closes the HTTP session that owns the
  websocket before the websocket, and then spins.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx

from cmdsync.emulator.gateway.clients import LIBRARIES, pointed_at

GUILD_READY = 0.05  # seconds a discord.py-family bot waits for more GUILD_CREATEs
Heard = Callable[[Any, BaseException], None]  # (the interaction or its context, the error)
# The application-command error events of the discord.py family: py-cord and nextcord
# (on_application_command_error), disnake (one per kind of command)
_ERROR_EVENTS = ("on_application_command_error", "on_slash_command_error",
                 "on_user_command_error", "on_message_command_error")


def library_of(bot: Any) -> str | None:
    """The library of ``bot`` through its classes (most bots subclass the library's):
    ``discord`` (discord.py and py-cord), ``nextcord``, ``disnake``, ``hikari`` (a
    ``GatewayBot``), ``hikari-rest`` (a ``RESTBot``), ``interactions``; else None."""
    for kind in type(bot).__mro__:
        top = kind.__module__.split(".")[0]
        if top == "hikari":
            return "hikari-rest" if kind.__name__ == "RESTBot" else "hikari"
        if top in (*LIBRARIES, "interactions"):
            return top
    return None


@contextlib.asynccontextmanager
async def discord_family(bot: Any, library: str, *, base_url: str, token: str,
                         timeout: float, heard: Heard) -> AsyncIterator[None]:
    """Log a discord.py, py-cord, nextcord or disnake bot in and wait until it is ready;
    close it on exit. Raises TimeoutError, or what stopped the bot before it was ready."""
    state = getattr(bot, "_connection", None)
    if state is not None and getattr(state, "guild_ready_timeout", 0) > GUILD_READY:
        # the library waits this long after the last GUILD_CREATE before it is ready
        # (2 s by default); the emulator sends them all at once
        state.guild_ready_timeout = GUILD_READY
    running: asyncio.Task[Any] | None = None
    with pointed_at(base_url, libraries=(library,)), errors_heard(bot, library, heard):
        try:
            await bot.login(token)
            running = asyncio.create_task(bot.connect(reconnect=True))
            ready = asyncio.create_task(bot.wait_until_ready())
            await _first(running, ready, timeout)
            yield
        finally:
            await bot.close()
            if running is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(running, timeout)


async def _first(running: asyncio.Task[Any], ready: asyncio.Task[Any], timeout: float) -> None:
    """Wait for ``ready``; raise what ended ``running`` first, or TimeoutError."""
    done, _ = await asyncio.wait({running, ready}, timeout=timeout,
                                 return_when=asyncio.FIRST_COMPLETED)
    if running in done:  # it stopped before it was ready: its error says why
        ready.cancel()
        running.result()
        raise RuntimeError("the bot stopped before it was ready")
    if ready not in done:
        ready.cancel()
        raise TimeoutError(f"the bot was not ready within {timeout:g} s")


@contextlib.contextmanager
def errors_heard(bot: Any, library: str, heard: Heard) -> Iterator[None]:
    """While the bot runs, call ``heard`` with what its handlers raise, as the library
    reports it: the command tree's ``on_error`` (discord.py), the bot's
    application-command error events (py-cord, nextcord, disnake), and views' and
    modals' ``on_error``. The library's own handling runs as before."""
    ui = getattr(sys.modules.get(library), "ui", None)
    patched: list[tuple[Any, str, Any]] = []  # class attributes, put back as they were
    shadowed: list[tuple[Any, str]] = []  # instance attributes a class's method was under
    tree = getattr(bot, "tree", None)
    hooks = [(tree, "on_error")] if tree is not None and hasattr(tree, "on_error") else []
    hooks += [(bot, name) for name in _ERROR_EVENTS if callable(getattr(bot, name, None))]
    for owner, name in hooks:
        original_hook = getattr(owner, name)

        async def hook(where: Any, error: BaseException, *rest: Any,
                       _original: Any = original_hook) -> None:
            heard(where, error)
            await _original(where, error, *rest)

        if name in vars(owner):  # the bot's own instance attribute: put it back after
            patched.append((owner, name, vars(owner)[name]))
        else:
            shadowed.append((owner, name))
        setattr(owner, name, hook)
    for name in ("View", "Modal"):
        kind = getattr(ui, name, None)
        if kind is None or not hasattr(kind, "on_error"):
            continue
        original = kind.on_error

        async def ui_error(view: Any, *args: Any, _original: Any = original) -> None:
            error = next((a for a in args if isinstance(a, BaseException)), None)
            interaction = next((a for a in args if hasattr(a, "token")), None)
            if error is not None and interaction is not None:
                heard(interaction, error)
            await _original(view, *args)

        patched.append((kind, "on_error", original))
        kind.on_error = ui_error
    try:
        yield
    finally:
        for owner, attribute, original in patched:
            setattr(owner, attribute, original)
        for owner, attribute in shadowed:
            if attribute in vars(owner):
                delattr(owner, attribute)


@contextlib.asynccontextmanager
async def hikari_gateway(bot: Any, *, api_url: str, timeout: float, heard: Heard
                         ) -> AsyncIterator[None]:
    """Start a hikari ``GatewayBot`` made with ``rest_url=`` ``api_url``; close it on exit.
    A listener that raises on an interaction is heard through hikari's ExceptionEvent."""
    import hikari

    rest = getattr(bot, "rest", None)
    url = str(getattr(rest, "_rest_url", "") or "")
    if not url.startswith(api_url):
        raise TypeError("make the hikari GatewayBot with rest_url=discord_emulator.api_url "
                        "(hikari takes it only when the bot is made)")

    async def failed(event: Any) -> None:
        interaction = getattr(event.failed_event, "interaction", None)
        if interaction is not None:
            heard(interaction, event.exception)

    bot.subscribe(hikari.ExceptionEvent, failed)
    try:
        await asyncio.wait_for(bot.start(check_for_updates=False), timeout)
        try:
            yield
        finally:
            await bot.close()
    finally:
        bot.unsubscribe(hikari.ExceptionEvent, failed)


@contextlib.asynccontextmanager
async def hikari_rest(bot: Any, *, api_url: str, token: str, timeout: float,
                      heard: Heard) -> AsyncIterator[None]:
    """Serve a hikari ``RESTBot`` (made with ``rest_url=`` ``api_url`` and the
    application's ``public_key``) on a free loopback port and make it the application's
    interactions endpoint; close it on exit."""
    import hikari

    rest = getattr(bot, "rest", None)
    if not str(getattr(rest, "_rest_url", "") or "").startswith(api_url):
        raise TypeError("make the hikari RESTBot with rest_url=discord_emulator.api_url and "
                        "public_key=discord_emulator.public_key")
    for kind in (hikari.CommandInteraction, hikari.ComponentInteraction,
                 hikari.ModalInteraction, hikari.AutocompleteInteraction):
        listener = bot.get_listener(kind)
        if listener is not None:  # hikari answers 500 for a listener that raises: heard
            bot.set_listener(kind, _heard_rest(listener, heard), replace=True)
    port = _free_port()
    await asyncio.wait_for(bot.start(host="127.0.0.1", port=port, check_for_updates=False),
                           timeout)
    try:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            answer = await client.patch(f"{api_url}/applications/@me", json={
                "interactions_endpoint_url": f"http://127.0.0.1:{port}/"},
                headers={"Authorization": f"Bot {token}"})
        if answer.status_code != 200:
            raise RuntimeError(f"the emulator refused the RESTBot as the application's "
                               f"interactions endpoint: {answer.text[:500]}")
        yield
    finally:
        await bot.close()


@contextlib.asynccontextmanager
async def interactions_py(bot: Any, *, base_url: str, token: str, timeout: float,
                          heard: Heard) -> AsyncIterator[None]:
    """Start an interactions.py ``Client`` and wait until it is ready; stop it on exit,
    its gateway first (see the module docstring)."""
    from interactions import Listener  # type: ignore[import-not-found, unused-ignore]

    for event in ("command_error", "component_error", "modal_error"):
        bot.add_listener(Listener.create(event)(_ipy_heard(heard)))
    with pointed_at(base_url, libraries=("interactions",)):
        running = asyncio.create_task(bot.astart(token))
        try:
            await _first(running, asyncio.create_task(bot.wait_until_ready()), timeout)
            yield
        finally:
            state = getattr(bot, "_connection_state", None)
            with contextlib.suppress(Exception):
                if state is not None:
                    await asyncio.wait_for(state.stop(), timeout)
                await asyncio.wait_for(bot.stop(), timeout)
            running.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await running


def _heard_rest(listener: Callable[[Any], Any], heard: Heard) -> Callable[[Any], Any]:
    async def answer(interaction: Any) -> Any:
        try:
            return await listener(interaction)
        except Exception as error:
            heard(interaction, error)
            raise

    return answer


def _ipy_heard(heard: Heard) -> Callable[[Any], Any]:
    async def on_error(event: Any) -> None:
        heard(event.ctx, event.error)

    return on_error


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
