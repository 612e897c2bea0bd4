"""The desired state: what the manifest says each scope should hold.

:func:`desired_state` turns validated manifest files into per-scope request
bodies and permission overwrites in API form, the shape
:mod:`cmdsync.state.live` gives Discord's responses. Pure values; a scope
is ``"global"`` or a guild id (a snowflake string).

With ``copy_global_to`` (an environment's, in ``cmdsync.toml``) the
manifests' global commands are that guild's instead, as discord.py's
``tree.copy_global_to(guild=...)`` copies them: the fields Discord applies
to global commands only (``contexts``, ``integration_types``,
``dm_permission``: rule CS305's) are left out of the copy, entry points
(global only) are not copied (:func:`uncopied_entry_points`), and the
global scope is not managed at all. A name declared both globally and in
that guild is an error the caller reports (:func:`copy_collisions`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cmdsync.errors import CmdsyncError
from cmdsync.manifest.diagnostics import Location
from cmdsync.manifest.entries import CommandEntry, ManifestSet
from cmdsync.manifest.files import bytes_digest
from cmdsync.manifest.interpolate import may_interpolate
from cmdsync.model import GLOBAL, CommandType
from cmdsync.state.live import Overwrite, scope_order
from cmdsync.state.normalize import canonical_overwrites, request_body


@dataclass(frozen=True)
class DesiredCommand:
    """One manifest command: its scope, the body to send, and where it was written.

    ``body`` is :func:`~cmdsync.state.normalize.request_body` of the manifest
    object (integers, no response-only keys, ``id`` kept when given).
    ``entry`` points back to the file and line (for mapping 50035 errors).
    """

    scope: str
    body: Mapping[str, Any]
    entry: CommandEntry | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str | None:
        value = self.body.get("id")
        return str(value) if value is not None else None


@dataclass(frozen=True)
class DesiredScope:
    """What the manifest says about one scope.

    ``manages_commands`` is False for a guild that only lists ``permissions``
    (its commands are then left alone). ``permissions`` maps a manifest key
    (command name, ``type:name`` or ``"*"``) to overwrites in API form,
    sorted; None when the manifest sets no permissions for the guild.
    """

    scope: str
    commands: tuple[DesiredCommand, ...] = ()
    manages_commands: bool = True
    permissions: Mapping[str, tuple[Overwrite, ...]] | None = None
    prune: bool = True


@dataclass(frozen=True)
class DesiredState:
    """Every scope the manifest manages, global first; and the manifest's digest.

    ``digest`` is ``"sha256:<hex>"`` of the desired state after
    interpolation (see :func:`state_digest`), so a saved plan can tell
    whether the manifest changed since. ``files`` are the manifest files it
    was read from, and bot code by its ``discord.py:MODULE:ATTR`` reference.
    """

    application_id: str | None
    scopes: Mapping[str, DesiredScope]
    files: tuple[str, ...] = ()
    digest: str = ""
    # the guild the manifests' global commands were copied to (copy_global_to): the
    # global scope is then neither read nor written
    copy_global_to: str | None = None

    def entries(self) -> dict[tuple[str, int, str], CommandEntry]:
        """The manifest command behind each ``(scope, type, name)``: where it is written
        (for 50035 errors and annotations)."""
        found = {}
        for scope in self.scopes.values():
            for command in scope.commands:
                if command.entry is not None:
                    kind = command.body.get("type", 1)
                    found[(scope.scope, int(kind) if isinstance(kind, int) else 1,
                           str(command.body.get("name")))] = command.entry
        return found

    def locations(self) -> Locations:
        """Where each ``(scope, type, name)`` is written, found when first asked for."""
        return Locations(self.entries)


class Locations(Mapping[tuple[str, int, str], Location]):
    """A read-only mapping of ``(scope, type, name)`` to its :class:`Location`.

    Locating a command costs its file's positions (read again with PyYAML
    when the file was read without them), so each is found on first access:
    a plan's annotations ask only for the commands that change. ``entries`` is
    the mapping of each key to its manifest entry, or a function that makes it,
    called on first use (a plan printed as text never asks).
    """

    def __init__(self, entries: Mapping[tuple[str, int, str], CommandEntry]
                 | Callable[[], Mapping[tuple[str, int, str], CommandEntry]]) -> None:
        self._source = entries
        self._made: Mapping[tuple[str, int, str], CommandEntry] | None = None
        self._found: dict[tuple[str, int, str], Location] = {}

    @property
    def _entries(self) -> Mapping[tuple[str, int, str], CommandEntry]:
        if self._made is None:
            self._made = self._source() if callable(self._source) else self._source
        return self._made

    def __getitem__(self, key: tuple[str, int, str]) -> Location:
        if key not in self._found:
            entry = self._entries[key]
            self._found[key] = entry.doc.locate(entry.path)
        return self._found[key]

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def desired_state(manifest: ManifestSet, *, application_id: str | None = None,
                  copy_global_to: str | None = None) -> DesiredState:
    """The desired state of validated manifest files.

    ``application_id`` overrides the manifests' own. ``copy_global_to``: the
    guild the global commands go to instead (see the module docstring). Raises
    :class:`~cmdsync.errors.CmdsyncError` when files name different
    applications.
    """
    app_ids, scopes = _scopes(manifest, copy_global_to)
    if application_id is None:
        application_id = _one_application(app_ids)
    bodies: dict[tuple[int, bool], tuple[dict[str, Any], dict[str, Any]]] = {}
    for entry in manifest.commands:
        copied = copy_global_to is not None and entry.scope == GLOBAL
        if copied and entry.type == CommandType.PRIMARY_ENTRY_POINT:
            continue  # global only: uncopied_entry_points
        scope = copy_global_to if copied and copy_global_to is not None else entry.scope
        # once per distinct body: equal bodies share one object (SharedBodies)
        known = bodies.get((id(entry.data), copied))
        if known is None:
            body = request_body(entry.data)
            known = bodies[(id(entry.data), copied)] = (
                entry.data, copied_body(body) if copied else body)
        body = known[1]
        scopes.setdefault(scope, {"manages": True, "prune": True, "permissions": None})
        scopes[scope].setdefault("commands", []).append(DesiredCommand(scope, body, entry))
    for perm in manifest.permissions:
        table = scopes.setdefault(perm.guild_id, {"manages": False, "prune": True,
                                                  "permissions": None})
        if table["permissions"] is None:
            table["permissions"] = {}
        table["permissions"][perm.key] = tuple(canonical_overwrites(
            [o for o in perm.overwrites if isinstance(o, dict)], perm.guild_id))
    built = {scope: DesiredScope(scope, tuple(info.get("commands", ())), info["manages"],
                                 info["permissions"], info["prune"])
             for scope, info in sorted(scopes.items(), key=lambda kv: scope_order(kv[0]))}
    files = tuple(dict.fromkeys(doc.source or doc.file for doc in manifest.documents))
    return DesiredState(application_id, built, files,
                        state_digest(application_id, built.values()), copy_global_to)


def copied_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A global command's request body as its copy in a guild: without the fields
    Discord applies to global commands only (rule CS305's ``contexts``,
    ``integration_types``, ``dm_permission``; Discord's "Application Commands"
    documentation), which a guild command would only carry as a promise Discord
    does not keep."""
    from cmdsync.validate.rules.global_only_field import FIELDS

    return {key: value for key, value in body.items() if key not in FIELDS}


def copy_collisions(manifest: ManifestSet, guild: str
                    ) -> list[tuple[CommandEntry, CommandEntry]]:
    """Each global command (copied to ``guild``) whose type and name a command declared
    in ``guild`` has too, as ``(global entry, guild entry)``: the copy would make two
    commands of one name in one scope, which Discord refuses. Entry points are not
    copied, so never collide."""
    declared: dict[tuple[int, str], CommandEntry] = {}
    for entry in manifest.commands:
        if entry.scope == guild and entry.type is not None and entry.name is not None:
            declared.setdefault((entry.type, entry.name), entry)
    found = []
    for entry in manifest.commands:
        if entry.scope != GLOBAL or entry.type is None or entry.name is None \
                or entry.type == CommandType.PRIMARY_ENTRY_POINT:
            continue
        twin = declared.get((entry.type, entry.name))
        if twin is not None:
            found.append((entry, twin))
    return found


def uncopied_entry_points(manifest: ManifestSet) -> list[CommandEntry]:
    """The global entry points (PRIMARY_ENTRY_POINT, global only) a copy to a guild
    leaves out."""
    return [entry for entry in manifest.commands
            if entry.scope == GLOBAL and entry.type == CommandType.PRIMARY_ENTRY_POINT]


def manifest_sources(manifest: ManifestSet) -> tuple[str | None, ...]:
    """For each of :func:`desired_state`'s ``files``: :func:`text_digest` of its text, or
    None when its bodies depend on more than its text (it holds a ``$``, written or
    escaped, which may interpolate the environment:
    :func:`~cmdsync.manifest.interpolate.may_interpolate`) or it is bot code.

    Worked out only for a plan that is saved (``plan --out``): hashing a large
    manifest again is no part of a plan's way to its first request.
    """
    sources: dict[str, str | None] = {}
    for doc in manifest.documents:
        digest = None
        text = doc.source_text() if doc.source is None else ""
        if text:
            encoded = text.encode("utf-8", "surrogatepass")
            if not may_interpolate(encoded):
                digest = bytes_digest(encoded)
        sources[doc.source or doc.file] = digest
    return tuple(sources.values())


def manifest_application_id(manifest: ManifestSet) -> str | None:
    """The ``application_id`` the manifests name (None: none does), as
    :func:`desired_state` reads it, without building the desired state."""
    return _one_application(_scopes(manifest, None)[0])


def _one_application(app_ids: set[str]) -> str | None:
    if len(app_ids) > 1:
        raise CmdsyncError("manifests name different applications: "
                           + ", ".join(sorted(app_ids)))
    return next(iter(app_ids), None)


def _scopes(manifest: ManifestSet, copy_global_to: str | None
            ) -> tuple[set[str], dict[str, dict[str, Any]]]:
    """Application ids and the scopes each file declares, with their prune flags (the
    global scope's declared as ``copy_global_to``'s, when given)."""
    app_ids: set[str] = set()
    scopes: dict[str, dict[str, Any]] = {}

    def declare(scope: str, *, manages: bool, prune: bool) -> None:
        if scope == GLOBAL and copy_global_to is not None:
            scope = copy_global_to
        info = scopes.setdefault(scope, {"manages": False, "prune": True, "permissions": None})
        info["manages"] = info["manages"] or manages
        info["prune"] = info["prune"] and prune

    for doc in manifest.documents:
        data = doc.data
        if isinstance(data, list):
            declare(GLOBAL, manages=True, prune=True)
            continue
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("application_id"), str) and data["application_id"]:
            app_ids.add(data["application_id"])
        prune = data.get("prune") is not False
        if "commands" in data:
            declare(GLOBAL, manages=True, prune=prune)
        guilds = data.get("guilds")
        for guild_id, guild in (guilds.items() if isinstance(guilds, dict) else ()):
            if isinstance(guild, dict):
                own = guild.get("prune")
                declare(str(guild_id), manages="commands" in guild,
                        prune=prune if own is None else own is not False)
    return app_ids, scopes


def state_digest(application_id: str | None, scopes: Iterable[DesiredScope]) -> str:
    """``"sha256:<hex>"`` over the application id and every scope's bodies and flags.

    The hash of one JSON document (sorted keys, no spaces, UTF-8)::

        {"application_id": ..., "scopes": [{"commands": [...], "manages_commands": ...,
         "permissions": ..., "prune": ..., "scope": ...}, ...]}

    written piece by piece, each distinct body encoded once.
    """
    digest = hashlib.sha256()
    encoded: dict[int, tuple[Mapping[str, Any], bytes]] = {}

    def write(value: Any) -> None:
        digest.update(_json(value))

    digest.update(b'{"application_id":')
    write(application_id)
    digest.update(b',"scopes":[')
    for n, scope in enumerate(scopes):
        digest.update(b'{"commands":[' if n == 0 else b',{"commands":[')
        for i, command in enumerate(scope.commands):
            known = encoded.get(id(command.body))
            if known is None:
                known = encoded[id(command.body)] = (command.body, _json(dict(command.body)))
            digest.update(known[1] if i == 0 else b"," + known[1])
        digest.update(b'],"manages_commands":')
        write(scope.manages_commands)
        digest.update(b',"permissions":')
        write(None if scope.permissions is None else
              {k: [dict(o) for o in v] for k, v in scope.permissions.items()})
        digest.update(b',"prune":')
        write(scope.prune)
        digest.update(b',"scope":')
        write(scope.scope)
        digest.update(b"}")
    digest.update(b"]}")
    return "sha256:" + digest.hexdigest()


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")
