"""``cmdsync validate``, ``rules``, ``init`` and ``schema``: the offline commands."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from cmdsync.cli._shared import (
    ApiUrlOption,
    EnvOption,
    ForceOption,
    LocalOption,
    OutputFormat,
    RulesFormat,
    SecretFileOption,
    TokenFileOption,
    _check_rule_prefix,
    _connection,
    _project,
    _report,
    app,
)
from cmdsync.errors import (
    EXIT_OK,
    CmdsyncError,
    UsageError,
)
from cmdsync.render import console


@app.command()
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
             "Repeatable.")] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Do not report these rule ids or prefixes. Repeatable.")] = None,
    online: Annotated[bool, typer.Option(
        "--online", help="Also read the application (GET /applications/@me, credentials as "
        "for plan) and run the rules that need it (CS601, CS602).")] = False,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    env_name: EnvOption = None,
    pre_commit: Annotated[bool, typer.Option(
        "--pre-commit", help="PATHs are the files being committed: validate the whole "
        "manifest set when one of them is a manifest (cmdsync.toml's, else every tracked "
        "file that is a manifest by content); ignore other files.")] = False,
) -> int:
    """Check manifests against the schemas and every Discord rule (offline unless --online)."""
    from cmdsync.runners.validate import validate as run_validate

    if pre_commit:
        from cmdsync.runners.project import find_config, hook_paths

        paths = hook_paths(paths or [], find_config())
        if not paths:
            return EXIT_OK  # no manifest among the files committed
    paths, env, root = _project(paths, env_name)
    for rule_id in [*(select or []), *(ignore or [])]:
        _check_rule_prefix(rule_id)
    if not online and (api_url or local or token_file or client_secret_file):
        raise typer.BadParameter("connection options need --online", param_hint="'--online'")
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=None) if online else None
    checked = run_validate(paths, select=select or (), ignore=ignore or (),
                           connection=connection, env=env, cwd=root)
    result = checked.validation
    for note in checked.notes:
        console.warn(note)
    if not result.files and not result.diagnostics:  # as ruff: "No Python files found"
        console.warn(f"No manifest files found in {', '.join(paths)} (YAML or JSON files "
                     "with top-level commands or guilds)")
        if (output or OutputFormat.text) is OutputFormat.text:
            return EXIT_OK
    return _report(result, output)


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


@app.command()
def init(
    directory: Annotated[str, typer.Argument(
        help="The project's folder (default: this one).", metavar="[DIR]")] = ".",
    force: Annotated[bool, typer.Option("--force", help="Replace files that exist.")] = False,
) -> int:
    """Start a project: cmdsync.toml (commented), discord/commands.yaml and the editor
    schema; then `cmdsync validate` and `cmdsync plan` need no paths."""
    from cmdsync.manifest.files import write_file
    from cmdsync.runners.project import find_config, init_files

    parent = find_config(directory)
    if parent is not None and os.path.dirname(os.path.abspath(parent.path)) != \
            os.path.abspath(directory) and not force:
        raise UsageError(f"{parent.path} already configures a project above {directory}: run "
                         "init there, or pass --force to start a separate project here")
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


@app.command()
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
