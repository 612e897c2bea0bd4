"""plan and apply read live state while the manifests are validated (issue 24).

The order of events is recorded, never timed: the emulator in-process (its
transport logs each request as it arrives) and ``prepare`` (validation and the
desired state, in the worker thread) made to wait until a guild's commands
have been asked for, so that the test fails, rather than passes by luck,
unless reads go on while the manifests are validated. Validation errors stop
the run before any write and read exactly as without the overlap.
"""

from __future__ import annotations

import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.errors import CmdsyncError
from cmdsync.manifest.outline import Outline, outline
from cmdsync.render import diagnostics as render_diagnostics
from cmdsync.render import plan as render_plan
from cmdsync.runners import plan as plan_runner
from cmdsync.runners.apply import ApplyOptions, apply_paths
from cmdsync.runners.plan import PlanRun, plan_paths
from cmdsync.runners.session import Connection
from tests.support.apply import Hooks

APP = emulator_seed.APPLICATION_ID
ENV = {"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN}
GUILDS = ("700000000000000001", "700000000000000002", "700000000000000003")
COMMANDS = "/api/v10/applications/{app}/guilds/{guild}/commands"


def _seed() -> dict[str, Any]:
    return {"applications": [{"id": APP, "bot_token": emulator_seed.BOT_TOKEN,
                              "client_secret": "secret"}],
            "guilds": [{"id": g} for g in GUILDS]}


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    found = new_emulator(seed=_seed())
    yield found
    found.store.close()


class Recording(httpx.AsyncBaseTransport):
    """The emulator's ASGI transport, noting each request's path as it is sent."""

    def __init__(self, emulator: Emulator, events: list[str]) -> None:
        self.inner = httpx.ASGITransport(app=create_app(emulator))
        self.events = events
        self.guild_read = threading.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.events.append(f"{request.method} {request.url.path}")
        if request.method == "GET" and "/guilds/" in request.url.path:
            self.guild_read.set()
        return await self.inner.handle_async_request(request)


def _connection(transport: httpx.AsyncBaseTransport, *, pipelined: bool = True) -> Connection:
    return Connection(api_url="http://emulator/api/v10", transport=transport,
                      pipelined=pipelined)


def _manifest(tmp_path: Path, text: str, name: str = "bot.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


VALID = f"""\
    application_id: "{APP}"
    guilds:
      "{GUILDS[0]}":
        commands:
          - {{name: ping, description: Check the bot is alive}}
      "{GUILDS[1]}":
        commands:
          - name: ban
            description: Ban a member
            options:
              - {{type: user, name: member, description: Who}}
    """


class Probe:
    """The order of events: requests (through :meth:`transport`) and validation."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.transports: list[Recording] = []

    def transport(self, emulator: Emulator) -> Recording:
        found = Recording(emulator, self.events)
        self.transports.append(found)
        return found


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> Probe:
    """``prepare`` (validation and the desired state) noting when it starts and ends,
    and waiting, once started, until a guild's commands have been asked for."""
    found = Probe()
    real = plan_runner.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        found.events.append("validation started")
        assert found.transports and found.transports[0].guild_read.wait(timeout=60), \
            "no guild was read while the manifests were being validated"
        try:
            return real(*args, **kwargs)
        finally:
            found.events.append("validated")

    monkeypatch.setattr(plan_runner, "prepare", prepare)
    return found


def test_plan_reads_the_scopes_before_the_manifests_are_validated(
        emulator: Emulator, tmp_path: Path, probe: Probe) -> None:
    path = _manifest(tmp_path, VALID)
    run = plan_paths([path], connection=_connection(probe.transport(emulator)), env=ENV,
                     cwd=str(tmp_path))
    assert run.plan is not None and run.validation.errors == 0
    events = probe.events
    first_guild = next(i for i, e in enumerate(events) if "/guilds/" in e)
    assert events[0] == "GET /api/v10/applications/@me"  # the first request, at once
    assert first_guild < events.index("validated")  # read while validating
    # each scope read once, whether early or not; nothing else
    reads = [e for e in events if e.startswith("GET")]
    assert sorted(reads) == sorted(["GET /api/v10/applications/@me"] + [
        "GET " + COMMANDS.format(app=APP, guild=g) for g in GUILDS[:2]])
    assert [c.name for s in run.plan.scopes for c in s.commands] == ["ping", "ban"]


def test_apply_reads_before_the_manifests_are_validated(
        emulator: Emulator, tmp_path: Path, probe: Probe) -> None:
    path = _manifest(tmp_path, VALID)
    run = apply_paths([path], connection=_connection(probe.transport(emulator)),
                      options=ApplyOptions(), hooks=Hooks(), interactive=False, env=ENV,
                      cwd=str(tmp_path))
    assert run.result is not None and run.result.ok and run.result.creates == 2
    events = probe.events
    assert events[0] == "GET /api/v10/applications/@me"
    assert next(i for i, e in enumerate(events) if "/guilds/" in e) < events.index("validated")
    writes = [i for i, e in enumerate(events) if not e.startswith("GET") and "/" in e]
    assert writes and min(writes) > events.index("validated")
    assert emulator.log.counts()["creates"] == 2


def _same_plan(emulator: Emulator, tmp_path: Path, path: str) -> tuple[PlanRun, PlanRun]:
    runs = []
    for pipelined in (False, True):
        emulator.log.clear()
        transport = httpx.ASGITransport(app=create_app(emulator))
        runs.append(plan_paths([path], connection=_connection(transport, pipelined=pipelined),
                               env=ENV, cwd=str(tmp_path)))
    return runs[0], runs[1]


def test_the_plan_is_the_one_made_in_order(emulator: Emulator, tmp_path: Path) -> None:
    """Guilds the outline cannot see (a flow-style mapping) are read once validation has
    named them; the plan, its text and its reads are those of the run in order."""
    path = _manifest(tmp_path, VALID)
    _manifest(tmp_path, f"""\
        guilds: {{"{GUILDS[2]}": {{commands: [{{name: warn, description: Warn a member}}]}}}}
        """, "more.yaml")
    assert outline([path, str(tmp_path / "more.yaml")]).scopes == GUILDS[:2]
    in_order, overlapped = _same_plan(emulator, tmp_path, str(tmp_path))
    assert in_order.plan is not None and overlapped.plan is not None
    assert render_plan.to_text(overlapped.plan) == render_plan.to_text(in_order.plan)
    assert overlapped.plan == in_order.plan
    counts = emulator.log.counts()
    assert (counts["reads"], counts["writes"]) == (1 + len(GUILDS), 0)


def test_a_validation_error_stops_the_plan_before_any_write_said_as_in_order(
        emulator: Emulator, tmp_path: Path) -> None:
    path = _manifest(tmp_path, VALID.replace("name: ping", "name: Not Valid"))
    in_order, overlapped = _same_plan(emulator, tmp_path, path)
    assert in_order.plan is None and overlapped.plan is None
    assert overlapped.validation.errors == in_order.validation.errors == 1
    assert render_diagnostics.to_text(overlapped.validation) == \
        render_diagnostics.to_text(in_order.validation)
    assert emulator.log.counts()["writes"] == 0


def test_apply_with_a_validation_error_writes_nothing(emulator: Emulator,
                                                      tmp_path: Path) -> None:
    path = _manifest(tmp_path, VALID.replace("name: ping", "name: Not Valid"))
    transport = httpx.ASGITransport(app=create_app(emulator))
    run = apply_paths([path], connection=_connection(transport),
                      options=ApplyOptions(), hooks=Hooks(), interactive=False, env=ENV,
                      cwd=str(tmp_path))
    assert run.plan is None and run.validation is not None and run.validation.errors == 1
    assert emulator.log.counts()["writes"] == 0
    fixed = _manifest(tmp_path, VALID)
    done = apply_paths([fixed], connection=_connection(transport), options=ApplyOptions(),
                       hooks=Hooks(), interactive=False, env=ENV, cwd=str(tmp_path))
    assert done.result is not None and done.result.ok and done.result.creates == 2


def test_missing_credentials_are_said_after_the_manifests_problems(
        emulator: Emulator, tmp_path: Path) -> None:
    transport = httpx.ASGITransport(app=create_app(emulator))
    bad = _manifest(tmp_path, VALID.replace("name: ping", "name: Not Valid"))
    run = plan_paths([bad], connection=_connection(transport), env={}, cwd=str(tmp_path))
    assert run.plan is None and run.validation.errors == 1  # no credential error first
    good = _manifest(tmp_path, VALID, "good.yaml")
    with pytest.raises(CmdsyncError, match="DISCORD_BOT_TOKEN"):
        plan_paths([good], connection=_connection(transport), env={}, cwd=str(tmp_path))
    assert emulator.log.counts()["requests"] == 0


def test_another_application_s_credentials_read_no_scope(emulator: Emulator,
                                                          tmp_path: Path) -> None:
    """The scopes are read early only once the application read is the one named."""
    events: list[str] = []
    path = _manifest(tmp_path, VALID.replace(APP, "999999999999999999"))
    with pytest.raises(CmdsyncError, match="the credentials belong to application"):
        plan_paths([path], connection=_connection(Recording(emulator, events)), env=ENV,
                   cwd=str(tmp_path))
    assert events == ["GET /api/v10/applications/@me"]


def test_an_outline_names_the_scopes_of_block_style_manifests(tmp_path: Path) -> None:
    yaml_path = _manifest(tmp_path, f"""\
        # a comment
        application_id: "{APP}"
        commands:
          - {{name: ping, description: Pong}}
        guilds:

          "{GUILDS[1]}":
            commands: []
          ${{STAFF:-{GUILDS[2]}}}:
            permissions:
              ping: []
          '${{UNSET}}':
            commands: []
        prune: false
        """)
    json_path = tmp_path / "more.json"
    json_path.write_text(f'{{"guilds": {{"{GUILDS[0]}": {{"permissions": {{"x": []}}}}}}}}',
                         encoding="utf-8")
    found = outline([yaml_path, str(json_path)], env={})
    assert found == Outline(frozenset({APP}), ("global", *GUILDS),
                            frozenset({GUILDS[0], GUILDS[2]}))
    assert outline([yaml_path], env={"STAFF": GUILDS[0]}).scopes == ("global", *GUILDS[:2])
    assert outline([str(tmp_path / "missing.yaml")]) == Outline()


def test_a_packed_text_gives_back_the_file_and_its_positions(tmp_path: Path) -> None:
    """A plan keeps its manifests' texts compressed while it waits on Discord; the text
    (for a saved plan's digests) and every position (for a later error) come back."""
    from cmdsync.manifest.loader import load_file
    from cmdsync.state.desired import manifest_sources
    from cmdsync.validate import validate_paths

    path = _manifest(tmp_path, VALID.replace("Who", "Qui ☃"))
    plain = load_file(path)
    packed = load_file(path)
    packed.pack(at_least=1)
    assert packed.text == "" and packed.packed is not None
    assert packed.source_text() == plain.text
    where = ("guilds", GUILDS[1], "commands", 0, "options", 0, "description")
    assert packed.locate(where) == plain.locate(where)
    kept = validate_paths([path], pack_texts=True).manifest
    assert kept is not None
    for doc in kept.documents:  # as a large file's would be
        doc.pack(at_least=1)
    plain_set = validate_paths([path]).manifest
    assert plain_set is not None and manifest_sources(kept) == manifest_sources(plain_set)
