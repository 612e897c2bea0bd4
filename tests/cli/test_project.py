"""The project configuration (cmdsync.toml, [tool.cmdsync]), --env and `cmdsync init`."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmdsync.errors import UsageError
from cmdsync.runners.project import environment_for
from cmdsync.runners.project_file import find_config
from tests.support.cli import clean_environment, run

MANIFEST = """\
guilds:
  "${DEV_GUILD_ID}":
    commands:
      - {name: debug, description: Developer tools}
"""
CONFIG = """\
manifests = ["discord/*.yaml"]
default_environment = "dev"

[environments.dev]
application_id = "111111111111111111"
guilds = { DEV_GUILD_ID = "222222222222222222" }

[environments.production]
application_id = "${PROD_APP_ID}"
api_url = "http://127.0.0.1:9/api/v10"
guilds = { DEV_GUILD_ID = "333333333333333333" }
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_environment(monkeypatch)
    (tmp_path / "discord").mkdir()
    (tmp_path / "discord" / "dev.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "cmdsync.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_commands_take_the_configured_manifests(project: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate")
    assert (code, out) == (0, "All 1 file valid (1 command).\n")
    code, out, _ = run(capsys, "plan", "--local")
    assert code == 0 and "guild 222222222222222222:\n" in out  # the default environment's
    code, out, _ = run(capsys, "apply", "--local", "--auto-approve")
    assert code == 0 and "Apply complete: 1 created" in out


def test_env_selects_an_environment_and_flags_and_variables_win(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = find_config()
    assert config is not None and config.path == str(project / "cmdsync.toml")
    assert config.manifest_paths() == ["discord/dev.yaml"]
    dev = environment_for(config, None, {})
    assert dev == {"DISCORD_APPLICATION_ID": "111111111111111111",
                   "DEV_GUILD_ID": "222222222222222222"}
    production = environment_for(config, "production", {"PROD_APP_ID": "444444444444444444"})
    assert production["DISCORD_APPLICATION_ID"] == "444444444444444444"
    assert production["CMDSYNC_API_URL"] == "http://127.0.0.1:9/api/v10"
    # the process environment beats the file
    assert environment_for(config, "production", {"DEV_GUILD_ID": "5"})["DEV_GUILD_ID"] == "5"
    with pytest.raises(UsageError, match="no environment 'staging' in .*cmdsync.toml "
                                         r"\(defined: dev, production\)"):
        environment_for(config, "staging", {})


def test_pyproject_tool_table_and_parent_folders(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "bot"\n\n[tool.cmdsync]\nmanifests = ["commands.yaml"]\n',
        encoding="utf-8")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    config = find_config()
    assert config is not None and config.manifests == ("commands.yaml",)
    assert config.manifest_paths() == [str(tmp_path / "commands.yaml")]


@pytest.mark.parametrize(("text", "message"), [
    ("manifest = []\n", "unknown key 'manifest'"),
    ("manifests = 3\n", "manifests must be a list"),
    ("[environments.dev]\nguilds = { X = 1 }\n", "guilds must map variable names to guild"),
    ("[environments.dev]\napp = '1'\n", "environments.dev: unknown key 'app'"),
    ('default_environment = "x"\n', "default_environment 'x' is not one of"),
    ("manifests = [\n", "is not valid TOML"),
])
def test_a_bad_configuration_names_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], text: str,
                                           message: str) -> None:
    clean_environment(monkeypatch)
    (tmp_path / "cmdsync.toml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "validate")
    assert code == 2 and message in err


def test_no_paths_and_no_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "validate")
    assert code == 2 and "no manifests: give their paths, or list them in cmdsync.toml" in err
    code, _, err = run(capsys, "plan", "--env", "dev", "x.yaml")
    assert code == 2 and "--env dev: no cmdsync.toml" in err


def test_init_starts_a_project_that_validates_and_plans(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "init")
    assert code == 0 and "Wrote ./cmdsync.toml\n" in err
    manifest = (tmp_path / "discord" / "commands.yaml").read_text(encoding="utf-8")
    assert manifest.startswith("# yaml-language-server: $schema=../cmdsync.schema.json\n")
    assert (tmp_path / "cmdsync.schema.json").exists()
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == ".cmdsync/\n"
    # DISCORD_APPLICATION_ID unset: offline validate takes it as a placeholder
    assert run(capsys, "validate")[0] == 0
    assert run(capsys, "plan", "--local")[0] == 0
    code, _, err = run(capsys, "init")
    assert code == 2 and "exists: pass --force" in err


def test_quiet_prints_results_and_problems_only(project: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--quiet", "validate") == (0, "", "")
    (project / "discord" / "dev.yaml").write_text(MANIFEST.replace("debug", "Debug"),
                                                  encoding="utf-8")
    code, out, _ = run(capsys, "-q", "validate")
    assert code == 1 and out.startswith("discord/dev.yaml:4:16: CS101 ")
    assert "Found" not in out  # no summary line
    assert run(capsys, "-q", "schema", "--output", "s.json") == (0, "", "")


def test_a_schema_beside_the_manifests_is_not_a_manifest(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "cmdsync.toml").write_text(CONFIG.replace('["discord/*.yaml"]', '["discord/"]'),
                                          encoding="utf-8")
    assert run(capsys, "schema", "--output", "discord/cmdsync.schema.json")[0] == 0
    assert run(capsys, "validate") == (0, "All 1 file valid (1 command).\n", "")


def test_state_lives_at_the_projects_root(project: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "apply", "--local", "--auto-approve")[0] == 0
    monkeypatch.chdir(project / "discord")
    code, out, _ = run(capsys, "plan", "--local")
    assert (code, out) == (0, "No changes. Live commands match the manifest.\n")
    assert not (project / "discord" / ".cmdsync").exists()
    code, _, err = run(capsys, "init")
    assert code == 2 and "already configures a project above" in err


def test_an_environments_application_id_must_be_a_snowflake(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "cmdsync.toml").write_text(CONFIG.replace('"111111111111111111"', '"abc"'),
                                          encoding="utf-8")
    code, _, err = run(capsys, "plan", "--local")
    assert code == 2 and "environments.dev: application_id 'abc' is not a snowflake" in err


def test_manifest_globs_stay_in_the_project_and_visit_each_file_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A symbolic-link loop under ``**`` gave 40 false CS303 duplicates of one file, a link
    out of the project was walked, and ``/proc/**/*.yaml`` ran for over a minute
    (issue 28, item 8)."""
    (tmp_path / "discord" / "guilds").mkdir(parents=True)
    (tmp_path / "discord" / "guilds" / "ping.yaml").write_text(
        "commands:\n  - {name: ping, description: Pong}\n", encoding="utf-8")
    (tmp_path / "discord" / "guilds" / "loop").symlink_to("..")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "evil.yaml").write_text("commands: [{name: evil, description: E}]\n",
                                       encoding="utf-8")
    (tmp_path / "discord" / "out").symlink_to(outside)
    (tmp_path / "discord" / "alias.yaml").symlink_to(outside / "evil.yaml")
    (tmp_path / "cmdsync.toml").write_text('manifests = ["discord/**/*.yaml"]\n',
                                           encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "validate") == (0, "All 1 file valid (1 command).\n", "")
    for pattern in ("/proc/**/*.yaml", "../**/*.yaml"):
        (tmp_path / "cmdsync.toml").write_text(f'manifests = ["{pattern}"]\n',
                                               encoding="utf-8")
        code, out, err = run(capsys, "validate")
        assert code == 2 and out == "", err
        assert f"cmdsync.toml: manifests: {pattern!r} reaches outside the project" in err
