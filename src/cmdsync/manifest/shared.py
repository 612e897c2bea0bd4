"""Equal command objects of the files of one run, kept once (:class:`SharedBodies`).

Equal means equal bytes from :func:`marshal.dumps` (Python's marshal format,
https://docs.python.org/3/library/marshal.html): equal data, types and key
order. The fast way fills :attr:`SharedBodies.read` as it converts
(:mod:`cmdsync.manifest.yaml_walk`, :mod:`cmdsync.manifest.yaml_pieces`);
:func:`share_commands` fills :attr:`SharedBodies.converted` with the
commands of a file read otherwise.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SharedBodies:
    """Equal command objects of the files of one run, kept once.

    Hundreds of guilds usually carry the same command bodies: keeping one
    object for each saves memory, and lets per-command work run once per
    distinct body (:class:`cmdsync.validate.rules.base.PerCommand`,
    :func:`cmdsync.state.desired.desired_state`). Equal means equal data,
    types and key order (``marshal`` bytes). ``read`` holds the commands read
    the fast way, by what yaml-rs gave and their depth (converted once,
    their copies never walked); ``converted`` the others, by their data.
    Nothing changes manifest data after loading, so sharing is invisible.
    """

    read: dict[tuple[int, bytes], Any] = field(default_factory=dict)
    converted: dict[bytes, Any] = field(default_factory=dict)


def share_commands(data: Any, bodies: dict[bytes, Any]) -> None:
    """Replace each command object of ``data`` by the equal one in ``bodies``, if any."""
    lists: list[Any] = [data] if isinstance(data, list) else []
    if isinstance(data, dict):
        lists.append(data.get("commands"))
        guilds = data.get("guilds")
        if isinstance(guilds, dict):
            lists += [g.get("commands") for g in guilds.values() if isinstance(g, dict)]
    for items in lists:
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if isinstance(item, dict):
                try:
                    key = marshal.dumps(item)
                except ValueError:  # not plain data
                    continue
                items[index] = bodies.setdefault(key, item)
