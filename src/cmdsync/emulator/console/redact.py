"""Secrets out of the console: each value is redacted before a page escapes or renders it.

A page is template text (the console's own) and the values its expressions
print. Every secret the emulator holds (:func:`secrets_of`: bot and Bearer
tokens, client secrets, refresh tokens, codes, consent nonces, interaction
tokens, signing keys, the seed's) is replaced by ``[hidden]`` in those values
before they are escaped: by the templates' ``finalize`` hook, in each text of
a message's markdown once parsed, and in the data shown as JSON
(:mod:`cmdsync.emulator.console.web`). So a secret cannot come out in another
encoding (HTML-escaped in the page, percent-encoded in a link, JSON-escaped in
raw JSON) than the one it was hidden in; and the forms a value may already
hold it in (a bot that wrote it escaped or percent-encoded) are hidden too.

A secret shorter than :data:`WHOLE_WORD_BELOW` characters is hidden only where
it stands as a word of its own (not inside a longer run of letters, digits or
``_``): a token ``a`` hides the word "a" in what the page shows, not every
letter a, nor a snowflake. The console's own markup and links (template
text) are never filtered, so no secret can break a page: grepping the
finished HTML instead would hit them (a secret ``console`` or ``a`` in
``<a href="/console/...">``) and miss a secret the page shows escaped.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus

from markupsafe import escape
from mdurl import encode  # markdown-it-py's own percent-encoding of link URLs

from cmdsync.emulator.instance import Emulator
from cmdsync.emulator.interactions import signing

HIDDEN = "[hidden]"
WHOLE_WORD_BELOW = 6  # characters


@dataclass(frozen=True)
class Redactor:
    """Replaces the secrets it was made with (:func:`redactor`) by ``[hidden]``."""

    pattern: re.Pattern[str] | None = None

    def text(self, value: str) -> str:
        """``value`` with every secret, in any of its forms, hidden."""
        if self.pattern is None or not value:
            return value
        return self.pattern.sub(HIDDEN, value)

    def data(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings) with every string redacted, keys
        included."""
        if self.pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.data(key): self.data(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item) for item in value]
        return value


NOTHING = Redactor()


def forms(secret: str) -> set[str]:
    """``secret`` as it may be written: raw, percent-encoded (as ``quote``,
    ``quote_plus`` and markdown-it's link normalization write it), JSON-escaped, and
    each of those HTML-escaped (as ``html.escape`` and markupsafe write it)."""
    plain = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret),
             encode(secret), json.dumps(secret)[1:-1],
             json.dumps(secret, ensure_ascii=False)[1:-1]}
    escaped = {variant for text in plain for variant in (
        html.escape(text), html.escape(text, quote=False), str(escape(text)))}
    return {text for text in plain | escaped if text}


def secrets_of(emulator: Emulator) -> set[str]:
    """Every secret the emulator holds: tokens of every kind (bot, Bearer, refresh,
    interaction), authorization codes and consent nonces, client secrets, signing keys
    (hex), and the seed's."""
    store = emulator.store
    found: set[str] = set()
    with store.transaction() as db:
        for query in ("SELECT token FROM tokens", "SELECT token FROM interactions",
                      "SELECT refresh_token FROM oauth_grants", "SELECT code FROM oauth_codes",
                      "SELECT nonce FROM oauth_requests"):
            found.update(str(row[0]) for row in db.execute(query))
        app_ids = [row[0] for row in db.execute("SELECT id FROM applications")]
    for app_id in app_ids:
        app = store.application(app_id)
        if app is not None:
            found.add(app.client_secret)
            found.add(signing.private_key(app).private_bytes_raw().hex())
    for item in (emulator.seed.get("applications") or []) + (emulator.seed.get("users") or []):
        found.update(str(item[key]) for key in ("bot_token", "client_secret", "bearer_token")
                     if item.get(key))
    return found


def redactor(secrets: Iterable[str]) -> Redactor:
    """A :class:`Redactor` of ``secrets`` (empty ones are left out)."""
    return _redactor(frozenset(secrets))


@functools.lru_cache(maxsize=8)  # compiling the expression of 1000 tokens takes 0.3 s
def _redactor(secrets: frozenset[str]) -> Redactor:
    long: set[str] = set()
    short: set[str] = set()
    for secret in secrets:
        if secret:
            (long if len(secret) >= WHOLE_WORD_BELOW else short).update(forms(secret))
    parts = []
    if long:
        parts.append(_trie(long))
    if short:
        words = "|".join(map(re.escape, sorted(short, key=len, reverse=True)))
        parts.append(rf"(?<!\w)(?:{words})(?!\w)")
    return Redactor(re.compile("|".join(parts))) if parts else NOTHING


def _trie(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words``, longest first, as a trie: a page
    redacts each value against hundreds of interaction tokens, which an alternation of
    them all would make some ten times slower."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items())
                    if char]
        if not branches:
            return ""
        body = "(?:" + "|".join(branches) + ")"
        return body + "?" if "" in node else body

    return build(root)
