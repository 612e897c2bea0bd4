"""The ``cmdsync`` program: ``python -m cmdsync`` and the console script run :func:`main`."""

from __future__ import annotations


def main() -> None:
    """Run ``cmdsync`` as a process: the start's settings
    (:mod:`cmdsync.runners.startup`) before anything else is imported, then
    :func:`cmdsync.cli.main`, which ends the process."""
    from cmdsync.runners.startup import begin

    begin()
    from cmdsync.cli import main as run

    run()


if __name__ == "__main__":
    main()
