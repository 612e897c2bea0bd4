"""The ``cmdsync`` command line: parse flags, call the core, render, return an exit code.

Exit codes (also in docs/ci/exit-codes.md):

===  ==========================================================
0    success; for ``validate``, no errors (warnings allowed)
1    errors found, or an expected failure (``CmdsyncError``)
2    usage error or unreadable input
70   internal error: a bug in cmdsync
130  interrupted (Ctrl-C)
===  ==========================================================

Each command lives in a module of its own (``_validate``, ``_plan``, ``_apply``,
``_login``, ``_emulator``, ``_invoke``), registered on the one typer ``app`` of
``_shared`` as it is imported; ``main`` runs it.
"""

from __future__ import annotations

import atexit
import copy
import errno
import functools
import itertools
import os
import signal
import sys
import threading
from typing import Any, NoReturn

import typer

# The commands register themselves on ``app`` as they are imported.
from cmdsync.cli import _apply, _emulator, _invoke, _login, _plan, _validate  # noqa: F401
from cmdsync.cli._shared import (
    KEPT,
    _step_summary,
    app,
)
from cmdsync.errors import (
    EXIT_BUG,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    CmdsyncError,
    UsageError,
)
from cmdsync.render import console
from cmdsync.render.escape import printable_lines

__all__ = ["app", "main"]

# --help lists the commands in this order: the offline ones, then reading, writing,
# logging in and running a bot's commands.
COMMAND_ORDER = ("validate", "rules", "init", "schema", "emulator", "plan", "diff", "pull",
                 "export", "check", "apply", "login", "logout", "invoke")
app.registered_commands.sort(
    key=lambda command: COMMAND_ORDER.index(command.name or getattr(command.callback,
                                                                    "__name__", "")))


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
        code = _for(args)(args=args, standalone_mode=False, prog_name="cmdsync")
    except typer.Exit as exc:
        code = exc.exit_code
    except click_exception as exc:
        exc.show()  # type: ignore[attr-defined]
        _file_not_option(exc)
        code = EXIT_FAILURE if detailed else exc.exit_code  # type: ignore[attr-defined]
        _json_failure(args, exc.format_message(), code)  # type: ignore[attr-defined]
        _github_failure(args, exc.format_message())  # type: ignore[attr-defined]
    except (typer.Abort, KeyboardInterrupt, CtrlC):
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
        refused = _refused_write(exc)
        if isinstance(exc, BrokenPipeError):  # the reader left (`| head`): nothing to say
            _to_devnull(sys.stdout)
            code = EXIT_FAILURE
        elif refused is not None:  # the system's doing, not cmdsync's: no "bug" here
            _try_err(f"error: {refused}\n")
            code = EXIT_FAILURE
        else:
            code = _bug(exc, args)
    finally:
        _on_sigterm(previous)
    _exit(argv, code if isinstance(code, int) else EXIT_OK)


# What the system says when it refuses a write (a full disk, a quota, a read-only or
# failing device): an error of the machine's, not a bug of cmdsync's. A closed pipe
# (the reader of `cmdsync plan | head` is gone) ends the command quietly with exit 1,
# as Python's documentation of SIGPIPE advises.
_REFUSED_WRITES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


def _bug(exc: Exception, args: list[str]) -> int:
    """Say that ``exc`` is a bug of cmdsync's (its traceback with ``CMDSYNC_DEBUG``)."""
    if os.environ.get("CMDSYNC_DEBUG"):
        import traceback

        console.err("".join(traceback.format_exception(exc)))
    console.err(
        f"internal error: {type(exc).__name__}: {printable_lines(str(exc))}\n"
        "This is a bug in cmdsync. Please report it with the command you ran "
        "(and set CMDSYNC_DEBUG=1 to see the traceback).\n")
    _json_failure(args, f"internal error: {type(exc).__name__}: {exc}", EXIT_BUG)
    return EXIT_BUG


def _refused_write(exc: BaseException) -> str | None:
    """The message for a write the system refused (see :data:`_REFUSED_WRITES`), else None."""
    if not isinstance(exc, OSError) or exc.errno not in _REFUSED_WRITES:
        return None
    where = f" ({exc.filename})" if exc.filename else " (standard output or error)"
    return (f"cannot write{where}: {exc.strerror or exc}: free space or choose another "
            "place for the output, then run the command again")


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s file descriptor at the null device: what is left in its buffer
    goes nowhere at exit, instead of failing again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):  # not a file: nothing to flush to
        pass
    finally:
        os.close(devnull)


def _try_err(text: str) -> None:
    """Say ``text`` on standard error if it can still be written."""
    try:
        console.err(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _exit(argv: list[str] | None, code: int) -> NoReturn:
    if argv is None:  # the process's entry point: nothing runs after this
        _end_process(code)
    KEPT.clear()
    sys.exit(_flushed(code))


def _end_process(code: int) -> NoReturn:
    """Exit with ``code`` without freeing the process's objects one by one.

    As mypy ends its runs: the system takes the memory back at once, where
    freeing a large plan's dicts (held by ``keep_until_exit``) and the
    modules' would delay the exit by tens of milliseconds after the output
    is written. What a normal exit does that matters still happens, in its
    order: the ``atexit`` handlers run (logging's flush, temporary files'
    finalizers), then the standard streams are flushed. Falls back to
    :func:`sys.exit` while a thread that is not a daemon still runs (a normal
    exit waits for it). When the last of the output cannot be written, the
    exit code is 1 if it was 0 (:func:`_flushed`).
    """
    if any(thread is not threading.main_thread() and not thread.daemon
           for thread in threading.enumerate()):
        sys.exit(_flushed(code))
    atexit._run_exitfuncs()  # runs each handler once, then forgets them
    os._exit(_flushed(code))


def _flushed(code: int) -> int:
    """``code`` once standard output and error are flushed: 1 if it was 0 when the
    system refused the last of the output (said on standard error) or the reader of
    a pipe left (``| head``: not said). The refused stream then points at the null
    device, so that the interpreter's own flush at exit does not fail again."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            _to_devnull(stream)
            code = code or EXIT_FAILURE
        except OSError as exc:
            refused = _refused_write(exc)
            if refused is not None:
                _to_devnull(stream)
                _try_err(f"error: {refused}\n")
                code = code or EXIT_FAILURE
        except (ValueError, AttributeError):  # closed, or no stream at all
            pass
    return code


# Shells complete through the whole app: typer's completion runs with this set.
_COMPLETING = "_CMDSYNC_COMPLETE"
_WHOLE_APP_FLAGS = ("--help", "-h", "--install-completion", "--show-completion")


def _for(args: list[str]) -> typer.Typer:
    """``app`` with only the command that ``args`` name (``plan`` of ``plan x.yaml``).

    Typer builds each command's options from its function's signature at
    every start: about 14 ms for all of cmdsync's commands, 2 ms for one,
    before a plan's first request. The root's options are flags, so the
    command is the first argument that is not an option. The whole app runs
    when none is named or the name is unknown (its "No such command"), for
    ``--help`` and completion before the name, and while a shell completes.
    """
    at = next((i for i, arg in enumerate(args) if not arg.startswith("-")), None)
    if at is None or any(arg in _WHOLE_APP_FLAGS for arg in args[:at]) \
            or _COMPLETING in os.environ:
        return app
    name = args[at]
    commands = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(getattr(c.callback, "__name__", "")))
                == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    one = copy.copy(app)
    one.registered_commands = [_interruptible(command) for command in commands]
    one.registered_groups = groups
    return one


class CtrlC(BaseException):
    """Ctrl-C in a command, past typer: it turns KeyboardInterrupt into exit 130 and
    says nothing, where :func:`main` says "Interrupted."."""


def _interruptible(command: Any) -> Any:
    """``command`` (a typer CommandInfo) whose callback raises :class:`CtrlC` for Ctrl-C."""
    callback = command.callback
    if callback is None:
        return command

    @functools.wraps(callback)  # typer reads the options from the wrapped signature
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except KeyboardInterrupt:
            raise CtrlC from None

    wrapped = copy.copy(command)
    wrapped.callback = run
    return wrapped


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
        getattr(typer.main.get_command(_for(args)), "commands", {}).get(args[at])
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
