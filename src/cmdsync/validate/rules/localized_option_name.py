"""Localized option names are distinct per locale, and from the siblings' names.

Discord (Discord's "Application Commands" documentation): within one ``options`` array, the
localized names of one locale must differ from each other and from the
default names of the other options; otherwise 50035 (Invalid Form Body). A
localized name equal to the option's own default name is fine. Duplicate
default names are reported by CS203.

Failing::

    - name: ban
      description: Ban a member
      options:
        - {type: user, name: user, description: Who to ban}
        - type: string
          name: reason
          description: Why
          name_localizations: {de: user}

Passing::

    - name: ban
      description: Ban a member
      options:
        - {type: user, name: user, description: Who to ban, name_localizations: {de: nutzer}}
        - {type: string, name: reason, description: Why, name_localizations: {de: grund}}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import CommandEntry, ManifestSet, OptionList, option_lists
from cmdsync.manifest.loader import Path
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import kind_word, label, localized, owner_label

ID = "CS204"
NAME = "localized-option-name"
TITLE = "Localized option names are distinct per locale"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check(manifest: ManifestSet) -> Iterator[Finding]:
    for entry in manifest.commands:
        for olist in option_lists(entry):
            yield from _check_list(entry, olist)


def _check_list(entry: CommandEntry, olist: OptionList) -> Iterator[Finding]:
    defaults: dict[str, int] = {}  # default name -> index of its first option
    for index, item in enumerate(olist.items):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            defaults.setdefault(item["name"], index)
    seen: dict[tuple[str, str], tuple[int, Path]] = {}  # (locale, name) -> first holder
    for index, item in enumerate(olist.items):
        if not isinstance(item, dict) or not isinstance(item.get("name_localizations"), dict):
            continue  # only localized names are checked here
        path = olist.path + (index,)
        for at, locale, value in localized(item, "name", path):
            if locale is None or not isinstance(value, str) or value == item.get("name"):
                continue
            what = f"localized {kind_word(item)} name ({locale}) {value!r}"
            other = defaults.get(value)
            if other is not None and other != index:
                sibling = olist.items[other]
                yield Finding(entry.doc, at,
                              f"{what} is the name of {label(sibling)} in {owner_label(olist)}: "
                              f"choose another {locale} name",
                              related=((entry.doc, olist.path + (other, "name")),))
            elif (locale, value) in seen:
                holder, first = seen[(locale, value)]
                yield Finding(entry.doc, at,
                              f"{what} is also the {locale} name of {label(olist.items[holder])} "
                              f"in {owner_label(olist)}: localized names must be distinct per "
                              f"locale; choose another", related=((entry.doc, first),))
            else:
                seen[(locale, value)] = (index, at)
