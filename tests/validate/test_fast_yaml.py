"""The fast YAML read (yaml-rs, no positions) gives exactly what the careful one gives.

``cmdsync.manifest.yaml_read`` reads YAML the fast way only when it can tell
that the result is the careful way's (PyYAML composed, converted with
positions); otherwise it reads it the careful way. These tests hold that
promise over every YAML file the project and the corpus have, over
hand-picked spellings where YAML 1.1 and 1.2 differ, and over random
scalars (hypothesis): either the fast way declines, or its data equals the
careful way's and the careful way found no problem.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmdsync.manifest import yaml_pieces, yaml_read
from cmdsync.manifest.loader import Document, SharedBodies, load_text
from cmdsync.manifest.yaml_read import parse_careful, parse_fast
from tests.support import paths

ROOT = Path(__file__).resolve().parents[2]
CORPUS = paths.CORPUS
ENV = {"GUILD": "222222222222222222", "NAME": "ping"}


@pytest.fixture(autouse=True, params=["whole", "pieces", "all-pieces"])
def reading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test three times: the whole text parsed at once; and large texts' way,
    each repeated piece parsed once (forced here for any text), with pieces of at
    most a quarter of the text, or of any size."""
    if request.param != "whole":
        monkeypatch.setattr(yaml_read, "REPEATED_PIECES_MIN_CHARS", 0)
        monkeypatch.setattr(yaml_pieces, "REPEATED_PIECES_MIN_RATIO", 0)
    if request.param == "all-pieces":
        monkeypatch.setattr(yaml_pieces, "REPEATED_PIECES_MAX_SHARE", 1)
    return str(request.param)


def _both(text: str, env: dict[str, str] | None = None) -> tuple[bool, Document, Document]:
    env = ENV if env is None else env
    fast = Document(file="m.yaml", kind="yaml", text=text)
    careful = Document(file="m.yaml", kind="yaml", text=text)
    taken = parse_fast(fast, env, SharedBodies())  # with the memo of repeated commands
    parse_careful(careful, env)
    return taken, fast, careful


def _same(a: Any, b: Any) -> bool:
    """Equal, with type (True is not 1) and NaN equal to itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _assert_agree(text: str, env: dict[str, str] | None = None) -> bool:
    taken, fast, careful = _both(text, env)
    if taken:
        assert not careful.diagnostics, (text, careful.diagnostics)
        assert _same(fast.data, careful.data), (text, fast.data, careful.data)
    return taken


def _yaml_files() -> list[Path]:
    roots = [ROOT / "tests", ROOT / "examples", CORPUS]
    found = [p for root in roots if root.exists() for p in root.rglob("*")
             if p.suffix in (".yaml", ".yml") and p.is_file()]
    return sorted(found)


@pytest.mark.parametrize("path", _yaml_files(), ids=paths.label)
def test_every_yaml_file_reads_the_same_both_ways(path: Path) -> None:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: the loader reports it before parsing")
    _assert_agree(text)


def test_the_fast_way_is_taken_for_ordinary_manifests() -> None:
    text = (ROOT / "examples" / "large-bot.yaml").read_text(encoding="utf-8")
    plain = 'application_id: "1"\ncommands:\n  - name: ping\n    description: Pong\n'
    assert _assert_agree(plain)
    doc = load_text(plain, file="m.yaml", kind="yaml")
    assert doc.positions is None  # no positions kept until a diagnostic needs one
    assert doc.locate(("commands", 0, "description")).line == 4
    assert doc.positions is not None
    _assert_agree(text)


# Spellings where YAML 1.1 (PyYAML) and YAML 1.2 (yaml-rs) read differently, or
# that yaml-rs reads differently from a manifest: each must not take the fast way
# with a different result.
DIVERGENT = [
    "a: 017", "a: 0o17", "a: 0x1F", "a: 0b101", "a: 1_000", "a: 1:30", "a: 190:20:30",
    "a: 1e5", "a: 1.0e5", "a: 1E+5", "a: +5", "a: -0", "id: -0", "id: +5", "id: 0x10",
    "id: 1_2", "application_id: 0123", "a: True", "a: TRUE", "a: yes", "a: on", "a: ~",
    "a: 2001-12-14", "a: 2001-12-14t21:59:43.10-05:00", "1: x", "true: x", "null: x",
    "1.5: x", "? [a]\n: b", "a: !!str 123", "a: !foo bar", "a: !!binary aGVsbG8=",
    "a: &x {k: 1}\nb:\n  <<: *x\n  j: 2", "---\na: 1\n---\nb: 2", "%YAML 1.1\n---\na: 1",
    "a: 1\n...\n", "a: =", "=: a", "a:\n\t- 1", 'a: "x\ty"', "a: 1\na: 2", '1: a\n"1": b',
    "a: \"\\/\"", "a: \"x\\Ny\"", "a: b\x85c: d", "a: b\u2028c", "a: .inf", "a: -.inf",
    "a: .nan", "a: 99999999999999999999999", "a: 1.", "a: .5", "a: -1.5", "[1, 2]", "",
    "{a: [1]}: x\n", "{a: {b: 1}}: x\n",  # a collection as a key (found by review)
    "{ab\nc: d}\n", '{"a\n b": 1}', "{a: b, c\n: d}\n", "- {a: b, c\n  : d}\n",  # keys
    "a: b\x0c", "a: \x7f", "a: \x0b", "a: \x1b", "a: \ufffe", "a: \uffff",  # unprintable
    "\ufeffa: 1", "a:\n\ufeff  b: 1", 'application_id: "1"\n\ufeffcommands: []\n',  # BOM
    "a: [1,\n  2]\n", "a: {b: 1,\n  c: 2}\n",  # flow collections over lines: valid
    "# only a comment", "a: [" + "[" * 70 + "]" * 71, "a: ${NAME}", "${NAME}: 1",
    "a: ${MISSING}", "a: ${MISSING:-x}", "a: &a [*a]", "a: 'it''s'", "a: |\n  x\n  y\n",
    "a: >\n  x\n  y\n", "a: b # c", "a: [b, c, {d: e}]", "a: -", "a: 0", "a: -1", "a: 10",
]


@pytest.mark.parametrize("text", DIVERGENT)
def test_spellings_that_differ_between_yaml_versions(text: str) -> None:
    _assert_agree(text)


def test_unsafe_spellings_are_left_to_the_careful_way() -> None:
    for text in ("a: 017", "a: 1e5", "a: 1:30", "id: +5", "a: !foo bar", "true: x",
                 "a: 1\na: 2", "a: ${MISSING}", "a: &x {k: 1}\nb:\n  <<: *x"):
        taken, _, _ = _both(text)
        assert not taken, text


def test_aliases_that_expand_too_far_are_left_to_the_careful_way() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    taken, _, careful = _both("\n".join(lines))
    assert not taken
    assert [d.rule for d in careful.diagnostics] == ["CS003"]


_SCALAR_CHARS = st.sampled_from(list("iInNfFtT0123456789-+._:eExXoObB aAyYnN~!=&*%$#,[]{}'\"\\?|>@`\n\t"))
_STYLES = ["{k}: {v}", "- {k}: {v}", "{k}: [{v}]", "{k}: {{x: {v}}}", "{v}: {k}",
           "{k}:\n  - {v}\n  - b", "{k}: [a, {v}]", "{{{k}: {v}}}", "{k}: |\n  {v}\n",
           "{k}: >-\n  {v}\nb: 1", "{k}: [\n  {v}\n]", "{k}: {v} # c\n", "- {v}\n- {k}",
           "{k}:\n  {v}: 1\n  c: 2"]


@settings(max_examples=int(os.environ.get("CMDSYNC_HYPOTHESIS_EXAMPLES", "60")) * 20,
          deadline=None)
@given(key=st.sampled_from(["a", "id", "application_id", "guild_id", "min_value", "1"]),
       value=st.text(_SCALAR_CHARS, min_size=1, max_size=8),
       style=st.sampled_from(_STYLES))
def test_random_scalars_read_the_same_both_ways(key: str, value: str, style: str) -> None:
    _assert_agree(style.format(k=key, v=value))


@pytest.mark.parametrize("value", ["\x85", "a\x85b", "x\x85\x85 y", "\u2028", "a\u2029b"])
def test_yaml_line_break_characters_read_back_as_pyyaml_writes_them(value: str) -> None:
    """PyYAML's dumper writes U+0085, U+2028 and U+2029 raw, as line breaks it
    expects kept; read back, the value is what was written (YAML 1.1 alone
    would fold U+0085 into a space), and the line numbers still count them."""
    import yaml

    text = yaml.safe_dump({"value": value, "list": [value], "after": 1}, allow_unicode=True)
    doc = load_text(text, file="m.yaml", kind="yaml", env={})
    assert doc.diagnostics == []
    assert doc.data == {"value": value, "list": [value], "after": 1}
    breaks = sum(text[: text.index("after")].count(ch) for ch in "\n\x85\u2028\u2029")
    assert doc.locate(("after",), key=True).line == breaks + 1


# Lines that look like block sequence entries or block values but are not, or
# pieces whose extent is unusual: read piece by piece, each must give what the
# careful way gives.
ITEM_CASES = [
    "- {name: a, description: b}\n- {name: a, description: b}\n",
    "commands:\n- name: a\n  description: b\n- name: a\n  description: b\nx: 1\n",
    "a: \"x\n- y\"\nb:\n  - {k: 1}\n  - {k: 1}\n",  # a "- " line inside a quoted scalar
    "a: x\n  - y\nb:\n  - {k: 1}\n  - {k: 1}\n",  # inside a plain scalar
    "a: [x,\n- y]\nb:\n  - {k: 1}\n",  # inside a flow sequence
    "a:\n  - k: 1\n# a comment at column 0\n    j: 2\n  - k: 1\n    j: 2\n",
    "a:\n  - k: 1\n\n    j: 2\n  - k: 1\n",  # a blank line inside an item
    "a:\n  -\n    - k: 1\n    - k: 1\n",  # nested items under an empty entry
    "a:\n  - - k\n  - - k\n",  # nested sequences: not mappings
    "a:\n  - k\n  - k\n",  # scalar entries
    "a:\n  - k: \"x\n    - y\"\n  - k: 1\n",  # a quoted scalar across an item's lines
    "a:\n  - k: x\n    y\n  - k: x\n    y\n",  # a plain scalar across lines
    "a:\n  - id: 123456789012345678\n  - id: 123456789012345678\nb: ${NAME}\n",
    "a:\n  - k: ${NAME}\n  - k: ${NAME}\n",
    "a:\n  - k: ${MISSING}\n",
    "a:\n  - k: 1\n    k: 2\n",  # a duplicate key inside an item
    "a:\n  - {k: 1}\n  - {k: 1}\na:\n  - {k: 1}\n",  # a duplicate key outside
    "- k: [" + "[" * 62 + "]" * 63 + "\n- k: 1\n",  # too deep, inside an item
    "a:\n  - k: 1\n  - _cmdsync_piece_0\n",  # an entry that looks like a token
    "a:\n  - k: 1\n    b: _cmdsync_piece_0\n  - k: 1\n",
    "a:\n  - k: 1\n- k: 2\n",  # a sequence less indented than its key's value
    "a:\n  - k: 1\n  b: 2\n",
    "a:\n  - k: 1\n   - k: 2\n",
    "- k: 1",  # no final line break
    "- &0\n- &0\n",  # an anchor defined twice: PyYAML refuses it
    'g:\n  "1":\n    c:\n      - {k: 1}\n  "2":\n    c:\n      - {k: 1}\n',  # guild blocks
    "a:\n  b:\n    c\n  d:\n    - e\n",  # a block value that is a scalar
    "a:\n  b:\n    - c\n   x: 1\n",  # a value line less indented than the first
    'a: "x\n  b:\n    c"\nd: 1\n',  # a key line inside a quoted scalar
    "a: x\n  b:\n    c\nd: 1\n",  # inside a plain scalar
    "a:\n  b:\n    c: 1\n  b:\n    c: 1\n",  # a duplicate key around two pieces
    "a:\n  1:\n    c: 1\n  \"1\":\n    c: 1\n",  # two keys the same once converted
    # block nodes inside flow collections, which libyaml refuses (found by review)
    "a: {\n  b:\n    c: 1\n}\nd: 1\ne: 2\nf: 3\ng: 4\nh: 5\ni: 6\nj: 7\n",
    "a: [\n  b:\n    c: 1\n]\n", "{\nb:\n  c: 1\n}\n", "a: {\n  b:\n    - 1\n}\n",
    'x: "]"\na: [\n  b:\n    c: 1\n]\n', 'x: "["\ny: a]\nz:\n  - k: 1\n  - k: 1\n',
    "id:\n  x: 1\nguild_id:\n  - 5\n",  # snowflake keys over containers
]


@pytest.mark.parametrize("text", ITEM_CASES)
def test_lines_that_look_like_pieces_read_the_same_piece_by_piece(text: str) -> None:
    _assert_agree(text)


def test_repeated_items_are_parsed_once_and_shared(reading: str) -> None:
    """A large manifest repeating its commands in every guild (as the benchmarks
    write them) reads the same both ways, with each command one object."""
    command = ("      - name: ping\n        description: Pong\n        options:\n"
               "          - {type: string, name: mode, description: How, required: true}\n")
    guilds = "".join(f'  "{700000000000000000 + g}":\n    commands:\n' + command * 3
                     for g in range(40))
    text = f'application_id: "1"\nguilds:\n{guilds}'
    assert _assert_agree(text)
    doc = load_text(text, file="m.yaml", kind="yaml")
    bodies = {id(c) for g in doc.data["guilds"].values() for c in g["commands"]}
    assert len(bodies) == (120 if reading == "whole" else 1)  # read piece by piece: shared


_LINE_STARTS = st.sampled_from(["- ", "", "k: ", "- k: ", "-", "# ", "j: ", "- - "])


@settings(max_examples=int(os.environ.get("CMDSYNC_HYPOTHESIS_EXAMPLES", "60")) * 20,
          deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), _LINE_STARTS, st.text(_SCALAR_CHARS, max_size=6)),
                min_size=1, max_size=12))
def test_random_lines_read_the_same_both_ways(lines: list[tuple[int, str, str]]) -> None:
    """Line soup of sequence entries, keys and scalars at random indentation: where
    item extents and scalars that span lines meet in odd ways."""
    _assert_agree("".join(f"{' ' * indent}{start}{rest}\n" for indent, start, rest in lines))


def test_a_run_that_declines_leaves_nothing_for_the_next_file(reading: str) -> None:
    """Files read with one SharedBodies: a read that gives up (a missing variable) must
    not leave a half-converted command behind for the next file to take."""
    text = "a:\n  - k: ${MISSING}\n  - k: ${MISSING}\nb: 1\nc: 2\nd: 3\ne: 4\n"
    shared = SharedBodies()
    for _ in range(2):
        fast = Document(file="m.yaml", kind="yaml", text=text)
        assert not parse_fast(fast, {}, shared)
