"""``cmdsync validate``, ``rules``, ``init`` and ``schema``: the offline commands."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from cmdsync.cli._shared import (
    ApiUrlOption,
    EnvOption,
    ForceOption,
    LocalOption,
    OutputFormat,
    RulesFormat,
    SecretFileOption,
    TimeoutOption,
    TokenFileOption,
    _check_rule_prefix,
    _connection,
    _report,
    _timed,
    app,
)
from cmdsync.errors import (
    EXIT_OK,
    CmdsyncError,
    UsageError,
)
from cmdsync.render import console


@app.command(short_help="Check manifests against the schemas and Discord's rules.")
def validate(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Manifest files (.yaml, .yml, .json), directories to search, or bot code "
             "(discord.py:MODULE:ATTR, a discord.py CommandTree); default: cmdsync.toml's "
             "manifests.", metavar="[PATH]...", show_default=False)] = None,
    output: Annotated[OutputFormat | None, typer.Option(
        "--format", "-f",
        help="text, json or github (workflow annotations; the default when "
             "GITHUB_ACTIONS=true).")] = None,
    select: Annotated[list[str] | None, typer.Option(
        help="Only report these rule ids (a prefix such as CS2 selects a group). "
             "Repeatable.", metavar="ID", show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Do not report these rule ids or prefixes. Repeatable.", metavar="ID",
        show_default=False)] = None,
    online: Annotated[bool, typer.Option(
        "--online", help="Also read the application (GET /applications/@me, credentials as "
        "for plan) and run the rules that need it (CS601, CS602).")] = False,
    api_url: ApiUrlOption = None,
    timeout: TimeoutOption = None,
    local: LocalOption = False,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    env_name: EnvOption = None,
    pre_commit: Annotated[bool, typer.Option(
        "--pre-commit", help="PATHs are the files being committed: validate every "
        "environment's manifests of cmdsync.toml when one of them (or the configuration) "
        "is committed, and each committed manifest no environment lists; without a "
        "configuration, every tracked file that is a manifest by content; ignore other "
        "files.")] = False,
) -> int:
    """Check manifests against the schemas and every Discord rule (offline unless --online).

    With no paths, every environment's manifests, each with its variables (with
    --env NAME or --online, that environment's, else the default one's)."""
    import os

    from cmdsync.runners.validate import validate_sets

    for rule_id in [*(select or []), *(ignore or [])]:
        _check_rule_prefix(rule_id)
    if not online and (api_url or local or token_file or client_secret_file
                       or timeout is not None):
        raise typer.BadParameter("connection options need --online", param_hint="'--online'")
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=None) if online else None
    sets, project = _file_sets(paths, env_name, pre_commit=pre_commit, online=online)
    if not sets:
        return EXIT_OK  # --pre-commit: no manifest among the files committed
    if connection is not None:  # --online reads one environment's application
        connection = _timed(connection, timeout, project, sets[0].environment)
    checked = validate_sets(sets, project=project, select=select or (), ignore=ignore or (),
                            connection=connection, env=os.environ,
                            cwd=project.root if project is not None else None)
    result = checked.validation
    for note in checked.notes:
        console.warn(note)
    if not result.files and not result.diagnostics:  # as ruff: "No Python files found"
        shown = list(dict.fromkeys(path for group in sets for path in group.paths))
        console.warn(f"No manifest files found in {', '.join(shown)} (YAML or JSON files "
                     "with top-level commands or guilds)")
        if (output or OutputFormat.text) is OutputFormat.text:
            return EXIT_OK
    return _report(result, output)


def _file_sets(paths: list[str] | None, env_name: str | None, *, pre_commit: bool,
               online: bool) -> tuple[list[Any], Any]:
    """The manifest sets validate checks, and the configuration: the hook's
    (:func:`~cmdsync.runners.precommit.hook_sets`); the paths given, or with --env or
    --online the environment's manifests, with that environment (named, else the
    default); else every environment's manifests, each with its own."""
    import os

    from cmdsync.runners.project import resolve_paths
    from cmdsync.runners.project_file import find_config, select
    from cmdsync.runners.validate import FileSet

    project = find_config()
    if pre_commit:
        from cmdsync.runners.precommit import hook_sets

        return hook_sets(paths or [], project), project
    if paths or env_name is not None or online or project is None \
            or not project.manifest_sets():
        chosen = select(paths, env_name, os.environ)
        return [FileSet(tuple(chosen.paths), chosen.environment, chosen.env)], project
    return [FileSet(tuple(resolve_paths(None, project, environment)), environment)
            for environment, _ in project.manifest_sets()], project


@app.command(short_help="List the validation rules, or explain one.")
def rules(
    rule: Annotated[str | None, typer.Argument(
        help="A rule id (CS101) or name (chat-input-name) to explain.", metavar="[RULE]",
        show_default=False)] = None,
    output: Annotated[RulesFormat, typer.Option(
        "--format", "-f", help="text, or markdown (the source of docs/rules.md).")]
        = RulesFormat.text,
) -> int:
    """List the validation rules, or explain one."""
    from cmdsync.render import rules as render
    from cmdsync.validate.rules import get_rule

    if output is RulesFormat.markdown:
        console.out(render.markdown())
        return EXIT_OK
    if rule is None:
        console.out(render.listing())
        return EXIT_OK
    found = get_rule(rule)
    if found is None:
        raise CmdsyncError(f"no rule {rule!r}: `cmdsync rules` lists them all")
    console.out(render.detail(found))
    return EXIT_OK


@app.command(short_help="Start a project: cmdsync.toml and a first manifest.")
def init(
    directory: Annotated[str, typer.Argument(
        help="The project's folder (default: this one).", metavar="[DIR]",
        show_default=False)] = ".",
    force: Annotated[bool, typer.Option("--force", help="Replace files that exist.")] = False,
) -> int:
    """Start a project: cmdsync.toml (commented), discord/commands.yaml and the editor
    schema; then `cmdsync validate` and `cmdsync plan` need no paths."""
    from cmdsync.manifest.files import write_file
    from cmdsync.runners.project import PYPROJECT
    from cmdsync.runners.project_file import find_config
    from cmdsync.runners.starter import init_files

    parent = find_config(directory)
    here = parent is not None and os.path.dirname(os.path.abspath(parent.path)) == \
        os.path.abspath(directory)
    if parent is not None and not here and not force:
        raise UsageError(f"{parent.path} already configures a project above {directory}: run "
                         "init there, or pass --force to start a separate project here")
    if parent is not None and here and os.path.basename(parent.path) == PYPROJECT \
            and not force:
        raise UsageError(
            f"{parent.where()} already configures cmdsync: a cmdsync.toml beside it would "
            "silently take over (it is read first). Edit [tool.cmdsync] there, or pass "
            "--force to write cmdsync.toml anyway (then remove [tool.cmdsync])")
    files = {os.path.join(directory, name): text for name, text in init_files().items()}
    existing = [path for path in files if os.path.lexists(path)]
    if existing and not force:
        raise UsageError(f"{existing[0]} exists: pass --force to replace it (and the other "
                         "starter files)")
    for path, text in files.items():
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        write_file(path, text, what="the starter file", overwrite=force)
        console.info(f"Wrote {path}\n")
    ignore = os.path.join(directory, ".gitignore")
    from pathlib import Path

    current = Path(ignore).read_text(encoding="utf-8") if os.path.isfile(ignore) else ""
    if ".cmdsync/" not in current.splitlines():  # local state, ledger and backups
        separator = "" if not current or current.endswith("\n") else "\n"
        write_file(ignore, f"{current}{separator}.cmdsync/\n", what="the .gitignore")
        console.info(f"Added .cmdsync/ to {ignore}\n")
    console.info("\nNext: edit discord/commands.yaml, then `cmdsync validate` and "
                "`cmdsync plan` (set DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN, or try "
                "`cmdsync plan --local`).\n")
    return EXIT_OK


@app.command(short_help="Print the manifest's JSON Schema, for editors.")
def schema(
    output_file: Annotated[str | None, typer.Option(
        "--output", "-o", help="Write the schema to FILE (default: standard output).",
        metavar="FILE", show_default=False)] = None,
    force: ForceOption = False,
) -> int:
    """Print the manifest's JSON Schema for editors (Discord's limits included); point a
    manifest's `# yaml-language-server: $schema=FILE` modeline at the file."""
    from cmdsync.validate.editor_schema import dumps

    if output_file is None:
        console.out(dumps())
        return EXIT_OK
    from cmdsync.manifest.files import write_file

    write_file(output_file, dumps(), what="the schema", overwrite=force)
    console.info(f"Wrote {output_file}.\n")
    return EXIT_OK
