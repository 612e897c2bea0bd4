"""Read a JSON manifest into its Document, strictly.

Values come from :mod:`json` (RFC 8259, https://www.rfc-editor.org/rfc/rfc8259),
with exact numbers and escapes. Where RFC 8259 leaves a text's meaning open,
cmdsync refuses what a manifest cannot mean: a name written twice in one
object (section 4: names SHOULD be unique; :mod:`json` keeps the last value
silently) is CS002, found again in the text with its line and column; an
escape of a lone surrogate (section 8.2, ``"\\uDEAD"``) is CS001. Nothing is
interpolated: deploy scripts send JSON files verbatim. Positions come from
composing the same text with PyYAML, once, only when a diagnostic needs one
(:meth:`cmdsync.manifest.document.Document.locate`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cmdsync.manifest.diagnostics import pointer, problem
from cmdsync.manifest.document import Document
from cmdsync.manifest.positions import Unwalkable, find_duplicates
from cmdsync.manifest.yaml_careful import ALIAS_EXPANSION_FLOOR, loader_for, yaml_positions


def parse_json(doc: Document) -> None:
    duplicates: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                duplicates.append(key)
            result[key] = value
        return result

    if not doc.text.strip():
        problem(doc, "CS001", "file is empty: expected a JSON array of commands or a "
                "manifest object")
        return
    try:
        doc.data = json.loads(doc.text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        problem(doc, "CS001", f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
    except RecursionError:
        problem(doc, "CS001", "JSON is nested too deeply to be a manifest")
    else:
        if duplicates:
            _report_json_duplicates(doc, duplicates)
        match = next((m for m in _LONE_SURROGATE_ESCAPE.finditer(doc.text)
                      if _escapes(doc.text, m.start())), None)
        if match is not None and _holds_lone_surrogate(doc.data):
            line = doc.text.count("\n", 0, match.start()) + 1
            column = match.start() - (doc.text.rfind("\n", 0, match.start()) + 1) + 1
            problem(doc, "CS001", f"invalid JSON string: {match.group(0)} is half of a "
                    "surrogate pair, not a character (YAML refuses it too); write the "
                    "character itself, or both halves", line, column)
            doc.data = None


# A \uD800-\uDFFF escape not part of a pair: json.loads keeps it as a lone surrogate,
# which is no character, cannot be written as UTF-8, and Discord refuses.
_LONE_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})")


def _escapes(text: str, index: int) -> bool:
    """Whether the backslash at ``index`` starts an escape (is not itself escaped)."""
    start = index
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (index - start) % 2 == 0


def _holds_lone_surrogate(data: Any) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if any("\ud800" <= ch <= "\udfff" for ch in value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _report_json_duplicates(doc: Document, keys: list[str]) -> None:
    # json keeps the last value silently; find each duplicate again in the text's events
    # (composing the text would hold every node of it at once).
    text = doc.text.replace("\t", " ")
    try:
        found = find_duplicates(text, loader=loader_for(text),
                                max_replayed=ALIAS_EXPANSION_FLOOR)
    except Unwalkable:
        doc.positions, doc.key_positions = yaml_positions(doc.text, duplicates=doc)
        found = []
    for duplicate in found:
        key = duplicate.path[-1]
        problem(doc, "CS002", f"duplicate key {key!r} (first at line {duplicate.before}): "
                "the last value would win silently; remove one", duplicate.line,
                duplicate.column, pointer(duplicate.path))
    if not any(d.rule == "CS002" for d in doc.diagnostics):
        for key in sorted(set(keys)):
            problem(doc, "CS002", f"duplicate key {key!r}: the last value wins silently; "
                    "remove one")
