"""Write the tables of Discord's routes and gateway events the emulator emulates into
docs/emulator/routes.md.

    python scripts/routes_table.py

The routes table is made from Discord's OpenAPI routes
(``emulator/reference/discord_routes.txt``) and the emulator's route table
(``emulator/routes.py``); the events table from Discord's receive events
(``emulator/gateway/protocol.RECEIVE_EVENTS``) and the event names the emulator's code
sends (:func:`events_sent`: every string of its source that is one of them).
``tests/docs`` checks the page holds what this writes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cmdsync.emulator
from cmdsync.emulator.gateway.protocol import RECEIVE_EVENTS
from cmdsync.emulator.reference.discord_routes import markdown
from cmdsync.emulator.routes import ROUTES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "emulator" / "routes.md"
BEGIN, END = "<!-- routes table: python scripts/routes_table.py -->", "<!-- end of routes table -->"
EMULATOR = Path(cmdsync.emulator.__file__).parent


def table() -> str:
    return markdown((route.method, route.path) for route in ROUTES) + "\n" + events_table()


def events_sent() -> set[str]:
    """The receive events the emulator's code names: string constants equal to one (the
    list of Discord's in protocol.py aside), and f-strings such as ``f"GUILD_ROLE_{x}"``
    expanded over Discord's events of that prefix."""
    found: set[str] = set()
    for path in EMULATOR.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "RECEIVE_EVENTS" for t in node.targets):
                for inner in ast.walk(node):
                    inner.__dict__["_skip"] = True
            if node.__dict__.get("_skip"):
                continue
            if isinstance(node, ast.Constant) and node.value in RECEIVE_EVENTS:
                found.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(
                    node.values[0], ast.Constant) and str(node.values[0].value).isupper():
                prefix = str(node.values[0].value)
                found.update(e for e in RECEIVE_EVENTS if e.startswith(prefix)
                             and e[len(prefix):] in ("CREATE", "UPDATE", "DELETE"))
    return found


def events_table() -> str:
    sent = events_sent()
    said = (f"{len(sent)} of Discord's {len(RECEIVE_EVENTS)} gateway receive events are "
            "sent by the emulator, each to the sessions whose intents ask for it.")
    lines = [said, "", "| event | sent |", "|---|---|"]
    lines += [f"| `{name}` | {'yes' if name in sent else '-'} |" for name in sorted(
        RECEIVE_EVENTS)]
    return "\n".join(lines) + "\n"


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    head = text.split(BEGIN)[0].rstrip() if BEGIN in text else text.rstrip()
    tail = text.split(END, 1)[1] if END in text else "\n"
    PAGE.write_text(f"{head}\n\n{BEGIN}\n\n{table()}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
