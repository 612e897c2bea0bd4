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
import itertools
import os
import signal
import sys
from typing import Annotated, Any

import typer

from cmdsync import __version__
from cmdsync.errors import (
    EXIT_BUG,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    CmdsyncError,
    UsageError,
)
from cmdsync.render import console
from cmdsync.render.escape import printable_lines

app = typer.Typer(
    name="cmdsync",
    help="Declarative Discord application commands: validate, plan and apply.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, pwsh)
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
        console.out(f"cmdsync {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    no_color: Annotated[bool, typer.Option(
        "--no-color", help="Never colour the output (as NO_COLOR=1 does).")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print results and problems only: no summary line when "
        "validation finds nothing, no 'Wrote FILE' or next steps.")] = False,
) -> None:
    """Declarative Discord application commands: validate, plan and apply."""
    if no_color:
        os.environ["NO_COLOR"] = "1"  # read by render.console.use_colour
    console.QUIET = quiet


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


def _report(result: Any, output: OutputFormat | None) -> int:
    """Write diagnostics as text, JSON or GitHub annotations; exit 0, 1 (errors) or 2."""
    from cmdsync.render import diagnostics as render

    chosen = output or (OutputFormat.github if os.environ.get("GITHUB_ACTIONS") == "true"
                        else OutputFormat.text)
    if chosen is OutputFormat.json:
        console.out(render.to_json(result))
    elif chosen is OutputFormat.github:
        console.out(render.to_github(result))
    elif console.QUIET:  # the diagnostics alone, as ruff --quiet
        console.out("".join(line + "\n" for line, diag in render.text_lines(result) if diag))
    else:
        console.text_or_rich(render.to_text(result), lambda: render.to_rich(result))
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


@app.command()
def emulator(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port to listen on (0 picks a free one).")]
        = 8787,
    state: Annotated[str | None, typer.Option(
        help="SQLite file that keeps the state across restarts (default: in memory).")]
        = None,
    seed: Annotated[str | None, typer.Option(
        help="YAML file of applications, guilds, users and tokens (see README).")] = None,
    global_limit: Annotated[int, typer.Option(
        help="Requests per second per token before 429 (Discord: 50; 0 disables).")] = 50,
    local: Annotated[bool, typer.Option(
        "--local", help="Serve the state of `plan --local` and `apply --local` "
        "(.cmdsync/local.sqlite), to watch it in the console.")] = False,
    open_console: Annotated[bool, typer.Option(
        "--open", help="Open the web console in a browser once listening.")] = False,
) -> int:
    """Run a local emulator of Discord's application-commands API, and its web console at
    the root URL, until Ctrl-C."""
    from cmdsync.emulator import server

    if global_limit < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="'--global-limit'")
    if local and state:
        raise typer.BadParameter("--local serves .cmdsync/local.sqlite: drop --state",
                                 param_hint="'--local'")
    instance = server.build(state=state, seed=seed, global_limit=global_limit, local=local)

    def announce(base_url: str) -> None:
        console.out(server.banner(instance, base_url))
        sys.stdout.flush()
        if open_console:  # in a thread: a terminal browser would hold the server up
            import threading
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(f"{base_url}/",),
                             daemon=True).start()

    server.serve(instance, host=host, port=port, on_start=announce)
    return EXIT_OK


class PlanFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"


def _plan_format(output: PlanFormat | None) -> PlanFormat:
    """The chosen format; github by default inside GitHub Actions (as validate)."""
    if output is not None:
        return output
    return PlanFormat.github if os.environ.get("GITHUB_ACTIONS") == "true" else PlanFormat.text


def _step_summary(markdown: str) -> None:
    """Append to ``$GITHUB_STEP_SUMMARY`` (the job's summary page) when it is set."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    from cmdsync.client.redact import redact

    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(redact(markdown) + "\n")
    except OSError as exc:
        console.warn(f"cannot write the job summary to {path}: {exc.strerror}")


ApiUrlOption = Annotated[str | None, typer.Option(
    "--api-url", help="Base URL of Discord's API (default: CMDSYNC_API_URL, else "
    "https://discord.com/api/v10).", show_default=False)]
LocalOption = Annotated[bool, typer.Option(
    "--local", help="Use the embedded emulator in-process, its state in "
    ".cmdsync/local.sqlite: no account needed.")]
ApplicationOption = Annotated[str | None, typer.Option(
    "--application-id", help="The application whose commands to read (default: the "
    "manifest's application_id, else DISCORD_APPLICATION_ID; the emulator's with --local).",
    show_default=False)]
TokenFileOption = Annotated[str | None, typer.Option(
    "--token-file", help="Read the bot token from FILE (instead of DISCORD_BOT_TOKEN).",
    metavar="FILE", show_default=False)]
SecretFileOption = Annotated[str | None, typer.Option(
    "--client-secret-file", help="Read DISCORD_CLIENT_SECRET from FILE.", metavar="FILE",
    show_default=False)]
EnvOption = Annotated[str | None, typer.Option(
    "--env", help="Use this environment of cmdsync.toml (application id, API URL, guild "
    "variables); default: its default_environment.", metavar="NAME", show_default=False)]


def _project(paths: list[str] | None, env_name: str | None
             ) -> tuple[list[str], Any, str | None]:
    """The manifest paths (given, else the configuration's), the environment mapping
    with the selected environment's variables (flag > environment > file), and where
    ``.cmdsync/`` lives: the project's root when there is a configuration (else None:
    the working directory), so a command run from a subfolder shares its state."""
    from cmdsync.runners.project import environment_for, find_config, resolve_paths

    project = find_config()
    return (resolve_paths(paths, project), environment_for(project, env_name, os.environ),
            project.root if project is not None else None)


OutputFileOption = Annotated[str | None, typer.Option(
    "--output", "-o", help="Write the manifest to FILE (default: standard output).",
    metavar="FILE", show_default=False)]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace FILE when it exists.")]
BearerFileOption = Annotated[str | None, typer.Option(
    "--bearer-token-file", help="Read the user's Bearer token (scope "
    "applications.commands.permissions.update) from FILE instead of DISCORD_BEARER_TOKEN; "
    "with client credentials it reads overwrites.", metavar="FILE", show_default=False)]


def _connection(*, api_url: str | None, local: bool, token_file: str | None,
                client_secret_file: str | None, bearer_token_file: str | None) -> Any:
    from cmdsync.runners.session import Connection

    if local and api_url:
        raise typer.BadParameter("--local runs the emulator in-process: drop --api-url",
                                 param_hint="'--api-url'")
    if api_url:
        from cmdsync.client.http import check_base_url

        check_base_url(api_url, source="--api-url")
    return Connection(api_url=api_url, local=local, token_file=token_file,
                      client_secret_file=client_secret_file,
                      bearer_token_file=bearer_token_file)


@app.command()
def plan(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Manifest files (.yaml, .yml, .json), directories, or bot code "
             "(discord.py:MODULE:ATTR); default: cmdsync.toml's manifests.",
        metavar="[MANIFEST]...", show_default=False)] = None,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    no_prune: Annotated[bool, typer.Option(
        "--no-prune", help="Keep live commands the manifest does not name.")] = False,
    output: Annotated[PlanFormat | None, typer.Option(
        "--format", "-f", help="text, json (schemas/plan.schema.json) or github (annotations "
        "at the manifest lines and the plan in the job summary; the default when "
        "GITHUB_ACTIONS=true).", show_default=False)] = None,
    detailed_exitcode: Annotated[bool, typer.Option(
        "--detailed-exitcode", help="Exit 0 with no changes, 2 with changes, 1 on error.")]
        = False,
    out: Annotated[str | None, typer.Option(
        "--out", help="Save the plan to FILE for `cmdsync apply FILE`, with the live state "
        "it was made from (for `apply --no-refresh`).", metavar="FILE",
        show_default=False)] = None,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    bearer_token_file: BearerFileOption = None,
    env_name: EnvOption = None,
) -> int:
    """Show, field by field, what apply would change in Discord."""
    from cmdsync.errors import EXIT_CHANGES, EXIT_FAILURE
    from cmdsync.render import diagnostics as render_diagnostics
    from cmdsync.render import plan as render
    from cmdsync.runners.plan import plan_paths

    output = _plan_format(output)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    paths, env, root = _project(paths, env_name)
    connection = _with_environment(connection, env_name)
    run = plan_paths(paths, connection=connection, application_id=application_id,
                     prune=not no_prune, env=env, cwd=root)
    if run.validation.diagnostics:
        console.err(render_diagnostics.to_text(run.validation))
        if output is PlanFormat.github:
            console.out(render_diagnostics.to_github(run.validation))
    if run.plan is None:  # with --detailed-exitcode, 2 means changes only (as Terraform)
        code = EXIT_USAGE if run.validation.unreadable and not detailed_exitcode \
            else EXIT_FAILURE
        if output is PlanFormat.json:
            console.out(render_diagnostics.failure_json(None, code, run.validation))
        elif output is PlanFormat.github:
            _step_summary(render_diagnostics.failure_markdown("plan", run.validation))
        return code
    result = run.plan
    if output is PlanFormat.json:
        console.out(render.to_json(result, api_url=run.api_url))
    elif output is PlanFormat.github:
        console.out(render.to_github(result, run.locations))
        _step_summary(render.to_markdown(result))
    else:
        console.text_or_rich(render.to_text(result), lambda: render.to_rich(result))
    if result.errors:
        if out:
            console.err(f"The plan has errors: not saved to {out}.\n")
        return EXIT_FAILURE
    if out:
        from cmdsync.runners.files import save_plan
        from cmdsync.runners.session import saved_plan_key

        save_plan(result, out, api_url=run.api_url, prior=run.live,
                  key=saved_plan_key(connection, env), manifest=run.validation.manifest,
                  cwd=root or os.getcwd())
        message = f"\nSaved the plan to {out}: apply it with `cmdsync apply {out}`.\n"
        if not console.QUIET:
            (console.err if output is PlanFormat.json else console.out)(message)
    return EXIT_CHANGES if detailed_exitcode and result.has_changes else EXIT_OK


app.command("diff", help="The same as plan: show what apply would change.")(plan)


class PullFormat(str, enum.Enum):
    """pull writes a manifest, not findings: no github format (annotations are for
    validate, plan and apply); its errors are on standard error, and with json also
    in one JSON document on standard output."""

    text = "text"
    json = "json"


@app.command()
def pull(
    guild: Annotated[list[str] | None, typer.Option(
        "--guild", help="Also pull this guild's commands and overwrites. Repeatable.",
        metavar="ID", show_default=False)] = None,
    output_file: OutputFileOption = None,
    force: ForceOption = False,
    output: Annotated[PullFormat, typer.Option(
        "--format", "-f", help="text (YAML), or json (the manifest as JSON; on an error, "
        "one JSON document with the error, as plan's).")] = PullFormat.text,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    bearer_token_file: BearerFileOption = None,
    env_name: EnvOption = None,
) -> int:
    """Write the live commands and overwrites as a manifest (plan on it: no changes)."""
    from cmdsync.runners.project import environment_for, find_config

    project = find_config()
    env = environment_for(project, env_name, os.environ)
    from cmdsync.runners.pull import pull_application

    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    text, warnings = pull_application(connection, guilds=list(dict.fromkeys(guild or [])),
                                      application_id=application_id, env=env,
                                      output=output_file, as_json=output is PullFormat.json,
                                      cwd=project.root if project is not None else None)
    for warning in warnings:
        console.warn(warning)
    return _write_manifest(text, output_file, force=force)


@app.command()
def export(
    source: Annotated[str, typer.Argument(
        help="Bot code: discord.py:MODULE:ATTR (a CommandTree, or a Client or Bot with "
             ".tree).", metavar="discord.py:MODULE:ATTR", show_default=False)],
    output_file: OutputFileOption = None,
    force: ForceOption = False,
) -> int:
    """Write the commands a discord.py CommandTree defines as a YAML manifest."""
    from cmdsync.runners.export import export_code

    _check_code_source(source)
    return _write_manifest(export_code(source), output_file, force=force)


def _check_code_source(source: str) -> None:
    if not source.startswith("discord.py:"):
        raise typer.BadParameter("give discord.py:MODULE:ATTR, such as discord.py:bot:tree",
                                 param_hint="'SOURCE'")


def _write_manifest(text: str, output_file: str | None, *, force: bool) -> int:
    """Print a manifest, or write it to ``output_file`` (never over a file without --force)."""
    if output_file is None:
        console.out(text)
        return EXIT_OK
    from cmdsync.manifest.files import write_file

    write_file(output_file, text, what="the manifest", overwrite=force, data=True)
    console.info(f"Wrote {output_file}.\n")
    return EXIT_OK


@app.command()
def check(
    source: Annotated[str, typer.Argument(
        help="Bot code: discord.py:MODULE:ATTR.", metavar="discord.py:MODULE:ATTR",
        show_default=False)],
    manifests: Annotated[list[str] | None, typer.Argument(
        help="Manifest files or directories to hold the handlers against.",
        metavar="[MANIFEST...]", show_default=False)] = None,
    live: Annotated[bool, typer.Option(
        "--live", help="Hold the handlers against the live commands instead (credentials "
        "as for plan).")] = False,
    output: Annotated[OutputFormat | None, typer.Option(
        "--format", "-f", help="text, json or github (the default when "
        "GITHUB_ACTIONS=true).")] = None,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    token_file: TokenFileOption = None,
) -> int:
    """Check discord.py handlers against the manifests (or live commands): each mismatch
    is reported at the manifest line and the handler line."""
    from cmdsync.runners.check import check_handlers

    _check_code_source(source)
    if live == bool(manifests):
        raise typer.BadParameter("give manifests, or --live (not both)",
                                 param_hint="'MANIFEST...' / '--live'")
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=None, bearer_token_file=None) if live else None
    result = check_handlers(source, list(manifests or []), connection=connection,
                            application_id=application_id)
    return _report(result, output)


class StrategyChoice(str, enum.Enum):
    auto = "auto"
    bulk = "bulk"
    per_command = "per-command"


class OnErrorChoice(str, enum.Enum):
    stop = "stop"
    continue_ = "continue"


@app.command()
def apply(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Manifest files or directories (a backup restores), or one saved plan "
             "(`cmdsync plan --out FILE`); default: cmdsync.toml's manifests.",
        metavar="[MANIFEST]...|PLANFILE", show_default=False)] = None,
    auto_approve: Annotated[bool, typer.Option(
        "--auto-approve", help="Apply without asking (for CI).")] = False,
    strategy: Annotated[StrategyChoice, typer.Option(
        "--strategy", help="bulk: one PUT per changed scope; per-command: POST/PATCH/DELETE "
        "for what changed; auto: fewer creates, then fewer requests.")] = StrategyChoice.auto,
    on_error: Annotated[OnErrorChoice, typer.Option(
        "--on-error", help="After a scope fails: stop, or continue with the other scopes.")]
        = OnErrorChoice.stop,
    output: Annotated[PlanFormat | None, typer.Option(
        "--format", "-f", help="text, json (the result, with every request made) or github "
        "(annotations and the job summary; the default when GITHUB_ACTIONS=true).",
        show_default=False)] = None,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    no_prune: Annotated[bool, typer.Option(
        "--no-prune", help="Keep live commands the manifest does not name.")] = False,
    no_refresh: Annotated[bool, typer.Option(
        "--no-refresh", help="With a saved plan: write it without reading live state again "
        "(Terraform's -refresh=false): no check that live state still matches the plan; "
        "the backup holds the state the plan was made from; commands are written one by "
        "one.")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="With a saved plan: apply it even if it was applied already, or "
        "another apply came since it was made (.cmdsync/applied.json); with --no-refresh, "
        "live state is then read for the backup.")] = False,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    bearer_token_file: BearerFileOption = None,
    env_name: EnvOption = None,
) -> int:
    """Make Discord match the manifests (or a saved plan), after showing the plan."""
    from cmdsync.apply.strategy import Strategy
    from cmdsync.render.apply import TerminalHooks
    from cmdsync.runners.apply import ApplyOptions, apply_paths, apply_saved, saved_plan_path

    output = _plan_format(output)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    options = ApplyOptions(Strategy(strategy.value), on_error.value, not no_prune,
                           application_id, force)
    paths, env, root = _project(paths, env_name)
    connection = _with_environment(connection, env_name)
    saved = saved_plan_path(paths)
    hooks = TerminalHooks(json_output=output is PlanFormat.json,
                          progress=sys.stderr.isatty())
    if saved is not None:
        run = apply_saved(saved, connection=connection, options=options, hooks=hooks,
                          env=env, cwd=root, refresh=not no_refresh, environment=env_name)
    elif no_refresh:
        raise UsageError("--no-refresh applies a saved plan (`cmdsync plan --out FILE`, then "
                         "`cmdsync apply --no-refresh FILE`): cmdsync keeps no state of its "
                         "own to plan manifests from")
    else:
        run = apply_paths(paths, connection=connection, options=options, hooks=hooks, env=env,
                          cwd=root,
                          interactive=not auto_approve, can_ask=_stdin_is_terminal())
    return _apply_exit(run, output=output)


LOGIN_HELP = (
    "Log in as a Discord user in the browser (OAuth2 with PKCE, redirected to "
    "http://127.0.0.1:PORT/callback, which the application must list under OAuth2 > "
    "Redirects) and store the Bearer token that plan and apply then use for permission "
    "overwrites when DISCORD_BEARER_TOKEN is not set. Scopes: identify, "
    "applications.commands.permissions.update, and guilds (so that `cmdsync auth status` "
    "lists the guilds you manage). Needs DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET.")


@app.command(help=LOGIN_HELP)
def login(
    env_name: EnvOption = None,
    no_browser: Annotated[bool, typer.Option(
        "--no-browser", help="Print the URL to open instead of opening a browser.")] = False,
    port: Annotated[int, typer.Option(
        "--port", help="The loopback port of the registered redirect URI "
        "http://127.0.0.1:PORT/callback.", min=1, max=65535, metavar="PORT")] = 53682,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds to wait for the browser's answer.", min=0,
        metavar="SECONDS")] = 300.0,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    import webbrowser

    from cmdsync.client.auth import client_credentials_from_env
    from cmdsync.client.logins import default_store
    from cmdsync.render import login as render
    from cmdsync.runners.login import LoginRequest
    from cmdsync.runners.login import login as run_login

    env = _login_env(env_name)
    credentials = client_credentials_from_env(env, client_secret_file=client_secret_file)
    place = _login_place(api_url, env_name, env, credentials.client_id)
    store = default_store()
    request = LoginRequest(place, credentials, port, timeout)

    def announce(url: str, opened: bool) -> None:
        console.err(render.authorize_prompt(url, opened, redirect_uri=_redirect(port)))

    try:
        found = run_login(request, announce=announce, store=store,
                          open_browser=None if no_browser else webbrowser.open)
    except KeyboardInterrupt:  # typer would exit 130 without a word
        console.err("\nInterrupted: the login was cancelled; nothing was stored.\n")
        return EXIT_INTERRUPTED
    console.out(render.logged_in(found, store.where))
    return EXIT_OK


@app.command()
def logout(
    env_name: EnvOption = None,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    """Revoke the token `cmdsync login` stored (POST /oauth2/token/revoke) and forget it;
    it is forgotten even when revoking fails (then said so)."""
    from cmdsync.render import login as render
    from cmdsync.runners.login import logout as run_logout

    place, credentials = _login_context(api_url, env_name, client_secret_file)
    result = run_logout(place, credentials=credentials)
    console.out(render.logged_out(result, place))
    return EXIT_OK if result.revoke_error is None else EXIT_FAILURE


auth_app = typer.Typer(help="The user's login (`cmdsync login`).", no_args_is_help=True,
                       rich_markup_mode=None)
app.add_typer(auth_app, name="auth")


@auth_app.command("status")
def auth_status(
    env_name: EnvOption = None,
    api_url: ApiUrlOption = None,
    client_secret_file: SecretFileOption = None,
) -> int:
    """Who is logged in (user id and name), the scopes, the expiry and the guilds that
    user may manage (GET /users/@me/guilds: Manage Server); never a token."""
    from cmdsync.render import login as render
    from cmdsync.runners import login as runner

    place, credentials = _login_context(api_url, env_name, client_secret_file)
    found = runner.status(place, credentials=credentials)
    console.out(render.status(found, clock=runner.now()))
    return EXIT_OK if found.login is not None else EXIT_FAILURE


def _login_env(env_name: str | None) -> Any:
    """The environment with the cmdsync.toml environment's variables (as plan's)."""
    from cmdsync.runners.project import environment_for, find_config

    return environment_for(find_config(), env_name, os.environ)


def _redirect(port: int) -> str:
    from cmdsync.client.loopback import redirect_uri

    return redirect_uri(port)


def _with_environment(connection: Any, env_name: str | None) -> Any:
    """``connection`` naming the environment whose stored login it may use."""
    from dataclasses import replace

    return replace(connection, environment=_environment_name(env_name))


def _environment_name(env_name: str | None) -> str:
    """The cmdsync.toml environment in use (named, else its default), or ""."""
    from cmdsync.runners.project import find_config

    project = find_config()
    chosen = project.environment(env_name) if project is not None else None
    return chosen.name if chosen is not None else ""


def _login_place(api_url: str | None, env_name: str | None, env: Any, client_id: str) -> Any:
    """Where a login is stored: the API URL, the application (the client id, which must
    be DISCORD_APPLICATION_ID when that is set) and the environment."""
    from cmdsync.client.logins import Place
    from cmdsync.runners.session import Connection, api_base

    application = env.get("DISCORD_APPLICATION_ID", "").strip()
    if application and application != client_id:
        raise UsageError(f"DISCORD_CLIENT_ID {client_id} is not DISCORD_APPLICATION_ID "
                         f"{application}: a user's token is valid for the application that "
                         "asked for it; use that application's client id and secret")
    return Place(api_base(Connection(api_url=api_url), env), client_id,
                 _environment_name(env_name))


def _login_context(api_url: str | None, env_name: str | None,
                   client_secret_file: str | None) -> tuple[Any, Any]:
    """The login's place and the client credentials (None when unset:
    logout and status then do without)."""
    from cmdsync.client.auth import client_credentials_from_env

    env = _login_env(env_name)
    try:
        credentials = client_credentials_from_env(env, client_secret_file=client_secret_file)
    except UsageError:
        if client_secret_file:
            raise
        credentials = None
    application = credentials.client_id if credentials is not None else \
        (env.get("DISCORD_APPLICATION_ID", "") or env.get("DISCORD_CLIENT_ID", "")).strip()
    if not application:
        raise UsageError("no application: set DISCORD_CLIENT_ID (or DISCORD_APPLICATION_ID, "
                         "or pick a cmdsync.toml environment with --env)")
    return _login_place(api_url, env_name, env, application), credentials


class ContextChoice(str, enum.Enum):
    guild = "guild"
    bot_dm = "bot_dm"
    private_channel = "private_channel"


@app.command()
def invoke(
    line: Annotated[str | None, typer.Argument(
        help="The command as typed in Discord: '/mod ban user:<@123> reason:\"spam\"' "
             "(quote it for the shell).", metavar="'/COMMAND ...'", show_default=False)]
        = None,
    user_command: Annotated[str | None, typer.Option(
        "--user-command", help="Run the user command NAME on --target (a user id).",
        metavar="NAME", show_default=False)] = None,
    message_command: Annotated[str | None, typer.Option(
        "--message-command", help="Run the message command NAME on --target (a message "
        "id).", metavar="NAME", show_default=False)] = None,
    target: Annotated[str | None, typer.Option(
        "--target", help="The user or message a context-menu command runs on.",
        metavar="ID", show_default=False)] = None,
    autocomplete: Annotated[bool, typer.Option(
        "--autocomplete", help="Send an autocomplete interaction: the last option of the "
        "command line is the one being typed (focused).")] = False,
    guild: Annotated[str | None, typer.Option(
        "--guild", help="Run it in this guild (default: in a DM with the bot).",
        metavar="ID", show_default=False)] = None,
    channel: Annotated[str | None, typer.Option(
        "--channel", help="In this channel (default: the guild's first text channel).",
        metavar="ID", show_default=False)] = None,
    user: Annotated[str | None, typer.Option(
        "--user", help="As this user (default: the guild's owner).", metavar="ID",
        show_default=False)] = None,
    locale: Annotated[str, typer.Option(
        "--locale", help="The user's client locale (the interaction's locale).",
        metavar="TAG")] = "en-US",
    context: Annotated[ContextChoice | None, typer.Option(
        "--context", help="guild, bot_dm or private_channel (default: guild with --guild, "
        "else bot_dm).", show_default=False)] = None,
    endpoint: Annotated[str | None, typer.Option(
        "--endpoint", help="First set the application's interactions endpoint URL (verified "
        "with signed PINGs, as Discord does).", metavar="URL", show_default=False)] = None,
    wait: Annotated[float, typer.Option(
        "--wait", help="Wait SECONDS for follow-up messages after the response.",
        metavar="SECONDS")] = 0.0,
    follow_ups: Annotated[int, typer.Option(
        "--follow-ups", help="With --wait: stop waiting once N follow-ups arrived.",
        metavar="N")] = 0,
    output: Annotated[PlanFormat, typer.Option(
        "--format", "-f", help="text, or json (the whole exchange).")] = PlanFormat.text,
    api_url: Annotated[str | None, typer.Option(
        "--api-url", help="The emulator's API URL, e.g. http://127.0.0.1:8787/api/v10 "
        "(default: CMDSYNC_API_URL).", metavar="URL", show_default=False)] = None,
    local: LocalOption = False,
    application_id: Annotated[str | None, typer.Option(
        "--application-id", help="The application to run it for (default: "
        "DISCORD_APPLICATION_ID, else the emulator's only one).", metavar="ID",
        show_default=False)] = None,
    token_file: TokenFileOption = None,
) -> int:
    """Run a command against the emulator as a user in Discord would: the emulator
    checks it, signs the interaction and POSTs it to your bot; shows the response.

    Exit codes: 0 the bot answered; 1 refused (the reason is printed), outdated, or the
    interaction failed (no answer, not JSON, or what Discord would refuse: 50035);
    2 usage errors; 130 interrupted while waiting.
    """
    from cmdsync.render import invoke as render
    from cmdsync.runners.invoke import Request
    from cmdsync.runners.invoke import invoke as run_invoke

    given = [name for name, value in (("a command line", line),
                                      ("--user-command", user_command),
                                      ("--message-command", message_command)) if value]
    if len(given) != 1:
        raise UsageError("give one of: a command line ('/ping'), --user-command NAME or "
                         "--message-command NAME" + (f" (got {' and '.join(given)})"
                                                     if given else ""))
    if target and line:
        raise UsageError("--target is for --user-command and --message-command")
    kind = "user" if user_command else "message" if message_command else "chat_input"
    if local and wait:
        console.warn("with --local the emulator runs inside this command: your bot cannot "
                     "reach it for follow-ups (run `cmdsync emulator` and --api-url)")
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=None, bearer_token_file=None)
    result = run_invoke(connection, Request(
        line=line, kind=kind, name=user_command or message_command, target=target,
        autocomplete=autocomplete, guild=guild, channel=channel, user=user, locale=locale,
        context=context.value if context else None, endpoint=endpoint, wait=wait,
        follow_ups=follow_ups),
        application_id=application_id)
    if output is PlanFormat.json:
        console.out(render.to_json(result))
    elif result.refused or result.outdated:
        console.err(render.to_text(result))
    else:
        console.text_or_rich(render.to_text(result), lambda: render.to_rich(result))
    if result.interrupted:
        console.err("\nInterrupted while waiting for follow-ups.\n")
        return EXIT_INTERRUPTED
    return EXIT_OK if result.ok else EXIT_FAILURE


def _stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _apply_exit(run: Any, *, output: PlanFormat) -> int:
    """Write an apply's outcome and return its exit code."""
    json_output = output is PlanFormat.json
    from cmdsync.errors import EXIT_FAILURE, EXIT_TERMINATED
    from cmdsync.render import apply as render
    from cmdsync.render import diagnostics as render_diagnostics

    if run.validation is not None and run.validation.diagnostics:
        console.err(render_diagnostics.to_text(run.validation))
        if output is PlanFormat.github:  # annotations at the manifest lines, as plan's
            console.out(render_diagnostics.to_github(run.validation))
    if run.declined:
        console.err(render.CANCELLED + "\n")
        if json_output:
            console.out(render_diagnostics.failure_json(render.CANCELLED, EXIT_FAILURE))
        return EXIT_FAILURE
    if run.result is None:
        code = EXIT_USAGE if run.validation.unreadable else EXIT_FAILURE
        if json_output:
            console.out(render_diagnostics.failure_json(None, code, run.validation))
        elif output is PlanFormat.github:
            _step_summary(render_diagnostics.failure_markdown("apply", run.validation))
        return code
    if json_output:
        console.out(render.to_json(run.result))
    else:
        shown = run.validation is not None and run.result.scopes  # below the plan
        console.out(("\n" if shown else "") + render.to_text(run.result))
    if output is PlanFormat.github:
        console.out(render.to_github(run.result, run.locations))
        _step_summary(render.to_markdown(run.result))
    if run.result.interrupted:
        return EXIT_TERMINATED if run.result.interrupted == "SIGTERM" else EXIT_INTERRUPTED
    return EXIT_OK if run.result.ok else EXIT_FAILURE


def _check_rule_prefix(value: str) -> None:
    from cmdsync.validate.rules import all_rules

    if not any(rule.id.startswith(value.upper()) for rule in all_rules()):
        raise typer.BadParameter(f"no rule id starts with {value!r}: `cmdsync rules` lists "
                                 "them", param_hint="'--select' / '--ignore'")



SECRET_OPTIONS = ("--token", "--bot-token", "--client-secret", "--bearer-token")
TOKEN_ON_COMMAND_LINE = (
    "a token on the command line is visible to every user of this machine (ps) and kept "
    "in shell history: set DISCORD_BOT_TOKEN (or DISCORD_CLIENT_SECRET, "
    "DISCORD_BEARER_TOKEN) in the environment, or pass --token-file FILE "
    "(--client-secret-file, --bearer-token-file)")


def _refuse_tokens(args: list[str]) -> None:
    """Refuse a token given as an argument, before anything echoes it (never named)."""
    from cmdsync.client.redact import looks_like_secret

    for arg in args:
        if arg.split("=", 1)[0] in SECRET_OPTIONS or looks_like_secret(arg):
            raise UsageError(TOKEN_ON_COMMAND_LINE)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and exit with its code; the one error boundary.

    Messages go out through :mod:`cmdsync.render.console`, which redacts
    secrets, so none is printed even when an error carries one. SIGTERM
    (what a CI cancel sends) ends a command with a message and exit 143;
    during apply's writes it stops apply cleanly instead (see
    :mod:`cmdsync.runners.apply`).
    """
    # typer vendors click in recent releases; find its ClickException either way.
    click_exception: type[Exception] = next(c for c in typer.BadParameter.__mro__
                                            if c.__name__ == "ClickException")
    previous = _on_sigterm(_terminated)
    args = sys.argv[1:] if argv is None else argv
    args = _hoist_global_options(args)
    args = _pre_commit_paths(args)
    # With --detailed-exitcode, 2 means "changes" and nothing else: usage errors exit 1.
    detailed = "--detailed-exitcode" in args
    try:
        _refuse_tokens(args)
        code = app(args=args, standalone_mode=False, prog_name="cmdsync")
    except typer.Exit as exc:
        code = exc.exit_code
    except click_exception as exc:
        exc.show()  # type: ignore[attr-defined]
        _file_not_option(exc)
        code = EXIT_FAILURE if detailed else exc.exit_code  # type: ignore[attr-defined]
        _json_failure(args, exc.format_message(), code)  # type: ignore[attr-defined]
        _github_failure(args, exc.format_message())  # type: ignore[attr-defined]
    except (typer.Abort, KeyboardInterrupt):
        console.err("\nInterrupted.\n")
        code = EXIT_INTERRUPTED
    except Terminated:
        console.err("\nTerminated (SIGTERM).\n")
        code = EXIT_TERMINATED
    except CmdsyncError as exc:
        console.err(f"error: {printable_lines(str(exc))}\n")
        code = EXIT_FAILURE if detailed else exc.exit_code
        _json_failure(args, str(exc), code)
        _github_failure(args, str(exc))
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is a bug, said so
        if os.environ.get("CMDSYNC_DEBUG"):
            import traceback

            console.err("".join(traceback.format_exception(exc)))
        console.err(
            f"internal error: {type(exc).__name__}: {printable_lines(str(exc))}\n"
            "This is a bug in cmdsync. Please report it with the command you ran "
            "(and set CMDSYNC_DEBUG=1 to see the traceback).\n")
        code = EXIT_BUG
        _json_failure(args, f"internal error: {type(exc).__name__}: {exc}", code)
    finally:
        _on_sigterm(previous)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


JSON_COMMANDS = ("validate", "plan", "diff", "apply", "invoke", "pull")


GLOBAL_FLAGS = ("-q", "--quiet", "--no-color")


def _hoist_global_options(args: list[str]) -> list[str]:
    """``args`` with the global flags (``-q``, ``--quiet``, ``--no-color``) given after
    the subcommand moved before it, where click reads them: pre-commit's ``args:``
    and habit put them last (``cmdsync validate --quiet``). Option values (``--out
    -q`` names a file) and everything after ``--`` stay where they are."""
    if not any(arg in GLOBAL_FLAGS for arg in args):
        return args
    at = next((i for i, arg in enumerate(args) if not arg.startswith("-")), None)
    command = None if at is None else \
        getattr(typer.main.get_command(app), "commands", {}).get(args[at])
    if at is None or command is None:
        return args
    takes_value = {opt for param in command.params
                   if param.param_type_name == "option" and not getattr(param, "is_flag", False)
                   and not getattr(param, "count", False)
                   for opt in (*param.opts, *param.secondary_opts)}
    hoisted: list[str] = []
    rest: list[str] = []
    tail = iter(args[at + 1:])
    for arg in tail:
        if arg == "--":
            rest += [arg, *tail]
            break
        if arg in GLOBAL_FLAGS:
            hoisted.append(arg)
            continue
        rest.append(arg)
        if arg in takes_value:
            rest += itertools.islice(tail, 1)  # its value, whatever it looks like
    return [*args[:at], *hoisted, args[at], *rest]


def _format_requested(args: list[str]) -> str | None:
    """The value of ``--format``/``-f`` on the command line (None when not given)."""
    for flag, value in itertools.pairwise(args):
        if flag in ("--format", "-f"):
            return value
    return next((a.split("=", 1)[1] if a.startswith("--format=") else a[2:]
                 for a in args if a.startswith(("--format=", "-f")) and len(a) > 2), None)


def _pre_commit_paths(args: list[str]) -> list[str]:
    """``validate --pre-commit ARGS``: pre-commit appends the committed files' names
    after the hook's own args, so a file named ``--pong.yaml`` would be read as an
    option. Every argument that is no option of validate (nor an option's value) and
    names a file moves after ``--``; the hook's ``args:`` keep working, which an entry
    ending with ``--`` would break."""
    at = next((i for i, arg in enumerate(args) if not arg.startswith("-")), None)
    if at is None or args[at] != "validate" or "--pre-commit" not in args[at + 1:] \
            or "--" in args:
        return args
    command = typer.main.get_command(app).commands["validate"]  # type: ignore[attr-defined]
    options = {opt: not getattr(param, "is_flag", False) for param in command.params
               if param.param_type_name == "option" for opt in param.opts}
    kept: list[str] = []
    paths: list[str] = []
    tail = iter(args[at + 1:])
    for arg in tail:
        takes_value = options.get(arg.split("=", 1)[0])
        if takes_value is None and arg.startswith("-") and os.path.lexists(arg):
            paths.append(arg)  # a file's name, not an option
            continue
        kept.append(arg)
        if takes_value and "=" not in arg:
            kept += itertools.islice(tail, 1)  # its value, whatever it looks like
    return [*args[:at + 1], *kept, *(["--", *paths] if paths else [])]


def _file_not_option(exc: Exception) -> None:
    """After click's "No such option: --pong.yaml": when a file has that name, how to
    pass it (as for rm and git)."""
    name = getattr(exc, "option_name", None)
    if not (isinstance(name, str) and name.startswith("-") and os.path.lexists(name)):
        return
    command = getattr(getattr(exc, "ctx", None), "command_path", None) or "cmdsync"
    shown = printable_lines(name)
    console.err(f"A file named {shown}? Pass it after -- ({command} -- {shown}) or as "
                f"./{shown}.\n")


def _github_failure(args: list[str], message: str) -> None:
    """With ``--format github`` (or inside GitHub Actions), a plan or apply that failed
    before its result still leaves an ``::error`` annotation and a job-summary section."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in ("plan", "diff", "apply"):
        return
    chosen = _format_requested(args)
    if chosen != "github" and not (chosen is None
                                   and os.environ.get("GITHUB_ACTIONS") == "true"):
        return
    from cmdsync.render.diagnostics import annotation
    from cmdsync.render.escape import fenced

    verb = "plan" if command == "diff" else command
    console.out(annotation("error", message, title=f"cmdsync {verb}") + "\n")
    _step_summary(f"### cmdsync {verb}\n\n**Failed:**\n\n{fenced(printable_lines(message))}")


def _json_failure(args: list[str], message: str, code: int) -> None:
    """With ``--format json``, a run that failed before its result still prints one JSON
    document on standard output (the error in it), so a pipeline always parses one."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in JSON_COMMANDS or _format_requested(args) != "json":
        return
    from cmdsync.render.diagnostics import failure_json

    console.out(failure_json(message, code))


class Terminated(BaseException):
    """SIGTERM arrived outside apply's writing (which stops cleanly and reports)."""


def _on_sigterm(handler: Any) -> Any:
    """Set the SIGTERM handler, returning the previous one (None off the main thread)."""
    try:
        return signal.signal(signal.SIGTERM, handler)
    except (ValueError, TypeError):  # not the main thread, or no handler to restore
        return None


def _terminated(number: int, frame: object) -> None:
    raise Terminated
