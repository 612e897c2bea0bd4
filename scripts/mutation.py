"""Mutation scores of cmdsync's pure core, each module against its own test folders.

mutmut (the ``dev`` extra; its settings are ``[tool.mutmut]`` in
``pyproject.toml``) changes one thing at a time in a module (a ``<`` for a
``<=``, a string for another, a line removed) and runs the tests that call
it: a change no test notices ("survived") is behaviour nothing pins. This
script runs it for each module of :data:`TARGETS` with only that module's
own test folders, in a scratch copy of the repository (mutmut writes a
``mutants/`` folder beside what it mutates), and prints each score against
its target and the count of ``# pragma: no mutate`` exclusions in the module.

    python scripts/mutation.py                         # every module (about an hour)
    python scripts/mutation.py src/cmdsync/apply/guardrails.py
    python scripts/mutation.py --markdown scores.md --json scores.json MODULE...

Exit status: 0 when every module meets its target, 1 when one does not, 2 on
bad arguments. A module's survivors are listed (``mutmut results`` in the
scratch copy, kept with ``--keep``) so that a test can be written for each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = "src/cmdsync/validate/rules/"
# module -> (its test folders, the lowest score it may have, in percent)
TARGETS: dict[str, tuple[tuple[str, ...], float]] = {
    "src/cmdsync/plan/diff.py": (("tests/plan",), 92.0),
    "src/cmdsync/apply/guardrails.py": (("tests/apply",), 90.0),
    "src/cmdsync/apply/strategy.py": (("tests/apply",), 95.0),
    "src/cmdsync/state/normalize.py": (("tests/state", "tests/plan"), 95.0),
    **{f"{RULES}{path.name}": (("tests/validate",), 90.0)
       for path in sorted((ROOT / RULES).glob("*.py"))
       # a rule another stage checks (the loader, the schema) has no code of its own
       if path.name not in ("__init__.py", "base.py", "common.py")
       and "\ndef " in path.read_text(encoding="utf-8")},
}
PRAGMA = re.compile(r"#\s*pragma:\s*no mutate")


@dataclass(frozen=True)
class Score:
    """One module's mutation score (``killed`` counts mutants that time out too)."""

    module: str
    tests: tuple[str, ...]
    mutants: int
    killed: int
    survived: list[str]
    excluded: int  # lines marked `# pragma: no mutate`
    target: float
    failed: bool = False  # mutmut could not run its tests clean: no score


    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.mutants if self.mutants else 100.0

    @property
    def met(self) -> bool:
        return not self.failed and self.percent >= self.target


def _settings(module: str, tests: tuple[str, ...], also: list[str]) -> str:
    """``[tool.mutmut]`` for one module and its test folders (``also``: what else of the
    repository the tests read, copied beside the mutants)."""
    return "\n".join([
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = [{json.dumps(module)}]",
        f"also_copy = {json.dumps(also)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow and not corpus"]',
        "mutate_only_covered_lines = false",
        "",
    ])


def _scratch(module: str, tests: tuple[str, ...]) -> Path:
    """A copy of the repository's files (as git tracks them, with the work tree's
    changes) whose ``pyproject.toml`` says, in ``[tool.mutmut]``, to mutate ``module``
    against ``tests``: mutmut reads its settings from the working directory, and the
    tests read files of the repository beside them (schemas, docs, examples)."""
    where = Path(tempfile.mkdtemp(prefix="cmdsync-mutation-"))
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        source, target = ROOT / name, where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # schemas -> src/cmdsync/schemas
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target)
    also = sorted({name.split("/", 1)[0] for name in tracked if name}
                  - {"src", "tests", "pyproject.toml", ".git"})
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", project)
    (where / "pyproject.toml").write_text(project + "\n" + _settings(module, tests, also),
                                          encoding="utf-8")
    return where


def measure(module: str, *, keep: bool = False) -> Score:
    """Run mutmut on ``module`` (a path under ``src/``) with its test folders."""
    tests, target = TARGETS[module]
    where = _scratch(module, tests)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        run = subprocess.run([sys.executable, "-m", "mutmut", "run"], cwd=where, env=env,
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:  # the clean run failed: no score; said, and the next goes on
            print(f"mutmut failed on {module}:\n{run.stdout[-4000:]}{run.stderr[-4000:]}",
                  file=sys.stderr, flush=True)
            return Score(module, tests, 0, 0, ["(mutmut failed: see above)"],
                         excluded(ROOT / module), target, failed=True)
        subprocess.run([sys.executable, "-m", "mutmut", "export-cicd-stats"], cwd=where,
                       env=env, capture_output=True, check=True)
        stats = json.loads((where / "mutants" / "mutmut-cicd-stats.json").read_text())
        results = subprocess.run([sys.executable, "-m", "mutmut", "results"], cwd=where,
                                 env=env, capture_output=True, text=True, check=True).stdout
    finally:
        if keep:
            print(f"kept {where}", file=sys.stderr)
        else:
            shutil.rmtree(where, ignore_errors=True)
    survived = [line.split(":")[0].strip() for line in results.splitlines()
                if line.strip().endswith(": survived")]
    tested = int(stats["total"]) - int(stats.get("skipped", 0))
    killed = int(stats["killed"]) + int(stats.get("timeout", 0))
    return Score(module, tests, tested, killed, survived, excluded(ROOT / module), target)


def excluded(path: Path) -> int:
    """How many comments of ``path`` say ``# pragma: no mutate`` (a docstring naming the
    pragma is not one)."""
    with path.open("rb") as source:
        return sum(1 for token in tokenize.tokenize(source.readline)
                   if token.type == tokenize.COMMENT and PRAGMA.search(token.string))


def markdown(scores: list[Score]) -> str:
    lines = ["| module (tests) | mutants | killed | score | target | `# pragma: no mutate` |",
             "|---|---|---|---|---|---|"]
    for s in scores:
        mark = "" if s.met else " (below)"
        lines.append(f"| `{s.module.removeprefix('src/cmdsync/')}` ({', '.join(s.tests)}) | "
                     f"{s.mutants} | {s.killed} | {s.percent:.1f}%{mark} | {s.target:g}% | "
                     f"{s.excluded} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="paths under src/ (default: all)")
    parser.add_argument("--markdown", type=Path, help="write the table to this file too")
    parser.add_argument("--json", type=Path, help="write the scores as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(f"not a module of the pure core: {', '.join(unknown)} (one of: "
                     f"{', '.join(TARGETS)})")
    scores = []
    for module in args.modules or list(TARGETS):
        score = measure(module, keep=args.keep)
        scores.append(score)
        print(f"{module}: {score.killed}/{score.mutants} killed, {score.percent:.1f}% "
              f"(target {score.target:g}%), {score.excluded} excluded", flush=True)
        for name in score.survived:
            print(f"  survived: {name}", flush=True)
    table = markdown(scores)
    print(table)
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(s), "percent": round(s.percent, 2)}
                                         for s in scores], indent=2), encoding="utf-8")
    return 0 if all(s.met for s in scores) else 1


if __name__ == "__main__":
    raise SystemExit(main())
