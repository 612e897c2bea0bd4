"""All files of one run must name the same ``application_id``.

A run validates (and later applies) one desired state for one application:
commands live under ``/applications/{app}/...`` (Discord's "Application Commands" documentation (endpoints)), so
files that name different applications cannot be one state, and applying
them would split commands between two bots. Each file whose
``application_id`` differs from the first file that sets one is an error,
with that first one as the related location. Files without an
``application_id`` are fine. Values that are not snowflakes (CS501) or still
hold a ``${VAR}`` placeholder (CS004) are skipped.

Failing::

    # bot.yaml
    application_id: "111111111111111111"
    # admin.yaml
    application_id: "111111111111111112"

Passing::

    # bot.yaml
    application_id: "${CMDSYNC_TEST_APP}"
    # admin.yaml
    application_id: "111111111111111111"
"""

from __future__ import annotations

from collections.abc import Iterator

from cmdsync.manifest.diagnostics import Severity
from cmdsync.manifest.entries import ManifestSet
from cmdsync.manifest.loader import Document
from cmdsync.validate.rules.base import Finding
from cmdsync.validate.rules.common import is_snowflake, judgeable

ID = "CS502"
NAME = "application-id-mismatch"
TITLE = "All files name the same application_id"
SEVERITY = Severity.ERROR

FIELD = "application_id"


def check(manifest: ManifestSet) -> Iterator[Finding]:
    first: tuple[Document, str] | None = None
    for doc in manifest.documents:
        value = doc.data.get(FIELD) if isinstance(doc.data, dict) else None
        if not judgeable(value) or not is_snowflake(value):
            continue
        if first is None:
            first = (doc, value)
        elif value != first[1]:
            yield Finding(doc, (FIELD,),
                          f"application_id {value!r} differs from {first[1]!r} set by another "
                          "file of this run; all files describe one application: use one id, "
                          "or validate the applications separately",
                          related=((first[0], (FIELD,)),))
