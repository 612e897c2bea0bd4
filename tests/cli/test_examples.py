"""The bundled examples are clean: no error and no warning, with or without environment.

All files under examples/ are validated together, as ``cmdsync validate
examples/`` does, so they must also agree with each other (one application
id, distinct command names per scope).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cmdsync.validate import validate_paths
from tests.support import paths

ROOT = paths.ROOT
EXAMPLES = ROOT / "examples"
MODELINE = "# yaml-language-server: $schema="


@pytest.mark.parametrize("env", [
    {},
    {"DISCORD_APPLICATION_ID": "123456789012345678", "DEV_GUILD_ID": "987654321098765432",
     "STAFF_GUILD_ID": "876543210987654321", "DEV_USER_ID": "765432109876543210"},
], ids=["defaults", "environment"])
def test_examples_have_no_diagnostics(env: dict[str, str]) -> None:
    result = validate_paths([str(EXAMPLES)], env=env)
    assert len(result.files) >= 4
    assert [(d.location.file, d.location.line, d.rule, d.message)
            for d in result.diagnostics] == []
    assert result.manifest is not None and len(result.manifest.commands) >= 50


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("**/*.yaml")),
                         ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_example_has_schema_modeline(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(MODELINE)
    schema = (path.parent / first[len(MODELINE):]).resolve()
    assert schema == (ROOT / "schemas" / "cmdsync.schema.json").resolve()


def test_examples_apply_locally_then_plan_no_changes(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """What a newcomer tries after the quickstart: every example, against --local."""
    from cmdsync.cli import main

    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("DISCORD_")]:
        monkeypatch.delenv(name)
    codes = []
    for args in (["apply", "--local", "--auto-approve", "--format", "json", str(EXAMPLES)],
                 ["plan", "--local", "--detailed-exitcode", str(EXAMPLES)]):
        with pytest.raises(SystemExit) as exited:
            main(args)
        codes.append(exited.value.code)
    assert codes == [0, 0]
