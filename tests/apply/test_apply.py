"""apply against the emulator: strategies, zero writes, renames, entry points, caps, safety."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cmdsync.apply.strategy import Strategy
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.errors import CmdsyncError, UnsafePlanError
from cmdsync.plan import Action
from tests.support.apply import (
    APP,
    CHANGED,
    ENV,
    GUILD,
    MANIFEST,
    Hooks,
    apply,
    commands,
    overwrites,
    plan,
    write,
    writes,
)
from tests.support.emulator import guild_install_only

GLOBAL_PATH = f"/applications/{APP}/commands"
GUILD_PATH = f"/applications/{APP}/guilds/{GUILD}/commands"


@pytest.fixture
def emulator() -> Emulator:
    return new_emulator()


@pytest.mark.parametrize("strategy", list(Strategy))
def test_create_then_a_second_apply_makes_zero_writes(
        strategy: Strategy, emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    first = apply(emulator, [path], tmp_path, strategy=strategy).result
    assert first is not None and first.ok
    assert emulator.log.counts()["creates"] == 5 == first.creates
    expected = {
        Strategy.BULK: [("PUT", GLOBAL_PATH, 200), ("PUT", GUILD_PATH, 200)],
        Strategy.PER_COMMAND: [("POST", GLOBAL_PATH, 201)] * 3 + [("POST", GUILD_PATH, 201)] * 2,
        Strategy.AUTO: [("PUT", GLOBAL_PATH, 200), ("PUT", GUILD_PATH, 200)]}[strategy]
    mod = next(c["id"] for c in commands(emulator, GUILD) if c["name"] == "mod")
    assert writes(emulator) == expected + [("PUT", f"{GUILD_PATH}/{mod}/permissions", 200)]
    assert overwrites(emulator) == {mod: [{"id": GUILD, "type": 1, "permission": False}]}
    emulator.log.clear()
    assert not plan(emulator, [path], tmp_path).has_changes
    again = apply(emulator, [path], tmp_path, strategy=strategy)
    assert again.result is not None and again.result.scopes == ()
    assert emulator.log.counts()["writes"] == 0
    assert [r.method for r in again.result.requests] == ["GET"] * 4  # app, 2 scopes, overwrites


@pytest.mark.parametrize("strategy", [Strategy.BULK, Strategy.PER_COMMAND])
def test_updates_and_deletes_happen_in_place(
        strategy: Strategy, emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    before = {c["name"]: c["id"] for c in commands(emulator)}
    write(tmp_path / "bot.yaml", CHANGED)
    emulator.log.clear()
    run = apply(emulator, [path], tmp_path, strategy=strategy)
    assert run.result is not None and run.result.ok
    assert emulator.log.counts()["creates"] == 0
    ban = next(c for c in commands(emulator) if c["name"] == "ban")
    assert ban["id"] == before["ban"]
    assert (ban["description"], ban["default_member_permissions"],
            ban["name_localizations"], ban["options"][0].get("required")) == (
        "Ban someone", None, None, True)
    assert sorted(c["name"] for c in commands(emulator)) == ["ban", "ping"]
    if strategy is Strategy.PER_COMMAND:
        profile = before["Profile"]
        assert [(m, p) for m, p, _ in writes(emulator)][:2] == [
            ("PATCH", f"{GLOBAL_PATH}/{before['ban']}"), ("DELETE", f"{GLOBAL_PATH}/{profile}")]
    assert not plan(emulator, [path], tmp_path).has_changes


@pytest.mark.parametrize("strategy", [Strategy.BULK, Strategy.PER_COMMAND])
def test_a_rename_keeps_its_id_and_its_overwrites_are_put_back(
        strategy: Strategy, emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    mod = next(c["id"] for c in commands(emulator, GUILD) if c["name"] == "mod")
    write(tmp_path / "bot.yaml", MANIFEST.replace(
        "- {name: mod, description: Moderation}",
        f'- {{id: "{mod}", name: moderate, description: Moderation}}').replace(
        "          mod: [", "          moderate: ["))
    emulator.log.clear()
    result = apply(emulator, [path], tmp_path, strategy=strategy).result
    assert result is not None and result.ok
    assert [(c.name, c.id, c.renamed_from, c.status) for s in result.scopes
            for c in s.changes] == [("moderate", mod, "mod", "applied"),
                                    ("moderate", mod, None, "applied")]
    assert emulator.log.counts()["creates"] == 0
    assert writes(emulator)[-1] == ("PUT", f"{GUILD_PATH}/{mod}/permissions", 200)
    assert overwrites(emulator) == {mod: [{"id": GUILD, "type": 1, "permission": False}]}
    assert not plan(emulator, [path], tmp_path).has_changes


def test_bulk_keeps_the_entry_point_the_manifest_does_not_manage(tmp_path: Path) -> None:
    seed = emulator_seed.default_seed()
    seed["applications"][0]["flags"] = ["embedded"]
    emulator = new_emulator(seed=seed)
    (entry,) = commands(emulator)
    path = write(tmp_path / "bot.yaml", "commands: [{name: ping, description: Ping}]\n")
    emulator.log.clear()
    result = apply(emulator, [path], tmp_path, strategy=Strategy.BULK).result
    assert result is not None and result.ok  # no 50240
    assert writes(emulator) == [("PUT", GLOBAL_PATH, 200)]
    assert [(c["id"], c["version"]) for c in commands(emulator) if c["type"] == 4] == [
        (entry["id"], entry["version"])]


def test_per_command_deletes_first_when_a_cap_would_be_exceeded(
        emulator: Emulator, tmp_path: Path) -> None:
    users = "".join(f"  - {{type: user, name: User {i:02}}}\n" for i in range(15))
    path = write(tmp_path / "bot.yaml", "commands:\n" + users)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", "commands:\n" + users.replace("User 14", "Brand new"))
    emulator.log.clear()
    result = apply(emulator, [path], tmp_path, strategy=Strategy.PER_COMMAND).result
    assert result is not None and result.ok
    assert [(m, s) for m, _, s in writes(emulator)] == [("DELETE", 204), ("POST", 201)]


def test_creates_over_the_daily_budget_are_refused_before_any_write(
        emulator: Emulator, tmp_path: Path) -> None:
    from cmdsync.apply.ledger import record

    path = write(tmp_path / "bot.yaml", MANIFEST)
    now = __import__("time").time()
    record(str(tmp_path), api_url="http://emulator.test/api/v10", application_id=APP,
           scope=GUILD, count=199, now=now)
    with pytest.raises(UnsafePlanError) as caught:
        apply(emulator, [path], tmp_path)
    message = str(caught.value)
    assert message.startswith(
        "refusing to apply (1 problem); nothing was changed:\n"
        f"  - guild {GUILD}: the plan creates 2 commands and 199 were created today (UTC, "
        ".cmdsync/ledger.json); Discord allows 200 per day: apply fewer new commands, or "
        "wait until midnight UTC (in ")
    assert emulator.log.counts()["writes"] == 0
    assert not (tmp_path / ".cmdsync" / "backups").exists()


def test_a_missing_bearer_token_is_refused_before_any_write(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    env = {k: v for k, v in ENV.items() if k != "DISCORD_BEARER_TOKEN"}
    with pytest.raises(UnsafePlanError) as caught:
        apply(emulator, [path], tmp_path, env=env)
    assert str(caught.value) == (
        "refusing to apply (1 problem); nothing was changed:\n"
        f"  - the plan changes permission overwrites in guild {GUILD}: that needs a user's "
        "Bearer token with scope applications.commands.permissions.update; set "
        "DISCORD_BEARER_TOKEN or pass --bearer-token-file, or run `cmdsync login` (a bot "
        "token gets 403 code 20001)")
    assert emulator.log.counts()["writes"] == 0


def test_a_bearer_token_without_its_scope_is_refused_before_any_write(tmp_path: Path) -> None:
    seed = emulator_seed.default_seed()
    seed["users"][0]["scopes"] = ["applications.commands.update"]
    emulator = new_emulator(seed=seed)
    path = write(tmp_path / "bot.yaml", MANIFEST)
    with pytest.raises(CmdsyncError) as caught:
        apply(emulator, [path], tmp_path)
    assert str(caught.value) == (
        "the Bearer token cannot edit permission overwrites (GET "
        f"{GUILD_PATH}/permissions: HTTP 401: Unauthorized. Provide a valid token and try again "
        "(code 40001)): it must be a "
        "user's token for this application with scope "
        "applications.commands.permissions.update; nothing was changed")
    assert emulator.log.counts()["writes"] == 0


def test_plan_errors_and_caps_are_refused_before_any_write(
        emulator: Emulator, tmp_path: Path) -> None:
    live = "".join(f"  - {{type: message, name: M{i}}}\n" for i in range(15))
    path = write(tmp_path / "bot.yaml", "prune: false\ncommands:\n" + live)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", "prune: false\ncommands:\n  - {type: message, name: One more}\n")
    emulator.log.clear()
    with pytest.raises(UnsafePlanError) as caught:
        apply(emulator, [path], tmp_path)
    assert str(caught.value) == (
        "refusing to apply (1 problem); nothing was changed:\n"
        "  - global: 16 MESSAGE commands after apply; Discord allows 15")
    assert emulator.log.counts()["writes"] == 0


def test_the_prompt_is_asked_and_no_means_no_write(emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    hooks = Hooks(answer=False)
    run = apply(emulator, [path], tmp_path, hooks=hooks, interactive=True)
    assert (run.declined, run.result, hooks.asked, len(hooks.shown)) == (True, None, 1, 1)
    assert emulator.log.counts()["writes"] == 0
    yes = Hooks(answer=True)
    result = apply(emulator, [path], tmp_path, hooks=yes, interactive=True).result
    assert result is not None and result.ok and yes.asked == 1


def test_live_changes_while_the_prompt_waits_are_refused(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", CHANGED)

    class Meddler(Hooks):
        def confirm(self, plan: object) -> bool:
            other = tmp_path / "other.yaml"
            write(other, "prune: false\ncommands: [{name: sneaky, description: Added}]\n")
            with ThreadPoolExecutor(1) as pool:  # another process, as far as apply can tell
                pool.submit(apply, emulator, [str(other)], tmp_path).result()
            return True

    emulator_writes = emulator.log.counts()["writes"]
    with pytest.raises(UnsafePlanError) as caught:
        apply(emulator, [path], tmp_path, hooks=Meddler(), interactive=True)
    sneaky = next(c["id"] for c in commands(emulator) if c["name"] == "sneaky")
    assert str(caught.value) == (
        "live state changed while the plan was reviewed; nothing was changed. Run apply "
        f"again:\n  - global: chat_input 'sneaky' (id {sneaky}) was created")
    assert emulator.log.counts()["writes"] == emulator_writes + 1  # the meddler's POST


def test_an_empty_plan_writes_no_backup_and_no_ledger(emulator: Emulator,
                                                      tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", "commands: []\n")
    run = apply(emulator, [path], tmp_path)
    assert run.plan is not None and not run.plan.has_changes
    assert not (tmp_path / ".cmdsync").exists()
    assert emulator.log.counts()["writes"] == 0


def test_invalid_manifests_stop_before_any_request(emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bad.yaml", "commands: [{name: Bad Name, description: x}]\n")
    run = apply(emulator, [path], tmp_path)
    assert run.plan is None and run.validation is not None and run.validation.errors == 1
    assert emulator.log.counts()["requests"] == 0


def test_rules_that_need_the_application_stop_apply_before_any_command_request(
        emulator: Emulator, tmp_path: Path) -> None:
    """An app that installs to guilds only (CS601): plan's check, in apply too."""
    guild_install_only(emulator)
    path = write(tmp_path / "bot.yaml", """\
        commands:
          - {name: ping, description: Ping, integration_types: [guild_install, user_install]}
        """)
    run = apply(emulator, [path], tmp_path)
    assert run.plan is None and run.validation is not None
    assert [d.rule for d in run.validation.diagnostics] == ["CS601"]
    assert [(e.method, e.path) for e in emulator.log.entries()] == [
        ("GET", "/api/v10/applications/@me")]


def test_the_result_lists_every_request_with_its_outcome(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    result = apply(emulator, [path], tmp_path, strategy=Strategy.PER_COMMAND).result
    assert result is not None
    mod = next(c["id"] for c in commands(emulator, GUILD) if c["name"] == "mod")
    got = [(r.method, r.path.removeprefix("/applications/" + APP), r.status, r.outcome)
           for r in result.requests]
    assert got[0] == ("GET", "/applications/@me", 200, "read")
    reads = sorted(got[1:5])
    assert reads == [
        ("GET", "/commands", 200, "read"),
        ("GET", f"/guilds/{GUILD}/commands", 200, "read"),
        ("GET", f"/guilds/{GUILD}/commands/permissions", 200, "read"),
        ("GET", f"/guilds/{GUILD}/commands/permissions", 200, "read")]  # the Bearer check
    assert got[5:] == [("POST", "/commands", 201, "created")] * 3 + [
        ("POST", f"/guilds/{GUILD}/commands", 201, "created")] * 2 + [
        ("PUT", f"/guilds/{GUILD}/commands/{mod}/permissions", 200, "permissions set")]
    assert [(c.action, c.status) for s in result.scopes for c in s.changes] == [
        (Action.CREATE, "applied")] * 5 + [(Action.CREATE, "applied")]
