"""Message content as Discord's client renders it, as safe HTML.

Discord's "Message Formatting" reference and its markdown: bold ``**``,
italic ``*``/``_``, underline ``__``, strikethrough ``~~``, spoilers
``||``, inline code and code blocks, headings ``#`` to ``###``, block
quotes, lists, masked links (http and https only); mentions ``<@id>``,
``<@!id>``, ``<@&id>``, ``<#id>`` and timestamps ``<t:unix:style>``.
CommonMark is parsed by markdown-it-py with raw HTML and images off; a
core rule then turns mentions, timestamps and spoilers in text into
elements, and ``__`` renders as underline as on Discord. Everything the
message says is escaped; nothing it holds runs or loads. A ``redact``
function (the console's secret filter) is applied to every text, code,
link and name once parsed, before anything is escaped, so that what markdown
decodes (a backslash escape, an entity, a percent-encoded link) cannot bring
a secret back.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import Markup

# (kind, id) -> the name shown after @ or #, or None when unknown
Resolver = Callable[[str, str], "str | None"]
Redact = Callable[[str], str]
_SPECIAL = re.compile(r"<(@!?|@&|#)([0-9]{1,20})>|<t:(-?[0-9]{1,13})(?::([tTdDfFR]))?>"
                      r"|\|\|(.+?)\|\||(@everyone|@here)")
_STYLES = {"t": "%H:%M", "T": "%H:%M:%S", "d": "%d/%m/%Y", "D": "%d %B %Y",
           "f": "%d %B %Y %H:%M", "F": "%A, %d %B %Y %H:%M", "R": "%d %B %Y %H:%M"}


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.enable("strikethrough").disable(["image", "html_inline", "html_block",
                                            "lheading", "hr", "reference"])
    parser.core.ruler.push("discord", _discord)
    parser.add_render_rule("strong_open", _underline_open)
    parser.add_render_rule("strong_close", _underline_close)
    parser.add_render_rule("link_open", _link_open)
    return parser


def render(content: str, resolve: Resolver, *, redact: Redact | None = None) -> Markup:
    """``content`` as HTML, its mentions named through ``resolve``, every text passed
    through ``redact`` (if given) before it is escaped."""
    env = {"resolve": resolve, "redact": redact}
    return Markup(_PARSER.render(content, env))  # escaped by markdown-it


def _discord(state: StateCore) -> None:
    redact: Redact | None = state.env["redact"]
    resolve: Resolver = state.env["resolve"]
    if redact is not None:
        _redact(state.tokens, redact)
        resolve = _redacted(resolve, redact)
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for token in block.children:
            children.extend(_split(token, resolve) if token.type == "text" else [token])
        block.children = children


def _redact(tokens: Sequence[Token], redact: Redact) -> None:
    """Each text, code, fence language and attribute (a link's href) of ``tokens``."""
    for token in tokens:
        token.content = redact(token.content)
        token.info = redact(token.info)
        for name, value in list(token.attrs.items()):
            token.attrs[name] = redact(str(value))
        if token.children:
            _redact(token.children, redact)


def _redacted(resolve: Resolver, redact: Redact) -> Resolver:
    def named(kind: str, snowflake: str) -> str | None:
        name = resolve(kind, snowflake)
        return None if name is None else redact(name)

    return named


def _split(token: Token, resolve: Resolver) -> list[Token]:
    out: list[Token] = []
    text, at = token.content, 0
    for match in _SPECIAL.finditer(text):
        if match.start() > at:
            out.append(_text(text[at:match.start()]))
        out.append(_html(_special(match, resolve)))
        at = match.end()
    if at < len(text):
        out.append(_text(text[at:]))
    return out


def _special(match: re.Match[str], resolve: Resolver) -> str:
    sigil, snowflake, stamp, style, spoiler, everyone = match.groups()
    if everyone:
        return f'<span class="mention">{everyone}</span>'
    if spoiler is not None:
        return (f'<span class="spoiler" tabindex="0" role="button" aria-pressed="false" '
                f'title="Spoiler: select to reveal">{html.escape(spoiler)}</span>')
    if stamp is not None:
        try:
            moment = datetime.fromtimestamp(int(stamp), timezone.utc)
        except (OverflowError, OSError, ValueError):
            return html.escape(match.group(0))
        shown = moment.strftime(_STYLES.get(style or "f", _STYLES["f"])) + " UTC"
        return f'<time class="timestamp" datetime="{moment.isoformat()}">{shown}</time>'
    kind = {"@": "user", "@!": "user", "@&": "role", "#": "channel"}[sigil]
    name = resolve(kind, snowflake)
    prefix = "#" if kind == "channel" else "@"
    label = f"{prefix}{name}" if name is not None else f"{prefix}unknown-{kind}"
    return (f'<span class="mention mention-{kind}" title="{kind} {snowflake}">'
            f"{html.escape(label)}</span>")


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _html(content: str) -> Token:
    token = Token("html_inline", "", 0)
    token.content = content
    return token


def _underline_open(self: Any, tokens: Sequence[Token], idx: int, options: Any,
                    env: Any) -> str:
    return "<u>" if tokens[idx].markup == "__" else "<strong>"


def _underline_close(self: Any, tokens: Sequence[Token], idx: int, options: Any,
                     env: Any) -> str:
    return "</u>" if tokens[idx].markup == "__" else "</strong>"


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    href = str(tokens[idx].attrs.get("href", ""))
    if not href.startswith(("https://", "http://")):
        return '<a>'  # Discord makes only web links clickable
    return (f'<a href="{html.escape(href)}" rel="noopener noreferrer nofollow" '
            'target="_blank">')


_PARSER = _parser()
