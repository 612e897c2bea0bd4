"""What the commands share: the typer app, the root options, output formats, the options
of the commands that reach an API, and how a manifest or a result is written."""

from __future__ import annotations

import enum
import os
from typing import Annotated, Any

import typer

from cmdsync import __version__
from cmdsync.errors import (
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
)
from cmdsync.render import console

app = typer.Typer(
    name="cmdsync",
    help="Declarative Discord application commands: validate, plan and apply.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, pwsh)
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # as ruff, git and kubectl
)


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"


class ExchangeFormat(str, enum.Enum):
    """The formats of a command whose output is no list of findings (``invoke``): text
    or json; a format it does not take is a usage error naming these (exit 2)."""

    text = "text"
    json = "json"


class RulesFormat(str, enum.Enum):
    text = "text"
    markdown = "markdown"


# What a command's results hold (see keep_until_exit); emptied by cmdsync.cli.main.
KEPT: list[object] = []


def keep_until_exit(*objects: object) -> None:
    """Hold ``objects`` (a plan, the live state it saw) until the process ends.

    A plan of thousands of commands is tens of thousands of dicts: freeing
    them one by one as the command returns only delays the exit (about 20 ms
    for 5,000 distinct commands), after the output is written. Run as a
    process, :func:`cmdsync.cli.main` ends it without freeing them; called in
    a test, it lets them go.
    """
    KEPT.extend(objects)


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
    "https://discord.com/api/v10).", metavar="URL", show_default=False)]
TimeoutOption = Annotated[float | None, typer.Option(
    "--timeout", help="Seconds to wait for each request before it fails (default: "
    "CMDSYNC_TIMEOUT, else cmdsync.toml's timeout, else 15).", metavar="SECONDS",
    show_default=False)]
LocalOption = Annotated[bool, typer.Option(
    "--local", help="Use the embedded emulator in-process, its state in "
    ".cmdsync/local.sqlite: no account needed.")]
ApplicationOption = Annotated[str | None, typer.Option(
    "--application-id", help="The application whose commands to read (default: the "
    "manifest's application_id, else DISCORD_APPLICATION_ID; the emulator's with --local).",
    metavar="ID", show_default=False)]
TokenFileOption = Annotated[str | None, typer.Option(
    "--token-file", help="Read the bot token from FILE (instead of DISCORD_BOT_TOKEN).",
    metavar="FILE", show_default=False)]
SecretFileOption = Annotated[str | None, typer.Option(
    "--client-secret-file", help="Read DISCORD_CLIENT_SECRET from FILE.", metavar="FILE",
    show_default=False)]
NoPruneOption = Annotated[bool, typer.Option(
    "--no-prune", help="Keep live commands the manifest does not name.")]
EnvOption = Annotated[str | None, typer.Option(
    "--env", help="Use this environment of cmdsync.toml (application id, API URL, guild "
    "variables); default: its default_environment.", metavar="NAME", show_default=False)]


def _project(paths: list[str] | None, env_name: str | None, *, need_paths: bool = True,
             chosen_by: str | None = None) -> Any:
    """The :class:`~cmdsync.runners.project.Selection` of a command: the manifest paths
    (given, else the environment's, when ``need_paths``), the environment mapping with
    the selected environment's variables (flag > environment > file), where
    ``.cmdsync/`` lives (the project's root when there is a configuration, so a command
    run from a subfolder shares its state), and the environment selected."""
    from cmdsync.runners.project_file import select

    return select(paths, env_name, os.environ, need_paths=need_paths, chosen_by=chosen_by)


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


# Seconds a request goes unanswered before the command says what it waits for.
NOTICE_AFTER = 3.0


def _timed(connection: Any, timeout: float | None, project: Any, environment: Any, *,
           keep_unset: bool = False) -> Any:
    """``connection`` with its client's timeout: ``--timeout``, else ``CMDSYNC_TIMEOUT``,
    else the configuration's (``environment``'s, else ``project``'s top-level one), else
    the client's default; and, over the network, a note on standard error for each
    request unanswered after :data:`NOTICE_AFTER` seconds. ``keep_unset``: when none
    of those sets a timeout, ``connection`` as it is (``invoke`` waits its own)."""
    from dataclasses import replace

    from cmdsync.client.http import ClientConfig

    seconds = _timeout_seconds(timeout, project, environment)
    if seconds is None:
        if keep_unset:
            return connection
        seconds = ClientConfig.timeout
    config = ClientConfig(timeout=seconds, notice_after=NOTICE_AFTER,
                          on_wait=None if connection.local else _say_waiting)
    return replace(connection, config=config)


def _timeout_seconds(timeout: float | None, project: Any, environment: Any
                     ) -> float | None:
    """The seconds of :func:`_timed` (None: nothing sets them); a usage error (exit 2)
    for a value that is not a number above 0, naming where it came from (the
    configuration's are checked as it is read: :mod:`cmdsync.runners.project_file`)."""
    if timeout is not None:
        if not _positive(timeout):
            raise typer.BadParameter(f"{timeout:g} is not a number of seconds above 0 (such "
                                     "as 30)", param_hint="'--timeout'")
        return timeout
    text = os.environ.get("CMDSYNC_TIMEOUT", "").strip()
    if text:
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not _positive(seconds):
            raise UsageError(f"CMDSYNC_TIMEOUT {text!r} is not a number of seconds above 0 "
                             "(such as 30)")
        return seconds
    configured = project.timeout_for(environment) if project is not None else None
    return float(configured) if configured is not None else None


def _positive(seconds: float) -> bool:
    import math

    return math.isfinite(seconds) and seconds > 0


def _say_waiting(waiting: Any) -> None:
    """Say on standard error which request goes unanswered (a
    :class:`~cmdsync.client.http.Waiting`)."""
    console.err(f"waiting for {waiting.host}: {waiting.method} {waiting.path} (attempt "
                f"{waiting.attempt}) for {waiting.seconds:g} s...\n")


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


def _check_rule_prefix(value: str) -> None:
    from cmdsync.validate.rules import all_rules

    if not any(rule.id.startswith(value.upper()) for rule in all_rules()):
        raise typer.BadParameter(f"no rule id starts with {value!r}: `cmdsync rules` lists "
                                 "them", param_hint="'--select' / '--ignore'")


def _with_environment(connection: Any, env_name: str | None) -> Any:
    """``connection`` naming the environment whose stored login it may use."""
    from dataclasses import replace

    return replace(connection, environment=_environment_name(env_name))


def _environment_name(env_name: str | None) -> str:
    """The cmdsync.toml environment in use (named, else its default), or ""."""
    from cmdsync.runners.project_file import find_config

    project = find_config()
    chosen = project.environment(env_name) if project is not None else None
    return chosen.name if chosen is not None else ""


def refresh_notes() -> None:
    """On standard error, a line per refresh token this run exchanged: when its Bearer
    token expires, and what to do where Discord rotated it (the job summary says the same
    in CI: :mod:`cmdsync.client.rotation`)."""
    from cmdsync.client import rotation
    from cmdsync.client.auth import refreshes

    for refreshed in refreshes():
        console.err(rotation.refresh_note(refreshed))
