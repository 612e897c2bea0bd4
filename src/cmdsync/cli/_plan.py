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
    TimeoutOption,
    TokenFileOption,
    _check_code_source,
    _connection,
    _plan_format,
    _project,
    _report,
    _step_summary,
    _timed,
    _with_environment,
    _write_manifest,
    app,
    keep_until_exit,
    refresh_notes,
)
from cmdsync.errors import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
)
from cmdsync.render import console


@app.command(short_help="Show, field by field, what apply would change in Discord.")
def plan(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Manifest files (.yaml, .yml, .json), directories, or bot code "
             "(discord.py:MODULE:ATTR); default: cmdsync.toml's manifests.",
        metavar="[MANIFEST]...", show_default=False)] = None,
    api_url: ApiUrlOption = None,
    timeout: TimeoutOption = None,
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
    """Show, field by field, what apply would change in Discord.

    Exit codes: 0 the plan was made (with --detailed-exitcode: no changes); 1 errors in
    the manifests or the plan, or a request failed (nothing is saved); 2 usage errors or
    an unreadable manifest (with --detailed-exitcode: changes to apply, and nothing else:
    those errors exit 1 then); 130 interrupted.
    """
    from cmdsync.errors import EXIT_CHANGES
    from cmdsync.runners.plan import plan_paths

    output = _plan_format(output)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    chosen = _project(paths, env_name)
    env, root, copy = chosen.env, chosen.root, chosen.copy_target()
    connection = _with_environment(connection, env_name)
    connection = _timed(connection, timeout, chosen.project, chosen.environment)
    run = plan_paths(chosen.paths, connection=connection, application_id=application_id,
                     prune=not no_prune, env=env, cwd=root, copy_global_to=copy)
    keep_until_exit(run)
    refresh_notes()  # a plan reading overwrites may have spent a refresh token
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
    if copy is not None:  # which guild the global commands go to, above the plan
        (console.err if output is PlanFormat.json else console.out)(copy.heading + "\n\n")
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

        environment = chosen.environment
        save_plan(result, out, api_url=run.api_url, prior=run.live,
                  key=saved_plan_key(connection, env, cwd=root or os.getcwd(), create=True),
                  manifest=run.validation.manifest,
                  cwd=root or os.getcwd(),
                  environment=None if environment is None else {
                      "name": environment.name,
                      "copy_global_to": copy.guild if copy is not None else None})
        hint = _apply_command(out, api_url=api_url, token_file=token_file,
                              client_secret_file=client_secret_file,
                              bearer_token_file=bearer_token_file)
        message = f"\nSaved the plan to {out}: apply it with `{hint}`.\n"
        if not console.QUIET:
            (console.err if output is PlanFormat.json else console.out)(message)
    return EXIT_CHANGES if detailed_exitcode and result.has_changes else EXIT_OK


app.command("diff", help="The same as plan: show what apply would change. Exit codes as "
            "for plan.", short_help="The same as plan: show what apply would change.")(plan)


def _apply_command(out: str, *, api_url: str | None, token_file: str | None,
                   client_secret_file: str | None, bearer_token_file: str | None) -> str:
    """The command that applies the plan saved to ``out``, as a shell takes it: with the
    flags apply needs that the plan does not record. A local plan, the environment and
    its variables are recorded; ``--api-url`` and the credential files given to plan
    are not (a plan never chooses where a token goes)."""
    import shlex

    words = ["cmdsync", "apply"]
    for flag, value in (("--api-url", api_url), ("--token-file", token_file),
                        ("--client-secret-file", client_secret_file),
                        ("--bearer-token-file", bearer_token_file)):
        if value:
            words += [flag, shlex.quote(value)]
    return " ".join([*words, shlex.quote(f"./{out}" if out.startswith("-") else out)])


class PullFormat(str, enum.Enum):
    """pull writes a manifest, not findings: no github format (annotations are for
    validate, plan and apply); its errors are on standard error, and with json also
    in one JSON document on standard output."""

    text = "text"
    json = "json"


PullApplicationOption = Annotated[str | None, typer.Option(
    "--application-id", help="The application whose commands to pull (default: "
    "DISCORD_APPLICATION_ID, else the application_id of the cmdsync.toml environment; the "
    "emulator's with --local).", metavar="ID", show_default=False)]


@app.command(short_help="Write the live commands and overwrites as a manifest.")
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
    timeout: TimeoutOption = None,
    local: LocalOption = False,
    application_id: PullApplicationOption = None,
    token_file: TokenFileOption = None,
    client_secret_file: SecretFileOption = None,
    bearer_token_file: BearerFileOption = None,
    env_name: EnvOption = None,
) -> int:
    """Write the live commands and overwrites as a manifest (plan on it: no changes).

    With no manifest to name it, the application is --application-id, else
    DISCORD_APPLICATION_ID, else the application_id of the cmdsync.toml environment
    (--env NAME, else its default_environment); with --local, the emulator's.
    """
    from cmdsync.runners.pull import pull_application

    chosen = _project(None, env_name, need_paths=False)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    connection = _with_environment(connection, env_name)
    connection = _timed(connection, timeout, chosen.project, chosen.environment)
    text, warnings = pull_application(connection, guilds=list(dict.fromkeys(guild or [])),
                                      application_id=application_id, env=chosen.env,
                                      output=output_file, as_json=output is PullFormat.json,
                                      cwd=chosen.root, copy_global_to=chosen.copy_target())
    for warning in warnings:
        console.warn(warning)
    return _write_manifest(text, output_file, force=force)


@app.command(short_help="Write the commands of a discord.py CommandTree as a manifest.")
def export(
    source: Annotated[str, typer.Argument(
        help="Bot code: discord.py:MODULE:ATTR (a CommandTree, or a Client or Bot with "
             ".tree).", metavar="discord.py:MODULE:ATTR", show_default=False)],
    output_file: OutputFileOption = None,
    force: ForceOption = False,
    env_name: Annotated[str | None, typer.Option(
        "--env", help="Import the bot code with this environment of cmdsync.toml's "
        "variables set (its guilds, DISCORD_APPLICATION_ID); default: its "
        "default_environment.", metavar="NAME", show_default=False)] = None,
) -> int:
    """Write the commands a discord.py CommandTree defines as a YAML manifest."""
    from cmdsync.runners.export import export_code

    _check_code_source(source)
    chosen = _project(None, env_name, need_paths=False)
    return _write_manifest(export_code(source, env=chosen.env), output_file, force=force)


@app.command(short_help="Check discord.py handlers against the manifests.")
def check(
    source: Annotated[str, typer.Argument(
        help="Bot code: discord.py:MODULE:ATTR.", metavar="discord.py:MODULE:ATTR",
        show_default=False)],
    manifests: Annotated[list[str] | None, typer.Argument(
        help="Manifest files or directories to hold the handlers against (default: "
             "cmdsync.toml's manifests, of the environment).",
        metavar="[MANIFEST]...", show_default=False)] = None,
    live: Annotated[bool, typer.Option(
        "--live", help="Hold the handlers against the live commands instead (credentials "
        "as for plan).")] = False,
    output: Annotated[OutputFormat | None, typer.Option(
        "--format", "-f", help="text, json or github (the default when "
        "GITHUB_ACTIONS=true).")] = None,
    api_url: ApiUrlOption = None,
    timeout: TimeoutOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    token_file: TokenFileOption = None,
    env_name: EnvOption = None,
) -> int:
    """Check discord.py handlers against the manifests (or live commands): each mismatch
    is reported at the manifest line and the handler line."""
    from cmdsync.runners.check import check_handlers

    _check_code_source(source)
    if live and manifests:
        raise typer.BadParameter("give manifests, or --live (not both)",
                                 param_hint="'[MANIFEST]...' / '--live'")
    chosen = _project(manifests, env_name, need_paths=not live)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=None, bearer_token_file=None) if live else None
    if connection is not None:
        connection = _with_environment(connection, env_name)
        connection = _timed(connection, timeout, chosen.project, chosen.environment)
    result = check_handlers(source, chosen.paths, connection=connection,
                            application_id=application_id, env=chosen.env, cwd=chosen.root)
    return _report(result, output)
