"""What `cmdsync invoke` shows: the interaction sent, the response and the follow-ups.

:func:`to_text` gives plain lines (for pipes and tests), :func:`to_rich` the
same with colour, :func:`to_json` the whole exchange as one JSON document
``{"application_id", "ok", "refused", "outdated", "interrupted", "interaction",
"response", "failure", "messages"}``. Response types are Discord's interaction callback
types ("Interactions > Receiving and Responding").
"""

from __future__ import annotations

import json
from typing import Any

from cmdsync.runners.invoke import Invoked

CALLBACK_TYPES = {1: "PONG", 4: "CHANNEL_MESSAGE_WITH_SOURCE",
                  5: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE", 6: "DEFERRED_UPDATE_MESSAGE",
                  7: "UPDATE_MESSAGE", 8: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
                  9: "MODAL", 10: "PREMIUM_REQUIRED", 12: "LAUNCH_ACTIVITY"}
LOADING, EPHEMERAL = 1 << 7, 1 << 6


def to_json(result: Invoked) -> str:
    document = {"application_id": result.application_id, "ok": result.ok,
                "refused": result.refused, "outdated": result.outdated,
                "interrupted": result.interrupted,
                "interaction": result.exchange.get("interaction"),
                "response": result.exchange.get("response"),
                "failure": result.exchange.get("failure"),
                "messages": result.exchange.get("messages", [])}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def lines(result: Invoked) -> list[tuple[str, str]]:
    """``(style, text)`` lines; the style is a rich style name ("" for none)."""
    if result.refused:
        return [("red", f"Refused: {result.refused}")]
    if result.outdated:
        return [("yellow", (f"{result.outdated} (the client has the new version now: run "
                           "the same invoke again)"))]
    exchange = result.exchange
    interaction = exchange.get("interaction") or {}
    out: list[tuple[str, str]] = [("bold", _sent(interaction))]
    response = exchange.get("response")
    if exchange.get("failure"):
        out.append(("red", f"This interaction failed: {exchange['failure']}"))
        return out
    if response is None:
        return out
    kind = response.get("type")
    data = response.get("data") or {}
    out.append(("cyan", f"Response: {CALLBACK_TYPES.get(kind, kind)}"))
    if kind == 8:
        choices = data.get("choices") or []
        out += [("", f"  {c.get('name')} = {json.dumps(c.get('value'))}") for c in choices]
        if not choices:
            out.append(("dim", "  (no choices)"))
    elif kind == 9:
        out.append(("", (f"  modal {data.get('title')!r} ({data.get('custom_id')}), "
                        f"{len(data.get('components') or [])} component row(s)")))
    for message in exchange.get("messages") or []:
        out += _message(message, original=message.get("type") in (20, 23))
    return out


def to_text(result: Invoked) -> str:
    return "".join(f"{text}\n" for _, text in lines(result))


def to_rich(result: Invoked) -> Any:
    from rich.text import Text

    text = Text()
    for style, line in lines(result):
        text.append(line + "\n", style=style or None)
    return text


def _sent(interaction: dict[str, Any]) -> str:
    data = interaction.get("data") or {}
    kind = "Autocomplete" if interaction.get("type") == 4 else "Invoked"
    words = [f"/{data.get('name')}"] if data.get("type", 1) == 1 else [repr(data.get("name"))]
    words += _options(data.get("options") or [])
    if data.get("target_id"):
        words.append(f"on {data['target_id']}")
    user = (interaction.get("member") or {}).get("user") or interaction.get("user") or {}
    where = (f"in guild {interaction['guild_id']}, channel {interaction.get('channel_id')}"
             if interaction.get("guild_id") else "in a DM")
    return f"{kind} {' '.join(words)} {where} as {user.get('username')} ({user.get('id')})"


def _options(options: list[dict[str, Any]]) -> list[str]:
    words: list[str] = []
    for option in options:
        if option.get("type") in (1, 2):
            words.append(str(option["name"]))
            words += _options(option.get("options") or [])
        else:
            value = option.get("value")
            shown = value if isinstance(value, str) and " " not in value else json.dumps(value)
            words.append(f"{option['name']}:{shown}" + (" (focused)" if option.get("focused")
                                                          else ""))
    return words


def _message(message: dict[str, Any], *, original: bool) -> list[tuple[str, str]]:
    flags = int(message.get("flags") or 0)
    label = "Reply" if original else "Follow-up"
    notes = [note for note, on in (("ephemeral", flags & EPHEMERAL),
                                   ("edited", message.get("edited_timestamp"))) if on]
    head = f"{label}{' (' + ', '.join(notes) + ')' if notes else ''}:"
    if flags & LOADING:
        return [("dim", (f"{head} {message['author']['username']} is thinking... (deferred: "
                        "--wait SECONDS shows the edit and follow-ups)"))]
    out = [("green", head)]
    content = message.get("content") or ""
    out += [("", f"  {line}") for line in content.splitlines()]
    for embed in message.get("embeds") or []:
        out.append(("dim", f"  [embed] {embed.get('title') or ''} "
                           f"{embed.get('description') or ''}".rstrip()))
    if message.get("components"):
        out.append(("dim", f"  [{len(message['components'])} component row(s)]"))
    return out
