"""A command line as Discord's client reads what a user types, in the user's locale.

:func:`parse_line` splits ``/mod ban user:<@1> reason:"spam"`` into the
command's name, the subcommand group and subcommand, and ``name:value``
options. :func:`read_line` then matches those words against a command (its
body as :func:`cmdsync.emulator.application_commands.bodies.command` renders it) and answers with
the default names the interaction's ``data`` carries, the options' definitions
and their values as typed; the values themselves are checked by
:mod:`cmdsync.emulator.interactions.invocation`, which needs the guild.

Names in a locale: the client shows each name (the command's, a group's, a
subcommand's, an option's, a choice's) in the user's locale: its
``name_localizations`` entry for the locale, else for the locale's fallback
(``en-US`` <-> ``en-GB``, ``es-419`` -> ``es-ES``:
:func:`cmdsync.emulator.application_commands.bodies.pick_locale`), else the default name; the
interaction's ``data`` carries the default names (Discord's "Application
Commands" documentation, "Localization":
https://discord.com/developers/docs/interactions/application-commands#localization).
A word is taken when it is the name shown in the invoking locale or the
default name. A word that is neither, but is the name of one of them in
another locale, is refused with that locale named (``--locale fr``).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cmdsync.emulator.application_commands.bodies import pick_locale
from cmdsync.emulator.domain.enums import Refusal
from cmdsync.errors import EmulatorError
from cmdsync.model import MAX_NUMBER, OptionType

_SUBCOMMANDS = (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP)
_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


class Refused(EmulatorError):
    """The client would not send this invocation: ``code`` says why as a value (a
    :class:`~cmdsync.emulator.domain.enums.Refusal`), ``reason`` in words and ``fix``,
    when there is one, what to do; ``str()`` is ``"reason: fix"``."""

    def __init__(self, code: Refusal, reason: str, *, fix: str | None = None) -> None:
        super().__init__(f"{reason}: {fix}" if fix else reason)
        self.code, self.reason, self.fix = code, reason, fix

    def as_json(self) -> dict[str, str | None]:
        """``{"refusal", "reason", "fix"}``, as the admin API sends it beside ``message``."""
        return {"refusal": self.code.value, "reason": self.reason, "fix": self.fix}


@dataclass(frozen=True)
class Line:
    """A parsed command line: the name, subcommand path and ``(name, value)`` options."""

    name: str
    path: tuple[str, ...]
    options: tuple[tuple[str, str], ...]


def parse_line(line: str) -> Line:
    """``/mod ban user:<@1> reason:"spam"`` as a :class:`Line`; :class:`Refused` if bad.

    Words are split as a POSIX shell does (quotes group, backslashes escape);
    the first is ``/name``, the words without ``:`` that follow are the
    subcommand group and subcommand, then ``name:value`` options.
    """
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise Refused(Refusal.INVALID_LINE,
                      f"cannot read the command line: {exc}: close the quote, and put a "
                      "value holding ' in double quotes (reason:\"it's spam\")") from exc
    if not words or not words[0].startswith("/") or len(words[0]) < 2:
        raise Refused(Refusal.INVALID_LINE,
                      "a command line starts with /NAME, e.g. '/mod ban user:<@1>'")
    path: list[str] = []
    options: list[tuple[str, str]] = []
    for word in words[1:]:
        name, colon, value = word.partition(":")
        if colon and name:
            options.append((name, value))
        elif options:
            raise Refused(Refusal.INVALID_LINE,
                          f"{word!r} after the options: write options as name:value, and "
                          "quote values with spaces (reason:\"two words\")")
        else:
            path.append(word)
    if len(path) > 2:
        raise Refused(Refusal.INVALID_LINE,
                      f"{' '.join(path)!r}: at most a subcommand group and a subcommand come "
                      "before the options")
    return Line(words[0][1:], tuple(path), tuple(options))


# -- names in a locale -----------------------------------------------------------


def shown_name(item: Mapping[str, Any], locale: str) -> str:
    """The name the client shows for ``item`` (a command, option or choice) in
    ``locale``: its localization, a fallback's, or the default name."""
    return pick_locale(item.get("name_localizations") or {}, locale) or str(item["name"])


def named(item: Mapping[str, Any], word: str, locale: str) -> bool:
    """Whether ``word`` names ``item`` for a user in ``locale``: its default name, or the
    name shown in the locale."""
    return word in (str(item["name"]), shown_name(item, locale))


def in_other_locales(items: Sequence[Mapping[str, Any]], word: str, locale: str,
                     what: str) -> str:
    """``'acheter' is the fr name of the subcommand 'buy': add --locale fr`` when
    ``word`` names none of ``items`` in ``locale`` but is the localized name of one in
    other locales (``what`` names the kind of item, with ``{name}`` for its default
    name: ``the subcommand {name!r}``); "" otherwise."""
    for item in items:
        if named(item, word, locale):
            return ""
    for item in items:
        locales = sorted(loc for loc, value in (item.get("name_localizations") or {}).items()
                         if value == word and loc != locale)
        if locales:
            return (f"{word!r} is the {', '.join(locales)} name of "
                    f"{what.format(name=item['name'])}: add --locale {locales[0]}")
    return ""


def _elsewhere(items: Sequence[Mapping[str, Any]], word: str, locale: str, what: str) -> str:
    """:func:`in_other_locales` in parentheses after a refusal, or ""."""
    found = in_other_locales(items, word, locale, what)
    return f" ({found})" if found else ""


def _listed(items: Sequence[Mapping[str, Any]], locale: str) -> str:
    """The names of ``items`` as the client shows them in ``locale``."""
    return ", ".join(shown_name(item, locale) for item in items)


# -- the line against the command ------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """A command line read against its command.

    ``label`` is the command and subcommand path as shown in the locale
    (``/boutique acheter``); ``path`` the groups and subcommands as the
    interaction's ``data`` nests them (``{"name", "type"}``, default names);
    ``definitions`` the options the last of them takes; ``given`` each option
    typed, as its definition and the raw value, in the order typed.
    """

    label: str
    path: tuple[dict[str, Any], ...]
    definitions: tuple[Mapping[str, Any], ...]
    given: tuple[tuple[Mapping[str, Any], str], ...]


def read_line(body: Mapping[str, Any], line: Line, locale: str) -> Read:
    """Match ``line``'s subcommand path and option names against ``body`` in
    ``locale`` (see the module docstring); :class:`Refused` for an unknown or missing
    subcommand, an unknown option, or one given twice."""
    label = f"/{shown_name(body, locale)}"
    definitions: list[Mapping[str, Any]] = list(body.get("options") or [])
    path: list[dict[str, Any]] = []
    for word in line.path:
        groups = [o for o in definitions if o["type"] in _SUBCOMMANDS]
        match = next((o for o in groups if named(o, word, locale)), None)
        if match is None:
            raise Refused(Refusal.INVALID_LINE, f"{label} has no subcommand {word!r}"
                          + (f": choose {_listed(groups, locale)}" if groups else "")
                          + _elsewhere(groups, word, locale, "the subcommand {name!r}"))
        label += f" {shown_name(match, locale)}"
        path.append({"name": match["name"], "type": match["type"]})
        definitions = list(match.get("options") or [])
    nested = [o for o in definitions if o["type"] in _SUBCOMMANDS]
    if nested:
        raise Refused(Refusal.INVALID_LINE,
                      f"{label} needs a subcommand: {_listed(nested, locale)}")
    given: list[tuple[Mapping[str, Any], str]] = []
    for name, raw in line.options:
        option = next((o for o in definitions if named(o, name, locale)), None)
        if option is None:
            raise Refused(Refusal.INVALID_LINE, f"{label} has no option {name!r} (its options: "
                          f"{_listed(definitions, locale) or 'none'})"
                          + _elsewhere(definitions, name, locale, "the option {name!r}"))
        if any(g["name"] == option["name"] for g, _ in given):
            raise Refused(Refusal.INVALID_LINE,
                          f"option {shown_name(option, locale)} is given twice")
        given.append((option, raw))
    return Read(label, tuple(path), tuple(definitions), tuple(given))


def choice_value(option: Mapping[str, Any], raw: str, value: Any, locale: str) -> Any:
    """The choice's value for ``raw`` (a choice's value, default name or name shown in
    ``locale``), or ``value`` without choices; :class:`Refused` when ``raw`` is none of
    them (and ``value`` is not None)."""
    choices = option.get("choices")
    if not choices:
        return value
    for choice in choices:
        if str(choice["value"]) == raw or named(choice, raw, locale):
            return choice["value"]
    if value is None:
        return None
    raise Refused(Refusal.INVALID_LINE, f"option {shown_name(option, locale)} must be one of: "
                  f"{_listed(choices, locale)}"
                  + _elsewhere(choices, raw, locale, "the choice {name!r}"))


def number(raw: str, *, integer: bool) -> int | float | None:
    """``raw`` as the client reads a number: ASCII digits, finite, within 2^53; else None."""
    pattern = _INTEGER if integer else _DECIMAL
    if not pattern.fullmatch(raw):
        return None
    value = int(raw) if integer else float(raw)
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        return None
    return value
