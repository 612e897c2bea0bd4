"""The layout docs/architecture.md describes, held against the code.

Imports are read from the source (function-level ones too), so a cycle
hidden inside a function still counts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import paths

PACKAGE = paths.ROOT / "src" / "cmdsync"
# Stages that must not do I/O: no network, files, processes or terminal.
PURE = ("cmdsync.plan", "cmdsync.state", "cmdsync.apply.strategy", "cmdsync.apply.guardrails",
        "cmdsync.apply.result", "cmdsync.apply.form_errors")
IO_MODULES = {"httpx", "os", "io", "socket", "sqlite3", "subprocess", "shutil", "tempfile",
              "asyncio", "sys", "rich", "typer", "cmdsync.client", "cmdsync.runners",
              "cmdsync.render", "cmdsync.emulator"}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(path: Path, name: str, known: dict[str, Path]) -> Iterator[str]:
    """Every module ``path`` imports: cmdsync modules resolved, others by their top name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target not in known and "." in target and target.startswith("cmdsync"):
                target = target.rpartition(".")[0]
            yield target if target.startswith("cmdsync") else target.split(".")[0]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {t for t in imported(path, name, known) if t != name}
            for name, path in known.items()}


def test_the_package_has_at_most_16_entries() -> None:
    # STYLE.md's layout: cli, errors, model, one package per stage, emulator and testing
    # (the pytest plugin), with __init__, __main__ and schemas; py.typed is PEP 561's marker
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name not in ("__pycache__",
                                                                         "py.typed"))
    assert len(entries) <= 16, entries


def test_no_module_imports_itself_through_a_cycle() -> None:
    # The root package (its __version__, its lazy cmdsync.sync) is imported before any
    # module of it in every case, so an edge to it can close no cycle that matters.
    edges = {m: {t for t in ts if t.startswith("cmdsync.")} for m, ts in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert cycles == []


@pytest.mark.parametrize("stage", PURE)
def test_pure_stages_do_no_io(stage: str) -> None:
    found = {m: sorted(t for t in ts if any(t == i or t.startswith(i + ".") for i in IO_MODULES))
             for m, ts in graph().items() if m == stage or m.startswith(stage + ".")}
    assert {m: ts for m, ts in found.items() if ts} == {}


WRITERS = {"print", "sys.stdout.write", "sys.stderr.write", "typer.echo", "typer.confirm",
           "typer.prompt"}


def _called(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_called(node.value)}.{node.attr}"
    return ""


def test_only_render_writes_to_the_terminal() -> None:
    writers = []
    for name, path in modules().items():
        if name.startswith(("cmdsync.render", "cmdsync.emulator")):
            continue  # the emulator is a server: uvicorn and its banner are its own
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Call) and _called(node.func) in WRITERS
               for node in ast.walk(tree)):
            writers.append(name)
    assert writers == []


def test_the_client_does_not_import_the_manifest() -> None:
    client = {m: ts for m, ts in graph().items() if m.startswith("cmdsync.client")}
    assert {m: sorted(t for t in ts if t.startswith(("cmdsync.manifest", "cmdsync.validate")))
            for m, ts in client.items() if any(t.startswith(("cmdsync.manifest",
                                                             "cmdsync.validate")) for t in ts)
            } == {}


def test_no_emulator_module_shadows_a_core_module() -> None:
    core = {p.stem for p in PACKAGE.rglob("*.py") if "emulator" not in p.parts} | {
        p.name for p in PACKAGE.rglob("*") if p.is_dir() and "emulator" not in p.parts}
    emulator = {p.stem for p in (PACKAGE / "emulator").glob("*.py")} - {"__init__"}
    assert sorted(emulator & core) == []


def test_no_test_module_imports_another() -> None:
    offenders = []
    for path in paths.TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and (
                    node.module.split(".")[-1].startswith("test_")):
                offenders.append(f"{path.relative_to(paths.TESTS)}: {node.module}")
    assert offenders == []


EMULATOR = PACKAGE / "emulator"
# The emulator's rooms, lowest first: a room imports only rooms before it (and itself);
# the modules at the emulator's top (the seed, the instance, the app, the route table,
# the admin API, the server) and the console may import any room. docs/architecture.md
# draws the same order.
ROOMS = ("domain", "store", "reference", "application_commands", "interactions", "resources",
         "gateway", "oauth2")
TOP = ("console",)


def _room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["cmdsync", "emulator"] or len(parts) < 3:
        return None
    return parts[2] if (EMULATOR / parts[2]).is_dir() else "(top)"


def test_the_emulator_is_in_the_rooms_the_docs_name() -> None:
    rooms = sorted(p.name for p in EMULATOR.iterdir()
                   if p.is_dir() and p.name != "__pycache__")
    assert rooms == sorted(ROOMS + TOP)
    for room in rooms:  # each says in one line which part of Discord's docs it emulates
        doc = ast.get_docstring(ast.parse((EMULATOR / room / "__init__.py").read_text()))
        assert doc and doc.splitlines()[0].strip(), room


def test_the_emulator_rooms_import_one_way() -> None:
    order = {room: index for index, room in enumerate(ROOMS)}
    backward = []
    for module, targets in graph().items():
        room = _room(module)
        if room not in order:
            continue
        for target in targets:
            other = _room(target)
            if other == "(top)" or other in TOP or (
                    other in order and order[other] > order[room]):
                backward.append(f"{module} -> {target}")
    assert sorted(backward) == []


def test_no_emulator_room_is_crowded_nor_any_module_long() -> None:
    # STYLE.md: about 12 modules a folder, 400 lines a module
    crowded = {p.name: n for p in [EMULATOR, *EMULATOR.iterdir()] if p.is_dir()
               and (n := len([m for m in p.glob("*.py") if m.name != "__init__.py"])) > 12}
    long = {str(p.relative_to(PACKAGE)): n for p in EMULATOR.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 420}
    assert (crowded, long) == ({}, {})


def test_the_docs_draw_the_rooms_in_their_order() -> None:
    text = (paths.ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text.split("## The emulator's rooms")[1].split("```")[1]
    drawn = [line.split()[0].rstrip("/") for line in drawing.splitlines()
             if line.startswith(" ") and not line.startswith("  ")
             and line.split()[0].endswith("/")]
    assert drawn == list(reversed(ROOMS))
    assert all(f"| `{room}/` |" in text for room in ROOMS + TOP)
