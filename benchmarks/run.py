"""cmdsync's benchmarks, each measured side by side with a peer in one run.

    python benchmarks/run.py            # the full run (several minutes)
    python benchmarks/run.py --quick    # small sizes, for CI (about 90 s on 2 cores)
    python benchmarks/run.py --json out.json
    python benchmarks/run.py --only plan_at_scale_1000,apply_from_empty

Prints a table and writes JSON (default ``benchmarks/results/<UTC
timestamp>.json``). Whole-process timings are medians of alternating runs
(cmdsync, peer, cmdsync, peer...) after one warm-up each; every figure is a
ratio to its peer (check-jsonschema, the lower bound that Discord's rate
limit sets, or a blind bulk overwrite) next to its target. Runs against the
emulator also report each run's phases (before, during and after its
requests) and the child's peak RSS; ``emulator_speed`` measures the
emulator itself (:mod:`emulator_load`). See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import bot_suites
import bot_tests
import emulated
import emulator_load
import generate
import procs
import report

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "schemas/manifest.schema.json"
LARGEST_EXAMPLE = "examples/large-bot.yaml"


@dataclass(frozen=True)
class Sizes:
    """How big each benchmark is; commands per guild are ``plan_commands`` throughout."""

    runs: int  # timed runs of each side of a comparison
    throughput_guilds: int  # x 100 commands
    plan_guilds: int
    plan_commands: int
    plan_runs: int  # timed runs of each plan, and of apply from empty
    plan_large_guilds: int  # the larger plan at scale
    distinct_guilds: int  # plan with a distinct body for every command
    apply_guilds: int  # apply from empty
    change_guilds: int  # one command changed in each, against a blind bulk overwrite
    answers: int = 500  # invocations one connected bot answers (bot_tests)
    suite_tests: int = 100  # tests in each bot suite run under pytest (bot_suites)
    load_guilds: int = 1000  # the emulator's own speed (emulator_load)
    load_seconds: float = 10.0  # of mixed traffic


FULL = Sizes(runs=5, throughput_guilds=100, plan_guilds=500, plan_commands=50, plan_runs=3,
             plan_large_guilds=1000, distinct_guilds=100, apply_guilds=500, change_guilds=100)
QUICK = Sizes(runs=3, throughput_guilds=10, plan_guilds=20, plan_commands=10, plan_runs=1,
              plan_large_guilds=40, distinct_guilds=10, apply_guilds=20, change_guilds=10,
              answers=100, load_guilds=200, load_seconds=2.0, suite_tests=20)
# In the order they run and are reported.
BENCHMARKS = ("cold_validate", "throughput", "cli_start", "plan_at_scale", "plan_at_scale_1000",
              "plan_distinct_bodies", "plan_guild_specific", "plan_guild_specific_1000",
              "apply_from_empty", "apply_distinct_bodies", "apply_guild_specific",
              "apply_guild_specific_1000", "apply_one_change", "write_efficiency",
              "emulator_speed", "bot_tests", "bot_suites")
# Targets: wall time at most this times the bound that 50 requests per second
# sets (requests served / 50), with no 429; and cmdsync's apply of one change
# per guild at most this times a blind bulk overwrite's wall time.
PLAN_TARGET, APPLY_TARGET, ONE_CHANGE_TARGET = 1.15, 1.2, 1.0
# Issue 24's workloads, where guilds' commands differ (a tenth of each guild's its
# own, or every command): plan at most 1.1x the bound in at most 300 MB (10^6
# bytes, the child's peak RSS), apply from empty at most 1.15x; no 429.
DIFFERING_PLAN_TARGET, DIFFERING_APPLY_TARGET, MAX_PLAN_BYTES = 1.1, 1.15, 300 * 10**6
# Throughput: validate at least this fast, in at most this much memory (peak RSS).
MIN_COMMANDS_PER_S, MAX_VALIDATE_BYTES = 5_000, 150 * 10**6
# Issue 34: the plan of distinct bodies validates its 5,000 commands (parsed, every body
# distinct: schema and rules) in at most this many seconds (scaled to --quick's count).
DISTINCT_VALIDATE_S, DISTINCT_VALIDATE_COMMANDS = 0.3, 5_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI")
    parser.add_argument("--json", metavar="FILE", help="where to write the results")
    parser.add_argument("--runs", type=int, help="timed runs of each command (default 5; "
                        "3 with --quick)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print the table as Markdown (for the README)")
    parser.add_argument("--only", metavar="NAMES", type=_names,
                        help="run only these benchmarks, comma-separated: "
                        + ", ".join(BENCHMARKS))
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.runs:
        sizes = dataclasses.replace(sizes, runs=args.runs)
    results = run_all(sizes, quick=args.quick, only=args.only)
    report.print_table(results)
    if args.markdown:
        print(report.markdown(results))
    path = Path(args.json) if args.json else ROOT / "benchmarks" / "results" / (
        results["date"].replace(":", "").replace("-", "") + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"Wrote {path}")
    return 0


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown benchmark {', '.join(unknown) or '(none)'}; "
                                         f"choose from {', '.join(BENCHMARKS)}")
    return names


def run_all(sizes: Sizes, *, quick: bool, only: tuple[str, ...] | None = None
            ) -> dict[str, Any]:
    """Every benchmark of ``only`` (default: all), in :data:`BENCHMARKS` order."""
    selected = [name for name in BENCHMARKS if only is None or name in only]
    cmdsync = tool("cmdsync")
    peer = tool("check-jsonschema") if {"cold_validate", "throughput", "cli_start"} & set(
        selected) else ""
    results: dict[str, Any] = {"date": _now(), "quick": quick, "runs": sizes.runs,
                               "machine": machine(), "benchmarks": {}, "load_1min": {}}
    os.chdir(ROOT)  # the example and the schema are named relative to the repository
    with tempfile.TemporaryDirectory(prefix="cmdsync-bench-") as workdir:
        jobs: dict[str, Callable[[], dict[str, Any]]] = {
            "cold_validate": lambda: compare(
                [cmdsync, "validate", LARGEST_EXAMPLE],
                [peer, "--schemafile", SCHEMA, LARGEST_EXAMPLE], runs=sizes.runs, target=0.6),
            "throughput": lambda: throughput(cmdsync, peer, workdir, sizes),
            "cli_start": lambda: compare([cmdsync, "--help"], [peer, "--help"],
                                         runs=sizes.runs, target=0.5),
            "plan_at_scale": lambda: plan_at_scale(cmdsync, workdir, sizes.plan_guilds, sizes),
            "plan_at_scale_1000": lambda: plan_at_scale(
                cmdsync, workdir, sizes.plan_large_guilds, sizes, unlimited=False),
            "plan_distinct_bodies": lambda: plan_distinct_bodies(cmdsync, workdir, sizes),
            "plan_guild_specific": lambda: plan_guild_specific(cmdsync, workdir,
                                                               sizes.plan_guilds, sizes),
            "plan_guild_specific_1000": lambda: plan_guild_specific(
                cmdsync, workdir, sizes.plan_large_guilds, sizes),
            "apply_from_empty": lambda: apply_from_empty(cmdsync, workdir, sizes),
            "apply_distinct_bodies": lambda: apply_differing(
                cmdsync, workdir, sizes.distinct_guilds, sizes, distinct=True),
            "apply_guild_specific": lambda: apply_differing(cmdsync, workdir,
                                                            sizes.apply_guilds, sizes),
            "apply_guild_specific_1000": lambda: apply_differing(
                cmdsync, workdir, sizes.plan_large_guilds, sizes),
            "apply_one_change": lambda: apply_one_change(cmdsync, workdir, sizes),
            "write_efficiency": lambda: write_efficiency(cmdsync, workdir),
            "emulator_speed": lambda: emulator_speed(sizes),
            "bot_tests": lambda: bot_tests.bot_tests(runs=sizes.runs, answers=sizes.answers),
            "bot_suites": lambda: bot_suites.bot_suites(runs=sizes.plan_runs,
                                                        tests=sizes.suite_tests),
        }
        for name in selected:
            before = _load()
            results["benchmarks"][name] = jobs[name]()
            results["load_1min"][name] = [before, _load()]
    return results


def _load() -> float | None:
    """The 1-minute load average (None where the system has none).

    Kept before and after each benchmark: its own child counts about 1, so
    much more than that means something else competed for the CPUs.
    """
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def compare(ours: list[str], peer: list[str], *, runs: int, target: float) -> dict[str, Any]:
    mine, theirs = procs.alternate(ours, peer, runs=runs)
    ratio = procs.median(mine) / procs.median(theirs)
    return {"command": " ".join(ours[1:]), "peer_command": " ".join(peer[1:]),
            "cmdsync_s": procs.median(mine), "peer_s": procs.median(theirs),
            "cmdsync_samples_s": [s.seconds for s in mine],
            "peer_samples_s": [s.seconds for s in theirs],
            "cmdsync_peak_mib": max(s.peak_mib for s in mine),
            "peer_peak_mib": max(s.peak_mib for s in theirs),
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
    # the targets too: at least 5,000 commands per second, at most 150 MB (10^6 bytes)
    result["met"] = (result["met"] and result["cmdsync_commands_per_s"] >= MIN_COMMANDS_PER_S
                     and result["cmdsync_peak_mib"] * 2**20 <= MAX_VALIDATE_BYTES)
    return result


def plan_at_scale(cmdsync: str, workdir: str, guilds: int, sizes: Sizes, *,
                  unlimited: bool = True) -> dict[str, Any]:
    """Wall time of ``cmdsync plan`` against the bound Discord's 50 req/s sets.

    With ``unlimited``, also the same plan with every limit off.
    """
    result = emulated.plan_at_scale(cmdsync, workdir, guilds=guilds,
                                    per_guild=sizes.plan_commands, runs=sizes.plan_runs,
                                    unlimited=unlimited)
    result.update(against_bound(result["runs"], result["limit_per_s"], target=PLAN_TARGET))
    if unlimited:
        free = result["unlimited"]
        free.update(requests_per_s=free["requests"] / free["seconds"],
                    request_phase_per_s=free["requests"] / max(free["request_phase_s"], 1e-9))
    return result


def plan_distinct_bodies(cmdsync: str, workdir: str, sizes: Sizes) -> dict[str, Any]:
    """``cmdsync plan`` when no two guilds share a command body: at most 1.1x the bound,
    no 429, at most 300 MB; and, measured apart (``validation``, not in ``met``), the
    validation of its commands (:func:`validate_distinct`)."""
    validation = validate_distinct(workdir, sizes)
    result = emulated.plan_at_scale(cmdsync, workdir, guilds=sizes.distinct_guilds,
                                    per_guild=sizes.plan_commands, runs=sizes.plan_runs,
                                    distinct=True, unlimited=False)
    result = _with_memory(result, DIFFERING_PLAN_TARGET)
    result["validation"] = validation
    return result


# argv: a directory of manifests, the timed runs. In one process, as a plan's worker
# thread does it: each run reads the files again (SharedBodies: equal commands kept
# once), then validates them, the garbage collector paused as validate_paths pauses it;
# the first run warms up (imports, schemas compiled). Writes the seconds as JSON.
VALIDATE_LOADED = """\
import json, sys, time
from cmdsync.manifest.loader import SharedBodies, load_file
from cmdsync.validate import gcpause
from cmdsync.validate.check import expand_paths, validate_documents
files, _ = expand_paths([sys.argv[1]])
found = {"load_s": [], "validate_s": [], "validate_cpu_s": []}
for _ in range(int(sys.argv[2]) + 1):
    with gcpause.paused():
        start = time.perf_counter()
        shared = SharedBodies()
        documents = [load_file(path, shared=shared) for path in files]
        loaded, cpu = time.perf_counter(), time.process_time()
        result = validate_documents(documents)
        found["validate_s"].append(time.perf_counter() - loaded)
        found["validate_cpu_s"].append(time.process_time() - cpu)
        found["load_s"].append(loaded - start)
found = {key: samples[1:] for key, samples in found.items()}
found.update(commands=len(result.manifest.commands), diagnostics=len(result.diagnostics))
json.dump(found, sys.stdout)
"""


def validate_distinct(workdir: str, sizes: Sizes) -> dict[str, Any]:
    """The schema and the rules over the distinct plan's manifests, already parsed (every
    body distinct: nothing shared by whole commands, only by parts), in a child process.

    Target: :data:`DISTINCT_VALIDATE_S` for 5,000 commands, scaled by the count, on the
    median wall time; its CPU time (``cpu_seconds``: the wall time less what it waited
    for a CPU others took) and the parse are reported beside it, not counted.
    """
    directory = os.path.join(workdir, "validate-distinct")
    generate.write_manifests(directory, guilds=sizes.distinct_guilds,
                             per_guild=sizes.plan_commands, distinct=True)
    child = subprocess.run([sys.executable, "-c", VALIDATE_LOADED, directory,
                            str(sizes.runs)], capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(child.stdout)
    target = DISTINCT_VALIDATE_S * found["commands"] / DISTINCT_VALIDATE_COMMANDS
    seconds = statistics.median(found["validate_s"])
    found.update(seconds=seconds, cpu_seconds=statistics.median(found["validate_cpu_s"]),
                 load_seconds=statistics.median(found["load_s"]), target_s=target,
                 met=seconds <= target and found["diagnostics"] == 0)
    return found


def plan_guild_specific(cmdsync: str, workdir: str, guilds: int, sizes: Sizes
                        ) -> dict[str, Any]:
    """``cmdsync plan`` where a tenth of each guild's commands are its own (the guild's
    name in a description, localized descriptions on the command and its options:
    :func:`generate.guild_command`): at most 1.1x the bound, no 429, at most 300 MB."""
    result = emulated.plan_at_scale(cmdsync, workdir, guilds=guilds,
                                    per_guild=sizes.plan_commands, runs=sizes.plan_runs,
                                    specific=_specific(sizes), unlimited=False)
    return _with_memory(result, DIFFERING_PLAN_TARGET)


def _specific(sizes: Sizes) -> int:
    """Commands of each guild that are its own: a tenth (5 of 50)."""
    return max(sizes.plan_commands // 10, 1)


def _with_memory(result: dict[str, Any], target: float) -> dict[str, Any]:
    result.update(against_bound(result["runs"], result["limit_per_s"], target=target))
    result["max_peak_mib"] = MAX_PLAN_BYTES / 2**20
    result["met"] = result["met"] and result["peak_mib"] * 2**20 <= MAX_PLAN_BYTES
    return result


def apply_differing(cmdsync: str, workdir: str, guilds: int, sizes: Sizes, *,
                    distinct: bool = False) -> dict[str, Any]:
    """``cmdsync apply --auto-approve`` from empty of guilds whose commands differ (every
    body, or a tenth of each guild's): at most 1.15x the bound, no 429, every guild
    complete afterwards."""
    result = emulated.apply_from_empty(cmdsync, workdir, guilds=guilds,
                                       per_guild=sizes.plan_commands, runs=sizes.plan_runs,
                                       distinct=distinct,
                                       specific=0 if distinct else _specific(sizes))
    result.update(against_bound(result["runs"], result["limit_per_s"],
                                target=DIFFERING_APPLY_TARGET))
    result["complete_guilds"] = min(r["complete_guilds"] for r in result["runs"])
    result["met"] = result["met"] and result["complete_guilds"] == result["guilds"]
    return result


def emulator_speed(sizes: Sizes) -> dict[str, Any]:
    """The emulator's latency against its floor, its throughput (:mod:`emulator_load`),
    against their targets, and the gateway's round trip over ``answers`` invocations."""
    return emulator_load.measure(guilds=sizes.load_guilds, seconds=sizes.load_seconds,
                                 concurrency=8, round_trips=sizes.answers)


def apply_from_empty(cmdsync: str, workdir: str, sizes: Sizes) -> dict[str, Any]:
    """``cmdsync apply --auto-approve`` with nothing live, against the 50 req/s bound.

    Met when within the target, without a 429, and every guild holds its
    commands afterwards (in every run).
    """
    result = emulated.apply_from_empty(cmdsync, workdir, guilds=sizes.apply_guilds,
                                       per_guild=sizes.plan_commands, runs=sizes.plan_runs)
    result.update(against_bound(result["runs"], result["limit_per_s"], target=APPLY_TARGET))
    result["complete_guilds"] = min(r["complete_guilds"] for r in result["runs"])
    result["met"] = result["met"] and result["complete_guilds"] == result["guilds"]
    return result


def apply_one_change(cmdsync: str, workdir: str, sizes: Sizes) -> dict[str, Any]:
    """cmdsync's apply of one change per guild against a blind bulk overwrite, all timed.

    Target: the median wall time of ``cmdsync apply --no-refresh`` of the
    saved plan at most the blind overwrite's. ``cmdsync apply
    --auto-approve`` (plan and apply in one run: twice the requests, since
    it reads each guild first) is measured beside them.
    """
    result = emulated.apply_one_change(cmdsync, workdir, guilds=sizes.change_guilds,
                                       per_guild=sizes.plan_commands, runs=sizes.runs)
    limit = result["limit_per_s"]
    saved = against_bound(result.pop("saved_plan_runs"), limit, target=None)
    ours = against_bound(result.pop("cmdsync_runs"), limit, target=None)
    theirs = against_bound(result.pop("blind_runs"), limit, target=None)
    ratio = saved["seconds"] / theirs["seconds"]
    result.update(saved_plan=saved, cmdsync=ours, blind_bulk_overwrite=theirs, ratio=ratio,
                  plan_and_apply_ratio=ours["seconds"] / theirs["seconds"],
                  target=ONE_CHANGE_TARGET, met=ratio <= ONE_CHANGE_TARGET)
    return result


def against_bound(runs: list[dict[str, Any]], limit: int, *, target: float | None
                  ) -> dict[str, Any]:
    """The middle run (by wall time; the median for an odd count) set against the bound.

    The bound is the seconds its served requests take at ``limit`` per
    second; ``rate_limited`` and ``peak_mib`` cover every run (the sum of
    429s, the highest peak RSS). With a ``target`` (a ratio to the bound),
    ``met`` says whether the middle run was within it and no run met a 429.
    """
    middle = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    bound = middle["requests"] / limit
    rate_limited = sum(r["rate_limited"] for r in runs)
    summary: dict[str, Any] = {
        "runs": runs, "seconds": middle["seconds"], "requests": middle["requests"],
        "reads": middle["reads"], "writes": middle["writes"], "creates": middle["creates"],
        "routes": middle["routes"], "longest_gap_s": middle["longest_gap_s"],
        "longest_gap_between": middle["longest_gap_between"],
        "bound_s": bound, "ratio": middle["seconds"] / bound, "phases": middle["phases"],
        "request_phase_s_median": middle["request_phase_s"],
        "request_phase_ratio": middle["request_phase_s"] / bound,
        "rate_limited": rate_limited, "peak_mib": max(r["peak_mib"] for r in runs)}
    if target is not None:
        summary.update(target=target, met=summary["ratio"] <= target and rate_limited == 0)
    return summary


def write_efficiency(cmdsync: str, workdir: str) -> dict[str, Any]:
    """Writes and creates of ``cmdsync apply`` per scenario, each checked against its target."""
    results = emulated.write_efficiency(cmdsync, workdir)
    for scenario in results.values():
        got, want = scenario["cmdsync"], scenario["target"]
        scenario["met"] = all(got[k] == v for k, v in want.items())
    return results


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
