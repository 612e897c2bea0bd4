"""docs/emulator/routes.md holds the table of Discord's routes the emulator emulates, as
the route table makes it (issue 36, item 4): regenerate it with
``python scripts/routes_table.py``."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

from cmdsync.emulator.reference.discord_routes import markdown, parity, routes
from cmdsync.emulator.routes import ROUTES
from tests.support import paths

PAGE = paths.ROOT / "docs" / "emulator" / "routes.md"


def _script() -> ModuleType:
    """scripts/routes_table.py, imported as a module."""
    spec = importlib.util.spec_from_file_location("routes_table",
                                                  paths.ROOT / "scripts" / "routes_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_table_is_the_route_tables() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("<!-- routes table: python scripts/routes_table.py -->")[1].split(
        "<!-- end of routes table -->")[0]
    assert table.strip() == _script().table().strip()
    assert table.startswith("\n\n" + markdown((r.method, r.path) for r in ROUTES))


def test_the_events_table_says_which_events_the_emulator_sends() -> None:
    script = _script()
    sent = script.events_sent()
    # what a bot's test sees (tests/testing/test_transcript.py) and the members' backend
    assert {"READY", "GUILD_CREATE", "INTERACTION_CREATE", "MESSAGE_CREATE",
            "GUILD_MEMBER_ADD", "GUILD_MEMBER_REMOVE", "GUILD_ROLE_DELETE"} <= sent
    assert "TYPING_START" not in sent and "PRESENCE_UPDATE" not in sent  # never sent
    table = script.events_table()
    assert "| `INTERACTION_CREATE` | yes |" in table and "| `TYPING_START` | - |" in table
    assert table.startswith(f"{len(sent)} of Discord's 76 gateway receive events")


def test_every_route_served_is_one_of_discords() -> None:
    param = re.compile(r"\{[^}]+\}")
    discord = {(method, param.sub("{}", path)) for method, path in routes()}
    assert [(r.method, r.path) for r in ROUTES
            if (r.method, param.sub("{}", r.path)) not in discord] == []
    emulated = {(m, p) for m, p, yes in parity((r.method, r.path) for r in ROUTES) if yes}
    assert ("DELETE", "/guilds/{guild_id}/members/{user_id}") in emulated  # a kick
    assert ("PATCH", "/guilds/{guild_id}/channels") not in emulated
    assert len(emulated) == len({(r.method, param.sub("{}", r.path)) for r in ROUTES})
