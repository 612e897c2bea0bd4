"""One runner per verb (pre-commit's ``commands/``): they open the session,
run the stages and return a value; none of them prints.

- :mod:`cmdsync.runners.session`: where the live state comes from (Discord,
  or the embedded emulator with ``--local``) and reading it: the fetch stage;
- :mod:`cmdsync.runners.validate`: ``validate --online``;
- :mod:`cmdsync.runners.plan`: ``plan`` (load, validate, fetch, diff);
- :mod:`cmdsync.runners.apply`: ``apply`` (plan, guardrails, backup, execute);
- :mod:`cmdsync.runners.pull`: ``pull``;
- :mod:`cmdsync.runners.files`: the saved plan on disk;
- :mod:`cmdsync.runners.aio`: running a coroutine from the synchronous CLI.
"""
