"""Telling a manifest from other YAML and JSON files by its content.

A directory given to ``validate``, ``plan`` or ``apply`` (``cmdsync validate
.``) holds other YAML and JSON too: a docker-compose file, a workflow,
``package.json``, a saved plan. :func:`is_manifest` says which files are
manifests, as the pre-commit hook tells them apart; files named on the
command line are read whatever they hold.
"""

from __future__ import annotations

import json
import re

from cmdsync.manifest.files import MAX_MANIFEST_BYTES, read_bounded

MODELINE = "# yaml-language-server: $schema="
# A top-level commands: or guilds: key, written in block style (the usual way).
_TOP_LEVEL_KEY = re.compile(r"^[\"']?(commands|guilds)[\"']?[ \t]*:", re.MULTILINE)
_KEYS = ("commands", "guilds")
_MANIFEST_KEYS = {"$schema", "application_id", "commands", "guilds", "prune"}


def is_manifest(path: str) -> bool:
    """Whether a file is a cmdsync manifest by its content: a mapping with top-level
    ``commands`` or ``guilds``, or ``application_id`` and no key a manifest cannot
    have (a saved plan has one too), a JSON array of command objects, or a first line with
    the schema modeline naming cmdsync's schema. Anything else (a docker-compose
    file, a workflow, package.json, a saved plan) is not; nor is a file that is not
    UTF-8. A file that cannot be read (too large, not readable) counts as one, so
    that reading it says why it cannot be; so does one that does not parse but has
    a top-level ``commands`` or ``guilds`` key."""
    try:
        text = read_bounded(path, MAX_MANIFEST_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        return False
    except OSError:
        return True
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if first.startswith(MODELINE) and ("cmdsync" in first or "manifest.schema" in first):
        return True
    is_json = path.lower().endswith(".json")
    if not is_json and _TOP_LEVEL_KEY.search(text):
        return True  # no need to parse a large manifest twice
    import yaml

    try:
        data = json.loads(text) if is_json else \
            yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (ValueError, yaml.YAMLError, RecursionError):
        return is_json and any(f'"{key}"' in text for key in _KEYS)
    if isinstance(data, dict):
        return any(key in data for key in _KEYS) or "application_id" in data and all(
            key in _MANIFEST_KEYS or str(key).startswith("x-") for key in data)
    return isinstance(data, list) and bool(data) and all(
        isinstance(item, dict) and "name" in item and ("description" in item or "type" in item)
        for item in data)
