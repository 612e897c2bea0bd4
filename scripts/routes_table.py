"""Write the table of Discord's routes the emulator emulates into docs/emulator/routes.md.

    python scripts/routes_table.py

The table is made from Discord's OpenAPI routes (``emulator/reference/discord_routes.txt``)
and the emulator's route table (``emulator/routes.py``); ``tests/docs`` checks the page
holds what this writes.
"""

from __future__ import annotations

from pathlib import Path

from cmdsync.emulator.reference.discord_routes import markdown
from cmdsync.emulator.routes import ROUTES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "emulator" / "routes.md"
BEGIN, END = "<!-- routes table: python scripts/routes_table.py -->", "<!-- end of routes table -->"


def table() -> str:
    return markdown((route.method, route.path) for route in ROUTES)


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    head = text.split(BEGIN)[0].rstrip() if BEGIN in text else text.rstrip()
    tail = text.split(END, 1)[1] if END in text else "\n"
    PAGE.write_text(f"{head}\n\n{BEGIN}\n\n{table()}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
