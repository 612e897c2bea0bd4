"""Load a manifest file: YAML or JSON into data plus the line and column of every node.

:func:`load_file` never raises on bad input: every problem (unreadable file,
invalid UTF-8, syntax error, duplicate key, alias bomb, missing environment
variable) becomes a :class:`~cmdsync.manifest.diagnostics.Diagnostic` on the returned
:class:`Document`, which then carries ``data=None`` if nothing usable was read.

This module reads the file and hands its text on. YAML is read in
:mod:`cmdsync.manifest.yaml_read`: the fast way (yaml-rs) where YAML 1.1 and
1.2 agree (:mod:`~cmdsync.manifest.yaml_versions`,
:mod:`~cmdsync.manifest.yaml_walk`, :mod:`~cmdsync.manifest.yaml_pieces`),
else the careful way (PyYAML, :mod:`~cmdsync.manifest.yaml_careful`); JSON
in :mod:`cmdsync.manifest.json_read`. :class:`Document` and where its nodes
are written live in :mod:`cmdsync.manifest.document`; :class:`SharedBodies`,
equal commands kept once, in :mod:`cmdsync.manifest.shared`; ``${VAR}`` is
expanded by :mod:`cmdsync.manifest.interpolate`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from cmdsync.manifest.diagnostics import problem
from cmdsync.manifest.document import Document, Path, Position
from cmdsync.manifest.files import MAX_MANIFEST_BYTES, NotARegularFile, TooLarge, read_bounded
from cmdsync.manifest.json_read import parse_json
from cmdsync.manifest.shared import SharedBodies, share_commands
from cmdsync.manifest.yaml_read import parse_careful, parse_fast, parse_yaml

__all__ = ["MAX_BYTES", "Document", "Path", "Position", "SharedBodies", "load_file",
           "load_text"]

MAX_BYTES = MAX_MANIFEST_BYTES


def load_file(path: str, *, env: Mapping[str, str] | None = None,
              placeholders: bool = False, shared: SharedBodies | None = None) -> Document:
    """Read and parse one ``.yaml``/``.yml``/``.json`` file.

    ``env`` supplies ``${VAR}`` values (default: ``os.environ``); JSON files
    are not interpolated, since deploy scripts send them verbatim. With
    ``placeholders`` (offline validate, as ``terraform validate`` needs no
    variable values) an unset ``${VAR}`` is a note (CS004) and stays as
    written; without, it is an error. With ``shared``, equal command objects
    of this file and of the others read with it are one object
    (:class:`SharedBodies`).
    """
    kind = "json" if path.lower().endswith(".json") else "yaml"
    doc = Document(file=path, kind=kind, placeholders=placeholders)
    text = _read_text(path, doc)
    if text is None:
        doc.unreadable = True
        return doc
    doc.text = text
    if kind == "json":
        parse_json(doc)
    elif parse_fast(doc, os.environ if env is None else env, shared):
        return doc  # shared while it was read
    else:
        parse_careful(doc, os.environ if env is None else env)
    if shared is not None and doc.data is not None:
        share_commands(doc.data, shared.converted)
    return doc


def load_text(text: str, *, file: str, kind: str, env: Mapping[str, str] | None = None,
              interpolate: bool = True) -> Document:
    """Parse ``text`` as if it were the file ``file`` (for tests, stdin and other YAML
    files, such as the emulator's seeds, which pass ``interpolate=False``: ``${VAR}``
    stays as written), with the same bounds on aliases and nesting."""
    doc = Document(file=file, kind=kind, text=text)
    if kind == "json":
        parse_json(doc)
    else:
        parse_yaml(doc, (os.environ if env is None else env) if interpolate else None)
    return doc


def _read_text(path: str, doc: Document) -> str | None:
    try:
        raw = read_bounded(path, MAX_BYTES)
    except TooLarge as exc:
        problem(doc, "CS001", f"file is {exc.size:,} bytes; manifests are limited to "
                f"{MAX_BYTES:,} bytes: split it into several files", 0, 0)
        return None
    except NotARegularFile as exc:
        problem(doc, "CS001", f"cannot read file: {exc}; give a manifest file", 0, 0)
        return None
    except OSError as exc:
        problem(doc, "CS001", f"cannot read file: {exc.strerror or exc}", 0, 0)
        return None
    if b"\x00" in raw:
        problem(doc, "CS001", "file is binary (it contains NUL bytes), not YAML or JSON", 0, 0)
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        problem(doc, "CS001", f"invalid UTF-8 (byte 0x{raw[exc.start]:02x}): save the file "
                "as UTF-8", line, column)
        return None
