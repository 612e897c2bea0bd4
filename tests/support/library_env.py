"""A virtual environment of its own for a library that cannot share the test venv.

py-cord and nextcord (2.x) install a package named ``discord``, as discord.py does,
so each runs in an environment made once under ``.venvs/<name>`` in the repository
(ignored by git): the library's current release for this Python, pytest,
pytest-asyncio and cmdsync's own dependencies (read from pyproject.toml). cmdsync
itself comes from ``src/`` on ``PYTHONPATH``, and its pytest plugin is loaded with
``-p cmdsync.testing.plugin`` (pytest-asyncio's with ``-p pytest_asyncio.plugin``). The environment is made again when what it should
hold changes.
"""

from __future__ import annotations

import os
import re
import subprocess
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


def library_python(name: str, requirement: str) -> Path:
    """The interpreter of the environment ``name`` holding ``requirement`` (made once);
    fails the test when pip cannot install it."""
    wanted = sorted({requirement, "pytest>=8", "pytest-asyncio>=0.24",
                     *_runtime_dependencies()})
    root = ENVS / name
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    marker = root / "cmdsync-requirements.txt"
    ENVS.mkdir(exist_ok=True)
    with filelock.FileLock(str(ENVS / f"{name}.lock")):
        if marker.is_file() and marker.read_text(encoding="utf-8").split("\n") == wanted \
                and python.is_file():
            return python
        venv.EnvBuilder(clear=True, with_pip=True).create(root)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *wanted],
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
