"""apply's way back and way forward: backups and restore, saved plans, failures, re-runs."""

from __future__ import annotations

import asyncio
import codecs
import json
import re
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from cmdsync import validate
from cmdsync.apply.ledger import load as load_ledger
from cmdsync.apply.strategy import Strategy
from cmdsync.client import endpoints
from cmdsync.emulator import seed as emulator_seed
from cmdsync.emulator.app import create_app
from cmdsync.emulator.instance import Emulator, new_emulator
from cmdsync.emulator.reference.bounds import Limits
from cmdsync.emulator.reference.faults import FaultConfig
from cmdsync.errors import UnsafePlanError, UsageError
from cmdsync.manifest.files import text_digest
from cmdsync.plan import Action, CommandChange, LiveCommand, Plan, ScopePlan
from cmdsync.plan.planfile import plan_digest
from cmdsync.render.apply import summary, to_text
from cmdsync.runners.apply import ApplyOptions, apply_paths
from cmdsync.runners.files import save_plan as save
from cmdsync.runners.plan import plan_paths
from cmdsync.runners.saved_checks import prior_gaps, same_texts
from cmdsync.runners.session import saved_plan_key
from cmdsync.state import LiveState, live_scope
from tests.support.apply import (
    API,
    APP,
    CHANGED,
    ENV,
    GUILD,
    MANIFEST,
    SECRETS,
    Hooks,
    apply,
    apply_plan_file,
    client,
    commands,
    connection,
    overwrites,
    plan,
    write,
    writes,
)

OTHER = "555555555555555555"
TWO_GUILDS = MANIFEST.rstrip(" ") + f"""\
      "{OTHER}":
        commands:
          - {{name: alpha, description: A}}
          - {{name: beta, description: B}}
    """


@pytest.fixture
def emulator() -> Emulator:
    seed = emulator_seed.default_seed()
    seed["guilds"].append({"id": OTHER, "name": "Other"})
    seed["users"][0]["guilds"].append(OTHER)
    return new_emulator(seed=seed)


def state(emulator: Emulator) -> dict[str, object]:
    """Every scope's commands (id, type, name, description) and the guild's overwrites."""
    return {scope: sorted((c["id"], c["type"], c["name"], c.get("description"))
                          for c in commands(emulator, scope))
            for scope in ("global", GUILD)} | {"overwrites": overwrites(emulator)}


def test_backup_is_written_first_and_restores_the_previous_state(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    before = state(emulator)
    mod = next(c["id"] for c in commands(emulator, GUILD) if c["name"] == "mod")
    write(tmp_path / "bot.yaml", CHANGED.replace(  # update, delete, rename, overwrites
        "- {name: mod,", f'- {{id: "{mod}", name: moderate,').replace(
        "          mod: [", "          moderate: ["))
    result = apply(emulator, [path], tmp_path).result
    assert result is not None and result.ok and result.backup is not None
    backup = tmp_path / result.backup
    assert re.fullmatch(rf"\.cmdsync/backups/\d{{8}}T\d{{6}}Z-{APP}(-\d+)?\.json", result.backup)
    text = backup.read_text(encoding="utf-8")
    assert f"Restore it with `cmdsync apply --api-url {API} {result.backup}`" in text
    assert f'"id": "{mod}"' in text and not any(secret in text for secret in SECRETS)
    assert state(emulator) != before
    restored = apply(emulator, [str(backup)], tmp_path).result
    assert restored is not None and restored.ok
    after = state(emulator)
    # the deleted user command comes back with a new id; everything else exactly
    assert {k: v for k, v in after.items() if k != "global"} == {
        k: v for k, v in before.items() if k != "global"}
    assert [c[1:] for c in after["global"]] == [c[1:] for c in before["global"]]  # type: ignore
    assert mod in {c[0] for c in after[GUILD]}  # type: ignore[attr-defined]
    assert not plan(emulator, [str(backup)], tmp_path).has_changes


def test_backup_holds_only_the_scopes_that_change(emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", MANIFEST.replace("permission: false", "permission: true"))
    result = apply(emulator, [path], tmp_path).result
    assert result is not None and result.backup is not None
    data = json.loads((tmp_path / result.backup).read_text(encoding="utf-8"))
    del data["x-cmdsync-backup"]
    mod = next(c["id"] for c in commands(emulator, GUILD) if c["name"] == "mod")
    # the command its overwrites name, so that it validates and restores (not pruned)
    assert data == {"application_id": APP, "guilds": {GUILD: {
        "commands": [{"id": mod, "name": "mod", "description": "Moderation"}],
        "permissions": {"mod": [{"type": "role", "id": "everyone", "permission": False}]},
        "prune": False}}}
    restored = apply(emulator, [str(tmp_path / result.backup)], tmp_path).result
    assert restored is not None and restored.ok
    write(tmp_path / "bot.yaml", MANIFEST)
    assert not plan(emulator, [path], tmp_path).has_changes


def test_a_saved_plan_applies_without_asking_when_live_state_still_matches(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    run = plan_paths([path], connection=connection(emulator), env=ENV, cwd=str(tmp_path))
    assert run.plan is not None
    save(run.plan, str(tmp_path / "plan.json"), api_url=run.api_url)
    result = apply_plan_file(emulator, str(tmp_path / "plan.json"), tmp_path).result
    assert result is not None and result.ok and result.creates == 5
    assert not plan(emulator, [path], tmp_path).has_changes


def test_a_stale_saved_plan_is_refused_naming_what_changed(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", CHANGED)
    run = plan_paths([path], connection=connection(emulator), env=ENV, cwd=str(tmp_path))
    assert run.plan is not None
    saved = str(tmp_path / "plan.json")
    save(run.plan, saved, api_url=run.api_url)
    ping = next(c for c in commands(emulator) if c["name"] == "ping")
    write(tmp_path / "ping.yaml", "prune: false\ncommands: [{name: ping, description: Pong}]\n")
    apply(emulator, [str(tmp_path / "ping.yaml")], tmp_path)
    new_version = next(c["version"] for c in commands(emulator) if c["name"] == "ping")
    emulator.log.clear()
    with pytest.raises(UnsafePlanError) as caught:
        apply_plan_file(emulator, saved, tmp_path)
    assert str(caught.value) == (
        f"the saved plan {saved} is stale: live state changed since it was computed; nothing "
        "was changed. Plan again (`cmdsync plan --out FILE`):\n"
        f"  - global: chat_input 'ping' (id {ping['id']}) changed (version {ping['version']} "
        f"-> {new_version})")
    assert emulator.log.counts()["writes"] == 0


def _saved(emulator: Emulator, tmp_path: Path, path: str, *, keep_prior: bool = True,
           prior: LiveState | None = None, api_url: str | None = None,
           signed: bool = True) -> str:
    """``path`` planned and saved as ``cmdsync plan --out`` saves it: with the prior state
    it read (or ``prior``), unless not ``keep_prior``; where it was read, or ``api_url``;
    unless not ``signed``, its plan_hmac keyed as `plan --out` keys it (the emulator's bot
    token is published: the random key in ``tmp_path/.cmdsync/plan.key``)."""
    run = plan_paths([path], connection=connection(emulator), env=ENV, cwd=str(tmp_path))
    assert run.plan is not None
    saved = str(tmp_path / "plan.json")
    save(run.plan, saved, api_url=api_url or run.api_url,
         prior=(prior or run.live) if keep_prior else None,
         key=saved_plan_key(connection(emulator), ENV, cwd=str(tmp_path), create=True)
         if signed else None,
         manifest=run.validation.manifest)
    return saved


def _alpha_changed(emulator: Emulator, tmp_path: Path) -> str:
    """TWO_GUILDS applied, then written again with alpha's description changed: the
    manifest's path (a plan of it updates one command of guild OTHER)."""
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", "description: A2}"))
    return path


def _no_reading_manifests(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records each time apply reads a saved plan's manifests again."""
    read: list[list[str]] = []
    real = validate.validate_paths

    def validate_paths(paths: list[str], **kwargs: object) -> object:
        read.append(paths)
        return real(paths, **kwargs)

    monkeypatch.setattr(validate, "validate_paths", validate_paths)
    return read


def test_a_plan_signed_with_the_token_beside_its_unchanged_manifests_is_not_read_again(
        emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """plan_hmac (keyed with the bot token) and manifest_sha256: the bodies are the
    plan's own, from these very texts. Without either, apply reads the manifests."""
    read = _no_reading_manifests(monkeypatch)
    path = _alpha_changed(emulator, tmp_path)
    saved = _saved(emulator, tmp_path, path, signed=True)
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and result.ok and read == []
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", "description: A3}"))
    saved = _saved(emulator, tmp_path, path, signed=False)
    assert apply_plan_file(emulator, saved, tmp_path).result is not None
    assert len(read) == 1
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", "description: A4}"))
    saved = _saved(emulator, tmp_path, path, signed=True)
    write(tmp_path / "bot.yaml", TWO_GUILDS)  # another text since the plan
    with pytest.raises(UnsafePlanError, match="'alpha': the plan sends another body"):
        apply_plan_file(emulator, saved, tmp_path, refresh=False)
    assert len(read) == 2


def test_a_signed_plan_edited_and_digested_again_is_held_against_its_manifests(
        emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read = _no_reading_manifests(monkeypatch)
    path = _alpha_changed(emulator, tmp_path)
    saved = Path(_saved(emulator, tmp_path, path, signed=True))
    document = json.loads(saved.read_text(encoding="utf-8"))
    changed = next(c for scope in document["scopes"] for c in scope["commands"]
                   if c["action"] == "update")
    changed["body"]["description"] = "Something else"
    document["plan_digest"] = plan_digest(document)  # plan_hmac kept: it no longer matches
    saved.write_text(json.dumps(document), encoding="utf-8")
    emulator.log.clear()
    with pytest.raises(UnsafePlanError, match="'alpha': the plan sends another body than "
                       "the manifests give"):
        apply_plan_file(emulator, str(saved), tmp_path)
    with pytest.raises(UnsafePlanError) as refused:  # its prior state could be anything
        apply_plan_file(emulator, str(saved), tmp_path, refresh=False)
    assert str(refused.value).startswith("--no-refresh applies only a plan cmdsync saved "
                                         "with the credential at hand")
    assert len(read) == 1 and emulator.log.counts()["writes"] == 0


def test_a_signed_plan_whose_manifests_interpolate_has_them_read_again(
        emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """${VAR} makes the bodies depend on the environment, not on the text alone."""
    read = _no_reading_manifests(monkeypatch)
    path = write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}",
                                                           "description: '${WHAT:-A2}'}"))
    saved = _saved(emulator, tmp_path, path, signed=True)
    assert json.loads(Path(saved).read_text(encoding="utf-8"))["manifest_sha256"] == [None]
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and result.ok and len(read) == 1


def test_a_saved_plan_applies_without_reading_again_with_no_refresh(
        emulator: Emulator, tmp_path: Path) -> None:
    """--no-refresh (Terraform's -refresh=false): only the writes, command by command,
    and the backup holds the live state the plan was made from: of the commands it
    updates, not pruned, so a restore puts them back and leaves the others."""
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    apply(emulator, [path], tmp_path)
    before = {scope: commands(emulator, scope) for scope in ("global", GUILD, OTHER)}
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", "description: A2}")
          .replace("description: Ping}", "description: Ping!}"))
    saved = _saved(emulator, tmp_path, path)
    prior = json.loads(Path(saved).read_text(encoding="utf-8"))["prior"]
    assert set(prior) == {"global", OTHER}  # the scopes that change
    for scope, name in (("global", "ping"), (OTHER, "alpha")):  # as Discord returned them
        assert prior[scope] == {"commands": [c for c in before[scope] if c["name"] == name],
                                "permissions": None, "partial": True}
    emulator.log.clear()
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and result.ok and result.backup is not None
    backup = json.loads((tmp_path / result.backup).read_text(encoding="utf-8"))
    assert backup["prune"] is False and backup["guilds"][OTHER]["prune"] is False
    assert [c["name"] for c in backup["commands"]] == ["ping"]
    assert [c["name"] for c in backup["guilds"][OTHER]["commands"]] == ["alpha"]
    assert emulator.log.counts()["reads"] == 0
    assert [(method, status) for method, _, status in writes(emulator)] == [
        ("PATCH", 200), ("PATCH", 200)]
    assert not plan(emulator, [path], tmp_path).has_changes
    restored = apply(emulator, [str(tmp_path / result.backup)], tmp_path).result
    assert restored is not None and restored.ok
    for scope in ("global", OTHER):  # back as they were, ids and all
        assert [(c["id"], c["name"], c.get("description")) for c in commands(emulator, scope)] \
            == [(c["id"], c["name"], c.get("description")) for c in before[scope]]


def test_no_refresh_writes_the_plan_as_it_stands_and_reports_what_failed(
        emulator: Emulator, tmp_path: Path) -> None:
    """A command deleted since the plan: its update fails (404) and is reported; nothing
    else is lost, and the report says what was done."""
    path = _alpha_changed(emulator, tmp_path)
    saved = _saved(emulator, tmp_path, path)
    alpha = next(c["id"] for c in commands(emulator, OTHER) if c["name"] == "alpha")

    async def delete() -> None:
        async with client(emulator) as api:
            await endpoints.delete_command(api, APP, OTHER, alpha)

    asyncio.run(delete())
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and not result.ok
    assert [(method, status) for method, _, status in writes(emulator)][-1] == ("PATCH", 404)
    assert [c["name"] for c in commands(emulator, OTHER)] == ["beta"]
    assert summary(result).endswith(  # a re-run would repeat the same plan
        "Plan again (`cmdsync plan --out FILE`) and apply the new plan for what is left.")
    assert to_text(result).startswith(f"Applying the saved plan to application {APP}.\n\n"
                                      "Backed up the live state the saved plan was made from")


def test_no_refresh_needs_a_plan_saved_with_its_prior_state(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    saved = _saved(emulator, tmp_path, path, keep_prior=False)  # as an older cmdsync saved it
    with pytest.raises(UsageError) as caught:
        apply_plan_file(emulator, saved, tmp_path, refresh=False)
    assert str(caught.value) == (
        f"{saved} holds no prior state (it was not saved by `cmdsync plan --out`, or by an "
        "older cmdsync): apply it without --no-refresh, or plan again with `cmdsync plan "
        "--out FILE`")
    assert emulator.log.counts()["writes"] == 0


def test_no_refresh_refuses_a_bulk_overwrite_and_a_prior_state_that_misses_commands(
        emulator: Emulator, tmp_path: Path) -> None:
    path = _alpha_changed(emulator, tmp_path)
    saved = _saved(emulator, tmp_path, path)
    emulator.log.clear()
    with pytest.raises(UsageError) as refused:
        apply_plan_file(emulator, saved, tmp_path, refresh=False, strategy=Strategy.BULK)
    assert "a bulk overwrite without reading live state again would delete commands " \
        "created since the plan" in str(refused.value)
    saved = _saved(emulator, tmp_path, path, prior=LiveState(APP, {}))  # holds no command
    with pytest.raises(UnsafePlanError) as unsafe:
        apply_plan_file(emulator, saved, tmp_path, refresh=False)
    assert str(unsafe.value).endswith(f"  - guild {OTHER}: 1 live command(s) missing from its "
                                      "prior state")  # alpha, which the plan updates
    assert emulator.log.counts()["writes"] == 0


def test_no_refresh_keeps_a_whole_scope_where_the_plan_creates_and_its_backup_undoes_it(
        emulator: Emulator, tmp_path: Path) -> None:
    """Where the plan creates a command, the prior state and the backup hold all of the
    scope's commands, pruned: restoring deletes the new command."""
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    apply(emulator, [path], tmp_path)
    before = commands(emulator, OTHER)
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace(
        "- {name: beta, description: B}", "- {name: beta, description: B2}\n"
        "          - {name: gamma, description: G}"))
    saved = _saved(emulator, tmp_path, path)
    prior = json.loads(Path(saved).read_text(encoding="utf-8"))["prior"]
    assert prior == {OTHER: {"commands": before, "permissions": None}}
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and result.ok and result.backup is not None
    assert [c["name"] for c in commands(emulator, OTHER)] == ["alpha", "beta", "gamma"]
    backup = json.loads((tmp_path / result.backup).read_text(encoding="utf-8"))
    assert "prune" not in backup and "prune" not in backup["guilds"][OTHER]
    restored = apply(emulator, [str(tmp_path / result.backup)], tmp_path).result
    assert restored is not None and restored.ok
    assert [(c["id"], c["name"], c.get("description")) for c in commands(emulator, OTHER)] \
        == [(c["id"], c["name"], c.get("description")) for c in before]


def test_a_partial_prior_state_cannot_back_up_creates_or_overwrites() -> None:
    """A prior state holding only some commands (``partial``) covers updates and
    deletes; for a scope where the plan also creates, or changes overwrites, it is a gap."""
    ref = LiveCommand("1", 1, "alpha", "10")
    update = CommandChange(Action.UPDATE, OTHER, 1, "alpha", "1", "10", (), {"name": "alpha"})
    create = CommandChange(Action.CREATE, OTHER, 1, "gamma", None, None, (), {"name": "gamma"})
    prior = LiveState(APP, {OTHER: live_scope(OTHER, [{"id": "1", "name": "alpha"}],
                                              complete=False)})

    def gaps(*changes: CommandChange) -> list[str]:
        return prior_gaps(Plan(APP, (ScopePlan(OTHER, changes, live=(ref,)),)), prior)

    assert gaps(update) == []
    assert gaps(update, create) == [
        (f"guild {OTHER}: its prior state holds only some commands, but the plan creates "
        "commands or changes overwrites there")]


def test_saved_plan_flags_that_contradict_it_are_usage_errors(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", MANIFEST)
    saved = _saved(emulator, tmp_path, path, api_url="https://discord.com/api/v10")
    with pytest.raises(UsageError) as caught:
        apply_plan_file(emulator, saved, tmp_path)
    assert str(caught.value) == (f"{saved} was planned against https://discord.com/api/v10, "
                                 f"not {API}: apply it there (--api-url "
                                 "https://discord.com/api/v10)")
    with pytest.raises(UsageError) as caught:
        apply_plan_file(emulator, saved, tmp_path, prune=False)
    assert str(caught.value) == ("--no-prune does not apply to a saved plan: plan again with "
                                 "`cmdsync plan --no-prune --out FILE`")


@pytest.mark.parametrize("on_error", ["stop", "continue"])
def test_a_failure_stops_its_scope_and_a_rerun_converges(
        on_error: str, emulator: Emulator, tmp_path: Path) -> None:
    """The emulator's daily create limit (admin config "limits") set to 1: the second
    create of every scope fails with 30034, mid-apply."""
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    emulator.limits = Limits(daily_creates=1)
    run = apply(emulator, [path], tmp_path, strategy=Strategy.PER_COMMAND, on_error=on_error)
    result = run.result
    assert result is not None and not result.ok
    outcome = [(s.scope, s.status, [(c.name, c.status) for c in s.changes])
               for s in result.scopes]
    assert outcome[0] == ("global", "failed", [
        ("ban", "applied"), ("ping", "failed"), ("Profile", "not applied")])
    if on_error == "stop":
        assert [(s, status) for s, status, _ in outcome[1:]] == [(GUILD, "skipped"),
                                                                 (OTHER, "skipped")]
        assert emulator.log.counts()["writes"] == 2
    else:
        assert outcome[1:] == [
            (GUILD, "failed", [("mod", "applied"), ("Report", "failed"),
                               ("mod", "not applied")]),
            (OTHER, "failed", [("alpha", "applied"), ("beta", "failed")])]
    assert result.scopes[0].error == (
        f"POST /applications/{APP}/commands: HTTP 400: Max number of daily application "
        "command creates has been reached (1) (code 30034)")
    emulator.limits = Limits()
    again = apply(emulator, [path], tmp_path, strategy=Strategy.PER_COMMAND).result
    assert again is not None and again.ok
    assert not plan(emulator, [path], tmp_path).has_changes


def test_5xx_answers_are_retried_and_reported(emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    emulator.faults.configure(FaultConfig(error_rate=0.3, error_statuses=(500, 503), seed=3))
    result = apply(emulator, [path], tmp_path, strategy=Strategy.PER_COMMAND).result
    assert result is not None and result.ok
    retried = [r for r in result.requests if r.outcome == "retried"]
    assert retried and all(r.status in (500, 503) for r in retried)
    emulator.faults.configure(FaultConfig())
    assert not plan(emulator, [path], tmp_path).has_changes


class Rejecting(httpx.AsyncBaseTransport):
    """The emulator, except that a bulk overwrite gets Discord's 50035 for item 1's
    first option name: something Discord refuses that cmdsync cannot know."""

    def __init__(self, emulator: Emulator) -> None:
        self.inner = httpx.ASGITransport(app=create_app(emulator))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PUT" and request.url.path.endswith("/commands"):
            leaf = {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME",
                                 "message": "Command name is invalid"}]}
            return httpx.Response(400, json={"code": 50035, "message": "Invalid Form Body",
                                             "errors": {"1": {"options": {"0": {
                                                 "name": leaf}}}}})
        return await self.inner.handle_async_request(request)


def test_a_50035_answer_points_at_the_manifest_line(emulator: Emulator,
                                                    tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", """\
        commands:
          - {name: ban, description: Ban}
          - name: kick
            description: Kick
            options:
              - {type: user, name: member, description: Who}
        """)
    rejecting = replace(connection(emulator), transport=Rejecting(emulator))
    run = apply_paths([path], connection=rejecting, options=ApplyOptions(Strategy.BULK),
                      hooks=Hooks(), interactive=False, env=ENV, cwd=str(tmp_path))
    assert run.result is not None and not run.result.ok
    (diagnostic,) = run.result.scopes[0].diagnostics
    assert (diagnostic.location.file, diagnostic.location.line, diagnostic.location.column,
            diagnostic.rule, diagnostic.message) == (
        path, 6, 28, "D50035",  # the value of options[0].name of the second command
        ("Discord rejected the request: APPLICATION_COMMAND_INVALID_NAME: Command name is "
        "invalid"))


def test_the_ledger_counts_confirmed_creates_and_never_a_token(
        emulator: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    apply(emulator, [path], tmp_path, strategy=Strategy.BULK)
    text = (tmp_path / ".cmdsync" / "ledger.json").read_text(encoding="utf-8")
    assert not any(secret in text for secret in SECRETS)
    days = json.loads(text)["creates"][API][APP]
    assert {scope: sum(d.values()) for scope, d in days.items()} == {
        "global": 3, GUILD: 2, OTHER: 2}
    assert load_ledger(str(tmp_path)).used(API, APP, OTHER, next(iter(days[OTHER]))) == 2


def test_a_backup_never_clears_overwrites_it_did_not_read(
        emulator: Emulator, tmp_path: Path) -> None:
    """A guild whose manifest sets no ``permissions`` has its overwrites left unread;
    its backup must then not say "no overwrites", or restoring it would clear them."""
    path = write(tmp_path / "bot.yaml", TWO_GUILDS)
    apply(emulator, [path], tmp_path)
    alpha = next(c["id"] for c in commands(emulator, OTHER) if c["name"] == "alpha")
    kept = [{"id": OTHER, "type": 1, "permission": False}]  # set in Discord, not in the manifest

    async def put() -> None:
        async with client(emulator) as api:
            await endpoints.put_permissions(api, APP, OTHER, alpha, kept)

    asyncio.run(put())
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", "description: A2}"))
    result = apply(emulator, [path], tmp_path).result
    assert result is not None and result.ok and result.backup is not None
    data = json.loads((tmp_path / result.backup).read_text(encoding="utf-8"))
    assert "permissions" not in data["guilds"][OTHER]  # unknown: left out
    restored = apply(emulator, [str(tmp_path / result.backup)], tmp_path).result
    assert restored is not None and restored.ok
    assert overwrites(emulator, OTHER) == {alpha: kept}


def test_a_guild_backup_whose_overwrites_name_a_global_command_restores(
        emulator: Emulator, tmp_path: Path) -> None:
    """Only the guild changes, but its overwrites name a global command: the backup
    carries the global commands (not pruned), so that it validates and restores."""
    text = MANIFEST.replace("          mod: [", "          ping: [{type: user, id: \"333333333333333333\", "
                            "permission: true}]\n          mod: [")
    path = write(tmp_path / "bot.yaml", text)
    apply(emulator, [path], tmp_path)
    before = state(emulator)
    write(tmp_path / "bot.yaml", text.replace("description: Moderation", "description: Mods"))
    result = apply(emulator, [path], tmp_path).result
    assert result is not None and result.ok and result.backup is not None
    backup = str(tmp_path / result.backup)
    data = json.loads(Path(backup).read_text(encoding="utf-8"))
    assert data["prune"] is False and data["guilds"][GUILD]["prune"] is True
    restored = apply(emulator, [backup], tmp_path).result
    assert restored is not None and restored.ok
    assert state(emulator) == before
    assert not plan(emulator, [backup], tmp_path).has_changes


def test_manifest_texts_match_their_digest_byte_for_byte(tmp_path: Path) -> None:
    """What the loader reads (UTF-8, a byte order mark dropped) is what is hashed."""
    text = "commands: [{name: café, description: Ça}]\n"
    plain, marked, other, variable = (tmp_path / n for n in ("a.yaml", "b.yaml", "c.yaml",
                                                              "d.yaml"))
    plain.write_bytes(text.encode())
    marked.write_bytes(codecs.BOM_UTF8 + text.encode())
    other.write_bytes(text.replace("Ça", "Ca").encode())
    variable.write_bytes(b"commands: [{name: x, description: '${X:-y}'}]\n")
    digest = text_digest(text)
    assert same_texts([str(plain), str(marked)], [digest, digest])
    assert not same_texts([str(other)], [digest])
    assert not same_texts([str(variable)], [text_digest(variable.read_text())])
    assert not same_texts([str(plain)], [None])
    assert not same_texts([str(tmp_path / "gone.yaml")], [digest])


def test_a_plan_whose_overwrites_were_edited_is_held_against_its_manifests(
        emulator: Emulator, tmp_path: Path) -> None:
    """Not only the bodies: each overwrite set the plan puts must be the manifests'."""
    path = write(tmp_path / "bot.yaml", MANIFEST)
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", CHANGED)
    saved = Path(_saved(emulator, tmp_path, path))
    document = json.loads(saved.read_text(encoding="utf-8"))
    change = next(p for scope in document["scopes"] for p in scope["permissions"])
    assert change["key"] == "mod" and change["after"][0]["permission"] is True
    change["after"] = [{"type": 2, "id": "999999999999999999", "permission": True}]
    document["plan_digest"] = plan_digest(document)
    saved.write_text(json.dumps(document), encoding="utf-8")
    emulator.log.clear()
    with pytest.raises(UnsafePlanError) as refused:
        apply_plan_file(emulator, str(saved), tmp_path)
    assert f"  - guild {GUILD}: overwrites of 'mod': the plan puts other overwrites than the " \
        "manifests give" in str(refused.value)
    assert emulator.log.counts()["writes"] == 0


def test_a_plan_alone_applies_only_when_signed_with_the_credential_at_hand(
        emulator: Emulator, tmp_path: Path) -> None:
    """Without its manifests beside it, only plan_hmac can vouch for a plan."""
    path = _alpha_changed(emulator, tmp_path)
    unsigned = _saved(emulator, tmp_path, path, signed=False)
    Path(unsigned).rename(tmp_path / "unsigned.json")
    signed = _saved(emulator, tmp_path, path)
    (tmp_path / "bot.yaml").unlink()  # the plan alone was kept
    emulator.log.clear()
    with pytest.raises(UnsafePlanError) as refused:
        apply_plan_file(emulator, str(tmp_path / "unsigned.json"), tmp_path)
    assert "is not signed with the credential at hand (its plan_hmac) and the manifests it " \
        "was made from are not all here" in str(refused.value)
    assert str(refused.value).endswith(f"\n  - {path}: not found")
    assert emulator.log.counts()["writes"] == 0
    result = apply_plan_file(emulator, signed, tmp_path, refresh=False).result
    assert result is not None and result.ok


def test_text_shaped_like_a_credential_reads_back_exactly_from_plans_and_backups(
        emulator: Emulator, tmp_path: Path) -> None:
    """Only real secrets are redacted from saved plans and backups: a description that
    merely looks like an Authorization value is data, kept as written."""
    before, after = "Basic moderation-tools-v2-edition", "Bearer tooling-for-mods-edition-3"
    path = write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}",
                                                           f"description: {before}}}"))
    apply(emulator, [path], tmp_path)
    write(tmp_path / "bot.yaml", TWO_GUILDS.replace("description: A}", f"description: {after}}}"))
    saved = _saved(emulator, tmp_path, path)
    assert after in Path(saved).read_text(encoding="utf-8")
    result = apply_plan_file(emulator, saved, tmp_path, refresh=False).result
    assert result is not None and result.ok and result.backup is not None
    assert before in (tmp_path / result.backup).read_text(encoding="utf-8")
    assert [c.get("description") for c in commands(emulator, OTHER)] == [after, "B"]
