"""A virtual environment of its own for a library that cannot share the test venv.

py-cord and nextcord (2.x) install a package named ``discord``, as discord.py does,
so each runs in an environment made once under ``.venvs/<name>`` in the repository
(ignored by git): the library's current release (nextcord's 3.x needs Python 3.12: its
environment is made with a Python 3.12 or newer where one is installed, else with this
one, which gets nextcord 2.6), pytest,
pytest-asyncio and cmdsync's own dependencies (read from pyproject.toml). cmdsync
itself comes from ``src/`` on ``PYTHONPATH``, and its pytest plugin is loaded with
``-p cmdsync.testing.plugin`` (pytest-asyncio's with ``-p pytest_asyncio.plugin``). The environment is made again when what it should
hold changes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import filelock
import pytest

from tests.support import paths

ENVS = paths.ROOT / ".venvs"
INSTALL_TIMEOUT = 900  # seconds: a first install downloads the library and its dependencies


def _runtime_dependencies() -> list[str]:
    """cmdsync's ``[project] dependencies``, as pyproject.toml lists them."""
    text = (paths.ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.DOTALL | re.MULTILINE)
    assert block is not None, "pyproject.toml has no [project] dependencies"
    return re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE)


def newer_python(minimum: tuple[int, int]) -> str | None:
    """An interpreter of Python ``minimum`` or newer besides this one (on PATH, or one
    pyenv installed), or None: a library whose current release needs a newer Python
    than the tests run on is installed with it."""
    if sys.version_info[:2] >= minimum:
        return sys.executable
    names = [f"python3.{minor}" for minor in range(minimum[1], minimum[1] + 4)]
    found = [shutil.which(name) for name in names]
    found += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.*/bin/python3"))
    for candidate in filter(None, found):
        probe = subprocess.run([candidate, "-c", "import sys, venv; print(*sys.version_info[:2])"],
                               capture_output=True, text=True, timeout=30, check=False)
        words = probe.stdout.split()
        if probe.returncode == 0 and len(words) == 2 and tuple(map(int, words)) >= minimum:
            return candidate
    return None


def library_python(name: str, requirement: str, *, interpreter: str | None = None) -> Path:
    """The interpreter of the environment ``name`` holding ``requirement`` (made once, with
    ``interpreter``, else this Python); fails the test when pip cannot install it."""
    base = interpreter or sys.executable
    wanted = sorted({requirement, "pytest>=8", "pytest-asyncio>=0.24",
                     *_runtime_dependencies()}) + [f"# made with {base}"]
    root = ENVS / name
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    marker = root / "cmdsync-requirements.txt"
    ENVS.mkdir(exist_ok=True)
    with filelock.FileLock(str(ENVS / f"{name}.lock")):
        if marker.is_file() and marker.read_text(encoding="utf-8").split("\n") == wanted \
                and python.is_file():
            return python
        if base == sys.executable:
            venv.EnvBuilder(clear=True, with_pip=True).create(root)
        else:
            subprocess.run([base, "-m", "venv", "--clear", str(root)], check=True,
                           capture_output=True, timeout=300)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *wanted[:-1]],
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                              check=False)
        if done.returncode != 0:
            pytest.fail(f"pip could not make the {name} environment: {done.stderr[-2000:]}")
        marker.write_text("\n".join(wanted), encoding="utf-8")
    return python


def run_suite(python: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """pytest on ``folder`` with ``python``, cmdsync from ``src/`` and its plugin loaded."""
    (folder / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = "
                                       "function\n", encoding="utf-8")
    # plugins named, none found by entry point: src/ may hold an editable install's
    # metadata, which would register cmdsync's plugin a second time
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT / "src"),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([str(python), "-m", "pytest", "-q", "-p", "cmdsync.testing.plugin",
                           "-p", "pytest_asyncio.plugin", "-p", "no:cacheprovider",
                           str(folder)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def version(python: Path, module: str) -> str:
    """``module.__version__`` in that environment."""
    return subprocess.run([str(python), "-c", f"import {module}; print({module}.__version__)"],
                          capture_output=True, text=True, check=True,
                          timeout=120).stdout.strip()


__all__ = ["library_python", "run_suite", "version"]
