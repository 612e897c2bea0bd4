"""An option has at most 25 choices.

Discord allows at most 25 ``choices`` on a STRING, INTEGER or NUMBER option
(Discord's "Application Commands" documentation); more are rejected with 50035 (Invalid Form
Body). Exactly 25 is fine. For a longer list of values use ``autocomplete``
instead. Choices on other option types are reported by CS210, not counted
here.

Failing::

    - name: country
      description: Pick a country
      options:
        - type: string
          name: code
          description: Country
          choices:  # 26 choices
            - {name: Austria, value: at}
            # ...
            - {name: Sweden, value: se}

Passing::

    - name: country
      description: Pick a country
      options:
        - {type: string, name: code, description: Country, autocomplete: true}
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import OptionEntry
from cmdsync.model import MAX_CHOICES
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import CHOICE_TYPES, label, option_type

ID = "CS202"
NAME = "choice-count"
TITLE = "At most 25 choices per option"
SEVERITY = Severity.ERROR
PER_COMMAND = True


def check_option(option: OptionEntry) -> Iterator[Finding]:
    items = option.data.get("choices")
    if option_type(option.data) not in CHOICE_TYPES or not isinstance(items, list):
        return
    count = len(items)
    if count > MAX_CHOICES:
        yield Finding(option.entry.doc, option.path + ("choices",),
                      f"{label(option.data)} has {count} choices; Discord allows at "
                      f"most {MAX_CHOICES}: remove {count - MAX_CHOICES} or switch to "
                      "autocomplete", key=True)
