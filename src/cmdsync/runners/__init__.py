"""One runner per verb (pre-commit's ``commands/``): they open the session,
run the stages and return a value; none of them prints.

- :mod:`cmdsync.runners.session`: where the live state comes from (Discord,
  or the embedded emulator with ``--local``);
- :mod:`cmdsync.runners.fetch`: reading it: the fetch stage;
- :mod:`cmdsync.runners.validate`: ``validate --online``;
- :mod:`cmdsync.runners.plan`: ``plan`` (load, validate, fetch, diff);
- :mod:`cmdsync.runners.apply`: ``apply`` (plan, guardrails, backup, execute),
  with :mod:`cmdsync.runners.apply_writes` (the checks before the first write,
  the backup, the writes) and :mod:`cmdsync.runners.apply_saved` (a saved plan);
- :mod:`cmdsync.runners.pull`: ``pull``;
- :mod:`cmdsync.runners.files`: the saved plan on disk;
- :mod:`cmdsync.runners.project` and :mod:`cmdsync.runners.project_file`: the
  project configuration, and finding and reading its file;
- :mod:`cmdsync.runners.aio`: running a coroutine from the synchronous CLI.
"""
