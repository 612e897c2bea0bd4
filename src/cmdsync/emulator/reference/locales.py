"""The locale a request asks for (Discord's "Reference > Locales").

Discord reads ``X-Discord-Locale`` (and, failing that, ``Accept-Language``) to
choose which localization of a command's name and description to answer with.
"""

from __future__ import annotations

from collections.abc import Mapping

from cmdsync.model import LOCALES

_BY_LOWER = {locale.lower(): locale for locale in LOCALES}
_LANGUAGES = {"en": "en-US", "es": "es-ES", "pt": "pt-BR", "sv": "sv-SE", "zh": "zh-CN"}


def requested_locale(headers: Mapping[str, str]) -> str | None:
    """The Discord locale of a request: ``X-Discord-Locale``, then ``Accept-Language``.

    ``headers`` has lowercase names. Tags match case-insensitively, and a
    region Discord does not have falls back to its language (``fr-FR`` ->
    ``fr``, ``en`` -> ``en-US``); an ``Accept-Language`` list is taken by
    its ``q`` weights.
    Returns None when neither header names a Discord locale.
    """
    found = _discord_locale(headers.get("x-discord-locale", ""))
    if found:
        return found
    weighted = []
    for position, item in enumerate(headers.get("accept-language", "").split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        weighted.append((-weight, position, tag.strip()))
    for weight, _, tag in sorted(weighted):
        found = _discord_locale(tag) if weight < 0 else None
        if found:
            return found
    return None


def _discord_locale(tag: str) -> str | None:
    tag = tag.strip().lower()
    if not tag:
        return None
    language = tag.split("-")[0]
    return _BY_LOWER.get(tag) or _BY_LOWER.get(language) or _LANGUAGES.get(language)
