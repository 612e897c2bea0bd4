"""The JSON Schemas in schemas/: valid, documented, and accepting the examples.

Editors show the schemas' descriptions as help (through the
yaml-language-server modeline in the examples), so every property must have
one and every enum must name its members there. check-jsonschema, a peer
tool people run in CI, must find the schemas valid and the examples valid
against them without cmdsync's help.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import paths
from tests.support.schemas import walk

ROOT = paths.ROOT
SCHEMAS = sorted((ROOT / "schemas").glob("*.json"))
EXAMPLES = sorted((ROOT / "examples").glob("**/*.yaml"))


def check_jsonschema(*args: str) -> subprocess.CompletedProcess[str]:
    beside = Path(sys.executable).parent / "check-jsonschema"
    tool = str(beside) if beside.exists() else shutil.which("check-jsonschema")
    if tool is None:
        pytest.fail("check-jsonschema is not installed: pip install -e '.[dev]'")
    return subprocess.run([tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)


def test_there_are_schemas_and_examples() -> None:
    assert {"application-command.schema.json", "manifest.schema.json"} <= {
        p.name for p in SCHEMAS}
    assert len(EXAMPLES) >= 4


def test_schemas_are_valid_json_schemas() -> None:
    done = check_jsonschema("--check-metaschema", *map(str, SCHEMAS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_examples_match_the_manifest_schema() -> None:
    done = check_jsonschema("--schemafile", str(ROOT / "schemas" / "manifest.schema.json"),
                            *map(str, EXAMPLES))
    assert done.returncode == 0, done.stdout + done.stderr


def schema_nodes() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema editors show as help: not the editor schema's per-type
    constraints (``allOf``: if/then), which only restrict what is documented above."""
    for schema in SCHEMAS:
        for where, node in walk(json.loads(schema.read_text(encoding="utf-8")),
                                schema.name + "#"):
            if "/allOf/" not in where:
                yield where, node


def test_every_property_has_a_description() -> None:
    undocumented = [f"{where}/properties/{name}"
                    for where, node in schema_nodes()
                    for name, sub in (node.get("properties") or {}).items()
                    if not (isinstance(sub, dict) and str(sub.get("description", "")).strip())]
    assert undocumented == []


def test_every_enum_description_lists_its_names() -> None:
    missing: dict[str, str] = {}
    for where, node in schema_nodes():
        if "enum" not in node:
            continue
        description = str(node.get("description", ""))
        absent = [name for name in node["enum"]
                  if isinstance(name, str) and not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])",
                                                             description)]
        if absent:
            missing[where] = f"{len(absent)} of {len(node['enum'])} names missing, e.g. {absent[:3]}"
    assert missing == {}, "enum descriptions must list every name (editors show them as help)"
