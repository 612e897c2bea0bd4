"""A server that accepts connections and never answers: what a stalled API looks like."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def silent_server() -> Iterator[str]:
    """Listen on a loopback port, accept every connection, read nothing and answer
    nothing until the block ends; yields the API base URL
    (``http://127.0.0.1:PORT/api/v10``)."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:  # closed at the end of the block
                return
            held.append(connection)  # open and unanswered: the client waits on it

    thread = threading.Thread(target=accept, name="silent-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/api/v10"
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()
        for connection in held:
            connection.close()
