"""Every example in the README and in docs/ is a promise: each block is run or checked.

Every fenced block is claimed below, by page and position, by the check that
proves it: a transcript run (``console`` blocks: each ``$`` line run, its output
compared), a manifest validated, a seed or configuration loaded, a shell block
run against a served emulator, command lines parsed by cmdsync's own CLI, or a
named test elsewhere that reads the block from its page and runs it.
``test_every_block_is_claimed`` fails on a new block nobody checks.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pytest
import typer
import typer.main
import yaml

from cmdsync.cli import app
from cmdsync.emulator import create_app, new_emulator
from cmdsync.emulator.seed import parse_seed
from cmdsync.emulator.server import BackgroundServer, banner
from cmdsync.state.application import AppInfo
from cmdsync.validate import validate_paths
from cmdsync.validate.rules import all_rules
from tests.docs.blocks import Block, all_blocks, blocks_of
from tests.docs.transcript import EMULATOR_URL, Session, clean, matches
from tests.support.paths import ROOT

BLOCKS = all_blocks()
CLI = typer.main.get_command(app)


def block(page: str, number: int) -> Block:
    """The ``number``-th fenced block (1-based) of ``page``."""
    return blocks_of(ROOT / page)[number - 1]


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Session:
    clean(monkeypatch)
    monkeypatch.setenv("CMDSYNC_CONFIG_DIR", str(tmp_path / "config"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    return Session(workdir, monkeypatch, capsys)


# -- checks that need no page of their own ------------------------------------------


def parses_as_cmdsync(line: str) -> None:
    """A ``cmdsync ...`` command line names a real command and real options."""
    words = shlex.split(line, comments=True)
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words.pop(0)
    words = [w for w in words if w not in {"&", "<", ">", "/dev/null"}]
    assert Path(words[0]).name == "cmdsync", line
    try:
        CLI.make_context("cmdsync", words[1:], resilient_parsing=False)
    except (click.exceptions.Exit, typer.Exit):
        pass  # --help, --version
    except click.UsageError as error:
        raise AssertionError(f"`{line}`: {error.format_message()}") from None


def cmdsync_lines(text: str) -> list[str]:
    """The cmdsync command lines of a shell block (after prompts, prefixes, ``&&``)."""
    lines = []
    for raw in text.replace("\\\n", " ").splitlines():
        raw = raw.removeprefix("$ ")
        for part in re.split(r"&&|;|\|\|", raw):
            words = part.strip().split()
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words and Path(words[0]).name == "cmdsync":
                lines.append(" ".join(words))
    return lines


def check_cli_lines(item: Block, tmp_path: Path) -> None:
    found = cmdsync_lines(item.text)
    assert found, f"{item}: no cmdsync command line"
    for line in found:
        parses_as_cmdsync(line)


def check_manifest(item: Block, tmp_path: Path) -> None:
    path = tmp_path / (item.title or f"manifest.{'json' if item.lang == 'json' else 'yaml'}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(item.text, encoding="utf-8")
    (tmp_path / "cmdsync.schema.json").write_text("{}", encoding="utf-8")
    result = validate_paths([str(path)], env={}, placeholders=True)  # as `cmdsync validate`
    assert [d for d in result.diagnostics if d.severity.value == "error"] == [], item


def check_seed(item: Block, tmp_path: Path) -> None:
    seed = parse_seed(item.text, str(item))
    instance = new_emulator(seed=seed)  # a seed the emulator starts from
    assert instance is not None


def check_config(item: Block, tmp_path: Path) -> None:
    from cmdsync.runners.project_file import load_config

    (tmp_path / "discord").mkdir()
    (tmp_path / "discord" / "commands.yaml").write_text(
        "commands:\n  - {name: ping, description: Check the bot is alive}\n", encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(item.text, encoding="utf-8")
    project = load_config(str(tmp_path / "cmdsync.toml"))
    assert set(project.environments) == {"production", "dev"}


def check_precommit(item: Block, tmp_path: Path) -> None:
    """The hook the page configures runs what the repository's own hook runs."""
    config = yaml.safe_load(item.text)
    (hook,) = config["repos"][0]["hooks"]
    (ours,) = [h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
               if h["id"] == hook["id"]] or [None]
    if ours is not None:
        assert hook["entry"] == ours["entry"]
    parses_as_cmdsync(hook["entry"])


def check_action_step(item: Block, tmp_path: Path) -> None:
    """The step's inputs are the Action's (action.yml), with values it accepts; in a
    whole workflow, the step of each job that uses the action."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    data = yaml.safe_load(item.text)
    steps = data["steps"] if "steps" in data else [
        s for job in data["jobs"].values() for s in job["steps"]]
    step = next(s for s in steps if str(s.get("uses", "")).startswith("cmdsync/cmdsync@"))
    assert set(step["with"]) <= set(action["inputs"]), item
    assert step["with"]["command"] in action["inputs"]["command"]["description"]


def check_install_lines(item: Block, tmp_path: Path) -> None:
    """The user's install lines install this project, by its name on PyPI or from its
    repository (tests/release/test_wheel.py installs the built wheel as they do), and
    the cmdsync lines beside them are real commands."""
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    name = re.search(r'^name = "([^"]+)"', project, re.MULTILINE)
    assert name is not None
    installers = (["pipx", "install"], ["uv", "tool"], ["pip", "install"])
    for line in item.text.splitlines():
        words = shlex.split(line.removeprefix("$ "), comments=True)
        if words[0] == "cmdsync":
            parses_as_cmdsync(line.removeprefix("$ "))
            continue
        assert words[:2] in installers, line
        targets = (name[1], "git+https://github.com/cmdsync/cmdsync")
        assert words[-1] in targets, line
        alternative = line.partition("# or: ")[2]
        assert alternative in ("", *(f"{uv} {target}" for uv in ("uv tool install",
                                                                  "uv add --dev")
                                     for target in targets)), line


def check_dev_setup(item: Block, tmp_path: Path) -> None:
    """The contributor's set-up is the README's (which CI runs), then the linters CI runs."""
    readme_setup = next(b for b in blocks_of(ROOT / "README.md") if b.lang == "sh").text
    lines = [line.split("  #")[0].strip() for line in item.text.splitlines()]
    assert "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'" in lines
    assert ".venv/bin/python -m pytest -q" in lines and ".venv/bin/python -m pytest -q" in \
        readme_setup
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]'" in readme_setup
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "ruff check" in ci and "mypy" in ci
    assert "slow:" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def check_mutation_commands(item: Block, tmp_path: Path) -> None:
    """Each command names a module the script scores and flags its parser takes; a module
    it does not score is a usage error (exit 2)."""
    script = ROOT / "scripts" / "mutation.py"
    help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                               text=True, check=True, timeout=60).stdout
    refused = subprocess.run([sys.executable, str(script), "src/cmdsync/cli/__init__.py"],
                             capture_output=True, text=True, check=False, timeout=60)
    assert refused.returncode == 2
    assert "not a module of the pure core: src/cmdsync/cli/__init__.py" in refused.stderr
    commands = [shlex.split(line.split("#")[0]) for line in item.text.splitlines()
                if line.startswith(".venv/bin/python scripts/mutation.py")]
    assert len(commands) == 3
    for words in commands:
        for word in words[2:]:
            if word.startswith("--"):
                assert word in help_text, word
            elif word != "MODULE":
                assert word in refused.stderr, word  # listed among the modules it scores


def check_release_tag(item: Block, tmp_path: Path) -> None:
    """The tag the page pushes is the one the release workflow runs on."""
    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(
        encoding="utf-8"))
    triggers = release[True] if True in release else release["on"]  # YAML 1.1: on is True
    assert triggers["push"]["tags"] == ["v*"]
    assert re.search(r"git tag -a vX\.Y\.Z .* git push origin vX\.Y\.Z", item.text)


def check_python_compiles(item: Block, tmp_path: Path) -> None:
    compile(item.text, str(item), "exec")


def check_python_runs(item: Block, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", item.text], cwd=tmp_path,
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def check_curl(item: Block, tmp_path: Path) -> None:
    """Run a shell block of curl calls against a served emulator: every call answers."""
    with BackgroundServer(create_app(new_emulator())) as base:
        prelude = ('API=http://127.0.0.1:8787/api/v10\nAPP=111111111111111111\n'
                   'BOT="Authorization: Bot emulator-bot-token"\n')
        script = (prelude + item.text).replace(EMULATOR_URL, base)
        script = script.replace("curl -s ", "curl -sS --fail-with-body ")
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, check=False,
                              capture_output=True, text=True, timeout=60)
    output = done.stdout + done.stderr
    if "50035" in item.text:  # the block shows Discord's validation error: it is the only one
        assert '"code":50035' in output.replace(" ", ""), output
        assert done.returncode == 0 or "error: 400" in output or "400" in output
    else:
        assert done.returncode == 0, output


def check_benchmark_flags(item: Block, tmp_path: Path) -> None:
    """Every ``benchmarks/run.py`` flag shown is one the script takes."""
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--help"],
                          check=False, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for flag in re.findall(r"\s(--[a-z][\w-]*)", item.text):
        assert flag in done.stdout, f"{item}: {flag} is not an option of benchmarks/run.py"


def check_banner(item: Block, tmp_path: Path) -> None:
    """``$ cmdsync emulator`` shows the banner the emulator prints."""
    (line, *shown) = item.text.splitlines(keepends=True)
    assert line == "$ cmdsync emulator\n"
    printed = banner(new_emulator(), EMULATOR_URL)
    assert matches("".join(shown), printed if printed.endswith("\n") else printed + "\n")


def check_same_as(page: str, number: int) -> Callable[[Block, Path], None]:
    def check(item: Block, tmp_path: Path) -> None:
        assert item.text == block(page, number).text, f"{item} differs from {page}"
    return check


def covered_by(test: str) -> Callable[[Block, Path], None]:
    """A test elsewhere reads this block from its page and runs it."""
    def check(item: Block, tmp_path: Path) -> None:
        path, _, name = test.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert f"def {name}(" in source, f"{test} does not exist"
        assert Path(item.page).name in source or item.page in source, (
            f"{test} does not read {item.page}")
    check.__doc__ = f"run by {test}"
    return check


def shown_output(expected_in: str) -> Callable[[Block, Path], None]:
    """A message shown as cmdsync prints it: the words are cmdsync's own (in its source)."""
    def check(item: Block, tmp_path: Path) -> None:
        source = "".join(p.read_text(encoding="utf-8")
                         for p in (ROOT / "src" / "cmdsync").rglob("*.py"))
        assert expected_in in source, f"{item}: {expected_in!r} is not in cmdsync's source"
    return check


def illustration(item: Block, tmp_path: Path) -> None:
    """A drawing, not a command or a file: nothing to run."""
    assert item.lang == "" and "$ " not in item.text


def transcript(test: str) -> Callable[[Block, Path], None]:
    return covered_by(f"tests/docs/test_examples.py::{test}")


CLAIMS: dict[tuple[str, int], Callable[[Block, Path], None]] = {
    ("README.md", 1): covered_by(
        "tests/docs/test_site.py::test_readme_setup_block_is_what_ci_runs"),
    ("README.md", 2): check_install_lines,
    ("README.md", 3): transcript("test_readme_tour"),
    ("README.md", 4): transcript("test_readme_tour"),
    ("README.md", 5): transcript("test_readme_tour"),
    ("README.md", 6): covered_by("tests/cli/test_invoke.py::docs_invocations"),
    ("README.md", 7): check_same_as("docs/testing/pytest.md", 1),
    ("README.md", 8): transcript("test_readme_environments"),
    ("README.md", 9): transcript("test_readme_environments"),
    ("docs/index.md", 1): transcript("test_index_plan"),
    ("docs/getting-started/index.md", 1): check_install_lines,
    ("docs/getting-started/install.md", 1): check_install_lines,
    ("docs/getting-started/install.md", 2): check_install_lines,
    ("docs/getting-started/install.md", 3): check_install_lines,
    ("docs/development.md", 1): check_dev_setup,
    ("docs/development.md", 2): check_mutation_commands,
    ("docs/development.md", 3): check_release_tag,
    ("docs/getting-started/index.md", 2): transcript("test_quickstart"),
    ("docs/getting-started/index.md", 3): transcript("test_quickstart"),
    ("docs/getting-started/index.md", 4): transcript("test_quickstart"),
    ("docs/getting-started/index.md", 5): transcript("test_quickstart"),
    ("docs/getting-started/discord.md", 1): check_cli_lines,
    ("docs/architecture.md", 1): illustration,
    ("docs/architecture.md", 2): covered_by(
        "tests/test_architecture.py::test_the_docs_draw_the_rooms_in_their_order"),
    ("docs/benchmarks.md", 1): check_benchmark_flags,
    ("docs/commands-in-code.md", 1): check_cli_lines,
    ("docs/commands-in-code.md", 2): covered_by(
        "tests/cli/test_bot_code.py::test_the_docs_setup_hook_example_syncs_then_writes_nothing"),
    ("docs/configuration.md", 1): check_config,
    ("docs/security.md", 1): transcript("test_security_refuses_a_token_argument"),
    ("docs/ci/exit-codes.md", 1): check_cli_lines,
    ("docs/ci/github-actions.md", 1): check_action_step,  # and actionlint's default checks:
    # tests/cli/test_action_environment.py::test_the_docs_workflow_passes_actionlint_default_checks
    ("docs/ci/github-actions.md", 2): covered_by(
        "tests/client/test_refresh_token.py::test_the_docs_commands_are_the_job_summarys"),
    ("docs/ci/json.md", 1): transcript("test_json_documents"),
    ("docs/ci/json.md", 2): transcript("test_json_documents"),
    ("docs/ci/json.md", 3): transcript("test_github_format"),
    ("docs/ci/pre-commit.md", 1): check_precommit,
    ("docs/commands/apply.md", 1): check_manifest,
    ("docs/commands/apply.md", 2): transcript("test_apply_page"),
    ("docs/commands/apply.md", 3): transcript("test_apply_page"),
    ("docs/commands/apply.md", 4): transcript("test_apply_page"),
    ("docs/commands/apply.md", 5): covered_by(
        "tests/cli/test_apply.py::test_the_docs_daily_limit_failure_is_shown_as_the_page_says"),
    ("docs/commands/apply.md", 6): shown_output("no answer came: `cmdsync plan` shows whether"),
    ("docs/commands/login.md", 1): check_cli_lines,
    ("docs/commands/plan.md", 1): check_manifest,
    ("docs/commands/plan.md", 2): transcript("test_plan_page"),
    ("docs/commands/plan.md", 3): transcript("test_plan_page"),
    ("docs/commands/plan.md", 4): transcript("test_plan_page"),
    ("docs/commands/pull.md", 1): covered_by(
        "tests/cli/test_pull.py::test_the_docs_pull_example_prints_what_it_shows"),
    ("docs/commands/validate.md", 1): transcript("test_validate_page"),
    ("docs/commands/validate.md", 2): transcript("test_validate_page"),
    ("docs/commands/validate.md", 3): covered_by(
        "tests/cli/test_validate_online.py::test_the_docs_cs601_example_prints_what_it_shows"),
    ("docs/concepts/manifests.md", 1): check_manifest,
    ("docs/concepts/manifests.md", 2): check_cli_lines,
    ("docs/concepts/rate-limits.md", 1): transcript("test_rate_limits_page"),
    ("docs/concepts/safety.md", 1): transcript("test_safety_page"),
    ("docs/concepts/safety.md", 2): shown_output(
        "creates were used today (UTC, {LEDGER_PATH}); this plan creates"),
    ("docs/concepts/safety.md", 3): check_cli_lines,
    ("docs/concepts/saved-plans.md", 1): transcript("test_saved_plans_page"),
    ("docs/emulator/admin.md", 1): check_curl,
    ("docs/emulator/admin.md", 2): check_python_runs,
    ("docs/emulator/gateway.md", 1): covered_by(
        "tests/emulator/gateway/test_docs.py::test_the_docs_discordpy_lines_connect_a_bot"),
    ("docs/emulator/index.md", 1): check_banner,
    ("docs/emulator/index.md", 2): check_curl,
    ("docs/emulator/index.md", 3): check_curl,
    ("docs/emulator/seed.md", 1): check_seed,
    ("docs/testing/invoke.md", 1): check_banner,
    ("docs/testing/invoke.md", 2): covered_by("tests/cli/test_invoke.py::docs_invocations"),
    ("docs/testing/pytest.md", 1): covered_by("tests/testing/test_plugin.py::docs_example"),
    ("docs/testing/pytest.md", 2): covered_by(
        "tests/testing/test_components.py::test_a_discordpy_bot_is_clicked_chosen_and_submitted"),
    **{("docs/testing/pytest.md", number): covered_by(
        "tests/testing/test_session_bot.py::test_the_docs_session_example_passes")
       for number in (3, 4)},
    **{("docs/testing/examples.md", number): covered_by(  # the example's files, as they are
        "tests/testing/test_examples_components.py::test_the_docs_page_shows_the_example_files")
       for number in (1, 2, 3)},
}
# Pages whose blocks another test owns entirely.
OWNED = {
    "docs/rules.md": "test_rule_examples_fail_and_pass_as_documented",
    "docs/console.md": "tests/console/ (the console's own browser tests)",
}


def claim(item: Block) -> Callable[[Block, Path], None] | None:
    number = blocks_of(ROOT / item.page).index(item) + 1
    return CLAIMS.get((item.page, number))


def test_every_block_is_claimed() -> None:
    unclaimed = [str(item) for item in BLOCKS
                 if item.page not in OWNED and claim(item) is None]
    assert unclaimed == [], "blocks no test checks (claim them in CLAIMS)"
    pages = {item.page for item in BLOCKS}
    stale = [key for key in CLAIMS
             if key[0] not in pages or key[1] > len(blocks_of(ROOT / key[0]))]
    assert stale == [], "claims of blocks that are gone"


@pytest.mark.parametrize("item", [b for b in BLOCKS if b.page not in OWNED], ids=str)
def test_block(item: Block, tmp_path: Path) -> None:
    check = claim(item)
    assert check is not None
    check(item, tmp_path)


# -- transcripts: a page's console blocks, run in order --------------------------------


def test_readme_tour(session: Session) -> None:
    session.copy_examples()
    session.run(block("README.md", 3), codes={"cmdsync validate bad.yaml": 1})
    session.run(block("README.md", 4))
    session.run(block("README.md", 5))


def test_readme_environments(session: Session) -> None:
    """The dev-guild / production configuration the README shows, run: dev copies the
    global commands to its guild, production plans them global, and the saved plan
    applies to production without --env, as the hint says."""
    session.copy_examples()
    config = block("README.md", 8)
    assert config.text.startswith("# cmdsync.toml\n")
    session.write("cmdsync.toml", config.text)
    session.run(block("README.md", 9))
    code, out, err = session.cmdsync("apply", "plan.json")
    assert code == 0, out + err
    assert "Apply complete: 5 created" in out
    assert session.cmdsync("plan", "--local", "--env", "dev")[1].endswith(
        "No changes. Live commands match the manifest.\n")


def test_index_plan(session: Session) -> None:
    session.copy_examples()
    session.run(block("docs/index.md", 1))


def test_quickstart(session: Session) -> None:
    page = "docs/getting-started/index.md"
    session.run(block(page, 2))
    written = block(page, 3)
    assert (session.workdir / str(written.title)).read_text(encoding="utf-8") == written.text
    session.run(block(page, 4))
    session.run(block(page, 5))


def test_validate_page(session: Session) -> None:
    page = "docs/commands/validate.md"
    session.copy_examples()
    commands = block(page, 1)
    session.write(str(commands.title), commands.text)
    session.run(block(page, 2), codes={"cmdsync validate examples/ commands.json": 1})


def test_plan_page(session: Session) -> None:
    page = "docs/commands/plan.md"
    manifest = block(page, 1).text
    # What is live: ban as it was, before the two changes the page shows.
    session.write("live.yaml", manifest.split("  - {type: message")[0]
                  .replace("Ban someone", "Ban a member").replace("required: false",
                                                                  "required: true"))
    assert session.cmdsync("apply", "--local", "--auto-approve", "live.yaml")[0] == 0
    session.write("bot.yaml", manifest)
    session.run(block(page, 2))
    with BackgroundServer(create_app(new_emulator())) as base:
        session.api_url = base
        session.env.update(CMDSYNC_API_URL=f"{base}/api/v10",
                           DISCORD_BOT_TOKEN="emulator-bot-token")
        session.write("bot.yaml", f'application_id: "999999999999999999"\n{manifest}')
        session.run(block(page, 3))
        session.write("bot.yaml", manifest)
        session.run(block(page, 4))


def test_apply_page(session: Session) -> None:
    page = "docs/commands/apply.md"
    session.write("bot.yaml", block(page, 1).text)
    session.run(block(page, 4))  # no terminal: refused before anything is sent
    session.run(block(page, 2))
    session.run(block(page, 3))


def test_rate_limits_page(session: Session) -> None:
    session.env.update(DISCORD_BOT_TOKEN="emulator-bot-token",
                       DISCORD_APPLICATION_ID="111111111111111111")
    session.write("bot.yaml", "commands:\n  - {name: ping, description: Check the bot is alive}\n")
    session.run(block("docs/concepts/rate-limits.md", 1))


def test_safety_page(session: Session) -> None:
    session.write("bot.yaml", block("docs/commands/apply.md", 1).text)
    with BackgroundServer(create_app(new_emulator())) as base:
        session.api_url = base
        session.env.update(CMDSYNC_API_URL=f"{base}/api/v10",
                           DISCORD_BOT_TOKEN="emulator-bot-token",
                           DISCORD_APPLICATION_ID="111111111111111111")
        session.run(block("docs/concepts/safety.md", 1))


def test_saved_plans_page(session: Session) -> None:
    session.write("bot.yaml", "commands:\n  - {name: ban, description: Ban someone}\n")
    assert session.cmdsync("apply", "--local", "--auto-approve", "bot.yaml")[0] == 0
    session.write("bot.yaml", "commands:\n  - {name: ban, description: Ban a member}\n")
    assert session.cmdsync("plan", "--local", "--out", "plan.json", "bot.yaml")[0] == 0
    # Someone changes the command in Discord (not through cmdsync) after the plan was made.
    import httpx

    emulator = new_emulator(state=str(session.workdir / ".cmdsync" / "local.sqlite"))
    with BackgroundServer(create_app(emulator)) as base:
        commands = f"{base}/api/v10/applications/111111111111111111/commands"
        bot = {"Authorization": "Bot emulator-bot-token"}
        (ban,) = httpx.get(commands, headers=bot).json()
        assert httpx.patch(f"{commands}/{ban['id']}", headers=bot,
                           json={"description": "Ban now"}).status_code == 200
    emulator.store.close()
    session.run(block("docs/concepts/saved-plans.md", 1))


def test_security_refuses_a_token_argument(session: Session) -> None:
    session.write("bot.yaml", "commands:\n  - {name: ping, description: Check the bot is alive}\n")
    code, out, err = session.cmdsync("plan", "--token", "abc.def.ghi", "bot.yaml")
    assert code == 2 and out == ""
    assert err == block("docs/security.md", 1).text


def test_json_documents(session: Session) -> None:
    page = "docs/ci/json.md"
    session.write("bot.yaml", "commands:\n  - {name: ban, description: Ban someone}\n"
                              "  - {type: message, name: Report message}\n")
    code, out, _ = session.cmdsync("apply", "--local", "--auto-approve", "--format", "json",
                                   "bot.yaml")
    assert code == 0
    shown, printed = json.loads(block(page, 1).text), json.loads(out)
    for volatile in ("backup", "duration_seconds"):
        assert type(printed[volatile]) is type(shown[volatile])
        printed[volatile] = shown[volatile]
    for shown_change, change in zip(shown["scopes"][0]["changes"],
                                    printed["scopes"][0]["changes"], strict=True):
        change["id"] = shown_change["id"]
    assert printed == shown
    session.env.update(DISCORD_BOT_TOKEN="emulator-bot-token",
                       DISCORD_APPLICATION_ID="111111111111111111")
    code, out, _ = session.cmdsync("apply", "--auto-approve", "--format", "json",
                                   "--api-url", "http://127.0.0.1:9/api/v10", "bot.yaml")
    failed, shape = json.loads(out), json.loads(block(page, 2).text)
    assert code == 1 and set(failed) == set(shape) and failed["ok"] is False
    assert failed["error"].startswith("GET /applications/@me: ")


def test_github_format(session: Session) -> None:
    session.run(block("docs/ci/json.md", 3),
                codes={"cmdsync validate --format github bad.yaml": 1})


# -- the rule reference ----------------------------------------------------------------


def rule_examples() -> list[tuple[str, str, str]]:
    """(rule id, "failing" or "passing", YAML) for every example in docs/rules.md."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    found = []
    for section in text.split("\n## ")[1:]:
        rule = section.split("\n", 1)[0].strip()
        for kind, body in re.findall(r"\n(Failing|Passing)[^\n]*:\n\n```\w*\n(.*?)```", section,
                                     re.DOTALL):
            found.append((rule, kind.lower(), body))
    return found


APPLICATION_RULES = {r.id for r in all_rules() if r.checked_by == "application"}


ABBREVIATED = re.compile(r"^\s*# \.\.\.|\.\.\. \(\d+ characters\)", re.MULTILINE)
FILE_COMMENT = re.compile(r"^# ([\w.-]+\.ya?ml)$", re.MULTILINE)


def example_files(text: str) -> dict[str, str]:
    """The files an example stands for: one, or several marked ``# NAME.yaml``.

    An example of a command's part (an ``options:`` key, or a list of options)
    is placed in a command, as the rule's text says it is written."""
    marked = FILE_COMMENT.split(text)
    if len(marked) > 1:
        return dict(zip(marked[1::2], marked[2::2], strict=True))
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None  # a syntax error: the example is the file
    if isinstance(data, dict) and set(data) == {"options"}:
        command = {"name": "example", "description": "An example", **data}
        return {"example.yaml": yaml.safe_dump({"commands": [command]})}
    if isinstance(data, list) and data and all("description" in o and "type" in o
                                               and o.get("type") not in (1, "chat_input")
                                               and "options" not in o for o in data) \
            and any(isinstance(o["type"], str) and o["type"] not in
                    ("user", "message", "chat_input", "primary_entry_point") for o in data):
        command = {"name": "example", "description": "An example", "options": data}
        return {"example.yaml": yaml.safe_dump({"commands": [command]})}
    name = "example.json" if text.lstrip().startswith(("[", "{")) else "example.yaml"
    return {name: text}


@pytest.mark.parametrize(("rule", "kind", "text"), rule_examples(),
                         ids=[f"{r}-{k}" for r, k, _ in rule_examples()])
def test_rule_examples_fail_and_pass_as_documented(rule: str, kind: str, text: str,
                                                   tmp_path: Path) -> None:
    """A failing example breaks its rule, a passing one does not. An example shortened
    for the page (``# ...`` lines) stands for a whole case in tests/data/rules/, run by
    tests/validate/test_rules.py: that case must exist."""
    if ABBREVIATED.search(text):
        folder = ROOT / "tests" / "data" / "rules" / rule / (
            "invalid" if kind == "failing" else "valid")
        assert any(folder.iterdir()), f"{rule}: no whole {kind} case in {folder}"
        return
    if rule in APPLICATION_RULES:
        application = AppInfo(id="111111111111111111", flags=0, integration_types=(0,))
    else:
        application = None
    paths = []
    for name, body in example_files(text).items():
        (tmp_path / name).write_text(body, encoding="utf-8")
        paths.append(str(tmp_path / name))
    result = validate_paths(paths, env={}, application=application)
    rules = {d.rule for d in result.diagnostics}
    if kind == "failing":
        assert rule in rules, [d.message for d in result.diagnostics]
    else:
        assert rule not in rules, [d.message for d in result.diagnostics]


def test_every_rule_has_a_failing_and_a_passing_example() -> None:
    kinds: dict[str, set[str]] = {}
    for rule, kind, _ in rule_examples():
        kinds.setdefault(rule, set()).add(kind)
    assert {r.id: kinds.get(r.id, set()) for r in all_rules()} == {
        r.id: {"failing", "passing"} for r in all_rules()}

