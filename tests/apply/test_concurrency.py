"""Guild scopes are written concurrently (global first); backups restore exactly."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cmdsync.apply.backup import write_backup
from cmdsync.apply.strategy import Strategy
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import new_emulator
from cmdsync.emulator.reference.faults import FaultConfig
from cmdsync.emulator.reference.rate_limits import RateLimitConfig
from cmdsync.manifest.loader import load_file
from cmdsync.runners import aio
from cmdsync.runners.apply import ApplyOptions, apply_paths
from cmdsync.runners.session import Connection
from tests.support.apply import API, ENV, FAST, Hooks
from tests.support.virtual_time import VirtualTime, handlers_inline

GUILDS = [str(600000000000000000 + i) for i in range(10)]


def test_guild_scopes_are_written_at_once_after_the_global_scope(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request takes 1 s (virtual): ten guilds' bulk overwrites take 2 s, not 10
    (the client sends at most 8 requests at once, ClientConfig.concurrency)."""
    clock = VirtualTime(start=1_750_000_000.0)
    handlers_inline(monkeypatch)
    monkeypatch.setattr(aio, "run", clock.run)
    seed = emulator_seed.default_seed()
    seed["guilds"] += [{"id": g} for g in GUILDS]
    emulator = new_emulator(seed=seed, ratelimit=RateLimitConfig(global_limit=0, route_limit=0),
                            faults=FaultConfig(latency=1.0), clock=clock)
    manifest = tmp_path / "bot.yaml"
    manifest.write_text("commands: [{name: ping, description: Ping}]\nguilds:\n" + "".join(
        f'  "{g}": {{commands: [{{name: hello, description: Hi}}]}}\n' for g in GUILDS),
        encoding="utf-8")
    connection = Connection(api_url=API, config=FAST,
                            transport=httpx.ASGITransport(app=create_app(emulator)))
    run = apply_paths([str(manifest)], connection=connection,
                      options=ApplyOptions(Strategy.BULK), hooks=Hooks(), interactive=False,
                      env=ENV, cwd=str(tmp_path))
    assert run.result is not None and run.result.ok
    writes = [e for e in emulator.log.entries() if e.kind == "write"]
    assert len(writes) == 11 and writes[0].path.endswith(f"/{ENV['DISCORD_APPLICATION_ID']}"
                                                         "/commands")
    global_done, last_done = writes[0].time, max(e.time for e in writes)
    assert FAST.concurrency == 8
    assert last_done - global_done == pytest.approx(2.0, abs=0.01)  # 8, then 2
    assert [s.scope for s in run.result.scopes] == ["global", *GUILDS]  # reported in order


def test_a_backup_restores_exactly_what_it_holds(tmp_path: Path) -> None:
    manifest = {"application_id": "111111111111111111", "commands": [{
        "name": "meme", "description": "Pick an engine 🔗", "options": [{
            "type": "string", "name": "engine", "description": "Engine", "choices": [
                {"name": "🔗 v1 - Markov chains", "value": "v1"},
                {"name": "💡 v2 — LLMs", "value": "v2"}]}]}],
        "guilds": {"222222222222222222": {"commands": [
            {"name": "price", "description": "Costs ${PRICE}: kept as written", "nsfw": True,
             "options": [{"type": 4, "name": "n", "description": "N", "min_value": 1.5}]}],
            "permissions": {}}}}
    path = write_backup(manifest, cwd=str(tmp_path), application_id="111111111111111111",
                        now=1_750_000_000.0)
    assert path.endswith(".json")
    doc = load_file(str(tmp_path / path), env={})
    assert not doc.diagnostics
    assert doc.data.pop("x-cmdsync-backup").endswith(f"Restore it with `cmdsync apply {path}`")
    assert doc.data == manifest
