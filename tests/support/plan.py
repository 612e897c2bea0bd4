"""Shared helpers for the plan, pull and normalize tests: the live-response corpus."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cmdsync.manifest.entries import collect
from cmdsync.manifest.loader import load_text
from cmdsync.state import DesiredState, LiveState, desired_state, live_scope
from tests.support import paths

CORPUS = paths.CORPUS / "live_responses"


def corpus_files() -> list[Path]:
    """Every saved GET response (skips the tests if the corpus is not beside the repo)."""
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("*.json"))


def load_commands(path: Path) -> list[dict[str, Any]]:
    """The command objects of one corpus file (sern files wrap them as {"global": [...]})."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data["global"] if isinstance(data, dict) else data)


def is_clean(commands: list[dict[str, Any]]) -> bool:
    """A full ``with_localizations=true`` GET: every command has an id and a version.

    The documentation's localized example is a list fetched without
    ``with_localizations`` (only ``*_localized``), so it cannot be adopted.
    """
    return all("id" in c and "version" in c for c in commands)


def clean_corpus_files() -> list[Path]:
    return [p for p in corpus_files() if is_clean(load_commands(p))]


CORPUS_PARAMS = [pytest.param(p, id=p.stem) for p in corpus_files()] or [
    pytest.param(None, marks=pytest.mark.skip(reason=paths.NO_CORPUS))]
CLEAN_PARAMS = [pytest.param(p, id=p.stem) for p in clean_corpus_files()] or [
    pytest.param(None, marks=pytest.mark.skip(reason=paths.NO_CORPUS))]


APP = "111111111111111111"


GUILD = "222222222222222222"


OTHER = "999999999999999999"


def desired(text: str, **kwargs: Any) -> DesiredState:
    doc = load_text(textwrap.dedent(text), file="m.yaml", kind="yaml", env={})
    assert doc.diagnostics == []
    return desired_state(collect([doc]), **kwargs)


def cmd(id: str, name: str, *, type: int = 1, guild: str | None = None,
        **fields: Any) -> dict[str, Any]:
    """A command as Discord's GET returns it."""
    out: dict[str, Any] = {
        "id": id, "application_id": APP, "version": f"{id}0", "default_member_permissions": None,
        "type": type, "name": name, "name_localizations": None,
        "description": "" if type in (2, 3) else f"{name} command",
        "description_localizations": None, "nsfw": False}
    if guild:
        out["guild_id"] = guild
    else:
        out.update(dm_permission=True, contexts=None, integration_types=[0])
    out.update(fields)
    return out


def live(scopes: dict[str, list[dict[str, Any]]],
         permissions: dict[str, list[dict[str, Any]]] | None = None) -> LiveState:
    perms = permissions or {}
    return LiveState(APP, {s: live_scope(s, c, perms.get(s, [])) for s, c in scopes.items()})


MANIFEST = """\
    commands:
      - {name: ping, description: ping command}
      - name: ban
        description: Ban a member
        options:
          - {type: user, name: user, description: Who, required: true}
      - {name: new, description: A new command}
    """


def sent_form(live: dict[str, Any]) -> dict[str, Any]:
    """What a bot would have sent to get ``live``: no response-only keys, no defaults."""
    drop = {"id", "application_id", "version", "guild_id", "name_localized",
            "description_localized", "default_permission"}

    def clean(obj: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in obj.items():
            if key in drop or value is None or value is False or value == [] or value == {}:
                continue
            if key in ("options", "choices"):
                value = [clean(v) for v in value]
            out[key] = value
        return out

    result = clean(live)
    if result.get("dm_permission") is True:
        del result["dm_permission"]
    if result.get("type") in (2, 3):
        result.pop("description", None)
    return result
