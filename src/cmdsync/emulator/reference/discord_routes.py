"""Discord's HTTP API routes, as its OpenAPI document lists them (``discord_routes.txt``,
generated from github.com/discord/discord-api-spec, MIT licence).

The emulator serves some of them. For a request it does not serve, this says whether
Discord has the route (:func:`discord_route`): then the answer is 404 "not emulated"
naming it, and the request log shows it; a method no route of the path has is 405, as
Discord answers it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources

_PARAM = re.compile(r"\{[^}]+\}")


@functools.cache
def routes() -> tuple[tuple[str, str], ...]:
    """``(METHOD, path template)`` of every route of Discord's API (``/guilds/{guild_id}``)."""
    text = resources.files(__package__).joinpath("discord_routes.txt").read_text("utf-8")
    return tuple((line.split(" ", 1)[0], line.split(" ", 1)[1]) for line in text.splitlines()
                 if line and not line.startswith("#"))


@functools.cache
def _patterns() -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    return tuple((method, path, re.compile(
        "^" + _PARAM.sub("[^/]+", re.escape(path).replace(r"\{", "{").replace(r"\}", "}"))
        + "$")) for method, path in routes())


def discord_route(method: str, path: str) -> str | None:
    """``"METHOD /template"`` of Discord's route for ``method`` on ``path`` (without the
    ``/api/v10`` prefix), or None if Discord has none."""
    for known, template, pattern in _patterns():
        if known == method and pattern.match(path):
            return f"{method} {template}"
    return None


def path_known(path: str) -> bool:
    """Whether any route of Discord's has ``path``, by whatever method."""
    return any(pattern.match(path) for _, _, pattern in _patterns())


def parity(served: Iterable[tuple[str, str]]) -> list[tuple[str, str, bool]]:
    """``(method, Discord's path template, emulated)`` for every route of Discord's API,
    ``served`` being the emulator's ``(method, path)`` (path parameters compared by
    position, whatever their names)."""
    mine = {(method, _PARAM.sub("{}", path)) for method, path in served}
    return [(method, path, (method, _PARAM.sub("{}", path)) in mine)
            for method, path in routes()]


def markdown(served: Iterable[tuple[str, str]]) -> str:
    """The parity table as Markdown: a row per route, grouped by its first path segment,
    and how many are emulated."""
    rows = parity(served)
    done = sum(emulated for _, _, emulated in rows)
    said = (f"{done} of Discord's {len(rows)} HTTP routes are emulated; the others answer "
            "404 naming the route, and the request log shows them.")
    lines = [said, "", "| route | emulated |", "|---|---|"]
    for method, path, emulated in sorted(rows, key=lambda r: (r[1].split("/")[1], r[1],
                                                             r[0])):
        lines.append(f"| `{method} {path}` | {'yes' if emulated else '-'} |")
    return "\n".join(lines) + "\n"
