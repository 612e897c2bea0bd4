"""``cmdsync emulator``: serve the local emulator of Discord's API and its console."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cmdsync.cli._shared import (
    app,
)
from cmdsync.errors import (
    EXIT_OK,
)
from cmdsync.render import console


@app.command(short_help="Run a local emulator of Discord's API, and its web console.")
def emulator(
    host: Annotated[str, typer.Option(help="Address to listen on.", metavar="HOST")]
        = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port to listen on (0 picks a free one).",
                                      min=0, max=65535, metavar="PORT")] = 8787,
    state: Annotated[str | None, typer.Option(
        help="SQLite file that keeps the state across restarts (default: in memory).",
        metavar="FILE", show_default=False)] = None,
    seed: Annotated[str | None, typer.Option(
        help="YAML file of applications, guilds, users and tokens (see docs/emulator/seed.md, "
        "https://cmdsync.github.io/cmdsync/emulator/seed/).", metavar="FILE",
        show_default=False)] = None,
    global_limit: Annotated[int, typer.Option(
        help="Requests per second per token before 429 (Discord: 50; 0 disables).",
        metavar="N")] = 50,
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
