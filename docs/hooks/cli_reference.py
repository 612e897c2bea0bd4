"""MkDocs hook: make cmdsync's command line importable as a click command.

mkdocs-click documents a `click.Command`; cmdsync's CLI is a typer app. MkDocs
loads this file as a hook, which registers it as the module `cli_reference`,
so the reference page (`docs/reference/cli.md`) names `:module: cli_reference`
and `:command: cli`.
"""

from __future__ import annotations

import sys

import typer.main

from cmdsync.cli import app

cli = typer.main.get_command(app)
sys.modules.setdefault("cli_reference", sys.modules[__name__])
