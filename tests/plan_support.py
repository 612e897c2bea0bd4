"""Shared helpers for the plan, pull and normalize tests: the live-response corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "live_responses"


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
    pytest.param(None, marks=pytest.mark.skip(reason="corpus not found"))]
CLEAN_PARAMS = [pytest.param(p, id=p.stem) for p in clean_corpus_files()] or [
    pytest.param(None, marks=pytest.mark.skip(reason="corpus not found"))]
