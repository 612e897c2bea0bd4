"""Request bodies in every form Discord accepts: JSON, and forms carrying ``payload_json``.

Discord's "Reference > Uploading Files" docs: a body is JSON
(``application/json``), or ``multipart/form-data`` whose ``payload_json``
field holds the JSON and whose file parts (``files[0]``, ``files[1]`` ...)
are the attachments, or ``application/x-www-form-urlencoded`` with
``payload_json``. Without ``payload_json`` the form's text fields are the
body's fields (``content=hi``), as strings. Some libraries send every body
of a message route as a form, files or not.

:func:`parse` reads the bytes of one request (already bounded by the API's
``max_body_bytes``): ``(body, uploads)``, where ``body`` is the parsed JSON
(None for an empty form) and ``uploads`` the files, kept by name and size
only. Multipart parsing is starlette's (python-multipart); JSON is
:mod:`cmdsync.emulator.reference.strict_json`. Raises
:class:`~cmdsync.emulator.reference.error_replies.ErrorReply` 50109 when the JSON (or
``payload_json``) is not JSON, and 400 code 0 naming the problem when a
form cannot be read.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from cmdsync.emulator.reference import error_replies, strict_json

MULTIPART = "multipart/form-data"
URLENCODED = "application/x-www-form-urlencoded"
FORM_TYPES = (MULTIPART, URLENCODED)
MAX_FILES = 10  # files[0] .. files[9]: Discord's limit on one message
MAX_FIELDS = 100


@dataclass(frozen=True)
class Upload:
    """One uploaded file: its form field (``files[0]``), file name, size in bytes and
    declared content type (None when the part declares none)."""

    field: str
    filename: str
    size: int
    content_type: str | None


def media_type(content_type: str) -> str:
    """The media type of a ``Content-Type`` header, lowercase, without parameters."""
    return content_type.split(";")[0].strip().lower()


async def parse(raw: bytes, content_type: str, *, forms: bool
                ) -> tuple[Any, tuple[Upload, ...]]:
    """The body of a request and its files; see the module docstring.

    ``forms`` False (the command routes): the body is JSON whatever its
    declared type, as before forms were accepted.
    """
    kind = media_type(content_type)
    if not forms or kind not in FORM_TYPES:
        return _json(raw), ()
    if kind == URLENCODED:
        try:
            fields = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                               max_num_fields=MAX_FIELDS)
        except (UnicodeDecodeError, ValueError) as exc:
            raise _unreadable(kind, str(exc)) from exc
        return _from_fields(dict(fields)), ()
    return await _multipart(raw, content_type)


async def _multipart(raw: bytes, content_type: str) -> tuple[Any, tuple[Upload, ...]]:
    async def stream() -> AsyncGenerator[bytes, None]:
        yield raw

    parser = MultiPartParser(Headers({"content-type": content_type}), stream(),
                             max_files=MAX_FILES, max_fields=MAX_FIELDS,
                             max_part_size=max(len(raw), 1))
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise _unreadable(MULTIPART, exc.message) from exc
    fields: dict[str, str] = {}
    uploads = []
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            uploads.append(Upload(name, value.filename or name, value.size or 0,
                                  value.content_type))
            await value.close()
        else:
            fields[name] = value
    return _from_fields(fields), tuple(uploads)


def _from_fields(fields: dict[str, str]) -> Any:
    if "payload_json" in fields:
        return _json(fields["payload_json"].encode("utf-8"))
    return fields or None


def _json(raw: bytes) -> Any:
    try:
        return strict_json.loads(raw)
    except ValueError as exc:
        raise error_replies.invalid_json() from exc


def _unreadable(kind: str, reason: str) -> error_replies.ErrorReply:
    return error_replies.ErrorReply(
        400, 0, f"400: Bad Request (the {kind} body cannot be read: {reason}; send the "
        "message as JSON, or as a form whose payload_json field holds it)")
