"""``cmdsync invoke``: run a command against a bot through the emulator."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any

import typer

from cmdsync.cli._shared import (
    EnvOption,
    ExchangeFormat,
    LocalOption,
    TimeoutOption,
    TokenFileOption,
    _connection,
    _project,
    _timed,
    app,
)
from cmdsync.errors import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
)
from cmdsync.render import console


class ContextChoice(str, enum.Enum):
    guild = "guild"
    bot_dm = "bot_dm"
    private_channel = "private_channel"


def _acted(on: str | None, click: str | None, custom_id: str | None,
           choose: list[str] | None, submit: str | None, field: list[str] | None
           ) -> dict[str, Any]:
    """The Request fields of a click, a choice or a modal submitted (none for a
    command); UsageError for flags that do not go together."""
    if on is None and (click or custom_id or choose):
        raise UsageError("--click, --custom-id and --choose act on a message: give --on "
                         "MESSAGE_ID")
    if submit is None and field:
        raise UsageError("--field fills a modal: give --submit INTERACTION_ID")
    if on is not None:
        if click and choose:
            raise UsageError("--click is a button, --choose a select's values: give one")
        if not (click or custom_id or choose):
            raise UsageError("--on needs --click LABEL, --custom-id ID or --choose VALUE")
        return {"kind": "component", "message_id": on, "label": click,
                "custom_id": custom_id, "values": tuple(choose) if choose else None}
    if submit is not None:
        fields = []
        for item in field or []:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"--field {item!r}: give KEY=VALUE (the text input's "
                                 "custom_id or label, then its text)")
            fields.append((key, value))
        return {"kind": "modal_submit", "modal_of": submit, "fields": tuple(fields)}
    return {}


@app.command(short_help="Run a command against the emulator, as a user in Discord would.")
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
    on: Annotated[str | None, typer.Option(
        "--on", help="Act on the message ID the bot sent: with --click or --choose.",
        metavar="ID", show_default=False)] = None,
    click: Annotated[str | None, typer.Option(
        "--click", help="With --on: click the button labelled LABEL (or --custom-id).",
        metavar="LABEL", show_default=False)] = None,
    custom_id: Annotated[str | None, typer.Option(
        "--custom-id", help="With --on: the button or select by its custom_id.",
        metavar="ID", show_default=False)] = None,
    choose: Annotated[list[str] | None, typer.Option(
        "--choose", help="With --on: choose VALUE in the select (--custom-id, unless it is "
        "the message's only one); repeat it for more values.", metavar="VALUE",
        show_default=False)] = None,
    submit: Annotated[str | None, typer.Option(
        "--submit", help="Submit the modal the interaction ID was answered with; its text "
        "inputs with --field.", metavar="ID", show_default=False)] = None,
    field: Annotated[list[str] | None, typer.Option(
        "--field", help="With --submit: a text input's value, by custom_id or label "
        "(KEY=VALUE); repeat it for each.", metavar="KEY=VALUE", show_default=False)] = None,
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
        "--locale", help="The user's client locale (the interaction's locale): names may "
        "be typed as the client shows them in it (localized, else default).",
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
    settle: Annotated[float, typer.Option(
        "--settle", help="With --wait: stop waiting once the bots have been idle SECONDS "
        "(no API request in flight, no gateway event queued; after --follow-ups).",
        metavar="SECONDS")] = 0.0,
    output: Annotated[ExchangeFormat, typer.Option(
        "--format", "-f", help="text, or json (the whole exchange, the interaction token "
        "redacted).")] = ExchangeFormat.text,
    api_url: Annotated[str | None, typer.Option(
        "--api-url", help="The emulator's API URL, e.g. http://127.0.0.1:8787/api/v10 "
        "(default: CMDSYNC_API_URL).", metavar="URL", show_default=False)] = None,
    local: LocalOption = False,
    application_id: Annotated[str | None, typer.Option(
        "--application-id", help="The application to run it for (default: "
        "DISCORD_APPLICATION_ID, else the emulator's only one).", metavar="ID",
        show_default=False)] = None,
    token_file: TokenFileOption = None,
    env_name: EnvOption = None,
    timeout: TimeoutOption = None,
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

    acted = _acted(on, click, custom_id, choose, submit, field)
    given = [name for name, value in (("a command line", line),
                                      ("--user-command", user_command),
                                      ("--message-command", message_command),
                                      ("--on", on), ("--submit", submit)) if value]
    if len(given) != 1:
        raise UsageError("give one of: a command line ('/ping'), --user-command NAME, "
                         "--message-command NAME, --on MESSAGE_ID (a click or a choice) or "
                         "--submit INTERACTION_ID (a modal)"
                         + (f" (got {' and '.join(given)})" if given else ""))
    if target and line:
        raise UsageError("--target is for --user-command and --message-command")
    kind = "user" if user_command else "message" if message_command else "chat_input"
    if local and wait:
        console.warn("with --local the emulator runs inside this command: your bot cannot "
                     "reach it for follow-ups (run `cmdsync emulator` and --api-url)")
    connection = _connection(api_url=api_url, local=local, token_file=token_file,
                             client_secret_file=None, bearer_token_file=None)
    chosen = _project(None, env_name, need_paths=False)  # its application and API URL
    # unless a timeout is set, invoke's own 60 s: the emulator holds each request while
    # the bot answers
    connection = _timed(connection, timeout, chosen.project, chosen.environment,
                        keep_unset=True)
    request = Request(
        line=line, kind=kind, name=user_command or message_command, target=target,
        autocomplete=autocomplete, guild=guild, channel=channel, user=user, locale=locale,
        context=context.value if context else None, endpoint=endpoint, wait=wait,
        follow_ups=follow_ups, settle=settle)
    result = run_invoke(connection, dataclasses.replace(request, **acted) if acted
                        else request,
                        application_id=application_id, env=chosen.env, cwd=chosen.root)
    if output is ExchangeFormat.json:
        console.out(render.to_json(result))
    elif result.refused or result.outdated:
        console.err(render.to_text(result))
    else:
        console.text_or_rich(render.to_text(result), lambda: render.to_rich(result))
    if result.interrupted:
        console.err("\nInterrupted while waiting for follow-ups.\n")
        return EXIT_INTERRUPTED
    return EXIT_OK if result.ok else EXIT_FAILURE
