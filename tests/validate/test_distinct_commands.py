"""Each distinct command body is checked once; its diagnostics appear wherever it is written.

A rule marked ``PER_COMMAND`` runs once per distinct body
(:class:`cmdsync.validate.rules.base.PerCommand`) and its findings are
repeated, with each place's own file, line, column and JSON pointer. These
tests hold that the result equals checking every command on its own, and
that the claim behind ``PER_COMMAND`` is true of each rule that makes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cmdsync.manifest.entries import ManifestSet, collect
from cmdsync.manifest.loader import load_file
from cmdsync.validate import validate_paths
from cmdsync.validate.check import validate_documents
from cmdsync.validate.rules import all_rules

# One command that breaks many per-command rules at once, written in the global
# scope and in three guilds of two files, and as a raw JSON array.
BAD = """\
      - name: Bad Name
        description: ""
        description_localizations: {xx: oops}
        default_member_permissions: "12x"
        options:
          - {type: integer, name: amount, description: How many, min_value: 10, max_value: 1}
          - {type: string, name: mode, description: How, required: true}
          - {type: string, name: mode, description: Again, choices: [{name: a, value: 1}]}
      - name: fine
        description: A command without problems
"""


def _manifest(guilds: list[str], *, with_global: bool) -> str:
    text = 'application_id: "111111111111111111"\n'
    if with_global:
        text += "commands:\n" + "\n".join(line[4:] for line in BAD.splitlines()) + "\n"
    text += "guilds:\n"
    for guild in guilds:
        text += f'  "{guild}":\n    commands:\n{BAD}'
    return text


@pytest.fixture()
def files(tmp_path: Path) -> list[str]:
    first = tmp_path / "a.yaml"
    first.write_text(_manifest(["222222222222222222", "333333333333333333"],
                               with_global=True), encoding="utf-8")
    second = tmp_path / "b.yaml"
    second.write_text(_manifest(["444444444444444444"], with_global=False), encoding="utf-8")
    raw = tmp_path / "c.json"
    raw.write_text('[{"name": "Bad Name", "description": "", "type": 1, "options": '
                   '[{"type": 4, "name": "n", "description": "N", "min_value": 10, '
                   '"max_value": 1}]}]', encoding="utf-8")
    return [str(first), str(second), str(raw)]


def _keys(diagnostics: list) -> list[tuple[str, int, int, str, str, str]]:
    return sorted((d.location.file, d.location.line, d.location.column, d.location.pointer,
                   d.rule, d.message) for d in diagnostics)


def test_shared_bodies_give_the_diagnostics_of_each_command_checked_alone(files: list[str]
                                                                         ) -> None:
    shared = validate_paths(files)  # loads, shares equal bodies, checks each once
    alone = validate_documents([load_file(f) for f in files])  # nothing shared
    assert _keys(shared.diagnostics) == _keys(alone.diagnostics)
    # the same problems at every place the body is written, each with its own place
    pointers = {d.location.pointer for d in shared.diagnostics if d.rule == "CS211"}
    assert pointers >= {"/commands/0/options/0/min_value",
                        "/guilds/222222222222222222/commands/0/options/0/min_value",
                        "/guilds/333333333333333333/commands/0/options/0/min_value",
                        "/guilds/444444444444444444/commands/0/options/0/min_value"}
    lines = {(d.location.file, d.location.line) for d in shared.diagnostics
             if d.rule == "CS211"}
    assert len(lines) == len(pointers)
    assert shared.manifest is not None
    bodies = {id(e.data) for e in shared.manifest.commands}
    # the bad one and the fine one shared by the three guilds of both files, and by the
    # global scope apart (read at another depth); the raw one apart
    assert len(bodies) == 5


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.per_command],
                         ids=lambda r: r.id)
def test_a_per_command_rule_judges_each_command_by_itself(rule, files: list[str]) -> None:
    manifest = collect([load_file(f) for f in files])
    assert rule.check is not None
    together = {(id(f.doc), f.path, f.message) for f in rule.check(manifest)}
    one_by_one = {(id(f.doc), f.path, f.message) for entry in manifest.commands
                  for f in rule.check(ManifestSet(manifest.documents, [entry]))}
    assert together == one_by_one
