"""``cmdsync apply``: make Discord match the manifests or a saved plan."""

from __future__ import annotations

import enum
import sys
from typing import Annotated, Any

import typer

from cmdsync.cli._shared import (
    ApiUrlOption,
    ApplicationOption,
    BearerFileOption,
    EnvOption,
    LocalOption,
    NoPruneOption,
    PlanFormat,
    SecretFileOption,
    TimeoutOption,
    TokenFileOption,
    _connection,
    _plan_format,
    _project,
    _step_summary,
    _timed,
    _with_environment,
    app,
    keep_until_exit,
    refresh_notes,
)
from cmdsync.errors import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    UsageError,
)
from cmdsync.render import console


class StrategyChoice(str, enum.Enum):
    auto = "auto"
    bulk = "bulk"
    per_command = "per-command"


class OnErrorChoice(str, enum.Enum):
    stop = "stop"
    continue_ = "continue"


@app.command(short_help="Make Discord match the manifests, or a saved plan.")
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
    timeout: TimeoutOption = None,
    local: LocalOption = False,
    application_id: ApplicationOption = None,
    no_prune: NoPruneOption = False,
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
    """Make Discord match the manifests (or a saved plan), after showing the plan.

    Exit codes: 0 applied, or nothing to apply; 1 errors in the manifests or the plan, an
    apply refused or declined, or a scope that failed (the report says what was written);
    2 usage errors or an unreadable manifest; 130 interrupted (Ctrl-C) and 143 terminated
    (SIGTERM): the writes stop cleanly, and the report says what was written.
    """
    from cmdsync.apply.strategy import Strategy
    from cmdsync.runners.apply import ApplyOptions, apply_paths
    from cmdsync.runners.apply_saved import apply_saved, saved_plan_path
    from cmdsync.runners.saved_checks import environment_to_apply

    output = _plan_format(output)
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=client_secret_file,
                             bearer_token_file=bearer_token_file)
    options = ApplyOptions(Strategy(strategy.value), on_error.value, not no_prune,
                           application_id, force)
    saved = saved_plan_path(paths) if paths else None
    recorded = environment_to_apply(saved, env_name) if saved is not None else None
    chosen = _project(paths, env_name or recorded, chosen_by=None if env_name or not recorded
                      else f"the saved plan's environment {recorded}")
    env, root, copy = chosen.env, chosen.root, chosen.copy_target()
    connection = _with_environment(connection, env_name or recorded)
    connection = _timed(connection, timeout, chosen.project, chosen.environment)
    hooks = _hooks(json_output=output is PlanFormat.json, progress=sys.stderr.isatty(),
                   heading=copy.heading if copy is not None else None)
    if saved is not None:
        if copy is not None and output is not PlanFormat.json:
            console.out(copy.heading + "\n\n")
        run = apply_saved(saved, connection=connection, options=options, hooks=hooks,
                          env=env, cwd=root, refresh=not no_refresh,
                          environment=env_name or recorded, copy_global_to=copy)
    elif no_refresh:
        raise UsageError("--no-refresh applies a saved plan (`cmdsync plan --out FILE`, then "
                         "`cmdsync apply --no-refresh FILE`): cmdsync keeps no state of its "
                         "own to plan manifests from")
    else:
        run = apply_paths(chosen.paths, connection=connection, options=options, hooks=hooks,
                          env=env, cwd=root, interactive=not auto_approve,
                          can_ask=_stdin_is_terminal(), copy_global_to=copy)
    keep_until_exit(run)
    refresh_notes()
    return _apply_exit(run, output=output)


def _hooks(*, json_output: bool, progress: bool, heading: str | None) -> Any:
    """The terminal hooks, which show ``heading`` (where the global commands go) above
    the plan."""
    from cmdsync.render.apply import TerminalHooks

    class Headed(TerminalHooks):
        def show_plan(self, plan: Any) -> None:
            if heading is not None and not self.json_output:
                console.out(heading + "\n\n")
            super().show_plan(plan)

    return Headed(json_output=json_output, progress=progress)


def _stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _apply_exit(run: Any, *, output: PlanFormat) -> int:
    """Write an apply's outcome and return its exit code."""
    json_output = output is PlanFormat.json
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
