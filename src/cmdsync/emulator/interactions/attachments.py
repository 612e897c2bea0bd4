"""Attachments and mentions of a message a bot sends, as Discord renders them.

Attachments (Discord's "Reference > Uploading Files"): the files of a
multipart body (``files[0]`` ...) are matched to the body's
``attachments`` entries by ``id`` (the file's index), which may rename
them and give a ``description``; files no entry names are attached too. On
an edit, an entry with the id of an attachment the message has keeps it,
and a body without ``attachments`` keeps them all. Only names and sizes are
kept: the ``url`` names the emulator's host and serves nothing. A file past
:data:`~cmdsync.emulator.interactions.invocation.ATTACHMENT_SIZE_LIMIT` bytes is 413
code 40005, as Discord answers.

Mentions (Discord's "Allowed Mentions Object"): ``<@id>``, ``<@!id>`` and
``<@&id>`` in ``content`` name users and roles, ``@everyone`` and ``@here``
everyone; without ``allowed_mentions`` every kind is parsed (and a reply
pings its author), with it only the kinds in ``parse`` and the ids in
``users`` and ``roles`` (and the replied-to author with ``replied_user``).
``@everyone`` needs the MENTION_EVERYONE permission.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from cmdsync.emulator.domain import payloads
from cmdsync.emulator.interactions.invocation import ATTACHMENT_SIZE_LIMIT
from cmdsync.emulator.reference import error_replies
from cmdsync.emulator.reference.request_body import Upload
from cmdsync.emulator.store.database import Store
from cmdsync.model import Permission

ATTACHMENT_HOST = "http://cmdsync.local/attachments"  # not served: names and sizes only
_FILE_INDEX = re.compile(r"^files\[([0-9]{1,2})\]$")
_USER = re.compile(r"<@!?([0-9]{1,20})>")
_ROLE = re.compile(r"<@&([0-9]{1,20})>")
_EVERYONE = re.compile(r"@(everyone|here)\b")
_ALL_KINDS = ("users", "roles", "everyone")


def with_uploads(body: Mapping[str, Any], uploads: Sequence[Upload]) -> dict[str, Any]:
    """``body`` with an ``attachments`` entry per upload when it lists none (so that a
    message of files alone is not empty)."""
    out = dict(body)
    if uploads and not out.get("attachments"):
        out["attachments"] = [{"id": str(index), "filename": upload.filename}
                              for index, upload in _indexed(uploads)]
    return out


def build(body: Mapping[str, Any], uploads: Sequence[Upload], channel_id: str,
          new_id: Callable[[], str], existing: Sequence[Mapping[str, Any]] = ()
          ) -> list[dict[str, Any]]:
    """The message's attachment objects; see the module docstring."""
    for upload in uploads:
        if upload.size > ATTACHMENT_SIZE_LIMIT:
            raise error_replies.too_large()
    files = dict(_indexed(uploads))
    entries = body.get("attachments")
    if not isinstance(entries, list):
        kept = [dict(a) for a in existing] if "attachments" not in body else []
        return kept + [_attachment(u, {}, channel_id, new_id()) for _, u in _indexed(uploads)]
    by_id = {str(a["id"]): a for a in existing}
    out: list[dict[str, Any]] = []
    named: set[str] = set()
    for entry in entries:
        key = str(entry.get("id", "")) if isinstance(entry, dict) else ""
        if key in files:
            named.add(key)
            out.append(_attachment(files[key], entry, channel_id, new_id()))
        elif key in by_id:
            out.append(dict(by_id[key]))
    out += [_attachment(u, {}, channel_id, new_id())
            for key, u in files.items() if key not in named]
    return out


def _indexed(uploads: Sequence[Upload]) -> list[tuple[str, Upload]]:
    """``(index, upload)``: ``files[n]`` is index n, other file fields in their order."""
    taken = {int(m.group(1)) for u in uploads if (m := _FILE_INDEX.match(u.field))}
    free = (n for n in range(len(uploads) + len(taken)) if n not in taken)
    out = []
    for upload in uploads:
        match = _FILE_INDEX.match(upload.field)
        out.append((str(int(match.group(1)) if match else next(free)), upload))
    return out


def _attachment(upload: Upload, entry: Mapping[str, Any], channel_id: str,
                attachment_id: str) -> dict[str, Any]:
    name = entry.get("filename") if isinstance(entry.get("filename"), str) else None
    filename = name or upload.filename
    url = f"{ATTACHMENT_HOST}/{channel_id}/{attachment_id}/{quote(filename)}"
    body: dict[str, Any] = {"id": attachment_id, "filename": filename, "size": upload.size,
                            "url": url, "proxy_url": url}
    if upload.content_type:
        body["content_type"] = upload.content_type
    if isinstance(entry.get("description"), str):
        body["description"] = entry["description"]
    return body


def mentions(store: Store, guild_id: str, content: str, allowed: Any, *,
             permissions: int, replied_author: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """``{"mentions", "mention_roles", "mention_everyone"}`` of a message; see the
    module docstring. ``permissions`` are the sender's."""
    allowed = allowed if isinstance(allowed, dict) else None
    kinds = _ALL_KINDS if allowed is None else tuple(allowed.get("parse") or ())
    users = [] if allowed is None else [str(u) for u in allowed.get("users") or []]
    roles = [] if allowed is None else [str(r) for r in allowed.get("roles") or []]
    people: dict[str, dict[str, Any]] = {}
    for user_id in _USER.findall(content):
        person = payloads.person(user_id, store.user(user_id), store.application(user_id))
        if person is not None and ("users" in kinds or user_id in users):
            people.setdefault(user_id, person)
    if replied_author is not None and (allowed is None or allowed.get("replied_user")):
        people.setdefault(replied_author["id"], replied_author)
    guild_roles = {role["id"] for role in store.roles(guild_id)}
    mentioned_roles = [role_id for role_id in dict.fromkeys(_ROLE.findall(content))
                       if role_id in guild_roles and ("roles" in kinds or role_id in roles)]
    everyone = bool(_EVERYONE.search(content)) and "everyone" in kinds and bool(
        permissions & (1 << Permission.MENTION_EVERYONE))
    return {"mentions": list(people.values()), "mention_roles": mentioned_roles,
            "mention_everyone": everyone}
