"""Hostile input files: each ends in a clear diagnostic (or success), never a traceback.

Every case runs through the real CLI in a subprocess with an address-space
limit and a timeout, so that a file which made cmdsync allocate or loop
without bound fails the test instead of the machine. The bounds are generous
(they check boundedness, not speed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

resource = pytest.importorskip(
    "resource", reason="needs POSIX: an address-space limit (setrlimit) on the child process")

MEMORY_LIMIT = 1024 * 1024 * 1024  # bytes of address space for one cmdsync run
TIME_LIMIT = 60  # seconds


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def validate(*paths: Path) -> tuple[int, str]:
    """Exit code and stdout+stderr of ``cmdsync validate PATHS`` under the limits."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run([sys.executable, "-m", "cmdsync", "validate", *map(str, paths)],
                          capture_output=True, text=True, env=env, timeout=TIME_LIMIT,
                          preexec_fn=_limit_memory, check=False)
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "internal error" not in output, output
    return done.returncode, output


def billion_laughs(path: Path) -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def big_file(path: Path) -> None:
    command = json.dumps({"name": "x", "description": "y" * 90})
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        handle.write(",".join([command] * 410_000))  # about 50 MB
        handle.write("]")


CASES: dict[str, tuple[str, Callable[[Path], None], int, str | re.Pattern[str]]] = {
    "billion-laughs": ("laughs.yaml", billion_laughs, 1,
                       "laughs.yaml:6:4: CS003 aliases expand to more than"),
    "deep-yaml": ("deep.yaml", lambda p: p.write_text(
        "commands: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8"), 1,
        # PyYAML 6.0.4 stops at its own nesting limit (CS001 at 1:1010) before cmdsync's
        # own (CS003 at 1:75): either is a clear error at the file's place
        re.compile(r"deep\.yaml:1:\d+: CS00[13] .*(nested more than 64 levels deep|"
                   r"exceeded maximum nesting depth)")),
    "deep-json": ("deep.json", lambda p: p.write_text(
        "[" * 100_000 + "]" * 100_000, encoding="utf-8"), 1,
        "deep.json:1:1: CS001 JSON is nested too deeply to be a manifest"),
    "50-mb": ("big.json", big_file, 2, ("bytes; manifests are limited to 10,485,760 bytes: "
                                         "split it into several files")),
    "binary": ("binary.json", lambda p: p.write_bytes(b"\x00\x01\x02\xff"), 2,
               "binary.json: CS001 file is binary (it contains NUL bytes), not YAML or JSON"),
    "invalid-utf8": ("latin1.yaml", lambda p: p.write_bytes(
        b"commands:\n  - name: caf\xe9\n"), 2,
        "latin1.yaml:2:14: CS001 invalid UTF-8 (byte 0xe9): save the file as UTF-8"),
    "tabs": ("tabs.yaml", lambda p: p.write_text(
        "commands:\n\t- name: ping\n", encoding="utf-8"), 1,
        "(a tab: indent YAML with spaces)"),
    "duplicate-keys": ("dup.yaml", lambda p: p.write_text(
        "commands:\n  - name: ping\n    name: pong\n    description: Pong\n",
        encoding="utf-8"), 1,
        "dup.yaml:3:5: CS002 duplicate key 'name' (first at line 2)"),
    "empty": ("empty.yaml", lambda p: p.write_text("", encoding="utf-8"), 1,
              "empty.yaml:1:1: CS001 file is empty"),
    "whitespace-only-json": ("blank.json", lambda p: p.write_text(
        "  \n", encoding="utf-8"), 1, "blank.json:1:1: CS001 file is empty"),
    "lone-surrogate-json": ("half.json", lambda p: p.write_text(
        '[{"name": "ping", "description": "a \\\\ud83d \\ud83d\\ude00 b \\udc00"}]',
        encoding="utf-8"), 1,
        "half.json:1:60: CS001 invalid JSON string: \\udc00 is half of a surrogate pair"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_file_gets_a_clear_error(case: str, tmp_path: Path) -> None:
    name, make, code, expected = CASES[case]
    make(tmp_path / name)
    exit_code, output = validate(tmp_path / name)
    if isinstance(expected, re.Pattern):
        assert expected.search(output), output
    else:
        assert expected in output
    assert exit_code == code


def test_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfcommands:\n  - name: ping\n    description: Pong\n")
    assert validate(path) == (0, "All 1 file valid (1 command).\n")


def test_anchors_and_merge_keys_are_followed(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(
        "x-base: &base {description: Check the bot is alive}\n"
        "commands:\n"
        "  - <<: *base\n"
        "    name: ping\n"
        "  - <<: *base\n"
        "    name: Pong\n", encoding="utf-8")
    code, output = validate(path)
    assert (code, output.splitlines()[0]) == (
        1, f"{path}:6:11: CS101 command name 'Pong' has upper-case letters: write 'pong'")


def test_directory_of_thousands_of_files(tmp_path: Path) -> None:
    for index in range(3000):
        guild = 100_000_000_000_000_000 + index
        (tmp_path / f"guild-{index:04}.yaml").write_text(
            f'guilds:\n  "{guild}":\n    commands:\n'
            f"      - {{name: ping, description: Check the bot is alive}}\n",
            encoding="utf-8")
    (tmp_path / "guild-0042.yaml").write_text("guilds: [\n", encoding="utf-8")
    code, output = validate(tmp_path)
    assert code == 1
    assert output.splitlines()[0].startswith(f"{tmp_path / 'guild-0042.yaml'}:2:1: CS001 ")
    assert output.splitlines()[-1] == "Found 1 error in 1 of 3000 files."


def test_a_million_bad_items_give_a_hundred_errors_and_a_note(tmp_path: Path) -> None:
    """A 7 MB array of a million integers: the first 100 schema errors, then one CS003
    saying the rest was not checked, instead of a million lines (issue 28, item 6)."""
    path = tmp_path / "ints.json"
    path.write_text(json.dumps(list(range(1_000_000))), encoding="utf-8")
    code, output = validate(path)
    lines = output.splitlines()
    assert code == 1
    assert sum(" CS011 value must be an object, not an integer" in line for line in lines) == 100
    assert f"{path}:1:1: CS003 more than 100 schema errors in this file" in output
    assert lines[-1] == "Found 101 errors in 1 of 1 file."


def test_a_plan_of_a_million_bad_warnings_is_refused_at_the_first(tmp_path: Path) -> None:
    """A 3 MB saved plan of a million non-string warnings is refused naming the first,
    under the address-space limit (it took 43 s and 3.6 GB; issue 28, item 6)."""
    plan = {"format_version": 1, "application_id": "111111111111111111",
            "api_url": None, "manifest_digest": "sha256:" + "0" * 64, "manifests": [],
            "summary": {"create": 0, "update": 0, "delete": 0, "permission_sets": 0,
                        "has_changes": False},
            "scopes": [], "warnings": [1] * 1_000_000, "errors": []}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "DISCORD_BOT_TOKEN": "hostile-test-token"}
    done = subprocess.run([sys.executable, "-m", "cmdsync", "apply", str(path)],
                          capture_output=True, text=True, env=env, timeout=TIME_LIMIT,
                          preexec_fn=_limit_memory, check=False, cwd=tmp_path)
    assert "Traceback" not in done.stderr
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (
        f"error: {path} is not a cmdsync plan: /warnings/0: 1 is not of type 'string'")
