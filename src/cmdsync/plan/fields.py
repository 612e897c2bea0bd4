"""Field-level differences between two canonical commands.

:func:`field_changes` walks two outputs of :func:`cmdsync.state.normalize.canonical`
and returns one ``(path, before, after)`` per changed leaf, in the order the
fields appear. Paths read like the manifest:

- ``description``, ``default_member_permissions``, ``contexts``
- ``name_localizations.fr``: one entry of a localization table
- ``options[name=ban].options[name=user].required``: options and choices are
  matched by name first, then, among the unmatched, by position when the
  type is the same (a renamed option shows as a ``.name`` change)
- ``options[name=user]``: a whole option added (before None) or removed
  (after None)
- ``options[*].name``: the names in order, when only the order changed

Absent flags read as their defaults (``required: false``) so the change
shows what Discord would report.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cmdsync.state.normalize import same

Change = tuple[str, Any, Any]

_FLAGS = ("required", "autocomplete", "nsfw")
_KEYED_LISTS = ("options", "choices")
_TABLES = ("name_localizations", "description_localizations")


def field_changes(before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
                  ) -> list[Change]:
    """Changed leaves from ``before`` (live) to ``after`` (desired); [] when equal."""
    return list(_walk(before, after, prefix))


def _walk(before: Mapping[str, Any], after: Mapping[str, Any], prefix: str
          ) -> Iterator[Change]:
    keys = list(after) + [k for k in before if k not in after]
    for key in keys:
        path = f"{prefix}.{key}" if prefix else key
        old, new = _value(before, key), _value(after, key)
        if same(old, new):
            continue
        if key in _KEYED_LISTS:
            yield from _list(path, old or [], new or [])
        elif key in _TABLES:
            yield from _table(path, old or {}, new or {})
        else:
            yield path, old, new


def _value(obj: Mapping[str, Any], key: str) -> Any:
    if key in obj:
        return obj[key]
    return False if key in _FLAGS else None


def _table(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for key in sorted(set(old) | set(new)):
        if not same(old.get(key), new.get(key)):
            yield f"{path}.{key}", old.get(key), new.get(key)


def _list(path: str, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
          ) -> Iterator[Change]:
    pairs = match_items(old, new)
    matched_old = {i for i, _ in pairs.values()}
    for j, item in enumerate(new):
        label = f"{path}[name={item.get('name')}]"
        if j in pairs:
            yield from _walk(old[pairs[j][0]], item, label)
        else:
            yield label, None, dict(item)
    for i, item in enumerate(old):
        if i not in matched_old:
            yield f"{path}[name={item.get('name')}]", dict(item), None
    old_order = [i for i in range(len(old)) if i in matched_old]
    new_order = [pairs[j][0] for j in range(len(new)) if j in pairs]
    if old_order != new_order:
        yield (f"{path}[*].name", [o.get("name") for o in old],
               [n.get("name") for n in new])


def match_items(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
                ) -> dict[int, tuple[int, str]]:
    """For each index of ``new``, the index of its ``old`` item and how it matched.

    By name first (``"name"``); then an unmatched new item takes the
    unmatched old item at the same position if their ``type`` agrees
    (``"position"``: a rename). Items without a match are adds or removes.
    """
    by_name = {item.get("name"): i for i, item in enumerate(old)}
    pairs: dict[int, tuple[int, str]] = {}
    for j, item in enumerate(new):
        i = by_name.get(item.get("name"))
        if i is not None:
            pairs[j] = (i, "name")
    used = {i for i, _ in pairs.values()}
    for j, item in enumerate(new):
        if j in pairs or j >= len(old) or j in used:
            continue
        if old[j].get("type") == item.get("type"):
            pairs[j] = (j, "position")
            used.add(j)
    return pairs
