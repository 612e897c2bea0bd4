"""Questions asked at the terminal: apply's "Apply these changes to Discord? [y/N]".

:func:`confirm` asks while ``apply``'s event loop runs. ``asyncio.run``
replaces Python's SIGINT handler with one that only cancels the main task
and returns, so Ctrl-C at a blocking ``input()`` would be swallowed until
Enter is pressed. While the question waits, :func:`confirm` puts back
Python's own handler (``KeyboardInterrupt`` at once, as Terraform cancels
at once); click turns that into ``Abort``, which the CLI reports as
"Interrupted." with exit code 130. The previous handler comes back after
the answer.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def confirm(question: str, *, err: bool = False) -> bool:
    """Ask ``question`` with ``[y/N]`` (default no) on stdout, or stderr with ``err``.

    Raises ``typer.Abort`` (click's ``Abort``) at Ctrl-C or end of input,
    at once, whatever SIGINT handler the running event loop installed.
    """
    import typer

    with _interruptible():
        return bool(typer.confirm(question, default=False, err=err))


@contextmanager
def _interruptible() -> Iterator[None]:
    """Python's default SIGINT handler (raise ``KeyboardInterrupt``) for the block.

    Only the main thread may set handlers: elsewhere the block runs as is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if previous is not None:  # None: set outside Python, cannot be put back
            signal.signal(signal.SIGINT, previous)
