"""Locating a few paths (``Document.position``) gives what the positions of every node give.

A file read without positions (JSON, YAML read the fast way) is located by
a pass over its events that keeps only the paths asked for
(:mod:`cmdsync.manifest.positions`); composed, the whole tree once held
every node. For every manifest the project has and hand-written anchors,
aliases and ``${VAR}`` keys, each path (each node, each key, and paths that
are not in the file) is located the same both ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cmdsync.manifest.loader import Document, load_file, load_text
from cmdsync.manifest.yaml_careful import yaml_positions
from tests.support.paths import DATA, EXAMPLES

FILES = sorted(p for root in (DATA, EXAMPLES) for p in root.rglob("*")
               if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
               and "corpus" not in p.parts and p.stat().st_size < 1_000_000)
TEXTS = {
    "aliases.yaml": ("base: &b {name: x, description: y}\ncommands:\n  - *b\n  - name: z\n"
                     "    description: w\n    options: &o [{type: string, name: a, "
                     "description: b}]\n  - {name: q, description: r, options: *o}\n"),
    "scalar-alias.yaml": "a: &s hello\nb: *s\nc: [*s, *s]\n",
    "nested-aliases.yaml": "x: &x\n  y: &y [1, 2, {z: 3}]\n  w: *y\nv: [*x, *y]\n",
    "variables.yaml": ('commands:\n  - name: ${NAME:-ping}\n    description: d\nguilds:\n'
                       '  "${GUILD:-1}":\n    commands: [{name: a, description: b}]\n'),
    "tabs.json": '{\n\t"commands": [\n\t\t{"name": "a", "description": "b"}, 1]}',
}


def documents() -> list[Document]:
    env = {"NAME": "pong", "GUILD": "222222222222222222"}
    found = [load_file(str(path), env=env) for path in FILES]
    found += [load_text(text, file=name, kind=name.rsplit(".", 1)[1], env=env)
              for name, text in TEXTS.items()]
    return [doc for doc in found if doc.data is not None and doc.positions is None]


@pytest.mark.parametrize("doc", documents(), ids=lambda doc: Path(doc.file).name)
def test_a_few_paths_are_located_as_every_node_would_locate_them(doc: Document) -> None:
    text = doc.source_text()
    values, keys = yaml_positions(text, env=None if doc.kind == "json" else doc.env)
    every = Document(doc.file, doc.kind, doc.data, text, positions=values, key_positions=keys)
    paths = set(values) | set(keys)
    paths |= {path + ("absent",) for path in values} | {("absent", 0), (10**6,)}
    few = Document(doc.file, doc.kind, doc.data, text, env=doc.env)
    few.position(paths)
    for key in (False, True):
        assert [few.locate(p, key=key) for p in sorted(paths, key=repr)] == \
            [every.locate(p, key=key) for p in sorted(paths, key=repr)]
    assert few.positions is None  # never the positions of every node


def test_a_path_not_searched_for_falls_back_to_every_node() -> None:
    doc = load_text('{"commands": [1, {"name": "a"}]}', file="m.json", kind="json")
    doc.position([("commands", 0)])
    assert doc.positions is None
    assert (doc.locate(("commands", 0)).line, doc.locate(("commands", 0)).column) == (1, 15)
    assert doc.locate(("commands", 1, "name"), key=True).column == 19
    assert doc.positions is not None  # computed for the path not searched for
