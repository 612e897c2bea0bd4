"""cmdsync's exceptions, and its exit codes.

Exception tree (httpx draws its own the same way)::

    CmdsyncError             expected failure: a clean message, exit 1
    ├── UsageError           bad flags, unreadable input: exit 2
    ├── ClientError          a request to Discord could not be completed
    │   ├── ApiError         Discord answered with an error (4xx/5xx, or 429 after retries)
    │   └── NetworkError     no usable answer after every retry (timeouts, resets)
    ├── UnsafePlanError      apply refuses the plan before any write
    │                        (:mod:`cmdsync.apply.guardrails`)
    └── InvalidManifestError cmdsync.sync: the source does not validate

Anything else that escapes a command is a bug: the CLI says so and exits 70.
Ctrl-C exits 130.

The emulator's exceptions are another tree: what it answers or refuses on the wire,
caught at its edges (a route, the admin API, a gateway connection), never shown to a
cmdsync user as a failure of cmdsync::

    EmulatorError            the emulator answers or refuses; each carries a code
    ├── ErrorReply           an error response: HTTP status, Discord's code and message
    │                        (:mod:`cmdsync.emulator.reference.error_replies`)
    ├── OAuthError           an OAuth2 error response (RFC 6749 5.2)
    ├── Refused              the client would not send an invocation (a ``Refusal`` code)
    ├── Outdated             read-repair: the client's copy of a command is older
    ├── Failed               the application did not answer an interaction acceptably
    ├── Closed               a gateway connection closes with a close code (4000-4014)
    ├── InjectedFault        a fault a test asked for, answered instead of the route
    └── DroppedConnection    a fault a test asked for: the connection is cut

Problems found in a manifest are not exceptions but values,
:class:`~cmdsync.manifest.diagnostics.Diagnostic`, collected and reported
together (``validate`` exits 1 when any is an error). The emulator's error
responses are :class:`~cmdsync.emulator.reference.error_replies.ErrorReply`, what it
answers on the wire, not exceptions cmdsync's own code raises to the user.

Client messages name the method, path, status and Discord's own ``code``
and ``message`` (Discord's "Error Messages" docs); they never hold a token,
because requests carry the ``Authorization`` header only on the wire.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CHANGES = 2  # plan --detailed-exitcode: the plan has changes
EXIT_BUG = 70  # EX_SOFTWARE in sysexits.h
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM


class EmulatorError(Exception):
    """The root of the emulator's exceptions (see the module docstring): an answer or
    refusal on the wire, not a failure of cmdsync."""


class CmdsyncError(Exception):
    """An expected failure, shown to the user as ``error: <message>``."""

    exit_code = EXIT_FAILURE


class UsageError(CmdsyncError):
    """A bad flag, value or path given on the command line."""

    exit_code = EXIT_USAGE


class ClientError(CmdsyncError):
    """A request to Discord failed; ``method`` and ``path`` say which."""

    def __init__(self, message: str, *, method: str, path: str) -> None:
        super().__init__(message)
        self.method = method
        self.path = path


class ApiError(ClientError):
    """Discord's error response: HTTP ``status``, its ``code``, ``message`` and ``errors``.

    ``errors`` is the nested 50035 object (None otherwise). ``retry_after``
    is in seconds, for 429s. ``hint`` says what to do, when Discord's
    message does not (a 401, codes 20001 and 10063).
    """

    def __init__(self, *, method: str, path: str, status: int, code: int | None,
                 message: str, errors: Mapping[str, Any] | None = None,
                 retry_after: float | None = None, hint: str | None = None) -> None:
        text = f"{method} {path}: HTTP {status}: {message}"
        if code is not None:
            text += f" (code {code})"
        if hint:
            text += f": {hint}"
        for field, leaf_code, leaf_message in flatten_form_errors(errors or {}):
            text += f"\n  {field or '(request)'}: {leaf_code}: {leaf_message}"
        super().__init__(text, method=method, path=path)
        self.status = status
        self.code = code
        self.discord_message = message
        self.errors = dict(errors) if errors else None
        self.retry_after = retry_after


class NetworkError(ClientError):
    """No usable response after every retry (connection refused, reset, timeout)."""


def flatten_form_errors(errors: Mapping[str, Any], prefix: tuple[str, ...] = ()
                        ) -> Iterator[tuple[str, str, str]]:
    """``(dotted path, code, message)`` for every ``_errors`` leaf of a 50035 body.

    Paths are keys and array indexes joined with dots (``0.options.1.name``),
    as Discord nests them; ``""`` is the whole request.
    """
    for key, value in errors.items():
        if key == "_errors" and isinstance(value, list):
            for leaf in value:
                if isinstance(leaf, dict):
                    yield (".".join(prefix), str(leaf.get("code", "")),
                           str(leaf.get("message", "")))
        elif isinstance(value, dict):
            yield from flatten_form_errors(value, prefix + (str(key),))


class UnsafePlanError(CmdsyncError):
    """apply refused a plan before any write; ``reasons`` lists why."""

    def __init__(self, reasons: Sequence[str], *, heading: str) -> None:
        super().__init__(heading + "".join(f"\n  - {r}" for r in reasons))
        self.reasons = tuple(reasons)


class InvalidManifestError(CmdsyncError):
    """The manifests (or bot code) do not validate; ``diagnostics`` says where and why.

    Raised by :func:`cmdsync.sync`; the CLI prints the diagnostics instead.
    """

    def __init__(self, diagnostics: Sequence[Any]) -> None:
        lines = [f"{d.location.file}:{d.location.line}:{d.location.column}: {d.rule} "
                 f"{d.message}" for d in diagnostics[:20]]
        more = f"\n  ... and {len(diagnostics) - 20} more" if len(diagnostics) > 20 else ""
        super().__init__("the commands do not validate:" + "".join(
            f"\n  {line}" for line in lines) + more)
        self.diagnostics = tuple(diagnostics)
