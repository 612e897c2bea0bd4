"""The package as users get it: the sdist and wheel ``python -m build`` makes (as the
release workflow does), checked by ``twine check``, the wheel installed (not
editable) into a fresh virtual environment, and the CLI run from it in a
directory outside the repository, so the installed wheel, never ``src/``, is what
runs. pip resolves the dependencies from the package index (its cache helps).

Also: the wheel holds every file of ``src/cmdsync`` (the schemas, ``py.typed``, the
emulator console's templates and static files...), and mypy, pointed at the fresh
environment, reads cmdsync's own annotations (PEP 561) for a user's file calling
``cmdsync.sync()`` and using the pytest plugin's fixture.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import cmdsync
from tests.support import paths

pytestmark = pytest.mark.slow  # builds, creates a virtual environment, pip installs

SOURCE = paths.ROOT / "src" / "cmdsync"
NAME = f"cmdsync-{cmdsync.__version__}"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def package_files() -> set[str]:
    """Every file of the package in the source tree, as the wheel names them."""
    return {path.relative_to(SOURCE.parent).as_posix() for path in SOURCE.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel built from a copy of the project (the build writes ``build/``
    and ``*.egg-info`` beside the sources: never in the shared work tree), the wheel
    from the sdist as ``python -m build`` does, so the sdist must be complete too."""
    if shutil.which("pyproject-build", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("build is not installed: pip install -e '.[dev]'")
    project = tmp_path_factory.mktemp("project")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(paths.ROOT / name, project / name)
    for licence in paths.ROOT.glob("LICEN[CS]E*"):
        shutil.copy(licence, project / licence.name)
    shutil.copytree(paths.ROOT / "src", project / "src", ignore=IGNORED)
    out = tmp_path_factory.mktemp("dist")
    done = run(sys.executable, "-m", "build", "--outdir", out, project, cwd=project)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == [
        f"{NAME}-py3-none-any.whl", f"{NAME}.tar.gz"]
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    return dist / f"{NAME}-py3-none-any.whl"


def scripts(venv: Path) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin")


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel file installed by pip."""
    where = tmp_path_factory.mktemp("venv") / "env"
    done = run(sys.executable, "-m", "venv", where, cwd=where.parent)
    assert done.returncode == 0, done.stderr
    python = scripts(where) / "python"
    done = run(python, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel,
               cwd=where.parent)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return where


@pytest.fixture
def outside(tmp_path: Path, venv: Path) -> Path:
    """A working directory outside the repository holding the quickstart manifest."""
    shutil.copy(paths.EXAMPLES / "quickstart.yaml", tmp_path / "quickstart.yaml")
    return tmp_path


def clean_env(tmp_path: Path) -> dict[str, str]:
    """No PYTHONPATH (src/ must not leak in), no virtual environment of ours, and a
    config directory of the test's own for anything cmdsync would keep."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("CMDSYNC_")}
    env["CMDSYNC_CONFIG_DIR"] = str(tmp_path / "config")
    env["NO_COLOR"] = "1"
    return env


def test_twine_check_passes(dist: Path) -> None:
    done = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()),
               cwd=dist)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    """The schemas (``validate`` reads them), ``py.typed``, and any template or static
    file under src/cmdsync: a data file missing from package-data fails here."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    packaged = {n for n in names if n.startswith("cmdsync/")}
    assert packaged == package_files()
    assert "cmdsync/py.typed" in packaged
    assert {n for n in packaged if n.startswith("cmdsync/schemas/")} == {
        f"cmdsync/schemas/{p.name}" for p in (SOURCE / "schemas").glob("*.json")}
    metadata = f"{NAME}.dist-info"
    entry_points = zipfile.ZipFile(wheel).read(f"{metadata}/entry_points.txt").decode()
    assert "cmdsync = cmdsync.__main__:main" in entry_points
    assert "cmdsync = cmdsync.testing.plugin" in entry_points  # the pytest11 plugin


def test_the_sdist_holds_the_package_and_its_project_files(dist: Path) -> None:
    with tarfile.open(dist / f"{NAME}.tar.gz") as archive:
        names = {n.removeprefix(f"{NAME}/") for n in archive.getnames()}
    assert {f"src/{n}" for n in package_files()} <= names
    assert {"pyproject.toml", "README.md", "PKG-INFO"} <= names


def test_the_installed_wheel_runs_the_cli(venv: Path, outside: Path) -> None:
    env = clean_env(outside)
    cli = scripts(venv) / "cmdsync"
    where = run(scripts(venv) / "python", "-c", "import cmdsync; print(cmdsync.__file__)",
                cwd=outside, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr

    version = run(cli, "--version", cwd=outside, env=env)
    assert (version.returncode, version.stdout) == (0, f"cmdsync {cmdsync.__version__}\n")
    metadata = run(scripts(venv) / "python", "-c",
                   "import importlib.metadata as m; print(m.version('cmdsync'))",
                   cwd=outside, env=env)
    assert metadata.stdout == f"{cmdsync.__version__}\n"

    validate = run(cli, "validate", "quickstart.yaml", cwd=outside, env=env)
    assert (validate.returncode, validate.stdout) == (
        0, "All 1 file valid (5 commands).\n"), validate.stderr

    plan = run(cli, "plan", "--local", "quickstart.yaml", cwd=outside, env=env)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "Plan: 5 to create, 0 to update, 0 to delete" in plan.stdout
    assert '+ chat_input "ping"' in plan.stdout


def test_an_invalid_manifest_fails_validate_from_the_wheel(venv: Path, outside: Path) -> None:
    """The schemas are read from the installed package: a wrong type is caught."""
    (outside / "bad.yaml").write_text(
        "application_id: '111111111111111111'\ncommands:\n  - name: Ping\n"
        "    description: 3\n", encoding="utf-8")
    done = run(scripts(venv) / "cmdsync", "validate", "bad.yaml", cwd=outside,
               env=clean_env(outside))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.yaml:3" in done.stdout + done.stderr


USER_CODE = '''\
from cmdsync.testing import DiscordEmulator, Invocation

import cmdsync


def deploy() -> int:
    result = cmdsync.sync("discord/", local=True)
    reveal_type(result)
    return result.creates


async def test_ping(discord_emulator: DiscordEmulator) -> None:
    answer = await discord_emulator.invoke("/ping")
    reveal_type(answer)
    assert answer.content == "Pong!"
'''


def mypy(venv: Path, where: Path, code: str) -> str:
    (where / "user_bot.py").write_text(code, encoding="utf-8")
    done = run(sys.executable, "-m", "mypy", "--strict", "--no-incremental",
               "--python-executable", scripts(venv) / "python", "user_bot.py",
               cwd=where, env=clean_env(where))
    output = done.stdout + done.stderr
    assert "missing library stubs or py.typed marker" not in output
    assert done.returncode == (1 if ": error:" in output else 0), output
    return output


def test_mypy_reads_the_installed_packages_types(venv: Path, tmp_path: Path) -> None:
    """PEP 561: with py.typed in the wheel, mypy (this environment's, pointed at the
    fresh one) checks a user's calls against cmdsync's annotations, not as Any."""
    output = mypy(venv, tmp_path, USER_CODE)
    assert ": error:" not in output, output
    assert 'Revealed type is "cmdsync.apply.result.ApplyResult"' in output
    assert 'Revealed type is "cmdsync.testing.results.Invocation"' in output


def test_mypy_catches_a_wrong_use_of_the_installed_package(venv: Path,
                                                           tmp_path: Path) -> None:
    output = mypy(venv, tmp_path, USER_CODE.replace("answer.content ==", "answer.text =="))
    assert 'error: "Invocation" has no attribute "text"' in output
