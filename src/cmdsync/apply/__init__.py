"""Apply: make Discord match a plan with the fewest requests, nothing lost.

- :mod:`cmdsync.apply.strategy` (pure): a plan's scopes as request steps
  (bulk overwrite or per command);
- :mod:`cmdsync.apply.guardrails` (pure): the reasons a plan is unsafe to
  apply, checked before any write (octodns' ``raise_if_unsafe``);
- :mod:`cmdsync.apply.execute` (I/O): sends the steps, scope by scope;
- :mod:`cmdsync.apply.result` (pure): what happened, an :class:`ApplyResult`;
- :mod:`cmdsync.apply.backup` and :mod:`cmdsync.apply.ledger` (I/O): the
  backup written before the first write, and the daily create ledger;
- :mod:`cmdsync.apply.form_errors` (pure): 50035 errors mapped back to
  manifest lines.
"""
