"""The fast way's conversion: the data yaml-rs read, made what the careful way builds.

yaml-rs reads YAML 1.2 (https://yaml.org/spec/1.2.2/) into plain Python
data, without positions. :class:`FastWalk` converts that data as the careful
way's converter (:mod:`cmdsync.manifest.yaml_careful`) converts nodes: keys
become strings, unquoted snowflakes become strings too, ``${VAR}`` is
interpolated (:mod:`cmdsync.manifest.interpolate`) and nesting is bounded;
on anything only the careful way can report or decide, it gives up.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any

from cmdsync.manifest.interpolate import interpolate
from cmdsync.manifest.yaml_careful import MAX_DEPTH, SNOWFLAKE_KEYS, Abort


def _all_strings(mapping: dict[Any, Any]) -> bool:
    try:
        "".join(mapping)  # in C: fails on the first key that is not a string
    except TypeError:
        return False
    return True


class FastWalk:
    """What :class:`~cmdsync.manifest.yaml_careful.Converter` does to values, on data
    yaml-rs built: keys to strings, unquoted snowflakes to strings, ``${VAR}``
    interpolated, depth bounded.

    :meth:`value` builds new containers (for a file with aliases, whose
    objects yaml-rs may share); :meth:`in_place` changes yaml-rs's own, and
    costs a third as much. Both raise :class:`~cmdsync.manifest.yaml_careful.Abort`
    for what only the careful way can report or decide.
    """

    def __init__(self, env: Mapping[str, str] | None,
                 read: dict[tuple[int, bytes], Any] | None = None) -> None:
        self.env = env
        self.read = read  # SharedBodies.read: commands converted so far, by what yaml-rs gave

    def in_place(self, container: dict[Any, Any] | list[Any], depth: int,
                 commands: bool = False) -> None:
        if depth >= MAX_DEPTH:
            raise Abort
        env = self.env
        if type(container) is list:
            for index, item in enumerate(container):
                kind = type(item)
                if kind is dict and commands and self.read is not None:
                    key = (depth, marshal.dumps(item))  # before converting: the same result
                    known = self.read.get(key)
                    if known is None:
                        self.in_place(item, depth + 1)
                        self.read[key] = item
                    else:
                        container[index] = known
                elif kind is dict or kind is list:
                    self.in_place(item, depth + 1)
                elif kind is str and env is not None and "$" in item:
                    container[index] = self._string(item)
            return
        assert isinstance(container, dict)
        if env is not None or not _all_strings(container):
            converted = {self._key(key): item for key, item in container.items()}
            if len(converted) != len(container):
                raise Abort  # two keys written differently, the same after conversion
            container.clear()
            container.update(converted)
        for key, item in container.items():
            kind = type(item)
            if kind is dict or kind is list:
                self.in_place(item, depth + 1, key == "commands")
            elif kind is str:
                if env is not None and "$" in item:
                    container[key] = self._string(item)
            elif kind is int and key in SNOWFLAKE_KEYS:
                container[key] = str(item)

    def _key(self, key: Any) -> str:
        if type(key) is str:
            return self._string(key) if self.env is not None else key
        if type(key) is int:
            return str(key)  # its text: _DIVERGENT ruled out other spellings
        raise Abort  # true:, null:, 1.5:, a complex key: the careful way

    def value(self, value: Any, key: str | int | None, depth: int) -> Any:
        kind = type(value)
        if kind is str:
            return self._string(value) if self.env is not None else value
        if kind is dict:
            if depth >= MAX_DEPTH:
                raise Abort
            result: dict[str, Any] = {}
            for item_key, item in value.items():
                name = self._key(item_key)
                if name in result:
                    raise Abort  # two keys written differently, the same after conversion
                result[name] = self.value(item, name, depth + 1)
            return result
        if kind is list:
            if depth >= MAX_DEPTH:
                raise Abort
            return [self.value(item, index, depth + 1) for index, item in enumerate(value)]
        if kind is int and key in SNOWFLAKE_KEYS:
            return str(value)
        if value is None:
            raise Abort  # maybe an alias inside its own anchor (a: &a [*a]), which yaml-rs
        return value    # reads as null: the careful way reports it

    def _string(self, value: str) -> str:
        if "$" not in value:
            return value
        assert self.env is not None
        result, missing = interpolate(value, self.env)
        if missing:
            raise Abort  # the careful way reports it where it is written
        return result
