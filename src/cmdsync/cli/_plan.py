"""``cmdsync plan`` (and ``diff``), ``pull``, ``export`` and ``check``: the commands that read."""

from __future__ import annotations

import enum
import os
from typing import Annotated

import typer

from cmdsync.cli._shared import (
    ApiUrlOption,
    ApplicationOption,
    BearerFileOption,
    EnvOption,
    ForceOption,
    LocalOption,
    NoPruneOption,
    OutputFileOption,
    OutputFormat,
    PlanFormat,
    SecretFileOption,
    TokenFileOption,
    _check_code_source,
    _connection,
    _plan_format,
    _project,
    _report,
    _step_summary,
    _with_environment,
    _write_manifest,
    app,
    keep_until_exit,
)
from cmdsync.errors import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
)
from cmdsync.render import console


@app.command()
def plan(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Manifest files (.yaml, .yml, .json), directories, or bot code "
             "(discord.py:MODULE:ATTR); default: cmdsync.toml's manifests.",
        metavar="[MANIFEST]...", show_default=False)] = None,
    api_url: ApiUrlOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    no_prune: NoPruneOption = False,
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
    from cmdsync.errors import EXIT_CHANGES
    from cmdsync.runners.plan import plan_paths

    output = _plan_format(output)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    paths, env, root = _project(paths, env_name)
    connection = _with_environment(connection, env_name)
    run = plan_paths(paths, connection=connection, application_id=application_id,
                     prune=not no_prune, env=env, cwd=root)
    keep_until_exit(run)
    # after the first request: plan_paths loads them while its reads wait
    from cmdsync.render import diagnostics as render_diagnostics
    from cmdsync.render import plan as render

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
                  key=saved_plan_key(connection, env, cwd=root or os.getcwd(), create=True),
                  manifest=run.validation.manifest,
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
