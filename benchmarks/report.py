"""The benchmark results as a rich table (and as Markdown rows, for the README)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

HEADERS = ("Benchmark", "cmdsync", "Peer", "Ratio", "Target", "Result")


Row = tuple[str, str, str, str, str, str]


def rows(results: dict[str, Any]) -> list[Row]:
    """One row per figure: what, cmdsync's number, the peer's, ratio, target, met/missed.

    Only the benchmarks the run has (``run.py --only`` runs some), in its order.
    """
    found: list[Row] = []
    for name, result in results["benchmarks"].items():
        found += _ROWS[name](result)
    return found


def _cold_rows(cold: dict[str, Any]) -> list[Row]:
    return [("Cold validate (examples/large-bot.yaml)", _s(cold["cmdsync_s"]),
             f"check-jsonschema {_s(cold['peer_s'])}", _x(cold["ratio"]), "<= 0.6x",
             _met(cold["met"]))]


def _throughput_rows(put: dict[str, Any]) -> list[Row]:
    return [(f"Throughput ({put['commands']:,} commands, {_count(put['files'], 'files')})",
             (f"{put['cmdsync_commands_per_s']:,.0f} commands/s ({_s(put['cmdsync_s'])}); "
             f"peak {put['cmdsync_peak_mib']:,.0f} MiB"),
             (f"{put['peer_commands_per_s']:,.0f} commands/s ({_s(put['peer_s'])}); "
             f"peak {put['peer_peak_mib']:,.0f} MiB"),
             _x(put["ratio"]), "<= 0.5x, >= 5,000/s, <= 150 MB", _met(put["met"]))]


def _start_rows(start: dict[str, Any]) -> list[Row]:
    return [("CLI start (--help)", _s(start["cmdsync_s"]),
             f"check-jsonschema {_s(start['peer_s'])}", _x(start["ratio"]), "<= 0.5x",
             _met(start["met"]))]


def _write_rows(scenarios: dict[str, Any]) -> list[Row]:
    found: list[Row] = []
    for scenario in scenarios.values():
        ours, blind = scenario["cmdsync"], scenario["blind_bulk_overwrite"]
        target = ", ".join(_count(v, k) for k, v in scenario["target"].items())
        found.append((f"Writes: {scenario['title']} ({scenario['scopes']} scopes)",
                      f"{_count(ours['writes'], 'writes')}, {_count(ours['creates'], 'creates')}",
                      (f"blind PUT: {_count(blind['writes'], 'writes')}, "
                      f"{_count(blind['creates'], 'creates')}"),
                      "", target, _met(scenario["met"])))
    return found


def _count(number: int, plural: str) -> str:
    """``"1 write"``, ``"3 writes"``, ``"25,000 creates"``."""
    return f"{number:,} {plural if number != 1 else plural[:-1]}"


def _plan_rows(scale: dict[str, Any]) -> list[Row]:
    title = (f"Plan at scale ({scale['guilds']:,} guilds x {scale['commands_per_guild']} "
             f"commands, {scale['limit_per_s']} req/s)")
    found: list[Row] = [(title, _run(scale, "requests alone"), f"bound {_s(scale['bound_s'])}",
                         _x(scale["ratio"]), f"<= {scale['target']}x, 0 429s",
                         _met(scale["met"]))]
    if "unlimited" in scale:
        free = scale["unlimited"]
        found.append(("Plan at scale, limits off",
                      (f"{free['requests_per_s']:,.0f} requests/s overall, "
                       f"{free['request_phase_per_s']:,.0f}/s while requesting; "
                       f"peak {free['peak_mib']:,.0f} MiB"), "", "", "", "measured"))
    return found


def _distinct_rows(plan: dict[str, Any]) -> list[Row]:
    commands = plan["guilds"] * plan["commands_per_guild"]
    rows: list[Row] = [((f"Plan, {commands:,} distinct command bodies ({plan['guilds']} "
                         f"guilds x {plan['commands_per_guild']}, {plan['limit_per_s']} req/s)"),
                        _run(plan, "requests alone"), f"bound {_s(plan['bound_s'])}",
                        _x(plan["ratio"]), _differing_target(plan), _met(plan["met"]))]
    if "validation" in plan:  # measured apart: the schema and rules of those commands
        check = plan["validation"]
        name = (f"Validate {check['commands']:,} distinct commands, parsed (schema and "
                "rules)")
        said = (f"{_s(check['seconds'])} (CPU {_s(check['cpu_seconds'])}; parse "
                f"{_s(check['load_seconds'])} apart)")
        rows.append((name, said, "", "", f"<= {_s(check['target_s'])}", _met(check["met"])))
    return rows


def _differing_target(run: dict[str, Any]) -> str:
    memory = f", <= {run['max_peak_mib'] * 2**20 / 10**6:,.0f} MB" if "max_peak_mib" in run \
        else ""
    return f"<= {run['target']}x, 0 429s{memory}"


def _workload(run: dict[str, Any]) -> str:
    """``"500 guilds x 50 commands, 5 of each guild's own"`` (or ``"every body distinct"``)."""
    shape = "every body distinct" if run.get("distinct_bodies") else (
        f"{run['specific_per_guild']} of each guild's own")
    return f"{run['guilds']:,} guilds x {run['commands_per_guild']} commands, {shape}"


def _specific_plan_rows(plan: dict[str, Any]) -> list[Row]:
    return [(f"Plan ({_workload(plan)}, {plan['limit_per_s']} req/s)",
             _run(plan, "requests alone"), f"bound {_s(plan['bound_s'])}", _x(plan["ratio"]),
             _differing_target(plan), _met(plan["met"]))]


def _differing_apply_rows(apply: dict[str, Any]) -> list[Row]:
    return [(f"Apply from empty ({_workload(apply)}, {apply['limit_per_s']} req/s)",
             (f"{_run(apply, 'requests alone')}; {apply['complete_guilds']:,}/"
              f"{apply['guilds']:,} guilds complete"),
             f"bound {_s(apply['bound_s'])}", _x(apply["ratio"]), _differing_target(apply),
             _met(apply["met"]))]


def _emulator_rows(speed: dict[str, Any]) -> list[Row]:
    """Each workload's bulk overwrite and list against the floor (the goal on the goal
    workload's, the others measured beside it), the mixed traffic, the gateway's round
    trip."""
    targets = speed["targets"]
    where = "one CPU" if speed["pinned_to_one_cpu"] else "not pinned"
    found: list[Row] = []
    for name, workload in speed["latency"].items():
        shape = f"{speed['workloads'][name]}; {speed['guilds']:,} guilds in turn; {where}"
        for route, what in (("bulk_overwrite", "bulk overwrite of {} commands, nothing live"),
                            ("list", "list of {} commands with localizations")):
            side = workload[route]
            goal = targets[f"{route}_ratio"] if name == speed["goal_workload"] else None
            found.append((f"Emulator: {what.format(speed['commands_per_guild'])} ({shape})",
                          _latency(side["emulator"]), f"floor {_latency(side['floor'])}",
                          _x(side["ratio"]), f"<= {goal}x" if goal else "",
                          _met(side["ratio"] <= goal) if goal else "measured"))
    mixed, trip = speed["mixed"], speed["gateway"]
    found.append((
        (f"Emulator: mixed traffic, {speed['concurrency']} clients (9 lists to 1 bulk "
         f"overwrite of one changed command)"),
        (f"{mixed['requests_per_s']:,.0f} requests/s ({mixed['requests']:,} in "
         f"{_s(mixed['seconds'])}, {mixed['failed']} failed, {mixed['rate_limited']} 429s); "
         f"{_latency(mixed)}"), "-", "-", f">= {targets['mixed_per_s']:,.0f}/s",
        _met(mixed["requests_per_s"] >= targets["mixed_per_s"] and not mixed["failed"]
             and not mixed["rate_limited"])))
    found.append((
        (f"Emulator: gateway round trip, invoke to INTERACTION_CREATE to callback "
         f"({trip['count']:,} invocations, one at a time)"),
        (f"{_latency(trip['round_trip'])} (to the bot {trip['to_event']['p50_ms']:.2f} ms, "
         f"its callback {trip['callback']['p50_ms']:.2f} ms, recorded "
         f"{trip['recorded']['p50_ms']:.2f} ms: medians)"), "-", "-", "", "measured"))
    return found


def _latency(found: dict[str, Any]) -> str:
    return (f"p50 {found['p50_ms']:.2f} ms, p90 {found['p90_ms']:.2f} ms, "
            f"p99 {found['p99_ms']:.2f} ms")


def _apply_rows(apply: dict[str, Any]) -> list[Row]:
    return [((f"Apply from empty ({apply['guilds']:,} guilds x "
              f"{apply['commands_per_guild']} commands, {apply['limit_per_s']} req/s)"),
             (f"{_run(apply, 'requests alone')}; {apply['complete_guilds']:,}/"
              f"{apply['guilds']:,} guilds complete"),
             f"bound {_s(apply['bound_s'])}", _x(apply["ratio"]),
             f"<= {apply['target']}x, 0 429s", _met(apply["met"]))]


def _one_change_rows(change: dict[str, Any]) -> list[Row]:
    blind = "blind bulk overwrite " + _run(change["blind_bulk_overwrite"], "bound")
    return [((f"Apply, 1 command changed in each of {change['guilds']} guilds "
              f"(x {change['commands_per_guild']} commands, {change['limit_per_s']} req/s): "
              "apply --no-refresh of the saved plan"),
             _run(change["saved_plan"], "bound"), blind,
             _x(change["ratio"]), f"<= {change['target']}x", _met(change["met"])),
            ("Same change, plan and apply in one run (apply --auto-approve)",
             _run(change["cmdsync"], "bound"), "the blind overwrite above",
             _x(change["plan_and_apply_ratio"]), "", "measured")]


def _bot_test_rows(bots: dict[str, Any]) -> list[Row]:
    targets = bots["targets"]
    return [
        ("A bot's test: serve, connect a discord.py bot, sync, invoke one command",
         _s(bots["test_s"]), "-", "-", f"<= {_s(targets['test_s'])}",
         _met(bots["test_s"] <= targets["test_s"])),
        ("Reset between tests", f"{bots['reset_s'] * 1000:.2f} ms", "-", "-",
         f"<= {targets['reset_s'] * 1000:.0f} ms", _met(bots["reset_s"] <= targets["reset_s"])),
        (f"Answers of one connected bot ({bots['answers']:,}, 4 invokers)",
         f"{bots['answers_per_s']:,.0f}/s (median {bots['answer_median_s'] * 1000:.1f} ms)",
         "-", "-", f">= {targets['answers_per_s']:,.0f}/s",
         _met(bots["answers_per_s"] >= targets["answers_per_s"]))]


def _bot_suite_rows(suites: dict[str, Any]) -> list[Row]:
    targets, tests = suites["targets"], suites["tests"]
    name = (f"A suite of {tests} invoke tests, one bot connected for the session (pytest's "
            f"time; the process {_s(suites['session_wall_s'])})")
    return [
        (name, _s(suites["session_s"]),
         f"reconnecting in each test {_s(suites['reconnect_s'])}",
         _x(suites["session_s"] / suites["reconnect_s"]), f"<= {_s(targets['session_s'])}",
         _met(suites["session_s"] <= targets["session_s"])),
        ("A test that runs a command and clicks its button (session bot)",
         f"{suites['click_per_test_s'] * 1000:.0f} ms", "-", "-",
         f"<= {targets['click_per_test_s'] * 1000:.0f} ms",
         _met(suites["click_per_test_s"] <= targets["click_per_test_s"]))]


def _run(run: dict[str, Any], versus: str) -> str:
    """A middle run in words: wall, requests by kind, 429s, phases, peak memory.

    ``versus``: what the request phase is compared with, ``"requests
    alone"`` (its time and its ratio to the bound) or ``"bound"`` (the
    bound itself).
    """
    phases = run["phases"]
    creates = f", {_count(run['creates'], 'creates')}" if run["creates"] else ""
    compared = (f"requests alone {_x(run['request_phase_ratio'])}" if versus != "bound"
                else f"bound {_s(run['bound_s'])}")
    return (f"{_s(run['seconds'])}: {run['requests']:,} requests ({run['reads']:,} reads, "
            f"{_count(run['writes'], 'writes')}{creates}), {run['rate_limited']} 429s; "
            f"{_s(phases['before_requests_s'])} before requests + "
            f"{_s(phases['requests_s'])} requests ({compared}; longest pause "
            f"{_s(run['longest_gap_s'])}) + "
            f"{_s(phases['after_requests_s'])} after; peak {run['peak_mib']:,.0f} MiB")


_ROWS: dict[str, Callable[[Any], list[Row]]] = {
    "cold_validate": _cold_rows, "throughput": _throughput_rows, "cli_start": _start_rows,
    "plan_at_scale": _plan_rows, "plan_at_scale_1000": _plan_rows,
    "plan_distinct_bodies": _distinct_rows, "plan_guild_specific": _specific_plan_rows,
    "plan_guild_specific_1000": _specific_plan_rows, "apply_from_empty": _apply_rows,
    "apply_distinct_bodies": _differing_apply_rows,
    "apply_guild_specific": _differing_apply_rows,
    "apply_guild_specific_1000": _differing_apply_rows, "emulator_speed": _emulator_rows,
    "apply_one_change": _one_change_rows, "write_efficiency": _write_rows,
    "bot_tests": _bot_test_rows,
    "bot_suites": _bot_suite_rows,
}


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
