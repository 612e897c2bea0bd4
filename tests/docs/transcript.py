"""Run a ``console`` block of the documentation as a transcript.

Each ``$ `` line is run (cmdsync in-process, with the block's environment
prefixes and redirections) and what it prints is compared with the lines that
follow it, up to the next ``$ `` line. A ``...`` line stands for any lines.
Ids that differ from run to run (snowflakes made now, backup timestamps,
durations) are compared as placeholders.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cmdsync.cli import main
from tests.docs.blocks import Block
from tests.support.paths import ROOT

EMULATOR_URL = "http://127.0.0.1:8787"
_VOLATILE = [
    (re.compile(r"\b15\d{17}\b"), "SNOWFLAKE"),     # ids the emulator makes now
    (re.compile(r"\b\d{8}T\d{6}Z\b"), "TIMESTAMP"),  # backup names
    (re.compile(r"\bin \d+\.\d+ s\b"), "in SECONDS s"),
]


def normalized(text: str) -> str:
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected`` line for line, ``...`` lines matching any lines."""
    parts = [re.escape(part) for part in normalized(expected).split("...\n")]
    pattern = "(?:.*\n)*?".join(parts)
    return re.fullmatch(pattern, normalized(actual)) is not None


@dataclass
class Step:
    line: str
    expected: str


def steps(block: Block) -> list[Step]:
    """The ``$`` lines of a console block, each with the text shown after it."""
    found: list[Step] = []
    for line in block.text.splitlines(keepends=True):
        if line.startswith("$ "):
            found.append(Step(line[2:].rstrip("\n"), ""))
        else:
            assert found, f"{block}: output before the first $ line"
            found[-1].expected += line
    return found


@dataclass
class Session:
    """A working directory and environment in which a page's blocks run in turn."""

    workdir: Path
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]
    api_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    def copy_examples(self) -> None:
        shutil.copytree(ROOT / "examples", self.workdir / "examples")

    def write(self, name: str, text: str) -> None:
        path = self.workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def cmdsync(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        """Run ``cmdsync ARGS`` here; its exit code, standard output and error."""
        with self.monkeypatch.context() as patch:
            patch.chdir(self.workdir)
            for name, value in self.env.items():
                patch.setenv(name, value)
            if stdin is not None:
                patch.setattr("sys.stdin", io.StringIO(stdin))
                patch.setattr("cmdsync.cli._apply._stdin_is_terminal", lambda: True)
            with pytest.raises(SystemExit) as exited:
                main(list(args))
        out, err = self.capsys.readouterr()
        assert isinstance(exited.value.code, int)
        return exited.value.code, out, err

    def run(self, block: Block, *, codes: dict[str, int] | None = None) -> None:
        """Run every ``$`` line of ``block``; each prints what the block shows.

        ``codes`` gives the exit code expected of a line (by its text); else 0,
        or 1 when the shown output starts with ``error:``.
        """
        for step in steps(block):
            code, printed = self._run_line(block, step)
            if printed is None:
                continue
            expected = step.expected
            if "[y/N]: y\n" in expected:  # the answer typed at the prompt is not printed
                expected = expected.replace("[y/N]: y\n", "[y/N]: ")
            assert any(matches(expected, text) for text in printed), (
                f"{block}: `{step.line}` printed\n{printed[0]}\nnot what the page shows:\n"
                f"{expected}")
            want = (codes or {}).get(step.line, 1 if "error:" in expected else 0)
            assert code == want, f"{block}: `{step.line}` exited {code}, not {want}"

    def _run_line(self, block: Block, step: Step) -> tuple[int, list[str] | None]:
        words = shlex.split(step.line, comments=True)
        env: dict[str, str] = {}
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if words[0] == "export":
            for word in words[1:]:
                name, _, value = word.partition("=")
                self.env[name] = self._local(value)
            return 0, None
        if words[0] == "cat":  # the file's text is what the page shows
            self.write(words[1], step.expected)
            return 0, None
        assert words[0] == "cmdsync", f"{block}: cannot run `{step.line}` here"
        if words[-1] == "&":
            assert words[1:] == ["emulator", "&"], f"{block}: `{step.line}`"
            assert self.api_url is not None, "the session serves no emulator"
            return 0, None
        stdin: str | None = None
        args = words[1:]
        if args[-2:] == ["<", "/dev/null"]:
            args, stdin = args[:-2], ""
        elif "[y/N]: y" in step.expected:
            stdin = "y\n"
        args = [self._local(arg) for arg in args]
        with self._environment({k: self._local(v) for k, v in env.items()}):
            if stdin == "":  # not a terminal: nothing to read
                with self.monkeypatch.context() as patch:
                    patch.setattr("sys.stdin", io.StringIO(""))
                    code, out, err = self.cmdsync(*args)
            else:
                code, out, err = self.cmdsync(*args, stdin=stdin)
        printed = [self._shown(out + err), self._shown(err + out)]
        return code, printed

    def _local(self, text: str) -> str:
        """The page's emulator address, as this session serves it."""
        if self.api_url is not None:
            return text.replace(EMULATOR_URL, self.api_url)
        return text

    def _shown(self, text: str) -> str:
        if self.api_url is not None:
            text = text.replace(self.api_url, EMULATOR_URL)
        return text

    @contextmanager
    def _environment(self, env: dict[str, str]) -> Iterator[None]:
        saved = dict(self.env)
        self.env.update(env)
        try:
            yield
        finally:
            self.env = saved


def clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """No credentials, API URL, colour or CI settings from the test's own environment."""
    for name in list(os.environ):
        if name.startswith("DISCORD_") or name in {"CMDSYNC_API_URL", "FORCE_COLOR",
                                                   "NO_COLOR", "GITHUB_ACTIONS"}:
            monkeypatch.delenv(name)
