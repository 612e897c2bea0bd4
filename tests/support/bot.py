"""A stand-in bot for the emulator's interaction tests (no tests here).

:class:`StandInBot` is an interactions endpoint served by uvicorn on
loopback. It checks each request's signature with Discord's own
``discord-interactions`` package (``verify_key``, PyNaCl underneath), as a
Python bot does, answers a signed PING with ``{"type": 1}`` and anything
else as the test says (:attr:`StandInBot.answer`, any starlette response:
a stream dribbles bytes or runs past a size cap).
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
from discord_interactions import verify_key
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from cmdsync.emulator.server import BackgroundServer

Answer = Callable[[dict[str, Any]], Response]


class StandInBot:
    """An interactions endpoint; ``url`` once served (:func:`serve`)."""

    def __init__(self, public_key: str) -> None:
        self.public_key = public_key
        self.url = ""
        self.requests: list[dict[str, Any]] = []
        self.answer: Answer = lambda payload: JSONResponse(
            {"type": 4, "data": {"content": "ok"}})
        self.ping: Callable[[], Response] | None = None  # None: {"type": 1}
        self.stop = threading.Event()  # ends dribbling streams when the test does

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        if not verify_key(body, request.headers.get("x-signature-ed25519", ""),
                          request.headers.get("x-signature-timestamp", ""), self.public_key):
            return Response("invalid request signature", status_code=401)
        payload = json.loads(body)
        if payload["type"] == 1:
            return self.ping() if self.ping else JSONResponse({"type": 1})
        self.requests.append(payload)
        return self.answer(payload)

    def dribble(self, text: bytes, *, every: float) -> StreamingResponse:
        """``text`` one byte every ``every`` seconds (200, JSON, with its length)."""
        async def chunks() -> AsyncIterator[bytes]:
            for index in range(len(text)):
                if self.stop.is_set():
                    return
                yield text[index:index + 1]
                await anyio.sleep(every)

        return StreamingResponse(chunks(), media_type="application/json",
                                 headers={"content-length": str(len(text))})

    def flood(self, size: int, *, declared: bool) -> StreamingResponse:
        """About ``size`` bytes of a JSON response padded with spaces, in 64 KiB chunks;
        with their length ``declared`` in ``Content-Length``, else chunked."""
        first, piece = b'{"type": 4, "data": {"content": "big"}}', b" " * 65536
        count = size // len(piece)

        async def chunks() -> AsyncIterator[bytes]:
            yield first
            for _ in range(count):
                if self.stop.is_set():
                    return
                yield piece

        headers = {"content-length": str(len(first) + count * len(piece))} if declared \
            else None
        return StreamingResponse(chunks(), media_type="application/json", headers=headers)


@contextmanager
def serve(bot: StandInBot) -> Iterator[StandInBot]:
    """``bot`` under uvicorn on loopback, ``bot.url`` set, until the block ends."""
    app = Starlette(routes=[Route("/", bot.handle, methods=["POST"])])
    with BackgroundServer(app) as base:
        bot.url = f"{base}/"
        try:
            yield bot
        finally:
            bot.stop.set()


def callback(api_base: str, interaction: dict[str, Any], body: Any,
             query: str = "") -> httpx.Response:
    """``POST /interactions/{id}/{token}/callback`` as an application sends it: no
    ``Authorization``, the interaction token is the credential."""
    with httpx.Client(timeout=10) as client:
        return client.post(f"{api_base}/interactions/{interaction['id']}/"
                           f"{interaction['token']}/callback{query}", json=body)


def tell_when_delivered(monkeypatch: Any) -> threading.Event:
    """An event set once the emulator has posted an interaction to a bot's endpoint and
    read its answer (``delivery.post_signed`` patched with ``monkeypatch``): a bot that
    calls back only after its empty answer waits on it."""
    from cmdsync.emulator.interactions import delivery

    delivered = threading.Event()
    post_signed = delivery.post_signed

    def post_then_tell(*args: Any, **kwargs: Any) -> delivery.Answer:
        answer = post_signed(*args, **kwargs)
        delivered.set()
        return answer

    monkeypatch.setattr(delivery, "post_signed", post_then_tell)
    return delivered
