"""What `cmdsync invoke` shows: the interaction sent, the response and the follow-ups.

:func:`to_text` gives plain lines (for pipes and tests), :func:`to_rich` the
same with colour, :func:`to_json` the whole exchange as one JSON document
``{"application_id", "ok", "refused", "outdated", "interrupted", "interaction",
"response", "failure", "messages"}``. Response types are Discord's interaction callback
types ("Interactions > Receiving and Responding").

Everything in the text but cmdsync's own words came from the emulator or the bot:
it passes :func:`~cmdsync.render.escape.printable`, so a reply cannot drive the
terminal or a CI log. Text is shown as written (``é``, not ``\\u00e9``); an
embed shows its author, title, description, fields and footer. The JSON holds
the same data exactly, its control and bidirectional characters and ``##[``
written as ``\\u`` escapes (:func:`~cmdsync.render.escape.inert_json`).

Neither shows the interaction token (for 15 minutes, whoever holds it can
post, edit and delete as the application in that channel): the interaction's
``token`` is ``[redacted]``, and so is the token wherever else a bot or
server wrote it.
"""

from __future__ import annotations

import json
from typing import Any

from cmdsync.client.redact import REDACTED
from cmdsync.model import CALLBACK_TYPES, EPHEMERAL, LOADING
from cmdsync.render.escape import inert_json, printable
from cmdsync.runners.invoke import Invoked


def to_json(result: Invoked) -> str:
    exchange = _without_token(result.exchange)
    document = {"application_id": result.application_id, "ok": result.ok,
                "refused": result.refused, "refusal": result.refusal.get("refusal"),
                "outdated": result.outdated,
                "interrupted": result.interrupted,
                "interaction": exchange.get("interaction"),
                "response": exchange.get("response"),
                "failure": exchange.get("failure"),
                "failure_code": exchange.get("failure_code"),
                "messages": exchange.get("messages", []),
                "updated": exchange.get("updated")}
    return inert_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def lines(result: Invoked) -> list[tuple[str, str]]:
    """``(style, text)`` lines; the style is a rich style name ("" for none)."""
    if result.refused:
        return [("red", f"Refused: {printable(result.refused)}")]
    if result.outdated:
        return [("yellow", (f"{result.outdated} (the client has the new version now: run "
                           "the same invoke again)"))]
    exchange = _without_token(result.exchange)
    interaction = exchange.get("interaction") or {}
    out: list[tuple[str, str]] = [("bold", _sent(interaction))]
    response = exchange.get("response")
    if exchange.get("failure"):
        out.append(("red", f"This interaction failed: {printable(str(exchange['failure']))}"))
        return out
    if response is None:
        return out
    kind = response.get("type")
    data = response.get("data") or {}
    out.append(("cyan", f"Response: {CALLBACK_TYPES.get(kind, kind)}"))
    if kind == 8:
        choices = data.get("choices") or []
        out += [("", f"  {printable(c['name'])} = {_json(c.get('value'))}") for c in choices]
        if not choices:
            out.append(("dim", "  (no choices)"))
    elif kind == 9:
        out.append(("", (f"  modal {_json(data.get('title'))} "
                        f"({printable(str(data.get('custom_id')))}), "
                        f"{len(data.get('components') or [])} component row(s)")))
        inputs = ", ".join(f"{_json(label)} ({printable(str(custom_id))})"
                           for custom_id, label in _inputs(data.get("components") or []))
        out.append(("dim", printable(
            f"  text inputs: {inputs or 'none'}; submit it with --submit "
            f"{interaction.get('id')} --field KEY=VALUE")))
    for message in exchange.get("messages") or []:
        out += _message(message, original=message.get("type") in (20, 23))
    if exchange.get("updated"):  # the message a component is on, as its answer left it
        out += _message(exchange["updated"], original=True, label="Message")
    return out


def to_text(result: Invoked) -> str:
    return "".join(f"{text}\n" for _, text in lines(result))


def to_rich(result: Invoked) -> Any:
    from rich.text import Text

    text = Text()
    for style, line in lines(result):
        text.append(line + "\n", style=style or None)
    return text


def _without_token(exchange: dict[str, Any]) -> dict[str, Any]:
    """``exchange`` with the interaction's token ``[redacted]``, there and in every other
    string that holds it (a reply quoting it, a failure naming a webhook's path)."""
    interaction = exchange.get("interaction")
    token = interaction.get("token") if isinstance(interaction, dict) else None
    if not isinstance(token, str) or not token:
        return exchange
    hidden = _redacted(exchange, token) if len(token) >= _TOKEN_MIN_LENGTH else exchange
    return {**hidden, "interaction": {**hidden["interaction"], "token": REDACTED}}


_TOKEN_MIN_LENGTH = 6  # shorter would redact ordinary words (the emulator's have 64)


def _redacted(value: Any, token: str) -> Any:
    if isinstance(value, str):
        return value.replace(token, REDACTED) if token in value else value
    if isinstance(value, dict):
        return {_redacted(k, token): _redacted(v, token) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(item, token) for item in value]
    return value


def _sent(interaction: dict[str, Any]) -> str:
    data = interaction.get("data") or {}
    user = (interaction.get("member") or {}).get("user") or interaction.get("user") or {}
    who = f"as {user.get('username')} ({user.get('id')})"
    if interaction.get("type") == 3:  # MESSAGE_COMPONENT
        values = data.get("values")
        on = interaction.get("message") or {}
        label = next((c.get("label") for c in _walk(on.get("components") or [])
                      if c.get("custom_id") == data.get("custom_id") and c.get("label")), None)
        named = f"{_json(label)} ({data.get('custom_id')})" if label else repr(
            data.get("custom_id"))
        done = (f"Chose {', '.join(map(str, values))} in {data.get('custom_id')!r}"
                if values is not None else f"Clicked {named}")
        return printable(f"{done} on message {(interaction.get('message') or {}).get('id')} "
                         f"{who}")
    if interaction.get("type") == 5:  # MODAL_SUBMIT
        return printable(f"Submitted the modal {data.get('custom_id')!r} {who}")
    kind = "Autocomplete" if interaction.get("type") == 4 else "Invoked"
    words = [f"/{data.get('name')}"] if data.get("type", 1) == 1 else [repr(data.get("name"))]
    words += _options(data.get("options") or [])
    if data.get("target_id"):
        words.append(f"on {data['target_id']}")
    user = (interaction.get("member") or {}).get("user") or interaction.get("user") or {}
    where = (f"in guild {interaction['guild_id']}, channel {interaction.get('channel_id')}"
             if interaction.get("guild_id") else "in a DM")
    return printable(f"{kind} {' '.join(words)} {where} as {user.get('username')} "
                     f"({user.get('id')})")


def _options(options: list[dict[str, Any]]) -> list[str]:
    words: list[str] = []
    for option in options:
        if option.get("type") in (1, 2):
            words.append(str(option["name"]))
            words += _options(option.get("options") or [])
        else:
            value = option.get("value")
            shown = value if isinstance(value, str) and value and " " not in value \
                else _json(value)
            words.append(f"{option['name']}:{shown}" + (" (focused)" if option.get("focused")
                                                          else ""))
    return words


def _json(value: Any) -> str:
    """A value as JSON, as written (``"café"``, not ``"caf\\u00e9"``), made printable."""
    return printable(json.dumps(value, ensure_ascii=False))


def _message(message: dict[str, Any], *, original: bool, label: str = ""
             ) -> list[tuple[str, str]]:
    flags = int(message.get("flags") or 0)
    label = label or ("Reply" if original else "Follow-up")
    notes = [note for note, on in (("ephemeral", flags & EPHEMERAL),
                                   ("edited", message.get("edited_timestamp"))) if on]
    head = f"{label}{' (' + ', '.join(notes) + ')' if notes else ''}:"
    if flags & LOADING:
        author = printable(str((message.get("author") or {}).get("username")))
        return [("dim", (f"{head} {author} is thinking... (deferred: "
                        "--wait SECONDS shows the edit and follow-ups)"))]
    out = [("green", head)]
    out += _indented(message.get("content"), "  ")
    for embed in message.get("embeds") or []:
        out += _embed(embed)
    if message.get("components"):
        usable = "; ".join(_component(c) for c in _walk(message["components"])
                           if c.get("type") in (2, 3, 5, 6, 7, 8))
        out.append(("dim", printable(
            f"  [{len(message['components'])} component row(s) on message {message.get('id')}"
            + (f": {usable}" if usable else "") + "]")))
    return out


def _walk(items: list[Any]) -> list[dict[str, Any]]:
    """Every component, depth first (rows' children, a section's accessory, a label's)."""
    found: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, dict):
            found.append(item)
            found += _walk(item.get("components") or [])
            found += _walk([item[key] for key in ("accessory", "component")
                            if isinstance(item.get(key), dict)])
    return found


def _component(component: dict[str, Any]) -> str:
    """``button 'Yes' (yes)``, ``button 'No' (no, disabled)``, ``select (flavour): Vanilla,
    Chocolate``: what ``--click``, ``--custom-id`` and ``--choose`` take."""
    notes = [str(component["custom_id"])] if component.get("custom_id") else []
    if component.get("disabled"):
        notes.append("disabled")
    said = f" ({', '.join(notes)})" if notes else ""
    if component.get("type") == 2:
        return f"button {_json(component.get('label') or '')}{said}"
    options = ", ".join(str(o.get("label")) for o in component.get("options") or [])
    return f"select{said}" + (f": {options}" if options else "")


def _inputs(items: list[Any]) -> list[tuple[str, str]]:
    """``(custom_id, label)`` of a modal's text inputs (a label component's, or its own)."""
    found: dict[str, str] = {}
    for item in _walk(items):
        inner = item.get("component") if item.get("type") == 18 else item
        if isinstance(inner, dict) and inner.get("type") == 4 and "label" in item:
            found.setdefault(str(inner.get("custom_id")), str(item["label"]))
    return list(found.items())


def _embed(embed: dict[str, Any]) -> list[tuple[str, str]]:
    """``[embed] TITLE (URL)``, then its author, description, fields (``NAME: VALUE``)
    and footer, indented below it."""
    head = "  [embed]" + "".join(f" {part}" for part in (
        printable(embed.get("title") or ""),
        f"({printable(embed['url'])})" if embed.get("url") else "") if part)
    out = [("dim", head)]
    author = (embed.get("author") or {}).get("name")
    if author:
        out.append(("dim", f"    by {printable(author)}"))
    out += _indented(embed.get("description"), "    ")
    for field in embed.get("fields") or []:
        name = printable(field["name"]) + (" (inline)" if field.get("inline") else "")
        value = _indented(field["value"], "      ")
        first = value[0][1].lstrip() if value else ""
        out.append(("", f"    {name}: {first}".rstrip()))
        out += value[1:]
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        out.append(("dim", f"    -- {printable(footer)}"))
    return out


def _indented(text: str | None, indent: str) -> list[tuple[str, str]]:
    """The lines of ``text`` (a bot's, so each :func:`printable`), each after ``indent``."""
    return [("", f"{indent}{printable(line)}") for line in (text or "").splitlines()]
