"""MkDocs hook: the command reference, generated from cmdsync's command line.

``docs/reference/cli.md`` holds the marker ``<!-- cli-reference -->``; when the
site is built, this hook puts in its place a section per command (and per
subcommand) holding exactly what ``cmdsync COMMAND --help`` prints, so the
reference cannot drift from the CLI. (mkdocs-click cannot read typer's
commands: typer carries its own copy of click.)
"""

from __future__ import annotations

from typing import Any

import typer.main

from cmdsync.cli import app

MARKER = "<!-- cli-reference -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, reference())


def reference() -> str:
    """Markdown: ``## cmdsync``, then ``### cmdsync COMMAND`` for each command in
    ``--help``'s order (``#### cmdsync auth status`` for subcommands), each with its help."""
    root = typer.main.get_command(app)
    return "\n".join(_sections(root, ["cmdsync"], None, level=2))


def _sections(command: Any, path: list[str], parent: Any, *, level: int) -> list[str]:
    context = command.context_class(command, info_name=path[-1], parent=parent)
    text = command.get_help(context).rstrip()
    title = " ".join(path)
    out = [f"{'#' * level} {title}", "", "```text", text, "```", ""]
    for name in getattr(command, "list_commands", lambda _: [])(context):
        sub = command.get_command(context, name)
        if sub is not None and not sub.hidden:
            out += _sections(sub, [*path, name], context, level=min(level + 1, 4))
    return out
