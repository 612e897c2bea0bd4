"""One source of the version: ``cmdsync.__version__``, which pyproject.toml reads
(``dynamic = ["version"]``), the installed metadata reports, and ``cmdsync
--version`` prints. A release bumps that one line."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 CI jobs
    import tomli as tomllib

import cmdsync
from tests.support import paths

SOURCE = paths.ROOT / "src" / "cmdsync"


def project() -> dict[str, object]:
    with open(paths.ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def test_pyproject_reads_the_version_from_the_package() -> None:
    data = project()
    table = data["project"]
    assert isinstance(table, dict)
    assert "version" not in table
    assert "version" in table["dynamic"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {  # type: ignore[index]
        "attr": "cmdsync.__version__"}


def test_the_version_is_a_literal_assigned_once() -> None:
    """setuptools reads ``__version__`` without importing cmdsync only when it is a
    plain string literal; no other module of the package spells the version."""
    assignments = [node for node in ast.parse((SOURCE / "__init__.py").read_text("utf-8")).body
                   if isinstance(node, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == "__version__"
                           for t in node.targets)]
    assert len(assignments) == 1
    value = assignments[0].value
    assert isinstance(value, ast.Constant) and value.value == cmdsync.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?",
                        cmdsync.__version__)
    literal = re.compile(r"""["']""" + re.escape(cmdsync.__version__) + r"""["']""")
    elsewhere = [path.relative_to(paths.ROOT).as_posix()
                 for path in sorted(SOURCE.rglob("*"))
                 if path.is_file() and path != SOURCE / "__init__.py"
                 and path.suffix in (".py", ".json", ".toml", ".txt", ".cfg")
                 and literal.search(path.read_text("utf-8", errors="replace"))]
    assert elsewhere == []
    assert not literal.search((paths.ROOT / "pyproject.toml").read_text("utf-8"))


def test_cmdsync_version_prints_the_installed_metadata_version() -> None:
    """The development environment's install (editable) and the source agree: a
    version bumped without reinstalling shows here."""
    done = subprocess.run([sys.executable, "-m", "cmdsync", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"cmdsync {importlib.metadata.version('cmdsync')}\n"
    assert importlib.metadata.version("cmdsync") == cmdsync.__version__
