"""The emulator's gateway: the websocket bots log in to, as Discord's "Gateway"
documentation describes it (API v10, JSON encoding, zlib-stream compression).

Modules, outside in: ``transport`` (the starlette websocket route, query,
compression), ``connection`` (one connection's protocol: HELLO, HEARTBEAT,
IDENTIFY, RESUME, REQUEST_GUILD_MEMBERS and the close codes), ``hub``
(:class:`Gateway`: sessions, sequence numbers, replay buffers, dispatching),
``events`` (READY, GUILD_CREATE and other bodies from the seed's fixtures),
``protocol`` (opcodes, close codes, intents), ``rest`` (``GET /gateway``,
``GET /gateway/bot`` and the admin routes).

The Python API for tests (the emulator's ``gateway`` attribute)::

    emulator = new_emulator()
    ...serve it, start a bot against it...
    emulator.gateway.wait_ready(application_id, timeout=5)   # READY and GUILD_CREATEs sent
    emulator.gateway.dispatch(application_id, "GUILD_MEMBER_ADD", body, guild_id=guild_id)
    emulator.gateway.drop(application_id)                    # the bot resumes

Interactions reach a connected bot through :mod:`cmdsync.emulator.interactions.responses`
when its application has no interactions endpoint URL.
"""

from cmdsync.emulator.domain.enums import Intent
from cmdsync.emulator.gateway.hub import Gateway, GatewayConfig
from cmdsync.emulator.gateway.protocol import Close, Op

__all__ = ["Close", "Gateway", "GatewayConfig", "Intent", "Op"]
