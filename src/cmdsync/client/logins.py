"""Where ``cmdsync login`` keeps a user's tokens: the OS keyring, else a file only
the user can read.

A :class:`Login` is keyed by its :class:`Place` (the API URL, the application
and the environment of cmdsync.toml) and its user; each place also records
its current user (the last one logged in), which plan and apply use.

:class:`Store` keeps an index of the logins (places, users, scopes, expiry;
no token) in ``logins.json`` in ``platformdirs.user_config_dir("cmdsync")``
(or ``$CMDSYNC_CONFIG_DIR``), created with mode 0600 and replaced atomically.
The tokens go to the ``keyring`` library's backend (macOS Keychain, Windows
Credential Locker, the Secret Service; service ``cmdsync``) when one is
usable, never the fail or null backend (``PYTHON_KEYRING_BACKEND=
keyring.backends.null.Keyring`` keeps them out of it), else into the file
beside the index. Tokens never appear in a ``repr``.

As ssh with its keys, a store others could write is refused (on POSIX
systems; Windows keeps ACLs, not mode bits): a ``logins.json`` or a
directory writable by the group or by everyone, or owned by another user
(root aside), is neither read nor written, and the
:class:`~cmdsync.errors.CmdsyncError` names the path, its mode and the
``chmod`` that fixes it. Someone who can write there could otherwise plant
a login (their own token, used by plan and apply as yours) or read yours.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from cmdsync.client.redact import remember
from cmdsync.errors import CmdsyncError

SERVICE = "cmdsync"
FILE_NAME = "logins.json"
CONFIG_DIR_VARIABLE = "CMDSYNC_CONFIG_DIR"


@dataclass(frozen=True)
class Place:
    """Where a login is valid: an API URL, an application, an environment ("" for none)."""

    api_url: str
    application_id: str
    environment: str = ""

    @property
    def key(self) -> str:
        return f"{self.api_url.rstrip('/')}|{self.application_id}|{self.environment}"


@dataclass(frozen=True)
class Login:
    """A user's tokens for a place; ``expires_at`` in epoch seconds."""

    place: Place
    user_id: str
    user_name: str
    scopes: tuple[str, ...]
    expires_at: float
    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)

    @property
    def key(self) -> str:
        return f"{self.place.key}|{self.user_id}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["scopes"] = list(self.scopes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Login:
        """Raises KeyError or TypeError on a malformed record."""
        login = cls(Place(**data["place"]), str(data["user_id"]), str(data["user_name"]),
                    tuple(data["scopes"]), float(data["expires_at"]),
                    str(data["access_token"]), str(data["refresh_token"]))
        remember(login.access_token)
        remember(login.refresh_token)
        return login


class Store:
    """Logins: an index in ``logins.json`` (mode 0600, replaced atomically on each
    change); the tokens in the keyring when ``keyring`` gives a usable backend, else in
    the file beside the index. Reading a place no one logged in at opens only the file
    (importing ``keyring`` and finding its backend costs ~0.1 s on every plan)."""

    def __init__(self, directory: str, *, keyring: Callable[[], Any] | None = None) -> None:
        self.path = os.path.join(directory, FILE_NAME)
        self._find_keyring = keyring
        self._backend: list[Any] = []  # the backend once looked for (None: none usable)

    @property
    def where(self) -> str:
        """Where new tokens go, for messages."""
        return "the system keyring" if self._keyring() is not None else self.path

    def _keyring(self) -> Any:
        if not self._backend:
            self._backend.append(self._find_keyring() if self._find_keyring else None)
        return self._backend[0]

    def check(self) -> None:
        """Raises :class:`~cmdsync.errors.CmdsyncError` when others could write the
        store: its directory or ``logins.json`` writable by the group or everyone, or
        owned by another user than you or root (POSIX only; what does not exist yet is
        created by cmdsync, 0700 and 0600)."""
        if not hasattr(os, "getuid"):  # Windows: ACLs, not mode bits
            return
        for path, fix in ((os.path.dirname(self.path), 0o700), (self.path, 0o600)):
            try:
                found = os.stat(path)
            except OSError:  # not there yet; or unreadable, which reading it then says
                continue
            _refuse_if_others_can_write(path, found, fix)

    def _read(self) -> dict[str, Any]:
        self.check()
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return {"logins": {}, "current": {}}
        except (OSError, ValueError) as exc:
            raise CmdsyncError(f"cannot read {self.path}: {exc}: delete it and run "
                               "`cmdsync login` again") from None
        if not isinstance(data, dict):
            raise CmdsyncError(f"{self.path} is not cmdsync's: delete it and run "
                               "`cmdsync login` again")
        data.setdefault("logins", {})
        data.setdefault("current", {})
        return data

    def _write(self, data: dict[str, Any]) -> None:
        directory = os.path.dirname(self.path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self.check()
        handle, temporary = tempfile.mkstemp(prefix=".logins-", dir=directory)  # mode 0600
        try:
            if hasattr(os, "fchmod"):  # POSIX; Windows has it from Python 3.13 only
                os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def save(self, login: Login) -> None:
        """Store ``login`` and make its user the place's current one."""
        data = self._read()
        record = login.to_json()
        backend = self._keyring()
        if backend is not None:
            tokens = {name: record.pop(name) for name in _TOKENS}
            backend.set_password(SERVICE, login.key, json.dumps(tokens))
            record["in_keyring"] = True
        data["logins"][login.key] = record
        data["current"][login.place.key] = login.user_id
        self._write(data)

    def current(self, place: Place) -> Login | None:
        """The login of the place's current user, or None."""
        data = self._read()
        user = data["current"].get(place.key)
        record = data["logins"].get(f"{place.key}|{user}") if user else None
        if not isinstance(record, dict):
            return None
        try:
            if record.get("in_keyring"):
                record = {**record, **self._tokens(f"{place.key}|{user}")}
            return Login.from_json(record)
        except (KeyError, TypeError, ValueError):
            raise CmdsyncError(f"{self.path}: the login for {place.key} is damaged: run "
                               "`cmdsync login` again") from None

    def _tokens(self, key: str) -> dict[str, Any]:
        backend = self._keyring()
        found = backend.get_password(SERVICE, key) if backend is not None else None
        if found is None:
            raise CmdsyncError(f"the tokens of the login for {key.rsplit('|', 1)[0]} are not "
                               "in the system keyring (unreachable, or removed): run "
                               "`cmdsync login` again")
        tokens = json.loads(found)
        return tokens if isinstance(tokens, dict) else {}

    def forget(self, login: Login) -> None:
        """Remove ``login`` (its keyring entry too)."""
        data = self._read()
        record = data["logins"].pop(login.key, None)
        if data["current"].get(login.place.key) == login.user_id:
            del data["current"][login.place.key]
        backend = self._keyring() if isinstance(record, dict) and record.get("in_keyring") \
            else None
        if backend is not None:
            import keyring.errors

            try:
                backend.delete_password(SERVICE, login.key)
            except keyring.errors.PasswordDeleteError:
                pass  # already gone
        self._write(data)


def _refuse_if_others_can_write(path: str, found: os.stat_result, fix: int) -> None:
    mode = stat.S_IMODE(found.st_mode)
    if found.st_uid not in (os.getuid(), 0):
        raise CmdsyncError(
            f"refusing the login store {path}: it belongs to user id {found.st_uid}, not to "
            f"you ({os.getuid()}), so no token is read from it or written to it: move it "
            f"away (`cmdsync login` then makes one of yours) or set {CONFIG_DIR_VARIABLE} "
            "to a directory of yours")
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CmdsyncError(
            f"refusing the login store {path}: its mode {mode:04o} lets other users write "
            "it, so no token is read from it or written to it: run "
            f"`chmod {fix:o} {shlex.quote(path)}`")


def default_store(env: Mapping[str, str] | None = None) -> Store:
    """The store in ``$CMDSYNC_CONFIG_DIR`` (then never the keyring), else in
    ``platformdirs.user_config_dir("cmdsync")`` with the keyring when usable."""
    env = os.environ if env is None else env
    if env.get(CONFIG_DIR_VARIABLE):
        return Store(env[CONFIG_DIR_VARIABLE])
    import platformdirs

    return Store(platformdirs.user_config_dir("cmdsync"), keyring=_keyring)


_TOKENS = ("access_token", "refresh_token")


def _keyring() -> Any:
    """The keyring backend, or None when only the fail/null backend (or none) is found."""
    try:
        import keyring
        from keyring.backends import chainer, fail, null
    except ImportError:  # pragma: no cover - a dependency
        return None
    backend = keyring.get_keyring()
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return backend
