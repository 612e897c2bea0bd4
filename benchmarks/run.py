"""cmdsync's benchmarks, each measured side by side with a peer in one run.

    python benchmarks/run.py            # the full run (several minutes)
    python benchmarks/run.py --quick    # small sizes, for CI (well under a minute)
    python benchmarks/run.py --json out.json

Prints a table and writes JSON (default ``benchmarks/results/<UTC
timestamp>.json``). Whole-process timings are medians of alternating runs
(cmdsync, peer, cmdsync, peer...) after one warm-up each; every figure is a
ratio to its peer (check-jsonschema, or the lower bound that Discord's rate
limit sets) next to its target. See the README's "Benchmarks" section.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import emulated
import generate
import procs
import report

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "schemas/manifest.schema.json"
LARGEST_EXAMPLE = "examples/large-bot.yaml"


@dataclass(frozen=True)
class Sizes:
    runs: int
    throughput_guilds: int  # x 100 commands
    plan_guilds: int
    plan_commands: int
    plan_runs: int


FULL = Sizes(runs=5, throughput_guilds=100, plan_guilds=500, plan_commands=50, plan_runs=3)
QUICK = Sizes(runs=3, throughput_guilds=10, plan_guilds=20, plan_commands=10, plan_runs=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI")
    parser.add_argument("--json", metavar="FILE", help="where to write the results")
    parser.add_argument("--runs", type=int, help="timed runs of each command (default 5; "
                        "3 with --quick)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print the table as Markdown (for the README)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.runs:
        sizes = Sizes(args.runs, *list(vars(sizes).values())[1:])
    results = run_all(sizes, quick=args.quick)
    report.print_table(results)
    if args.markdown:
        print(report.markdown(results))
    path = Path(args.json) if args.json else ROOT / "benchmarks" / "results" / (
        results["date"].replace(":", "").replace("-", "") + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"Wrote {path}")
    return 0


def run_all(sizes: Sizes, *, quick: bool) -> dict[str, Any]:
    cmdsync, peer = tool("cmdsync"), tool("check-jsonschema")
    results: dict[str, Any] = {"date": _now(), "quick": quick, "runs": sizes.runs,
                               "machine": machine(), "benchmarks": {}}
    benchmarks = results["benchmarks"]
    os.chdir(ROOT)  # the example and the schema are named relative to the repository
    with tempfile.TemporaryDirectory(prefix="cmdsync-bench-") as workdir:
        benchmarks["cold_validate"] = compare(
            [cmdsync, "validate", LARGEST_EXAMPLE],
            [peer, "--schemafile", SCHEMA, LARGEST_EXAMPLE], runs=sizes.runs, target=0.6)
        benchmarks["throughput"] = throughput(cmdsync, peer, workdir, sizes)
        benchmarks["cli_start"] = compare([cmdsync, "--help"], [peer, "--help"],
                                          runs=sizes.runs, target=0.5)
        benchmarks["plan_at_scale"] = plan_at_scale(cmdsync, workdir, sizes)
        benchmarks["write_efficiency"] = emulated.write_efficiency(cmdsync, workdir)
        for scenario in benchmarks["write_efficiency"].values():
            got, want = scenario["cmdsync"], scenario["target"]
            scenario["met"] = all(got[k] == v for k, v in want.items())
    return results


def compare(ours: list[str], peer: list[str], *, runs: int, target: float) -> dict[str, Any]:
    mine, theirs = procs.alternate(ours, peer, runs=runs)
    ratio = procs.median(mine) / procs.median(theirs)
    return {"command": " ".join(ours[1:]), "peer_command": " ".join(peer[1:]),
            "cmdsync_s": procs.median(mine), "peer_s": procs.median(theirs),
            "cmdsync_samples_s": [s.seconds for s in mine],
            "peer_samples_s": [s.seconds for s in theirs],
            "ratio": ratio, "target": target, "met": ratio <= target}


def throughput(cmdsync: str, peer: str, workdir: str, sizes: Sizes) -> dict[str, Any]:
    """Validate a generated manifest of 100 commands per guild, in files of 25 guilds."""
    directory = os.path.join(workdir, "throughput")
    files = generate.write_manifests(directory, guilds=sizes.throughput_guilds, per_guild=100,
                                     guilds_per_file=25)
    commands = sizes.throughput_guilds * 100
    result = compare([cmdsync, "validate", *files], [peer, "--schemafile", SCHEMA, *files],
                     runs=sizes.runs, target=0.5)
    result.update(commands=commands, files=len(files),
                  bytes=sum(os.path.getsize(f) for f in files),
                  cmdsync_commands_per_s=commands / result["cmdsync_s"],
                  peer_commands_per_s=commands / result["peer_s"])
    return result


def plan_at_scale(cmdsync: str, workdir: str, sizes: Sizes) -> dict[str, Any]:
    """Wall time of ``cmdsync plan`` against the bound Discord's 50 req/s sets."""
    result = emulated.plan_at_scale(cmdsync, workdir, guilds=sizes.plan_guilds,
                                    per_guild=sizes.plan_commands, runs=sizes.plan_runs)
    runs = result["runs"]
    middle = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    bound = middle["requests"] / result["limit_per_s"]
    rate_limited = sum(r["rate_limited"] for r in runs)
    free = result["unlimited"]
    result.update(seconds=middle["seconds"], requests=middle["requests"], bound_s=bound,
                  request_phase_s_median=middle["request_phase_s"],
                  ratio=middle["seconds"] / bound, request_phase_ratio=(
                      middle["request_phase_s"] / bound),
                  rate_limited=rate_limited, target=1.15,
                  met=middle["seconds"] / bound <= 1.15 and rate_limited == 0)
    free.update(requests_per_s=free["requests"] / free["seconds"],
                request_phase_per_s=free["requests"] / max(free["request_phase_s"], 1e-9))
    return result


def tool(name: str) -> str:
    """The executable beside this Python (the project's venv), else on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found: install the project with `pip install -e '.[dev]'`")
    return found


def machine() -> dict[str, Any]:
    memory = ""
    if os.path.exists("/proc/meminfo"):
        with open("/proc/meminfo", encoding="ascii") as handle:
            total_kib = int(handle.readline().split()[1])
        memory = f"{total_kib / 1024 / 1024:.1f} GiB"
    versions = {name: _version(name) for name in (
        "cmdsync", "check-jsonschema", "typer", "click", "jsonschema", "PyYAML")}
    return {"cpus": os.cpu_count(), "memory": memory, "python": platform.python_version(),
            "platform": platform.platform(), "versions": versions}


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


if __name__ == "__main__":
    sys.exit(main())
