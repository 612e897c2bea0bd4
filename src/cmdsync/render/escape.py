"""Text from outside cmdsync, made safe to print: the one escaping helper.

Outside text is what cmdsync did not write itself: a bot's answers (``invoke``),
command names, descriptions and ids read from Discord, file names, and server
text quoted in messages. Printed as it came, it could drive the terminal (ANSI
CSI and OSC sequences: ``\\x1b[2J`` clears the screen, OSC 0 sets the window
title, OSC 8 makes a link), start a line that the GitHub Actions runner reads
as a workflow command (``::warning ...::`` after a line break, or ``##[warning]``
anywhere in a line; GitHub's "Workflow commands for GitHub Actions" docs),
reorder what follows it (bidirectional overrides, "Trojan Source"), or be read
by rich as markup (``[link=...]``).

- :func:`printable`: one line of outside text with every control character,
  line break, bidirectional control and lone surrogate escaped as in JSON
  (``\\n``, ``\\u001b``, ``\\u2028``, ``\\u202e``; an undecodable byte of a file
  name, a surrogate escape, as ``\\xff``), and the two workflow-command openings
  broken (``\\u003a:`` for a leading ``::``, ``#\\u0023[`` for ``##[``). Letters,
  emoji and spaces of every script are kept.
- :func:`printable_lines`: the same for a message of several lines that quotes
  outside text, its line breaks kept.
- :func:`markup`: :func:`printable`, then rich's markup escaped
  (``rich.markup.escape``), where rich reads markup (progress descriptions).
- :func:`fenced`: text as a Markdown code block whose fence is longer than any
  run of backticks in it, so no line of the text can close it (a job summary,
  a pull-request comment).
- :func:`inert_json`: a JSON document (as :func:`json.dumps` writes it, with
  ``ensure_ascii=False``) with what :func:`printable` escapes written as JSON's
  own ``\\u`` escapes inside its strings (``\\u202e``; ``##[`` as ``#\\u0023[``),
  so that it reads back exactly while no terminal or CI log gets the raw
  characters; letters, emoji and spaces of every script are kept.
- :func:`controls`: only the control characters (not ``\\n`` or ``\\t``), as
  ``\\u`` escapes; :mod:`cmdsync.render.console` applies it to all it writes
  that rich did not style, so an escape sequence never reaches the terminal even
  from a path that forgot :func:`printable`. In JSON it keeps every value (a
  ``\\u`` escape inside a string); YAML emitters never write raw controls.

Each returns a new ``str``; none raises.
"""

from __future__ import annotations

import json
import re

# Bidirectional controls: embeddings, overrides, isolates and marks (Unicode's
# "Bidi_Control" property), which reorder the text around them.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
                     + "".join(sorted(BIDI_CONTROLS)) + "]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What may be raw in JSON text that _UNSAFE escapes: all but its own whitespace.
_JSON_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
                          + "".join(sorted(BIDI_CONTROLS)) + "]")
_LEADING_COMMAND = re.compile(r"^(\s*):(?=:)")


def printable(text: str) -> str:
    """``text`` as one inert line; see the module docstring."""
    if _UNSAFE.search(text):
        text = _UNSAFE.sub(_escape, text)
    if "##[" in text:
        text = text.replace("##[", "#\\u0023[")
    if "::" in text:
        text = _LEADING_COMMAND.sub(r"\1\\u003a", text, count=1)
    return text


def printable_lines(text: str) -> str:
    """``text`` with each of its lines (split at ``\\n`` only) made :func:`printable`."""
    return "\n".join(printable(line) for line in text.split("\n"))


def markup(text: str) -> str:
    """``text`` :func:`printable`, with rich's markup escaped (``[`` before a tag)."""
    from rich.markup import escape  # deferred: rich costs ~50 ms to import

    return escape(printable(text))


def fenced(text: str, info: str = "") -> str:
    """``text`` in a fenced code block (``info`` after the opening fence, ``diff``
    say), ending with a newline; the fence is at least three backticks and longer
    than any backtick run in ``text`` (CommonMark's "Fenced code blocks")."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{info}\n{body}{fence}\n"


def inert_json(document: str) -> str:
    """``document`` (JSON text) with every character :func:`printable` escapes, and
    ``##[``, as ``\\u`` escapes: the same data, inert; see the module docstring."""
    # json.dumps writes C0 controls, quotes and backslashes escaped already, and raw
    # characters only inside strings; its own line breaks and indentation are kept.
    if _JSON_UNSAFE.search(document):
        document = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
    return document.replace("##[", "#\\u0023[") if "##[" in document else document


def controls(text: str) -> str:
    """``text`` with its control characters other than ``\\n`` and ``\\t`` (C0, DEL,
    C1) as ``\\u`` escapes: what the console applies to all it writes unstyled."""
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text) \
        if _CONTROLS.search(text) else text


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in "\n\r\t":
        return json.dumps(char)[1:-1]
    if "\udc80" <= char <= "\udcff":  # an undecodable byte (surrogateescape): \xNN
        return f"\\x{ord(char) - 0xdc00:02x}"
    return f"\\u{ord(char):04x}"
