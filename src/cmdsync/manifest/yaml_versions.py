"""Whether YAML 1.1 and YAML 1.2 read a text alike: when the fast way may read it.

PyYAML, the careful way, reads YAML 1.1 (https://yaml.org/spec/1.1/);
yaml-rs, the fast way, reads YAML 1.2 (https://yaml.org/spec/1.2.2/). They
differ on some scalars (``0123``, ``1_000``, ``1:30``, ``1e5``, ``.inf``,
``-0``), on the line breaks and characters they accept, on tags, merge keys,
directives and document markers; and libyaml refuses some texts that yaml-rs
reads (a block scalar header inside a flow collection, a key spanning lines
in one, an anchor defined twice). :func:`divergent` and its neighbours find
every text where they may differ, erring on the side of the careful way;
``tests/validate/test_fast_yaml.py`` holds the two ways equal on the others.
"""

from __future__ import annotations

import re

# Text where YAML 1.1 (PyYAML, the careful way) and YAML 1.2 (yaml-rs) may
# read differently, or that yaml-rs reads differently from a manifest. Each
# pattern starts with a literal, so that a search skips ahead as fast as
# str.find, and looks within one line, so that each distinct line is searched
# once; together they err on the side of the careful way (found by
# tests/validate/test_fast_yaml.py, which compares both ways on random text).
_DIVERGENT_TEXT = ("\t", "\x85", "\u2028", "\u2029",  # tabs, 1.1's extra line breaks
                   "<<",  # merge keys (yaml-rs keeps "<<" as a key)
                   "\n%", "\n...", "\n---",  # directives, document markers
                   "\ufeff")  # a byte order mark, which libyaml skips and yaml-rs keeps
# What PyYAML refuses as "unacceptable" (its Reader's printable set), and yaml-rs reads.
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                            "\U00010000-\U0010FFFF]")
_DIVERGENT = tuple(re.compile(pattern, re.MULTILINE) for pattern in (
    r"!(?<![^\s\[{,]!)",  # a tag (yaml-rs ignores tags)
    # Indicators where a node starts that libyaml refuses and yaml-rs reads as text:
    r"&(?<![^\s\[{,]&)(?![\w-]+(?:[\s,\]}]|\Z))",  # an anchor named with odd characters
    r"\*(?<![^\s\[{,]\*)(?![\w-]+(?:[\s,\]}]|\Z))",  # an alias likewise
    *(rf"{indicator}(?:(?<![^\s\[{{,]{indicator})(?![-+1-9]{{0,2}}(?: +#.*)? *$)"  # not a block
      rf"|(?<=[\[{{,]{indicator})|(?<=[\[{{,]\s{indicator}))"  # scalar header; in a flow
      for indicator in ("\\|", ">")),
    r"\?(?:(?<=[\[{,]\?)|(?<=[\[{,]\s\?)|(?<![^\s]\?))",  # ? starting a node
    # a colon starting or ending a flow scalar; 1:30, an integer in 1.1
    r":(?:(?<=[\[{,]:)|(?<=[\[{,]\s:)|(?<=\s:)(?!\s)|(?=[\]},?])|(?<=[0-9]:)[0-9])",
    r"@(?<![^\s\[{,]@)", r"`(?<![^\s\[{,]`)",  # reserved indicators
    r"=(?<![^\s\[{,:]=)(?![^\s,\]}])",  # 1.1's "=" value key
    r"\+[0-9.]",  # a signed number: a snowflake field keeps its text
    r"-0(?![.\d])(?<![\w.]-0)",  # -0, whose text a snowflake field keeps
    r"0(?<![\w.]0)[0-9xXoObB_]",  # leading zeros (octal in 1.1), base prefixes
    r"_(?:(?<=[0-9]_)|(?<![A-Za-z]_)[0-9.])",  # 1_000, _3 (an integer to yaml-rs)
    r"e(?<=[0-9.]e)[-+_]*[0-9]", r"E(?<=[0-9.]E)[-+_]*[0-9]",  # 1e5, a string in 1.1
    r"\.(?:(?<=[-+]\.)[0-9]|(?<![^\s\[{,:+-]\.)[iInN])",  # -.5, .Inf: 1.1 reads them apart
))
# A block scalar header ending a line, which a flow collection may not hold.
BLOCK_HEADERS = (re.compile(r"\|(?=[-+1-9]{0,2}(?: +#.*)? *$)", re.MULTILINE),
                 re.compile(r">(?=[-+1-9]{0,2}(?: +#.*)? *$)", re.MULTILINE))


def distinct_lines(lines: list[str], *more: list[str]) -> str:
    """The first of ``lines``, then each other line of ``lines`` and ``more`` once
    (a line such as ``---`` may stand first and again later)."""
    distinct = dict.fromkeys(lines[1:])
    for other in more:
        distinct.update(dict.fromkeys(other))
    return "\n".join([lines[0], *distinct])


def divergent(lines: str) -> bool:
    """Whether ``lines`` (the distinct lines of a text, joined by line breaks, its
    first line first) hold a spelling of :data:`_DIVERGENT_TEXT` or :data:`_DIVERGENT`."""
    return any(marker in lines for marker in _DIVERGENT_TEXT) \
        or any(pattern.search(lines) for pattern in _DIVERGENT) \
        or _NON_PRINTABLE.search(lines) is not None or _flow_spans_lines(lines)


def _flow_spans_lines(lines: str) -> bool:
    """Whether a flow collection (``[...]``, ``{...}``) goes on past the end of a line
    (or a bracket in a scalar looks so): a key may then span lines, which
    libyaml refuses and yaml-rs reads."""
    if "[" not in lines and "{" not in lines:
        return False
    for line in lines.split("\n"):
        opens = line.count("[") + line.count("{")
        if opens and (opens > line.count("]") + line.count("}") or max(
                line.rfind("["), line.rfind("{")) > max(line.rfind("]"), line.rfind("}"))):
            return True
    return False


_ANCHOR = re.compile(r"&(?<![^\s\[{,]&)([\w-]+)")


def duplicate_anchor(text: str) -> bool:
    """Whether an anchor name is defined twice: YAML 1.2 (yaml-rs) allows it, PyYAML
    refuses it (a diagnostic only the careful way gives)."""
    names = _ANCHOR.findall(text)
    return len(names) != len(set(names))


def block_header_in_flow(text: str) -> bool:
    """Whether a block scalar header (``|``, ``>``) stands inside a flow collection
    (more ``[{`` than ``]}`` before it): libyaml refuses it, yaml-rs reads text."""
    headers = sorted(m.start() for pattern in BLOCK_HEADERS for m in pattern.finditer(text))
    depth = start = 0
    for position in headers:
        depth += (text.count("{", start, position) + text.count("[", start, position)
                  - text.count("}", start, position) - text.count("]", start, position))
        if depth > 0:
            return True
        start = position
    return False
