"""plan and the application: read once, before the scopes; its installation contexts
are the default integration_types; CS601/CS602 stop the run before any command request;
with an Activity, the live entry point stays in bulk overwrites (no 50240)."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from cmdsync.apply.guardrails import raise_if_unsafe, unsafe_reasons
from cmdsync.apply.ledger import Ledger
from cmdsync.apply.strategy import Strategy, schedule
from cmdsync.cli import main
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.errors import UnsafePlanError
from cmdsync.plan import Action, FieldChange, Plan, diff
from cmdsync.runners.plan import PlanRun, plan_live, plan_paths, with_unknowns
from cmdsync.runners.session import Connection
from cmdsync.state import LiveState
from cmdsync.state.application import AppInfo
from tests.support.emulator import apply, guild_install_only, make_client

APP = emulator_seed.APPLICATION_ID
BOT = {"Authorization": f"Bot {emulator_seed.BOT_TOKEN}"}
ENV = {"DISCORD_BOT_TOKEN": emulator_seed.BOT_TOKEN, "DISCORD_APPLICATION_ID": APP}
EMBEDDED = 1 << 17


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bot.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def connection(emulator: Emulator) -> Connection:
    return Connection(api_url="http://emulator/api/v10",
                      transport=httpx.ASGITransport(app=create_app(emulator)))


def plan(emulator: Emulator, path: str, tmp_path: Path, env: dict[str, str] = ENV) -> PlanRun:
    return plan_paths([path], connection=connection(emulator), env=env, cwd=str(tmp_path))


def patch_application(emulator: Emulator, body: dict[str, Any]) -> dict[str, Any]:
    async def send() -> dict[str, Any]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(emulator)),
                                     base_url="http://emulator/api/v10") as client:
            response = await client.patch("/applications/@me", headers=BOT, json=body)
            assert response.status_code == 200, response.text
            return dict(response.json())
    return asyncio.run(send())


def apply_plan(emulator: Emulator, planned: Plan) -> None:
    """What apply sends for a plan with the bulk strategy (test_plan_emulator.apply)."""
    async def send() -> None:
        async with make_client(emulator) as client:
            await apply(client, planned)
    asyncio.run(send())


def requests(emulator: Emulator) -> list[tuple[str, str]]:
    return [(e.method, e.path.removeprefix("/api/v10")) for e in emulator.log.entries()]


OMITTED = """\
    commands:
      - {name: ping, description: Check the bot is alive}
      - {type: user, name: Profile}
      - {name: hug, description: Hug someone, contexts: [guild, bot_dm, private_channel]}
    """


def test_the_application_is_read_once_before_the_scopes(tmp_path: Path) -> None:
    emulator = new_emulator()
    run = plan(emulator, write(tmp_path, OMITTED), tmp_path)
    assert run.plan is not None and run.application == AppInfo(APP, "cmdsync emulator", 0,
                                                               (0, 1))
    assert requests(emulator) == [("GET", "/applications/@me"),
                                  ("GET", f"/applications/{APP}/commands")]


def test_a_user_installable_app_plans_no_changes_for_commands_without_integration_types(
        tmp_path: Path) -> None:
    emulator = new_emulator()
    patch_application(emulator, {"integration_types_config": {"0": {}, "1": {}}})
    path = write(tmp_path, OMITTED)
    first = plan(emulator, path, tmp_path)
    assert first.plan is not None and first.plan.count(Action.CREATE) == 3
    apply_plan(emulator, first.plan)
    second = plan(emulator, path, tmp_path)
    assert second.plan is not None and not second.plan.has_changes, second.plan
    # Without the application, a guessed guild-only default would show a false diff.
    live = next(c for c in second.plan.scopes[0].commands if c.name == "ping")
    assert live.body is not None and "integration_types" not in live.body


def test_the_default_integration_types_come_from_the_application_read() -> None:
    from cmdsync.manifest.entries import collect
    from cmdsync.manifest.loader import load_text
    from cmdsync.state import desired_state, live_scope

    doc = load_text("commands: [{name: ping, description: P}]\n", file="m.yaml", kind="yaml",
                    env={})
    desired = desired_state(collect([doc]), application_id=APP)
    command = {"id": "10", "type": 1, "name": "ping", "description": "P",
               "integration_types": [0, 1]}
    live = LiveState(APP, {"global": live_scope("global", [command])})
    user_installable = AppInfo(APP, "", 0, (0, 1))
    assert not diff(desired, LiveState(APP, live.scopes, user_installable)).has_changes
    guild_only = diff(desired, LiveState(APP, live.scopes, AppInfo(APP, "", 0, (0,))))
    assert guild_only.scopes[0].commands[0].changes == (
        FieldChange("integration_types", [0, 1], [0]),)


def test_user_install_switched_on_later_updates_commands_that_leave_it_out(
        tmp_path: Path) -> None:
    """Discord fills in the application's contexts on every write: the next apply
    makes commands created before user install user-installable too."""
    emulator = guild_install_only(new_emulator())
    path = write(tmp_path, OMITTED.replace(", contexts: [guild, bot_dm, private_channel]", ""))
    first = plan(emulator, path, tmp_path)
    assert first.plan is not None
    apply_plan(emulator, first.plan)
    patch_application(emulator, {"integration_types_config": {"0": {}, "1": {}}})
    later = plan(emulator, path, tmp_path)
    assert later.plan is not None
    assert [(c.name, c.changes) for c in later.plan.scopes[0].commands] == [
        (name, (FieldChange("integration_types", [0], [0, 1]),))
        for name in ("hug", "ping", "Profile")]
    apply_plan(emulator, later.plan)
    again = plan(emulator, path, tmp_path)
    assert again.plan is not None and not again.plan.has_changes


def test_unsupported_integration_types_stop_before_any_command_request(
        tmp_path: Path) -> None:
    emulator = guild_install_only(new_emulator())
    path = write(tmp_path, """\
        commands:
          - {name: ping, description: Check the bot is alive}
          - {name: hug, description: Hug someone, integration_types: [user_install]}
        """)
    run = plan(emulator, path, tmp_path)
    assert run.plan is None
    assert [(d.rule, d.location.line, d.location.column) for d in run.validation.diagnostics
            ] == [("CS601", 3, 63)]
    assert run.validation.diagnostics[0].message.startswith(
        "A command's integration_types must already be supported at application level: "
        "command 'hug' lists user_install")
    assert requests(emulator) == [("GET", "/applications/@me")]
    assert emulator.log.counts()["writes"] == 0


def test_entry_points_and_handler_are_refused_up_front_without_an_activity(
        tmp_path: Path) -> None:
    emulator = new_emulator()
    path = write(tmp_path, """\
        commands:
          - {type: primary_entry_point, name: Launch, description: Launch, handler: 2}
        """)
    run = plan(emulator, path, tmp_path)
    assert run.plan is None
    assert [(d.rule, d.location.line) for d in run.validation.diagnostics] == [("CS602", 2)]
    assert requests(emulator) == [("GET", "/applications/@me")]


def test_the_plan_value_carries_application_errors_so_apply_refuses_them() -> None:
    """plan_live with the application: CS601/CS602 are plan errors, which apply's
    guardrails refuse before any write."""
    from cmdsync.manifest.entries import collect
    from cmdsync.manifest.loader import load_text
    from cmdsync.state import desired_state

    doc = load_text("commands:\n  - {name: hug, description: Hug, integration_types: [1]}\n"
                    "  - {type: primary_entry_point, name: Launch, description: L}\n",
                    file="m.yaml", kind="yaml", env={})
    desired = desired_state(collect([doc]), application_id=APP)

    async def scenario() -> Plan:
        async with make_client(new_emulator()) as client:
            return (await plan_live(client, desired, prune=True,
                                    application=AppInfo(APP, "", 0, (0,))))[0]

    planned = asyncio.run(scenario())
    assert [e.split(" ", 2)[:2] for e in planned.errors] == [
        ["m.yaml:2:55:", "CS601"], ["m.yaml:3:12:", "CS602"]]
    scheduled, problems = schedule(planned, Strategy.AUTO)
    with pytest.raises(UnsafePlanError) as refused:
        raise_if_unsafe(unsafe_reasons(planned, scheduled, problems, ledger=Ledger(),
                                       api_url="x", now=0.0, has_user_token=True))
    assert "CS601" in str(refused.value) and "CS602" in str(refused.value)


def test_with_an_activity_the_live_entry_point_stays_in_bulk_overwrites(
        tmp_path: Path) -> None:
    emulator = new_emulator()
    patch_application(emulator, {"flags": EMBEDDED})  # Discord creates "Launch"
    path = write(tmp_path, "commands: [{name: ping, description: Check the bot is alive}]\n")
    first = plan(emulator, path, tmp_path)
    assert first.plan is not None
    kept = first.plan.scopes[0].commands[1]
    assert (kept.action, kept.name, kept.note) == (
        Action.NO_OP, "Launch", "entry point not in the manifest: kept")
    assert kept.body is not None and kept.body["id"] == kept.id and kept.body["handler"] == 2
    apply_plan(emulator, first.plan)  # a bulk overwrite: 50240 would raise here
    again = plan(emulator, path, tmp_path)
    assert again.plan is not None and not again.plan.has_changes


def test_a_manifest_entry_point_takes_over_the_live_one(tmp_path: Path) -> None:
    emulator = new_emulator()
    patch_application(emulator, {"flags": EMBEDDED})
    path = write(tmp_path, """\
        commands:
          - {type: primary_entry_point, name: Play, description: Play the game, handler: 2}
        """)
    first = plan(emulator, path, tmp_path)
    assert first.plan is not None
    (change,) = first.plan.scopes[0].commands
    assert (change.action, change.renamed_from, change.changes) == (
        Action.UPDATE, "Launch", (FieldChange("name", "Launch", "Play"),
                                  FieldChange("description", "Launch an activity",
                                              "Play the game")))
    assert first.plan.scopes[0].creates == 0 and not first.plan.errors
    apply_plan(emulator, first.plan)
    again = plan(emulator, path, tmp_path)
    assert again.plan is not None and not again.plan.has_changes
    (live,) = again.plan.scopes[0].live
    assert (live.id, live.name) == (change.id, "Play")


def test_client_credentials_read_the_application_from_oauth2_me(tmp_path: Path) -> None:
    emulator = guild_install_only(new_emulator())
    env = {"DISCORD_CLIENT_ID": APP, "DISCORD_CLIENT_SECRET": emulator_seed.CLIENT_SECRET,
           "DISCORD_APPLICATION_ID": APP}
    path = write(tmp_path, "commands: [{name: hug, description: Hug, integration_types: [1]}]\n")
    run = plan(emulator, path, tmp_path, env)
    assert [d.rule for d in run.validation.diagnostics] == ["CS601"]
    assert ("GET", "/oauth2/@me") in requests(emulator)


def test_a_partial_application_object_is_a_warning() -> None:
    planned = with_unknowns(Plan(APP), AppInfo(APP))
    assert planned.warnings == (
        (f"application {APP}: its installation contexts are unknown (no "
         "integration_types_config): commands without integration_types are compared with "
         "their live value, and CS601 was not checked"),
        (f"application {APP}: its flags are unknown: CS602 (entry points need an Activity) "
         "was not checked"))
    assert with_unknowns(Plan(APP), AppInfo(APP, "", 0, (0,))) == Plan(APP)


def test_cli_apply_then_plan_on_a_user_installable_local_app(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """The whole loop through the CLI: enable user install on the --local state file,
    apply commands that omit integration_types, plan: no changes."""
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    os.makedirs(".cmdsync", exist_ok=True)
    local = new_emulator(state=".cmdsync/local.sqlite")
    patch_application(local, {"integration_types_config": {"0": {}, "1": {}}})
    local.store.close()
    write(tmp_path, OMITTED)
    for args, code in ((["apply", "--local", "--auto-approve"], 0),
                       (["plan", "--local", "--detailed-exitcode"], 0)):
        with pytest.raises(SystemExit) as exited:
            main([*args, "bot.yaml"])
        assert exited.value.code == code, capsys.readouterr()
    assert capsys.readouterr().out.endswith("No changes. Live commands match the manifest.\n")
    stored = new_emulator(state=".cmdsync/local.sqlite")
    assert sorted((c["name"], c["body"].get("integration_types"))
                  for c in stored.store.dump()["commands"]) == [
        ("Profile", [0, 1]), ("hug", [0, 1]), ("ping", [0, 1])]
    stored.store.close()
