"""Aliases, nesting and errors must stay within bounds.

A "billion laughs" file nests aliases so that a few lines expand to billions
of nodes. cmdsync stops once aliases expand to more than 100,000 nodes plus
ten times the file's own node count, or the data is nested more than 64
levels deep (a manifest needs about 8). Checked while loading. A file with
more than 100 schema errors (a list of a million numbers, say) shows the
first 100 and this error: the rest of it is not checked.

Failing::

    a: &a [x, x, x, x, x, x, x, x, x, x]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
    # ... and so on for nine levels

Passing (anchors that share an option block)::

    x-target: &target {type: user, name: target, description: Who, required: true}
    commands:
      - {name: kick, description: Kick a member, options: [*target]}
      - {name: ban, description: Ban a member, options: [*target]}

Top-level keys starting with ``x-`` are extension fields that cmdsync
ignores, as in Docker Compose: the place for such shared blocks.
"""

from cmdsync.manifest.diagnostics import Severity

ID = "CS003"
NAME = "resource-limit"
TITLE = "Aliases, nesting and errors stay within bounds"
SEVERITY = Severity.ERROR
CHECKED_BY = "loader"
