"""docs/emulator/routes.md holds the table of Discord's routes the emulator emulates, as
the route table makes it (issue 36, item 4): regenerate it with
``python scripts/routes_table.py``."""

from __future__ import annotations

import re

from cmdsync.emulator.reference.discord_routes import markdown, parity, routes
from cmdsync.emulator.routes import ROUTES
from tests.support import paths

PAGE = paths.ROOT / "docs" / "emulator" / "routes.md"


def test_the_docs_table_is_the_route_tables() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("<!-- routes table: python scripts/routes_table.py -->")[1].split(
        "<!-- end of routes table -->")[0]
    assert table.strip() == markdown((r.method, r.path) for r in ROUTES).strip()


def test_every_route_served_is_one_of_discords() -> None:
    param = re.compile(r"\{[^}]+\}")
    discord = {(method, param.sub("{}", path)) for method, path in routes()}
    assert [(r.method, r.path) for r in ROUTES
            if (r.method, param.sub("{}", r.path)) not in discord] == []
    emulated = {(m, p) for m, p, yes in parity((r.method, r.path) for r in ROUTES) if yes}
    assert ("DELETE", "/guilds/{guild_id}/members/{user_id}") in emulated  # a kick
    assert ("PATCH", "/guilds/{guild_id}/channels") not in emulated
    assert len(emulated) == len({(r.method, param.sub("{}", r.path)) for r in ROUTES})
