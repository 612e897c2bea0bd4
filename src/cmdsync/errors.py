"""The one base class for expected failures, and cmdsync's exit codes.

Exception tree::

    CmdsyncError          expected failure: a clean message, exit 1
    └── UsageError        bad flags, unreadable input: exit 2

Anything else that escapes a command is a bug: the CLI says so and exits 70.
Ctrl-C exits 130.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CHANGES = 2  # plan --detailed-exitcode: the plan has changes
EXIT_BUG = 70  # EX_SOFTWARE in sysexits.h
EXIT_INTERRUPTED = 130


class CmdsyncError(Exception):
    """An expected failure, shown to the user as ``error: <message>``."""

    exit_code = EXIT_FAILURE


class UsageError(CmdsyncError):
    """A bad flag, value or path given on the command line."""

    exit_code = EXIT_USAGE
