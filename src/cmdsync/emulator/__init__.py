"""A local emulator of Discord's application-commands service (HTTP API v10).

Entry points: :func:`new_emulator` builds the state (SQLite, in memory or a
file) with its seed; :func:`create_app` serves it as an ASGI app, in-process
(``httpx.ASGITransport``) or under uvicorn (:mod:`cmdsync.emulator.server`).

Modules, request to answer: ``app`` (ASGI, the request pipeline), ``auth``,
``ratelimit``, ``faults``, ``routes`` and ``permissions`` (handlers),
``commands`` (upsert, edit, bulk overwrite, limits), ``stored`` (what is
kept of a body), ``render`` (responses, locales), ``form_errors`` (50035
bodies from diagnostics), ``errors``, ``store`` (SQLite), ``seed``,
``oauth`` (the token endpoints), ``consent`` (``/oauth2/authorize``),
``grants`` (codes and grants), ``admin`` (``/_emulator/``), ``instance``,
``server`` (uvicorn).
"""

from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.faults import FaultConfig
from cmdsync.emulator.reference.rate_limits import RateLimitConfig

__all__ = ["Emulator", "FaultConfig", "Limits", "RateLimitConfig", "create_app",
           "new_emulator"]
