"""Each distinct option is checked once; its diagnostics appear wherever it sits.

A rule written in parts (``check_command``, ``check_option``) runs its option
part once per distinct option of the distinct commands
(:class:`cmdsync.validate.rules.base.PerOption`), and its findings are
repeated, with each place's own file, line, column and JSON pointer, at
every place an equal option sits: in another guild, another file, at
another depth. These tests pin that mapping, and hold the result to what
checking every command on its own gives, over seeded random manifests.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from cmdsync.manifest.diagnostics import Diagnostic
from cmdsync.manifest.entries import ManifestSet, collect, options
from cmdsync.manifest.loader import load_file
from cmdsync.validate import validate_paths
from cmdsync.validate.rules import Finding, all_rules, get_rule
from cmdsync.validate.rules.base import PerCommand

APP = 'application_id: "111111111111111111"\n'
# One option, wrong twice (min above max, an unknown locale), in two distinct commands:
# a command's own option in one file, a subcommand's in another.
FIRST = APP + """\
guilds:
  "222222222222222222":
    commands:
      - name: roll
        description: Roll in the first guild
        options:
          - type: integer
            name: sides
            description: How many sides
            min_value: 10
            max_value: 1
            name_localizations: {xx: seiten}
"""
SECOND = APP + """\
guilds:
  "333333333333333333":
    commands:
      - name: roll
        description: Roll in the second guild
        options:
          - type: sub_command
            name: dice
            description: Roll dice
            options:
              - type: integer
                name: sides
                description: How many sides
                min_value: 10
                max_value: 1
                name_localizations: {xx: seiten}
"""
NOT_A_LOCALE = ("'xx' is not a Discord locale: use one of bg, cs, da, de, el, en-GB, en-US, "
                "es-419, es-ES, fi, fr, hi, hr, hu, id, it, ja, ko, lt, nl, no, pl, pt-BR, ro, "
                "ru, sv-SE, th, tr, uk, vi, zh-CN, zh-TW")
MIN_ABOVE_MAX = "min_value 10 of option 'sides' is greater than its max_value 1: swap them"

Row = tuple[str, int, int, str, str, str, tuple[tuple[int, int, str], ...]]


def _rows(diagnostics: list[Diagnostic]) -> list[Row]:
    return sorted((Path(d.location.file).name, d.location.line, d.location.column,
                   d.location.pointer, d.rule, d.message,
                   tuple((r.line, r.column, r.pointer) for r in d.related))
                  for d in diagnostics)


@pytest.fixture()
def shared_option(tmp_path: Path) -> list[str]:
    (tmp_path / "first.yaml").write_text(FIRST, encoding="utf-8")
    (tmp_path / "second.yaml").write_text(SECOND, encoding="utf-8")
    return [str(tmp_path / "first.yaml"), str(tmp_path / "second.yaml")]


def test_an_option_of_two_distinct_commands_is_reported_at_each_place(
        shared_option: list[str]) -> None:
    first, second = "/guilds/222222222222222222/commands/0", \
        "/guilds/333333333333333333/commands/0/options/0"
    assert _rows(validate_paths(shared_option).diagnostics) == [
        ("first.yaml", 11, 24, f"{first}/options/0/min_value", "CS211", MIN_ABOVE_MAX,
         ((12, 24, f"{first}/options/0/max_value"),)),
        ("first.yaml", 13, 34, f"{first}/options/0/name_localizations/xx", "CS105",
         NOT_A_LOCALE, ()),
        ("second.yaml", 15, 28, f"{second}/options/0/min_value", "CS211", MIN_ABOVE_MAX,
         ((16, 28, f"{second}/options/0/max_value"),)),
        ("second.yaml", 17, 38, f"{second}/options/0/name_localizations/xx", "CS105",
         NOT_A_LOCALE, ()),
    ]


def test_the_option_part_runs_once_for_both_places(shared_option: list[str]) -> None:
    manifest = collect([load_file(f) for f in shared_option])
    rule = get_rule("CS211")
    assert rule is not None and rule.option_part is not None
    seen: list[str] = []

    def counted(option: Any) -> Iterator[Finding]:
        seen.append(option.data["name"])
        assert rule.option_part is not None
        return rule.option_part(option)

    alone = PerCommand(manifest)
    found = list(alone.findings(dataclasses.replace(rule, option_part=counted)))
    # two commands, three options (the subcommand and the shared one twice): two runs
    assert sorted(seen) == ["dice", "sides"]
    assert {(Path(f.doc.file).name, f.path[-1]) for f in found} == {
        ("first.yaml", "min_value"), ("second.yaml", "min_value")}


# -- Seeded random manifests: options drawn from a small pool, so that distinct commands
# share them at different depths, in YAML and raw JSON, with and without problems.

_LEAF_TYPES = ["string", "integer", "number", "boolean", "user", "channel", 3, 4, "STRING", 99]
_FIELDS: dict[str, list[Any]] = {
    "name": ["mode", "amount", "Bad Name", "x" * 33, "dup"],
    "description": ["How", "", "d" * 101],
    "name_localizations": [{"fr": "mode-fr"}, {"xx": "x"}, {"fr": "Bad Name"},
                           {"de": "dup", "fr": "dup"}, {"ar": "a"}],
    "description_localizations": [{"de": "Wie"}, {"fr": ""}, {"en_us": "x"}, {"fr": None}],
    "choices": [[], [{"name": "a", "value": "a"}], [{"name": "", "value": 1}],
                [{"name": "b", "value": "1e3", "name_localizations": {"fr": "b", "zz": "c"}}],
                [{"name": f"c{n}", "value": n} for n in range(26)],
                [{"name": "n", "value": 2**60, "name_localized": "x"}],
                [{"name": "s" * 101, "value": "v" * 101}],
                [{"name": "n" * 100, "value": f"{n:0>100}"} for n in range(25)]],
    "min_value": [10, 1.5, -(2**60)], "max_value": [1, 100], "min_length": [7000, 5],
    "max_length": [1, 0], "autocomplete": [True, False], "required": [True, False],
    "channel_types": [["guild_text"], [0]], "name_localized": ["x"],
    "description_localized": ["y"],
}


def _leaf(rng: random.Random) -> dict[str, Any]:
    option: dict[str, Any] = {"type": rng.choice(_LEAF_TYPES)}
    for field in rng.sample(sorted(_FIELDS), rng.randint(2, 6)):
        option[field] = copy.deepcopy(rng.choice(_FIELDS[field]))
    return option


def _subcommand(rng: random.Random, pool: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": rng.choice(["sub_command", "sub_command", 1]), "name": rng.choice(
        ["set", "reset", "Set"]), "description": rng.choice(["Set it", ""]),
        "required": rng.random() < 0.2,
        "options": [copy.deepcopy(rng.choice(pool)) for _ in range(rng.randint(0, 3))]}


def _command(rng: random.Random, number: int, pool: list[dict[str, Any]]) -> dict[str, Any]:
    command: dict[str, Any] = {"name": rng.choice(["roll", "Bad Cmd", "ping"]),
                               "description": f"Command {number}"}
    if rng.random() < 0.15:
        command["type"] = rng.choice([2, 3, "user"])
    if rng.random() < 0.3:
        command["name_localizations"] = copy.deepcopy(rng.choice(_FIELDS["name_localizations"]))
    shape = rng.random()
    if shape < 0.5:
        command["options"] = [copy.deepcopy(rng.choice(pool)) for _ in range(rng.randint(0, 4))]
    elif shape < 0.8:
        command["options"] = [_subcommand(rng, pool) for _ in range(rng.randint(1, 2))]
    else:
        command["options"] = [{"type": "sub_command_group", "name": "config",
                               "description": "Configure",
                               "options": [_subcommand(rng, pool), copy.deepcopy(pool[0])]}]
    return command


def _write(tmp_path: Path, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = [_leaf(rng) for _ in range(8)]
    tmp_path.mkdir(parents=True, exist_ok=True)
    number = iter(range(10_000))
    files = []
    for index in range(3):
        manifest: dict[str, Any] = {
            "application_id": "111111111111111111",
            "commands": [_command(rng, next(number), pool) for _ in range(3)],
            "guilds": {str(222222222222222222 + g): {"commands": [
                _command(rng, next(number), pool) for _ in range(4)]} for g in range(2)}}
        # an equal body now and then, shared as a whole (PerCommand) as well as by option
        manifest["guilds"]["222222222222222222"]["commands"].append(
            copy.deepcopy(manifest["commands"][0]))
        path = tmp_path / f"bot-{index}.yaml"
        path.write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True),
                        encoding="utf-8")
        files.append(str(path))
    raw = [_command(rng, next(number), pool) for _ in range(4)]
    (tmp_path / "raw.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    files.append(str(tmp_path / "raw.json"))
    return files


def _each_command_alone(files: list[str]) -> list[Diagnostic]:
    """Every rule's diagnostics, a per-command rule's from each command checked by itself
    with its whole ``check``: nothing shared, no option checked once for many."""
    manifest = collect([load_file(f) for f in files])
    found: list[Diagnostic] = []
    for rule in all_rules():
        if rule.check is None:
            continue
        if rule.per_command:
            for entry in manifest.commands:
                alone = ManifestSet(manifest.documents, [entry], manifest.permissions)
                found += [rule.diagnostic(f) for f in rule.check(alone)]
        else:
            found += [rule.diagnostic(f) for f in rule.check(manifest)]
    return list(set(found))


@pytest.mark.parametrize("seed", range(12))
def test_random_manifests_give_what_each_command_alone_gives(tmp_path: Path, seed: int
                                                             ) -> None:
    files = _write(tmp_path, seed)
    python_rules = {rule.id for rule in all_rules() if rule.check is not None}
    shared = [d for d in validate_paths(files).diagnostics if d.rule in python_rules]
    assert _rows(shared) == _rows(_each_command_alone(files))
    assert len({d.rule for d in shared}) >= 10  # the manifests break many rules


@pytest.mark.parametrize("seed", range(4))
def test_the_random_manifests_share_options_between_distinct_commands(
        tmp_path: Path, seed: int) -> None:
    manifest = collect([load_file(f) for f in _write(tmp_path, seed)])
    bodies = {json.dumps(entry.data, sort_keys=True) for entry in manifest.commands}
    own = [json.dumps({k: v for k, v in option.data.items() if k != "options"},
                      sort_keys=True) for entry in manifest.commands for option in options(entry)]
    assert len(bodies) > 0.8 * len(manifest.commands)  # mostly distinct commands
    assert len(set(own)) < len(own) / 2  # whose options are mostly shared


@pytest.fixture(scope="module")
def random_manifests(tmp_path_factory: pytest.TempPathFactory) -> ManifestSet:
    directory = tmp_path_factory.mktemp("random")
    return collect([load_file(f) for seed in range(12)
                    for f in _write(directory / str(seed), seed)])


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.option_part is not None],
                         ids=lambda r: r.id)
def test_an_option_part_finds_nothing_outside_its_option(rule: Any,
                                                         random_manifests: ManifestSet) -> None:
    # the claim PerOption relies on to move a finding from one option to an equal one
    count = 0
    for entry in random_manifests.commands:
        for option in options(entry):
            for finding in rule.option_part(option):
                places = [(finding.doc, finding.path), *finding.related]
                assert all(doc is entry.doc and path[:len(option.path)] == option.path
                           for doc, path in places), (rule.id, finding)
                count += 1
    assert count > 0
