"""Import httpx without its command line, once, before anything else imports it.

Imported by :mod:`cmdsync.client.http` just before ``import httpx`` (only the
commands that talk to Discord load it: ``validate`` stays offline and light).
"""

import sys

if "httpx" not in sys.modules:
    # httpx's package imports its own command line (``httpx._main``: click, rich and
    # pygments) whenever those are installed, about 30 ms of a plan's start before its
    # first request; cmdsync never runs it. Loaded without it, ``httpx.main`` is
    # httpx's own stand-in, and ``httpx._main`` can still be imported by name later.
    sys.modules["httpx._main"] = None  # type: ignore[assignment]
    try:
        import httpx  # noqa: F401
    finally:
        del sys.modules["httpx._main"]
