"""Live updates: a websocket that says when the emulator's state has changed.

``/console/live`` sends ``{"type": "change"}`` whenever what the pages show
may have changed: the store (commands, overwrites, interactions, messages,
fixtures; other processes' commits to the same state file, such as
``cmdsync apply --local``), the request log, or the gateway's sessions.
The page then fetches itself again and swaps the parts that changed. It
does so on the first message, ``{"type": "hello"}``, too: a change made
between the page's render (or a dropped connection) and the socket's first
look at the state would otherwise never show.

A websocket rather than Server-Sent Events: uvicorn closes websockets when
it shuts down, while it waits for every streaming answer to end, so an open
console would keep Ctrl-C from stopping the emulator. The checks of the
admin API hold: the ``Host`` must be a loopback name or the one the
emulator listens on, and the ``Origin`` (which browsers always send on a
websocket handshake, and which is not otherwise checked for websockets)
must be the emulator's own.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.reference.access import foreign_host

POLL = 0.2  # seconds between two looks at the state
_REFUSED = 1008  # policy violation


def fingerprint(emulator: Emulator) -> Any:
    """A value that differs whenever the pages may show something else."""
    counts = emulator.log.counts()
    sessions = tuple(sorted((s["session_id"], s["connected"], s["ready"])
                            for s in emulator.gateway.sessions()))
    return (emulator.store.changes(), counts["requests"], len(emulator.log.entries()),
            sessions)


def allowed(websocket: WebSocket) -> bool:
    """The admin API's host and origin checks (:func:`cmdsync.emulator.admin._guarded`)."""
    if foreign_host(websocket) is not None:
        return False
    origin = websocket.headers.get("origin")
    own = f"http://{websocket.headers.get('host', '')}"
    return origin == own


async def live(websocket: WebSocket) -> None:
    if not allowed(websocket):
        await websocket.close(code=_REFUSED)
        return
    emulator: Emulator = websocket.app.state.emulator
    await websocket.accept()
    last = await run_in_threadpool(fingerprint, emulator)
    await websocket.send_text(json.dumps({"type": "hello"}))
    try:
        while True:
            try:
                message = await asyncio.wait_for(websocket.receive(), timeout=POLL)
            except asyncio.TimeoutError:
                message = None
            if message is not None and message["type"] == "websocket.disconnect":
                return
            now = await run_in_threadpool(fingerprint, emulator)
            if now != last:
                last = now
                await websocket.send_text(json.dumps({"type": "change"}))
    except WebSocketDisconnect:
        return
