"""Discovery of rule test cases under ``tests/data/rules/<ID>/{valid,invalid}/``.

A case is a file (``.yaml``, ``.yml`` or ``.json``) or a directory of such
files validated together. Expected diagnostics are written next to the
data, in the format ``LINE:COL RULE MESSAGE``:

- in a YAML file, as comment lines ``# expect: 4:9 CS101 option name ...``;
- for a JSON file ``x.json``, one per line in the sidecar ``x.json.expect``.

A ``valid`` case must produce no diagnostic at all; an ``invalid`` case
exactly the expected ones, from every rule (so a case also proves the other
rules stay quiet).

Rules that need the application (CS6xx) get it from the case: a YAML comment
line ``# application: {...}`` (Discord's application object as JSON, e.g.
``{"id": "1", "flags": 131072, "integration_types_config": {"0": {}}}``), or
for ``x.json`` the sidecar ``x.json.application``. Without one, those rules
do not run, as in an offline ``cmdsync validate``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from cmdsync.state.application import AppInfo, app_info
from tests.support import paths

DATA = paths.DATA / "rules"
SUFFIXES = (".yaml", ".yml", ".json")
# Variables the cases may interpolate; everything else is unset.
ENV = {"CMDSYNC_TEST_GUILD": "333333333333333333", "CMDSYNC_TEST_APP": "111111111111111111"}


@dataclass(frozen=True)
class Case:
    rule: str
    kind: str  # "valid" or "invalid"
    path: Path

    @property
    def id(self) -> str:
        return f"{self.rule}/{self.kind}/{self.path.name}"

    def files(self) -> list[Path]:
        if self.path.is_dir():
            return sorted(p for p in self.path.rglob("*") if p.suffix in SUFFIXES)
        return [self.path]

    def application(self) -> AppInfo | None:
        """The application the case declares, if any (see the module docstring)."""
        for file in self.files():
            if file.suffix == ".json":
                sidecar = Path(str(file) + ".application")
                if sidecar.exists():
                    return app_info(json.loads(sidecar.read_text(encoding="utf-8")))
                continue
            for line in file.read_text(encoding="utf-8").splitlines():
                if line.startswith("# application:"):
                    return app_info(json.loads(line.split(":", 1)[1]))
        return None

    def expected(self) -> set[tuple[str, int, int, str, str]]:
        """(file name, line, column, rule, message) of every expected diagnostic."""
        found = set()
        for file in self.files():
            lines: list[str] = []
            if file.suffix == ".json":
                sidecar = Path(str(file) + ".expect")
                if sidecar.exists():
                    lines = sidecar.read_text(encoding="utf-8").splitlines()
            else:
                lines = [line.split("# expect:", 1)[1] for line in
                         file.read_text(encoding="utf-8").splitlines() if "# expect:" in line]
            for line in lines:
                if line.strip():
                    position, rule, message = line.strip().split(" ", 2)
                    row, col = position.split(":")
                    found.add((file.name, int(row), int(col), rule, message))
        return found


def discover() -> list[Case]:
    cases = []
    for rule_dir in sorted(DATA.iterdir()) if DATA.exists() else []:
        for kind in ("valid", "invalid"):
            folder = rule_dir / kind
            if folder.is_dir():
                for entry in sorted(folder.iterdir()):
                    if entry.is_dir() or entry.suffix in SUFFIXES:
                        cases.append(Case(rule_dir.name, kind, entry))
    return cases


def relpath(path: str) -> str:
    return os.path.basename(path)
