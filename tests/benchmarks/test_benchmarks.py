"""benchmarks/run.py --quick runs from a clean clone and reports every benchmark.

Behaviour only, never timings: the JSON holds a number for every figure,
and the write counts that do not depend on the machine are exact.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.support import paths

ROOT = paths.ROOT
# About a minute: it times real processes against check-jsonschema and the emulator.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                           "--json", str(out)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"Wrote {out}" in done.stdout
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def test_every_benchmark_is_reported(results: dict[str, Any]) -> None:
    assert results["quick"] is True
    assert set(results["benchmarks"]) == {"cold_validate", "throughput", "cli_start",
                                          "plan_at_scale", "write_efficiency"}
    assert results["machine"]["cpus"] >= 1 and results["machine"]["python"]


@pytest.mark.parametrize("name", ["cold_validate", "throughput", "cli_start"])
def test_process_timings_are_medians_with_ratios(results: dict[str, Any], name: str) -> None:
    found = results["benchmarks"][name]
    assert len(found["cmdsync_samples_s"]) == len(found["peer_samples_s"]) == results["runs"]
    assert results["runs"] >= 3
    for key in ("cmdsync_s", "peer_s", "ratio", "target"):
        assert _positive(found[key]), key
    assert found["ratio"] == pytest.approx(found["cmdsync_s"] / found["peer_s"])
    assert found["met"] is (found["ratio"] <= found["target"])


def test_throughput_counts_the_generated_commands(results: dict[str, Any]) -> None:
    found = results["benchmarks"]["throughput"]
    assert found["commands"] == 1000
    assert _positive(found["cmdsync_commands_per_s"]) and _positive(found["peer_commands_per_s"])


def test_plan_at_scale_reads_every_guild_without_429(results: dict[str, Any]) -> None:
    found = results["benchmarks"]["plan_at_scale"]
    assert (found["guilds"], found["commands_per_guild"]) == (20, 10)
    # The application once, then each guild's commands and its overwrites.
    assert found["requests"] == 1 + 2 * 20
    assert found["rate_limited"] == 0
    assert found["bound_s"] == pytest.approx(found["requests"] / 50)
    for key in ("seconds", "ratio", "target"):
        assert _positive(found[key]), key
    free = found["unlimited"]
    assert free["requests"] == 1 + 2 * 20 and free["rate_limited"] == 0
    assert _positive(free["requests_per_s"]) and _positive(free["peak_mib"])


def test_write_efficiency_counts_are_exact(results: dict[str, Any]) -> None:
    found = results["benchmarks"]["write_efficiency"]
    ours = {key: (s["cmdsync"]["writes"], s["cmdsync"]["creates"]) for key, s in found.items()}
    assert ours == {"no_changes": (0, 0), "one_update": (1, 0), "rename_with_id": (1, 0)}
    blind = {key: (s["blind_bulk_overwrite"]["writes"], s["blind_bulk_overwrite"]["creates"])
             for key, s in found.items()}
    # One PUT per scope at every start; the rename without an id is a create.
    assert blind == {"no_changes": (3, 0), "one_update": (3, 0), "rename_with_id": (3, 1)}
    assert all(s["met"] for s in found.values())
    assert all(s["cmdsync"]["rate_limited"] == 0 for s in found.values())
