"""The ``cmdsync`` command line: parse flags, call the core, render, return an exit code.

Exit codes (also in the README):

===  ==========================================================
0    success; for ``validate``, no errors (warnings allowed)
1    errors found, or an expected failure (``CmdsyncError``)
2    usage error or unreadable input
70   internal error: a bug in cmdsync
130  interrupted (Ctrl-C)
===  ==========================================================
"""

from __future__ import annotations

import enum
import os
import sys
from typing import Annotated

import typer

from cmdsync import __version__
from cmdsync.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CmdsyncError

app = typer.Typer(
    name="cmdsync",
    help="Declarative Discord application commands: validate, plan and apply.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"


class RulesFormat(str, enum.Enum):
    text = "text"
    markdown = "markdown"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cmdsync {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Declarative Discord application commands: validate, plan and apply."""


@app.command()
def validate(
    paths: Annotated[list[str], typer.Argument(
        help="Manifest files (.yaml, .yml, .json) or directories to search.", metavar="PATH...",
        show_default=False)],
    output: Annotated[OutputFormat | None, typer.Option(
        "--format", "-f",
        help="text, json or github (workflow annotations; the default when "
             "GITHUB_ACTIONS=true).")] = None,
    select: Annotated[list[str] | None, typer.Option(
        help="Only report these rule ids (a prefix such as CS2 selects a group). "
             "Repeatable.")] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Do not report these rule ids or prefixes. Repeatable.")] = None,
) -> int:
    """Check manifests against the schemas and every Discord rule, offline."""
    from cmdsync.render import diagnostics as render
    from cmdsync.validate import validate_paths

    for rule_id in [*(select or []), *(ignore or [])]:
        _check_rule_prefix(rule_id)
    result = validate_paths(paths, select=select or (), ignore=ignore or ())
    chosen = output or (OutputFormat.github if os.environ.get("GITHUB_ACTIONS") == "true"
                        else OutputFormat.text)
    if chosen is OutputFormat.json:
        sys.stdout.write(render.to_json(result))
    elif chosen is OutputFormat.github:
        sys.stdout.write(render.to_github(result))
    else:
        _write_text(render.to_text(result), lambda: render.to_rich(result))
    if result.unreadable:
        return EXIT_USAGE
    return 1 if result.errors else EXIT_OK


@app.command()
def rules(
    rule: Annotated[str | None, typer.Argument(
        help="A rule id (CS101) or name (chat-input-name) to explain.")] = None,
    output: Annotated[RulesFormat, typer.Option(
        "--format", "-f", help="text, or markdown (the source of docs/rules.md).")]
        = RulesFormat.text,
) -> int:
    """List the validation rules, or explain one."""
    from cmdsync.render import rules as render
    from cmdsync.rules import get_rule

    if output is RulesFormat.markdown:
        sys.stdout.write(render.markdown())
        return EXIT_OK
    if rule is None:
        sys.stdout.write(render.listing())
        return EXIT_OK
    found = get_rule(rule)
    if found is None:
        raise CmdsyncError(f"no rule {rule!r}: `cmdsync rules` lists them all")
    sys.stdout.write(render.detail(found))
    return EXIT_OK


@app.command()
def emulator(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port to listen on.")] = 8787,
    state: Annotated[str | None, typer.Option(
        help="SQLite file that keeps the state across restarts (default: in memory).")]
        = None,
    seed: Annotated[str | None, typer.Option(
        help="YAML file of applications, guilds, users and tokens (see README).")] = None,
    global_limit: Annotated[int, typer.Option(
        help="Requests per second per token before 429 (Discord: 50; 0 disables).")] = 50,
) -> int:
    """Run a local emulator of Discord's application-commands API."""
    from cmdsync.emulator import server

    instance = server.build(state=state, seed=seed, global_limit=global_limit)

    def announce() -> None:
        sys.stdout.write(server.banner(instance, host, port))
        sys.stdout.flush()

    server.serve(instance, host=host, port=port, on_start=announce)
    return EXIT_OK


def _check_rule_prefix(value: str) -> None:
    from cmdsync.rules import all_rules

    if not any(rule.id.startswith(value.upper()) for rule in all_rules()):
        raise typer.BadParameter(f"no rule id starts with {value!r}: `cmdsync rules` lists "
                                 "them", param_hint="'--select' / '--ignore'")


def _write_text(plain: str, styled: object) -> None:
    from cmdsync.render.console import rich_console, use_colour

    if use_colour(sys.stdout) and callable(styled):
        rich_console().print(styled(), end="")
    else:
        sys.stdout.write(plain)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and exit with its code; the one error boundary."""
    # typer vendors click in recent releases; find its ClickException either way.
    click_exception: type[Exception] = next(c for c in typer.BadParameter.__mro__
                                            if c.__name__ == "ClickException")
    try:
        code = app(args=argv, standalone_mode=False, prog_name="cmdsync")
    except typer.Exit as exc:
        code = exc.exit_code
    except click_exception as exc:
        exc.show()  # type: ignore[attr-defined]
        code = exc.exit_code  # type: ignore[attr-defined]
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("\nInterrupted.\n")
        code = EXIT_INTERRUPTED
    except CmdsyncError as exc:
        sys.stderr.write(f"error: {exc}\n")
        code = exc.exit_code
    except Exception as exc:
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in cmdsync. Please report it with the command you ran "
            "(and set CMDSYNC_DEBUG=1 to see the traceback).\n")
        if os.environ.get("CMDSYNC_DEBUG"):
            raise
        code = EXIT_BUG
    sys.exit(code if isinstance(code, int) else EXIT_OK)
