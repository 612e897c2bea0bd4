"""The hikari example bot (examples/hikari/bot.py) run by the tests (no tests here).

:func:`example_bot` loads the example as shipped; :class:`RunningBot` serves a
hikari ``RESTBot`` on a free loopback port in its own thread and event loop.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import threading
import time
from types import ModuleType
from typing import Any

from tests.support.oauth import free_port
from tests.support.paths import EXAMPLES


def example_bot() -> ModuleType:
    """``examples/hikari/bot.py`` as a module (its ``build_bot(token, key, api)``)."""
    spec = importlib.util.spec_from_file_location("hikari_example_bot",
                                                  EXAMPLES / "hikari" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RunningBot:
    """A hikari RESTBot serving on a free port in its own thread and event loop."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.loop: asyncio.AbstractEventLoop | None = None
        bot.add_startup_callback(self._started)
        self.thread = threading.Thread(target=bot.run, kwargs={
            "host": "127.0.0.1", "port": self.port, "check_for_updates": False,
            "enable_signal_handlers": False, "close_loop": False}, daemon=True)

    async def _started(self, _: Any) -> None:
        self.loop = asyncio.get_running_loop()

    def __enter__(self) -> RunningBot:  # noqa: PYI034 - typing.Self is 3.11+
        self.thread.start()
        deadline = time.monotonic() + 30
        while True:  # until it accepts connections
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if time.monotonic() > deadline or not self.thread.is_alive():
                    raise RuntimeError("the hikari bot did not start") from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.loop is not None:
            asyncio.run_coroutine_threadsafe(self.bot.close(), self.loop).result(30)
        self.thread.join(30)
