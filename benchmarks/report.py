"""The benchmark results as a rich table (and as Markdown rows, for the README)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

HEADERS = ("Benchmark", "cmdsync", "Peer", "Ratio", "Target", "Result")


Row = tuple[str, str, str, str, str, str]


def rows(results: dict[str, Any]) -> list[Row]:
    """One row per figure: what, cmdsync's number, the peer's, ratio, target, met/missed."""
    b = results["benchmarks"]
    cold, put, start = b["cold_validate"], b["throughput"], b["cli_start"]
    found: list[Row] = [
        ("Cold validate (examples/large-bot.yaml)", _s(cold["cmdsync_s"]),
         f"check-jsonschema {_s(cold['peer_s'])}", _x(cold["ratio"]), "<= 0.6x",
         _met(cold["met"])),
        (f"Throughput ({put['commands']:,} commands, {put['files']} files)",
         f"{put['cmdsync_commands_per_s']:,.0f} commands/s ({_s(put['cmdsync_s'])})",
         f"{put['peer_commands_per_s']:,.0f} commands/s ({_s(put['peer_s'])})",
         _x(put["ratio"]), "<= 0.5x", _met(put["met"])),
        ("CLI start (--help)", _s(start["cmdsync_s"]),
         f"check-jsonschema {_s(start['peer_s'])}", _x(start["ratio"]), "<= 0.5x",
         _met(start["met"])),
        *_plan_rows(b["plan_at_scale"]),
    ]
    for scenario in b["write_efficiency"].values():
        ours, blind = scenario["cmdsync"], scenario["blind_bulk_overwrite"]
        target = ", ".join(_count(v, k) for k, v in scenario["target"].items())
        found.append((f"Writes: {scenario['title']} ({scenario['scopes']} scopes)",
                      f"{_count(ours['writes'], 'writes')}, {_count(ours['creates'], 'creates')}",
                      (f"blind PUT: {_count(blind['writes'], 'writes')}, "
                      f"{_count(blind['creates'], 'creates')}"),
                      "", target, _met(scenario["met"])))
    return found


def _count(number: int, plural: str) -> str:
    """``"1 write"``, ``"3 writes"``."""
    return f"{number} {plural if number != 1 else plural[:-1]}"


def _plan_rows(scale: dict[str, Any]) -> list[Row]:
    free = scale["unlimited"]
    title = (f"Plan at scale ({scale['guilds']} guilds x {scale['commands_per_guild']} "
             f"commands, {scale['limit_per_s']} req/s)")
    ours = (f"{_s(scale['seconds'])}: {scale['requests']:,} requests, "
            f"{scale['rate_limited']} 429s; requests alone "
            f"{_s(scale['request_phase_s_median'])} ({_x(scale['request_phase_ratio'])})")
    unlimited = (f"{free['requests_per_s']:,.0f} requests/s overall, "
                 f"{free['request_phase_per_s']:,.0f}/s while requesting; "
                 f"peak {free['peak_mib']:,.0f} MiB")
    return [(title, ours, f"bound {_s(scale['bound_s'])}", _x(scale["ratio"]),
             "<= 1.15x, 0 429s", _met(scale["met"])),
            ("Plan at scale, limits off", unlimited, "", "", "", "measured")]


def print_table(results: dict[str, Any]) -> None:
    machine = results["machine"]
    table = Table(title=f"cmdsync benchmarks{' (quick)' if results['quick'] else ''}: "
                  f"{machine['cpus']} CPUs, {machine['memory']}, Python {machine['python']}, "
                  f"{results['date']}; medians of {results['runs']} alternating runs")
    for header in HEADERS:
        table.add_column(header, overflow="fold")
    for row in rows(results):
        table.add_row(*row)
    Console(width=200).print(table)


def markdown(results: dict[str, Any]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(row) + " |" for row in rows(results)]
    return "\n".join(lines) + "\n"


def _s(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds < 10 else f"{seconds:.1f} s"


def _x(ratio: float) -> str:
    return f"{ratio:.2f}x"


def _met(met: bool) -> str:
    return "met" if met else "MISSED"
