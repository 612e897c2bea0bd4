"""Real-world command files against Discord's rules.

The corpus (``corpus/`` of the folder CMDSYNC_TEST_SHARED names, see its README.md and
SOURCES.tsv) was written by other people for real bots; it is never edited.
Each file is validated on its own (all files of one run merge into one
desired state, and two unrelated bots may both have a ``/ping``).

The table below was decided by reading every file against
``shared/discord-api/Discord's documentation`` ("Validation rules", "Enums", "What a GET
returns"), not by copying what cmdsync prints: a row says whether Discord
would accept the file as a bulk overwrite body and, where it would not,
which (rule, JSON pointer) pairs cmdsync must report as errors. Expected
warnings are listed too; ``may_warn`` holds warnings Discord's documentation leaves open
(allowed, not required). Unknown keys (CS010) count as errors although
Discord drops them silently: whatever the author meant by them is lost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cmdsync.manifest.diagnostics import Diagnostic, Severity
from cmdsync.model import OptionType
from cmdsync.validate import validate_paths
from tests.support import paths
from tests.support.corpus import (
    COMMAND_FILES,
    DEPRECATED,
    ENUM_NAME,
    RESPONSE_ONLY,
    Pairs,
    at,
)

CORPUS = paths.CORPUS
pytestmark = [pytest.mark.corpus, pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=paths.NO_CORPUS)]


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
    """Warnings Discord's documentation implies for a GET response: read-only and deprecated keys,
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
