"""``autocomplete`` only on STRING, INTEGER and NUMBER options, never with choices.

Discord (Discord's "Application Commands" documentation): ``autocomplete`` is valid only on
STRING, INTEGER and NUMBER options and may not be combined with ``choices``;
Discord rejects both with 50035 (Invalid Form Body). Only
``autocomplete: true`` is judged (``false`` is the default). An empty
``choices: []`` next to ``autocomplete: true`` is fine: it means no
choices, and real exported files carry it. ``choices`` on other option types
is CS210's.

Failing::

    - name: play
      description: Play a song
      options:
        - type: string
          name: song
          description: Song title
          autocomplete: true
          choices:
            - {name: Intro, value: intro}
        - {type: boolean, name: loop, description: Repeat, autocomplete: true}

Passing::

    - name: play
      description: Play a song
      options:
        - {type: string, name: song, description: Song title, autocomplete: true}
        - {type: boolean, name: loop, description: Repeat}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import CHOICE_TYPES, label, option_type, type_name

ID = "CS209"
NAME = "autocomplete"
TITLE = "Autocomplete only on string/integer/number options, without choices"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check_option(option: OptionEntry) -> Iterator[Finding]:
    kind = option_type(option.data)
    if option.data.get("autocomplete") is not True or kind is None:
        return
    doc, at = option.entry.doc, option.path + ("autocomplete",)
    if kind not in CHOICE_TYPES:
        yield Finding(doc, at,
                      f"{label(option.data)} is {type_name(kind)} and has autocomplete; "
                      "only STRING, INTEGER and NUMBER options autocomplete: "
                      "remove 'autocomplete'")
        return
    items = option.data.get("choices")
    if isinstance(items, list) and items:
        count = len(items)
        yield Finding(doc, at,
                      f"{label(option.data)} has autocomplete and {count} "
                      f"choice{'s' if count != 1 else ''}; Discord accepts one or the "
                      "other: remove the choices or 'autocomplete'",
                      related=((doc, option.path + ("choices",)),))
