"""Real-world command files against Discord's rules.

The corpus (``shared/corpus`` beside the repository, see its README.md and
SOURCES.tsv) was written by other people for real bots; it is never edited.
Each file is validated on its own (all files of one run merge into one
desired state, and two unrelated bots may both have a ``/ping``).

The table below was decided by reading every file against
``shared/discord-api/FACTS.md`` ("Validation rules", "Enums", "What a GET
returns"), not by copying what cmdsync prints: a row says whether Discord
would accept the file as a bulk overwrite body and, where it would not,
which (rule, JSON pointer) pairs cmdsync must report as errors. Expected
warnings are listed too; ``may_warn`` holds warnings FACTS.md leaves open
(allowed, not required). Unknown keys (CS010) count as errors although
Discord drops them silently: whatever the author meant by them is lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cmdsync.manifest.diagnostics import Diagnostic, Severity
from cmdsync.model import OptionType
from cmdsync.validate import validate_paths

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"
pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"real-world corpus not found at {CORPUS}: it lives beside the repository, not in it")

Pairs = frozenset[tuple[str, str]]
# Keys a GET returns that Discord ignores on write (CS014), and deprecated ones (CS015).
RESPONSE_ONLY = ("application_id", "version", "guild_id", "name_localized",
                 "description_localized")
DEPRECATED = ("dm_permission", "default_permission")


def at(rule: str, *pointers: str) -> Pairs:
    return frozenset((rule, pointer) for pointer in pointers)


def each(rule: str, template: str, indexes: Iterable[Any]) -> Pairs:
    """``template`` formatted with every index: ``each("CS015", "/{}/dm_permission", range(3))``."""
    return frozenset((rule, template.format(*(i if isinstance(i, tuple) else (i,))))
                     for i in indexes)


@dataclass(frozen=True)
class Verdict:
    why: str
    errors: Pairs = frozenset()
    warnings: Pairs = frozenset()
    may_warn: Pairs = frozenset()

    @property
    def valid(self) -> bool:
        return not self.errors


# An enum written as a name in a raw .json array: Discord wants the integer.
# "STRING" is also outside the schema's enum (CS013); either report is right.
ENUM_NAME = "CS013|CS016"

COMMAND_FILES: dict[str, Verdict] = {
    "Clay990__Luffy-1.1__slash_commands.json": Verdict(
        "25 plain slash commands; lowercase names, descriptions 1-100, required first"),
    "CyberL1__discord-message-bookmarker__commands.json": Verdict(
        "a slash and a message command (no description); contexts [0,1,2]",
        # contexts has PRIVATE_CHANNEL and integration_types is missing: it then follows
        # the app's install settings, which FACTS.md says cmdsync cannot know.
        may_warn=at("CS307", "/0/contexts/2", "/1/contexts/2")),
    "Deevian__tarkovsky-discord-bot__slash-commands.json": Verdict(
        "one command with five subcommands and a choice list"),
    "Fyko__thoth__commands.lock.json": Verdict(
        "deployed lock file: nine locales, localized names equal to their own default "
        "(allowed: only siblings' names must differ), PRIVATE_CHANNEL with USER_INSTALL"),
    "Gtomika__mod-wvw-bot__live_combined.json": Verdict(
        "valid POST bodies that still carry application_id (response-only) and dm_permission",
        warnings=each("CS014", "/{}/application_id", range(15))
        | each("CS015", "/{}/dm_permission", range(15))),
    "Hashory__discord-grant-role-bot__commands.json": Verdict(
        "one command with six role options, one required first"),
    "Kesigomon__rolepanelv3-doc__commands.json": Verdict(
        "camelCase 'defaultPermission' on the two message commands is not an API key",
        errors=at("CS010", "/7/defaultPermission", "/8/defaultPermission")),
    "Ondrej-Sulc__CereBro__commands.json": Verdict(
        "website dump: every command carries access, group, color and a duplicate "
        "'subcommands' tree, none of them API keys",
        errors=each("CS010", "/{}/{}", [(i, key) for i in range(17)
                                         for key in ("access", "group", "color", "subcommands")])),
    "RankedBedwars__Bot__commands.json": Verdict(
        "option name 'IGN' has upper-case letters",
        errors=at("CS101", "/0/options/0/name")),
    "RiskyMH__RiskyBOT__commands.json": Verdict(
        "valid; every command sets the deprecated dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(14))),
    "RiskyMH__RiskyBOT__commandsExtra.json": Verdict(
        "valid; dm_permission (null or false) is still the deprecated field",
        warnings=each("CS015", "/{}/dm_permission", range(4))),
    "Ryahn__IsekaiExpress__slashCommands.json": Verdict(
        "50 commands with name and description only; type defaults to CHAT_INPUT"),
    "Tornium__tornium__application_commands_combined.json": Verdict(
        "subcommand groups, autocomplete, integer choices and a user command"),
    "Woodmaninator__AttmayMBBot__commands_combined.json": Verdict(
        "26 simple commands with at most one option each"),
    "abheekda1__awesomescibo__slashCommands.json": Verdict(
        "an option carries 'default' (not an API key) and five option types are the "
        "string 'STRING' instead of 3",
        errors=at("CS010", "/0/options/0/default")
        | each(ENUM_NAME, "/5/options/{}/type", range(5))),
    "astrojarred__dexofriend__commands.json": Verdict(
        "'required' is the integer 1 or 0 instead of a boolean on every option",
        errors=each("CS011", "/{}/options/{}/required", [
            (command, option)
            for command, count in {0: 1, 1: 1, 3: 5, 4: 5, 8: 1, 12: 3, 13: 1, 14: 1, 15: 1,
                                   17: 2, 19: 1, 21: 3}.items()
            for option in range(count)])),
    "benminer__discord-audio-streamer__commands.json": Verdict(
        "31 commands, integer options with min/max values"),
    "cssuwb-community-discord__cssuwb-community-discord-bot__commands.json": Verdict(
        "three commands, one string option with choices"),
    "discord__discord-api-docs__doc_examples.json": Verdict(
        "Discord's own examples: user/message commands without description, one "
        "PRIMARY_ENTRY_POINT with handler, localizations incl. el, permissions \"0\""),
    "drakon64__CerberusBot__commands_old.json": Verdict(
        "choices carry a 'type' key, which choice objects do not have",
        errors=each("CS010", "{}/choices/{}/type", [
            (option, choice)
            for option, count in {"/0/options/0": 2, "/0/options/2": 4,
                                  "/2/options/0/options/0": 12,
                                  "/2/options/1/options/0": 4}.items()
            for choice in range(count)])),
    "drakon64__CerberusBot__scripts_commands.json": Verdict(
        "valid localized commands, choices and user commands; four set dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(1, 5))),
    "jstmemit__jstmemit-bot__commands.json": Verdict(
        "valid: six locales, generated choices, a message command; four set dm_permission",
        warnings=each("CS015", "/{}/dm_permission", range(4))),
    "lumap__decbot__slash_commands.json": Verdict(
        "eight commands, subcommands and choices"),
    "sussycatgirl__prysm__slash_commands.json": Verdict(
        "eleven commands, string choices"),
    "tuna2134__globalchat__commands.locks.json": Verdict(
        "valid, but each command carries the response-only 'version'; empty choices with "
        "autocomplete false are fine",
        warnings=each("CS014", "/{}/version", range(4))),
}


def _found(diagnostics: list[Diagnostic], severity: Severity) -> set[tuple[str, str]]:
    return {(d.rule, d.location.pointer) for d in diagnostics if d.severity is severity}


def _fold_alternatives(found: set[tuple[str, str]], expected: Pairs) -> set[tuple[str, str]]:
    """Map each actual (rule, pointer) onto an expected 'A|B' entry it satisfies."""
    folded = set()
    for rule, pointer in found:
        for wanted, where in expected:
            if where == pointer and rule in wanted.split("|"):
                rule = wanted
                break
        folded.add((rule, pointer))
    return folded


def _validate(path: Path) -> list[Diagnostic]:
    result = validate_paths([str(path)], env={})
    assert result.files == [str(path)] and not result.unreadable
    return result.diagnostics


def test_table_lists_every_command_file() -> None:
    on_disk = {p.name for p in (CORPUS / "command-files").iterdir() if p.suffix == ".json"}
    assert on_disk == set(COMMAND_FILES)


@pytest.mark.parametrize("name", sorted(COMMAND_FILES))
def test_command_file(name: str) -> None:
    verdict = COMMAND_FILES[name]
    diagnostics = _validate(CORPUS / "command-files" / name)
    errors = _fold_alternatives(_found(diagnostics, Severity.ERROR), verdict.errors)
    warnings = _found(diagnostics, Severity.WARNING) - verdict.may_warn
    assert sorted(errors) == sorted(verdict.errors), verdict.why
    assert sorted(warnings) == sorted(verdict.warnings), verdict.why


# --- not-api-shaped: a bot's private format, to be rejected clearly ---------------

JIMLIND = "jimlind__AnnounceCast__commands.json"
JIMLIND_TYPES = {  # pointer -> the option type the file wrote as a name
    "/0/options/0/type": "string", "/0/options/1/type": "channel",
    "/1/options/0/type": "string", "/1/options/1/type": "channel",
    "/2/options/0/type": "string", "/2/options/1/type": "channel",
    "/3/options/0/type": "channel", "/4/options/0/type": "string",
    "/6/options/0/type": "string", "/7/options/0/type": "string",
    "/7/options/1/type": "role", "/7/options/2/type": "channel",
    "/8/options/0/type": "boolean",
}
JIMLIND_PERMISSIONS = ["/0/default_manage_permissions", "/1/default_manage_permissions",
                       "/2/default_manage_permissions", "/7/default_manage_permissions"]


def test_not_api_shaped_is_rejected_with_clear_messages() -> None:
    diagnostics = _validate(CORPUS / "not-api-shaped" / JIMLIND)
    expected = at("CS010", *JIMLIND_PERMISSIONS) | at(ENUM_NAME, *JIMLIND_TYPES)
    errors = _fold_alternatives(_found(diagnostics, Severity.ERROR), expected)
    assert sorted(errors) == sorted(expected)
    assert not _found(diagnostics, Severity.WARNING)

    by_pointer: dict[str, list[str]] = {}
    for d in diagnostics:
        by_pointer.setdefault(d.location.pointer, []).append(d.message)
    for pointer in JIMLIND_PERMISSIONS:
        # names the bad key and the real one
        assert any("default_manage_permissions" in m and "default_member_permissions" in m
                   for m in by_pointer[pointer]), by_pointer[pointer]
    for pointer, name in JIMLIND_TYPES.items():
        # names what was written and the integer Discord wants instead
        integer = str(OptionType[name.upper()].value)
        assert any(repr(name) in m and integer in m.split(name, 1)[1]
                   for m in by_pointer[pointer]), by_pointer[pointer]


# --- live_responses: what GET /applications/{app}/commands returns ------------------
#
# A GET response is a valid bulk overwrite body plus read-only extras: id (allowed:
# it names the live command), application_id and version (CS014), dm_permission
# (CS015), and name_localized/description_localized without with_localizations
# (CS014). contexts null, nsfw false and description "" on context menus are fine.
# So an array response must give warnings only. The sern CLI caches wrap the array
# as {"global": [...]}: that is not a manifest (CS010 'global'), and its array is
# checked like the others.

LIVE = CORPUS / "live_responses"


def _expected_live_warnings(commands: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Warnings FACTS.md implies for a GET response: read-only and deprecated keys,
    PRIVATE_CHANNEL without USER_INSTALL."""
    expected = set()
    for i, command in enumerate(commands):
        objects = [(f"/{i}", command)] + [
            (f"/{i}/options/{j}", option) for j, option in enumerate(command.get("options") or [])]
        for base, data in objects:
            expected |= {("CS014", f"{base}/{key}") for key in RESPONSE_ONLY if key in data}
        expected |= {("CS015", f"/{i}/{key}") for key in DEPRECATED if key in command}
        installs = command.get("integration_types")
        if isinstance(installs, list) and 1 not in installs:
            expected |= {("CS307", f"/{i}/contexts/{k}")
                         for k, context in enumerate(command.get("contexts") or []) if context == 2}
    return expected


def _live_arrays() -> list[str]:
    if not LIVE.is_dir():
        return []
    return sorted(p.name for p in LIVE.glob("*.json")
                  if isinstance(json.loads(p.read_text(encoding="utf-8")), list))


def _sern_wrapped() -> list[str]:
    if not LIVE.is_dir():
        return []
    return sorted(p.name for p in LIVE.glob("*.json")
                  if isinstance(json.loads(p.read_text(encoding="utf-8")), dict))


def test_live_response_files_are_classified() -> None:
    assert len(_live_arrays()) == 4 and len(_sern_wrapped()) == 3


@pytest.mark.parametrize("name", _live_arrays())
def test_live_response_array_gives_only_warnings(name: str) -> None:
    path = LIVE / name
    diagnostics = _validate(path)
    assert not _found(diagnostics, Severity.ERROR)
    commands: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    assert _found(diagnostics, Severity.WARNING) == _expected_live_warnings(commands)
    for d in diagnostics:
        field = d.location.pointer.rsplit("/", 1)[1]
        if field.endswith("_localized"):  # says what to write instead
            assert f"{field[:-len('_localized')]}_localizations'" in d.message, d.message


@pytest.mark.parametrize("name", _sern_wrapped())
def test_sern_cache_is_not_a_manifest(name: str, tmp_path: Path) -> None:
    path = LIVE / name
    diagnostics = _validate(path)
    assert [(d.rule, d.severity, d.location.pointer) for d in diagnostics] == [
        ("CS010", Severity.ERROR, "/global")]
    assert "'global'" in diagnostics[0].message

    wrapped = json.loads(path.read_text(encoding="utf-8"))
    assert list(wrapped) == ["global"]
    unwrapped = tmp_path / name
    unwrapped.write_text(json.dumps(wrapped["global"]), encoding="utf-8")
    diagnostics = _validate(unwrapped)
    assert not _found(diagnostics, Severity.ERROR)
    assert _found(diagnostics, Severity.WARNING) == _expected_live_warnings(wrapped["global"])
