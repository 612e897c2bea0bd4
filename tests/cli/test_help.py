"""What ``--help`` shows, for every command of the app (issue 33, item 12).

Each command is found by walking the typer app (so a new command or option is held
to the same rules without being named here), and its help is rendered by the real
``cmdsync ... --help`` at a narrow and a wide terminal (``COLUMNS``):

- the one-line summary of every command, in its group's list, is a whole sentence
  (no ``...``, ending with a period), however narrow the terminal;
- every placeholder is one of a few words (``URL``, ``FILE``, ``SECONDS``, ...) or a
  list of choices, never typer's default for a type (``<str>``, ``TEXT``,
  ``<int range>``);
- no option says its default twice;
- ``plan``, ``apply`` and ``invoke`` list their exit codes; ``pull`` says where the
  application comes from without a manifest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main

from cmdsync.cli import app
from tests.support.cli import run

ROOT = typer.main.get_command(app)
WIDTHS = ("50", "200")  # click's narrowest (50 columns) and widest (80) help
# The placeholders of options' values, and the words of the arguments' metavars.
OPTION_WORDS = {"URL", "FILE", "PORT", "SECONDS", "NAME", "ID", "TAG", "N", "HOST", "LABEL",
                "VALUE", "KEY=VALUE"}
ARGUMENT_WORDS = {"PATH", "MANIFEST", "PLANFILE", "DIR", "RULE", "COMMAND", "MODULE", "ATTR",
                  "discord.py"}
# typer's and click's own placeholders for a type, which say nothing of the value.
DEFAULTS = re.compile(r"<(str|int|float|int range|float range|path|text)>|\b(TEXT|INTEGER|"
                      r"FLOAT|BOOLEAN|RANGE)\b")


def commands(command: Any = ROOT, path: tuple[str, ...] = ()) -> Iterator[tuple[
        tuple[str, ...], Any]]:
    """Every command and group below ``command`` with its path of names (``("auth",
    "status")``), hidden ones left out."""
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        if not sub.hidden:
            yield (*path, name), sub
            yield from commands(sub, (*path, name))


COMMANDS = dict(commands())
GROUPS = {(): ROOT, **{path: c for path, c in COMMANDS.items() if hasattr(c, "commands")}}


def shown(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          path: tuple[str, ...], columns: str) -> str:
    """``cmdsync PATH --help`` at ``columns`` columns."""
    monkeypatch.setenv("COLUMNS", columns)
    code, out, err = run(capsys, *path, "--help")
    assert (code, err) == (0, "")
    return out


def section(text: str, title: str) -> dict[str, str]:
    """The entries of a help section (``Commands:``, ``Options:``): each entry's first
    column, and its text with wrapped lines joined."""
    entries: dict[str, str] = {}
    lines = text.split(f"\n{title}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    key = ""
    for line in lines:
        found = re.match(r"  (\S.*?)(?:  +(\S.*))?$", line)
        if found and not line.startswith("   "):
            key = found.group(1)
            entries[key] = found.group(2) or ""
        else:
            entries[key] = f"{entries[key]} {line.strip()}".strip()
    return entries


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_walk_finds_every_command() -> None:
    assert sorted(" ".join(path) for path in COMMANDS) == [
        "apply", "auth", "auth status", "check", "diff", "emulator", "export", "init",
        "invoke", "login", "logout", "plan", "pull", "rules", "schema", "validate"]


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("group", sorted(GROUPS), ids=lambda p: " ".join(p) or "cmdsync")
def test_every_summary_is_a_whole_sentence(
        group: tuple[str, ...], columns: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    listed = section(shown(capsys, monkeypatch, group, columns), "Commands:")
    assert sorted(listed) == sorted(GROUPS[group].commands)
    bad = {name: summary for name, summary in listed.items()
           if "..." in summary or not summary.endswith(".") or not summary[:1].isupper()}
    assert bad == {}


def values(command: Any) -> Iterator[Any]:
    """The options of ``command`` that take a value (not flags)."""
    for param in command.params:
        if param.param_type_name == "option" and not param.is_flag and not param.count \
                and not param.hidden:
            yield param


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_placeholder_is_a_word_of_the_vocabulary_or_the_choices(
        path: tuple[str, ...], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    command = COMMANDS[path]
    text = shown(capsys, monkeypatch, path, "200")
    options = section(text, "Options:") if "\nOptions:\n" in text else {}
    for param in values(command):
        row = next(key for key in options
                   if {word.rstrip(",") for word in key.split(" ")} & set(param.opts))
        metavar = row.split(" ")[-1]
        choices = getattr(param.type, "choices", None)
        if choices is not None:
            assert metavar == f"<{'|'.join(str(getattr(c, 'value', c)) for c in choices)}>"
        else:
            assert (param.metavar, metavar) in {(word, word) for word in OPTION_WORDS}, row
    for param in command.params:
        if param.param_type_name == "argument":
            assert param.metavar is not None, param.name
            words = set(re.findall(r"[A-Za-z.]+", param.metavar.replace("...", " ")))
            assert words <= ARGUMENT_WORDS, param.metavar
    assert DEFAULTS.findall(text) == []


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_no_option_says_its_default_twice(
        path: tuple[str, ...], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = shown(capsys, monkeypatch, path, "200")
    rows = {**(section(text, "Arguments:") if "\nArguments:\n" in text else {}),
            **(section(text, "Options:") if "\nOptions:\n" in text else {})}
    assert {row: help_text for row, help_text in rows.items()
            if help_text.lower().count("default:") + help_text.count("(default ") > 1} == {}


@pytest.mark.parametrize("name", ["plan", "apply", "invoke"])
def test_the_commands_whose_codes_mean_more_list_them(
        name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = flat(shown(capsys, monkeypatch, (name,), "200"))
    found = re.search(r"Exit codes: 0 (.*?); 1 (.*?); 2 (.*?); 130 interrupted", text)
    assert found is not None, text


def test_plan_and_apply_say_what_their_codes_mean(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    plan = flat(shown(capsys, monkeypatch, ("plan",), "200"))
    apply = flat(shown(capsys, monkeypatch, ("apply",), "200"))
    assert (
        "Exit codes: 0 the plan was made (with --detailed-exitcode: no changes); 1 errors in "
        "the manifests or the plan, or a request failed (nothing is saved); 2 usage errors "
        "or an unreadable manifest (with --detailed-exitcode: changes to apply, and nothing "
        "else: those errors exit 1 then); 130 interrupted.") in plan
    assert (
        "Exit codes: 0 applied, or nothing to apply; 1 errors in the manifests or the plan, "
        "an apply refused or declined, or a scope that failed (the report says what was "
        "written); 2 usage errors or an unreadable manifest; 130 interrupted (Ctrl-C) and "
        "143 terminated (SIGTERM): the writes stop cleanly, and the report says what was "
        "written.") in apply


def test_pull_says_where_the_application_comes_from_without_a_manifest(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    text = shown(capsys, monkeypatch, ("pull",), "200")
    assert ("With no manifest to name it, the application is --application-id, else "
            "DISCORD_APPLICATION_ID, else the application_id of the cmdsync.toml environment "
            "(--env NAME, else its default_environment); with --local, the emulator's."
            ) in flat(text)
    assert section(text, "Options:")["--application-id ID"] == (
        "The application whose commands to pull (default: DISCORD_APPLICATION_ID, else the "
        "application_id of the cmdsync.toml environment; the emulator's with --local).")
    assert "manifest's application_id" not in text


def test_init_shows_its_default_once(capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = shown(capsys, monkeypatch, ("init",), "200")
    assert section(text, "Arguments:") == {"[DIR]": "The project's folder (default: this one)."}
