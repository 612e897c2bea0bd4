"""cmdsync: declarative Discord application commands (validate, plan, apply)."""

__version__ = "0.1.0"
