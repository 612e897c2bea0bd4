"""The files cmdsync reads and writes for the user: bounded reads, safe writes.

Reads (:func:`read_bounded`) take regular files only, opened without
blocking, and read at most a limit: a FIFO, a device such as ``/dev/zero``
or a pipe (``<(...)``) is refused at once instead of hanging or filling
memory.

Writes (:func:`write_file`) are atomic (a temporary file beside the
destination, then a rename), refuse a destination that is a symbolic link
or not a regular file (a FIFO, a device, a directory) instead of replacing
it or writing through it, overwrite an existing file only when asked, and
redact secrets (:func:`cmdsync.client.redact.redact`) from what they write.

Manifest files are read as UTF-8 (a byte order mark dropped), at most
:data:`MAX_MANIFEST_BYTES`; :func:`text_digest` names such a text.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from typing import NoReturn

from cmdsync.client.redact import redact
from cmdsync.errors import CmdsyncError, UsageError

MAX_MANIFEST_BYTES = 10 * 1024 * 1024
CODE_PREFIX = "discord.py:"  # a manifest argument naming bot code: discord.py:MODULE:ATTR


def is_code_source(path: str) -> bool:
    """Whether a manifest argument names bot code (``discord.py:MODULE:ATTR``)."""
    return path.startswith(CODE_PREFIX)


def text_digest(text: str) -> str:
    """``"sha256:<hex>"`` of ``text`` encoded as UTF-8: a manifest file's text as the
    loader decoded it (a byte order mark dropped)."""
    return bytes_digest(text.encode("utf-8", "surrogatepass"))


def bytes_digest(data: bytes) -> str:
    """``"sha256:<hex>"`` of ``data``: :func:`text_digest` of a manifest file's text,
    from its UTF-8 bytes (a byte order mark dropped)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


class NotARegularFile(OSError):
    """The path is a FIFO, a device, a directory or a socket; ``kind`` says which."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"it is {kind}, not a regular file")
        self.kind = kind


class FileExists(UsageError):
    """:func:`write_file` was told not to overwrite, and the destination exists (or
    appeared while it wrote): a caller choosing a free name tries the next one."""


class TooLarge(OSError):
    """The file holds more than the limit; ``size`` is what was seen (bytes)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"it is larger than allowed ({size:,} bytes or more)")
        self.size = size


def kind_of(mode: int) -> str | None:
    """``"a FIFO (named pipe)"`` and the like for what is not a regular file; else None."""
    return next((name for test, name in _KINDS if test(mode)), None)


WORK_DIRECTORY = ".cmdsync"  # the --local state, the create ledger, backups


def work_directory(root: str, *, create: bool = True) -> str:
    """``root/.cmdsync``, where cmdsync keeps the ``--local`` state, the create ledger
    and backups; made (with its parents) when ``create`` and absent.

    Raises :class:`~cmdsync.errors.CmdsyncError` naming it and saying what to
    do when something else holds the name (a file, a FIFO, a broken symbolic
    link), or when it cannot be made; never ``FileExistsError`` or
    ``NotADirectoryError`` from a later open.
    """
    path = os.path.join(root, WORK_DIRECTORY)
    info = _stat(path)
    if info is None and create:
        try:
            os.makedirs(path, exist_ok=True)
        except FileExistsError:
            pass  # something other than a directory holds the name: said below
        except OSError as exc:
            raise CmdsyncError(f"cannot create the directory {path}: "
                               f"{exc.strerror or exc}") from exc
        info = _stat(path)  # another process may have made it meanwhile: fine
    if info is None and os.path.lexists(path):
        info = _stat(path)  # made meanwhile, else a link to nothing
        if info is None:
            _in_the_way(path, "a broken symbolic link")
    if info is not None and not stat.S_ISDIR(info.st_mode):
        _in_the_way(path, kind_of(info.st_mode) or "a file")
    return path


def _stat(path: str) -> os.stat_result | None:
    """``os.stat`` (a link to a directory is fine), None when nothing is there."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CmdsyncError(f"cannot use {path}: {exc.strerror or exc}") from exc


def _in_the_way(path: str, kind: str) -> NoReturn:
    raise CmdsyncError(f"{path} is {kind}, not a directory: cmdsync keeps its local state, "
                       "create ledger and backups in the directory .cmdsync/ there; move or "
                       "delete it, then run the command again")


def read_bounded(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises :class:`NotARegularFile` for anything else (without waiting for
    a FIFO's writer), :class:`TooLarge` past ``limit`` bytes, and
    ``OSError`` when it cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        kind = kind_of(info.st_mode)
        if kind is not None:
            raise NotARegularFile(kind)
        if info.st_size > limit:
            raise TooLarge(info.st_size)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(len(data))
    return data


def write_file(path: str, text: str, *, what: str, overwrite: bool = True,
               mode: int = 0o644, data: bool = False) -> None:
    """Write ``text`` (secrets redacted) to ``path`` atomically.

    ``data``: the text must read back exactly (a saved plan, a backup, a
    pulled manifest), so only the secrets cmdsync read are redacted, not text
    merely shaped like a credential (:func:`cmdsync.client.redact.redact`).

    ``what`` names the file in messages (``"the plan"``). Raises
    :class:`~cmdsync.errors.UsageError` for a destination that is a symbolic
    link or not a regular file, :class:`FileExists` (a ``UsageError``) when it
    exists and ``overwrite`` is False (the message says to pass ``--force``), and
    :class:`~cmdsync.errors.CmdsyncError` when it cannot be written.
    ``mode`` is the new file's permission bits (before the umask).
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise CmdsyncError(f"cannot write {what} to {path}: {exc.strerror or exc}") from exc
    if info is not None:
        kind = kind_of(info.st_mode)
        if kind is not None:
            raise UsageError(f"refusing to write {what} to {path}: it is {kind}, not a "
                             "regular file; give the path of a regular file")
        if not overwrite:
            raise FileExists(f"refusing to overwrite {path}: it exists; pass --force to "
                             "replace it")
    directory = os.path.dirname(os.path.abspath(path))
    temp = None
    try:
        handle, temp = tempfile.mkstemp(dir=directory, prefix=".cmdsync-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(redact(text, shapes=not data))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, mode & ~umask)
        if overwrite:
            os.replace(temp, path)
        else:
            os.link(temp, path)  # fails if the path appeared meanwhile
            os.unlink(temp)
        temp = None
    except FileExistsError as exc:
        raise FileExists(f"refusing to overwrite {path}: it exists; pass --force to "
                         "replace it") from exc
    except OSError as exc:
        raise CmdsyncError(f"cannot write {what} to {path}: {exc.strerror or exc}") from exc
    finally:
        if temp is not None and os.path.exists(temp):
            os.unlink(temp)
